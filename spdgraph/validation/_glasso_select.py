"""Choosing the graphical lasso penalty: K-fold held-out likelihood, EBIC or StARS.

The penalty grid is log-spaced from ``max_{i != j} |S_ij|`` (where the
solution is diagonal) down to ``eps`` times that (``eps`` 0.01 when
``n > p``, 0.1 otherwise, the conventions of R's ``huge``). Cross-validation
fits the path on each fold's training part (its own covariance, centred by
the training means) and scores the held-out Gaussian log-likelihood
``log det(Theta) - tr(S_test Theta)``; EBIC (Foygel and Drton 2010) is
``-n (log det(Theta) - tr(S Theta)) + |E| log n + 4 gamma |E| log p`` on the
full-data path; StARS (Liu, Roeder and Wasserman 2010, see
:mod:`spdgraph.validation._stars`) picks the smallest penalty whose edges are
stable over subsamples. The fold paths are solved to a looser certificate
(``cv_kkt_tol``, default 1e-4 relative): the held-out likelihood is smooth at
the optimum, so this moves it by far less than its fold-to-fold spread; the
returned fit at the chosen penalty is certified to ``kkt_tol``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.validation._glasso import KKT_TOL, GlassoFit, _check_covariance, _Solver
from spdgraph.validation._lasso import kfold
from spdgraph.validation._stars import stars_instability

__all__ = ["CRITERIA", "GlassoSelection", "glasso_penalties", "select_glasso"]

#: Penalty selection criteria of :func:`select_glasso`.
CRITERIA = ("cv", "ebic", "stars")
#: The learner ``"glasso"``'s default criterion (chosen by the table in docs/validation.md).
GLASSO_CRITERION = "stars"


@dataclass(frozen=True)
class GlassoSelection:
    """Result of :func:`select_glasso`.

    Attributes
    ----------
    fit
        The certified :class:`GlassoFit` on all the data at the chosen penalty.
    rhos
        The penalty grid, decreasing.
    scores
        Per penalty: mean held-out log-likelihood (``"cv"``, higher is better)
        or EBIC (``"ebic"``, lower is better) or the monotone instability
        (``"stars"``, ``inf`` past the point where the path stopped).
    criterion
        ``"cv"``, ``"ebic"`` or ``"stars"``.
    """

    fit: GlassoFit
    rhos: np.ndarray
    scores: np.ndarray
    criterion: str

    @property
    def rho(self) -> float:
        """The chosen penalty."""
        return self.fit.rho


def glasso_penalties(
    s: np.ndarray, n: int, n_rhos: int = 30, eps: float | None = None
) -> np.ndarray:
    """The penalty grid: ``n_rhos`` values log-spaced from ``max |S_ij|`` (``i != j``) down.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import glasso_penalties
    >>> s = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> glasso_penalties(s, n=50, n_rhos=3)
    array([0.5  , 0.05 , 0.005])
    """
    s = np.asarray(s, dtype=float)
    if isinstance(n_rhos, bool) or not isinstance(n_rhos, (int, np.integer)) or n_rhos < 1:
        raise InvalidOptionError(f"n_rhos must be an integer >= 1, got {written(n_rhos)}.")
    p = s.shape[0]
    eps = (0.01 if n > p else 0.1) if eps is None else eps
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1:
        raise InvalidOptionError(f"eps must be a number in (0, 1), got {written(eps)}.")
    off = np.abs(s - np.diag(np.diag(s)))
    top = float(off.max()) if p > 1 else 0.0
    if top == 0.0:
        top = float(np.max(np.diag(s)))  # nothing to select: any penalty gives the diagonal
    return top * np.logspace(0.0, np.log10(eps), int(n_rhos))


def _held_out(theta: np.ndarray, s_test: np.ndarray) -> float:
    sign, logdet = np.linalg.slogdet(theta)
    return float(logdet - np.sum(s_test * theta)) if sign > 0 else -np.inf


def _cv_scores(x, rhos, folds, penalize_diagonal, cv_kkt_tol, max_iter):
    n = x.shape[0]
    total = np.zeros(rhos.size)
    for test in folds:
        train = np.ones(n, dtype=bool)
        train[test] = False
        mu = x[train].mean(axis=0)
        xtr, xte = x[train] - mu, x[test] - mu
        solver = _Solver(xtr.T @ xtr / xtr.shape[0], penalize_diagonal, max_iter, 2)
        s_test = xte.T @ xte / xte.shape[0]
        for k, rho in enumerate(rhos):
            total[k] += _held_out(solver.solve(float(rho), cv_kkt_tol).precision, s_test)
    return total / len(folds)


def select_glasso(
    x: np.ndarray,
    *,
    criterion: str = "cv",
    folds: Sequence[np.ndarray] | None = None,
    cv: int = 5,
    seed: int | np.random.Generator | None = None,
    rhos: Sequence[float] | np.ndarray | None = None,
    n_rhos: int = 30,
    eps: float | None = None,
    gamma: float = 0.5,
    stars_rep: int = 20,
    stars_beta: float = 0.05,
    penalize_diagonal: bool = True,
    kkt_tol: float = KKT_TOL,
    cv_kkt_tol: float = 1e-4,
    max_iter: int = 500,
) -> GlassoSelection:
    """Graphical lasso of ``(n, p)`` data with the penalty chosen by K-fold CV, EBIC or StARS.

    Parameters
    ----------
    x
        ``(n, p)`` observations (used as given: standardize first for a
        correlation-scale penalty, as the learner ``"glasso"`` does).
    criterion
        ``"cv"``: mean held-out Gaussian log-likelihood over the folds;
        ``"ebic"``: extended BIC with ``gamma`` on the full-data path;
        ``"stars"``: the smallest penalty whose subsampling instability
        stays at most ``stars_beta`` over ``stars_rep`` subsamples (R
        ``huge.select``'s ``"stars"``).
    folds, cv, seed
        Test-index arrays of the folds, or ``cv`` random folds seeded by
        ``seed`` (``seed`` also draws the StARS subsamples).
    rhos, n_rhos, eps
        The penalty grid, or its size and depth (:func:`glasso_penalties`).
    gamma
        EBIC's extra penalty (0 is BIC).
    stars_rep, stars_beta
        StARS's number of subsamples and instability threshold.
    penalize_diagonal, kkt_tol, max_iter
        As in :func:`graphical_lasso`.
    cv_kkt_tol
        Relative certificate of the fold paths (loose: they only score).

    Returns
    -------
    GlassoSelection
        ``fit`` (certified, on all the data), ``rhos``, ``scores``, ``criterion``.

    Examples
    --------
    >>> import spdgraph, networkx as nx
    >>> from spdgraph.validation import draw_gaussian, select_glasso, standardize
    >>> g = nx.cycle_graph(8)
    >>> prec = spdgraph.sample(g, seed=0, kind="precision")
    >>> x = standardize(draw_gaussian(prec.values, 300, seed=1))
    >>> sel = select_glasso(x, seed=0, n_rhos=10)
    >>> sel.rho in sel.rhos, sel.fit.kkt <= 1e-8 * sel.rho
    (True, True)
    >>> stable = select_glasso(x, criterion="stars", seed=0, n_rhos=10)
    >>> bool(stable.scores[list(stable.rhos).index(stable.rho)] <= 0.1)
    True
    """
    if criterion not in CRITERIA:
        raise InvalidOptionError(
            f"criterion must be one of {list(CRITERIA)}, got {written(criterion)}."
        )
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise InvalidOptionError(f"x must be (n, p) data with n >= 2, got shape {x.shape}.")
    n, p = x.shape
    xc = x - x.mean(axis=0)
    s = _check_covariance(xc.T @ xc / n)
    grid = glasso_penalties(s, n, n_rhos, eps) if rhos is None else np.sort(np.asarray(rhos))[::-1]
    full = _Solver(s, bool(penalize_diagonal), max_iter, 2)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if criterion == "stars":
        grid, scores, best = stars_instability(
            x, grid, own_top=rhos is None, rep=stars_rep, beta=stars_beta, rng=rng,
            penalize_diagonal=bool(penalize_diagonal), kkt_tol=cv_kkt_tol, max_iter=max_iter,
        )  # fmt: skip
        for rho in grid[:best]:
            full.solve(float(rho), cv_kkt_tol)
        fit = full.solve(float(grid[best]), kkt_tol)
        return GlassoSelection(fit=fit, rhos=grid, scores=scores, criterion="stars")
    if criterion == "cv":
        if folds is None:
            folds = kfold(n, cv, rng)
        scores = _cv_scores(x, grid, folds, bool(penalize_diagonal), cv_kkt_tol, max_iter)
        best = int(np.argmax(scores))
        for rho in grid[:best]:
            full.solve(float(rho), cv_kkt_tol)  # warm starts down to the chosen penalty
        fit = full.solve(float(grid[best]), kkt_tol)
        return GlassoSelection(fit=fit, rhos=grid, scores=scores, criterion="cv")
    fits = [full.solve(float(rho), kkt_tol) for rho in grid]
    scores = np.array(
        [
            -n * _held_out(f.precision, s) + f.n_edges * (np.log(n) + 4.0 * gamma * np.log(p))
            for f in fits
        ]
    )
    best = int(np.argmin(scores))
    return GlassoSelection(fit=fits[best], rhos=grid, scores=scores, criterion="ebic")
