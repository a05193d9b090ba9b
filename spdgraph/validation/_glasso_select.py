"""Choosing the graphical lasso penalty: K-fold held-out likelihood, EBIC or StARS.

The penalty grid is R ``huge.glasso``'s: ``nlambda`` (10) values log-spaced
from ``max_{i != j} |S_ij|`` (where the solution is diagonal) down to
``lambda_min_ratio`` (0.1) times that (cross-validation, not in huge: 30
values down to 0.01, 0.1 when ``n <= p``). Cross-validation
fits the path on each fold's training part (its own covariance, centred by
the training means) and scores the held-out Gaussian log-likelihood
``log det(Theta) - tr(S_test Theta)``; EBIC (Foygel and Drton 2010) is
``-n loglik + |E| log n + 4 gamma |E| log p`` on the full-data path, the
log-likelihood ``log det(Theta) - tr(S Theta)`` of the penalized fit
(``ebic_loglik="penalized"``) or huge's convention (``"huge"``: a node with
no ``|S_ij|`` above the penalty counts ``-1``, see ``ebic_loglik_value``);
StARS (Liu, Roeder and Wasserman 2010, on huge's scale, see
:mod:`spdgraph.validation._stars`) picks the penalty before the first whose
edges are unstable over subsamples. The fold paths are solved to a looser certificate
(``cv_kkt_tol``, default 1e-4 relative): the held-out likelihood is smooth at
the optimum, so this moves it by far less than its fold-to-fold spread; the
returned fit at the chosen penalty is certified to ``kkt_tol``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from spdgraph._threads import check_blas_threads, thread_budget
from spdgraph.errors import InvalidOptionError, written
from spdgraph.validation._glasso import KKT_TOL, GlassoFit, _check_covariance, _Solver
from spdgraph.validation._lasso import kfold
from spdgraph.validation._stars import stars_instability
from spdgraph.vocabulary import check_choice, check_count

__all__ = ["CRITERIA", "GlassoSelection", "check_criterion", "glasso_penalties", "select_glasso"]

#: Penalty selection criteria of :func:`select_glasso`.
CRITERIA = ("cv", "ebic", "stars")
#: R ``huge.glasso``'s default grid length and depth, and ``huge.select``'s StARS threshold.
NLAMBDA = 10
LAMBDA_MIN_RATIO = 0.1
STARS_THRESH = 0.1
#: Cross-validation's grid (huge has none): deeper, as its measured table in docs/validation.md.
CV_NLAMBDA = 30
CV_LAMBDA_MIN_RATIO = 0.01
#: EBIC's log-likelihood conventions (``ebic_loglik_value``).
EBIC_LOGLIKS = ("penalized", "huge")
#: The learner ``"glasso"``'s default criterion (chosen by the table in docs/validation.md).
GLASSO_CRITERION = "stars"


def check_criterion(criterion: object) -> str:
    """``criterion`` when it is one of :data:`CRITERIA` (the one check of it)."""
    return check_choice(criterion, "criterion", CRITERIA)


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
        or EBIC (``"ebic"``, lower is better) or the variability on huge's
        scale (``"stars"``, ``inf`` past the point where the path stopped).
    criterion
        ``"cv"``, ``"ebic"`` or ``"stars"``.
    threads
        ``{"blas_threads": b, "numba_threads": m}`` in force during the fit
        (:func:`spdgraph._threads.thread_budget`).
    """

    fit: GlassoFit
    rhos: np.ndarray
    scores: np.ndarray
    criterion: str
    threads: dict[str, int] = field(default_factory=dict)

    @property
    def rho(self) -> float:
        """The chosen penalty."""
        return self.fit.rho


def glasso_penalties(
    s: np.ndarray,
    n: int | None = None,
    nlambda: int = NLAMBDA,
    lambda_min_ratio: float = LAMBDA_MIN_RATIO,
    **removed: object,
) -> np.ndarray:
    """The penalty grid of R ``huge.glasso``: ``nlambda`` values log-spaced down.

    From ``max |S_ij|`` (``i != j``, where the solution is diagonal) down to
    ``lambda_min_ratio`` times that, both ends included; huge's defaults
    (``nlambda = 10``, ``lambda.min.ratio = 0.1``). ``n`` is unused (kept so
    that ``glasso_penalties(s, n, nlambda, lambda_min_ratio)`` reads as before).

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import glasso_penalties
    >>> s = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> glasso_penalties(s, nlambda=3, lambda_min_ratio=0.01)
    array([0.5  , 0.05 , 0.005])
    """
    _refuse_removed(removed)
    s = np.asarray(s, dtype=float)
    nlambda = _check_grid(nlambda, lambda_min_ratio)
    p = s.shape[0]
    off = np.abs(s - np.diag(np.diag(s)))
    top = float(off.max()) if p > 1 else 0.0
    if top == 0.0:
        top = float(np.max(np.diag(s)))  # nothing to select: any penalty gives the diagonal
    return top * np.exp(np.linspace(0.0, np.log(float(lambda_min_ratio)), nlambda))


#: What the removed spellings became (``stars_beta`` was on half of huge's scale).
_REMOVED = {
    "n_rhos": "n_rhos was renamed nlambda, as R huge names it (huge's default: 10).",
    "eps": "eps was renamed lambda_min_ratio, as R huge names it (huge's default: 0.1).",
    "stars_beta": (
        "stars_beta was removed: StARS now measures variability on R huge's scale, "
        "4 sum theta (1 - theta) / (p (p - 1)), twice the former mean of 2 theta (1 - theta); "
        "pass stars_thresh=2 * stars_beta (stars_thresh=0.1, huge's default, selects what "
        "stars_beta=0.05 selected)."
    ),
}


def _refuse_removed(removed: dict[str, object]) -> None:
    for name in removed:
        if name in _REMOVED:
            raise InvalidOptionError(_REMOVED[name])
    if removed:
        raise TypeError(f"unexpected keyword argument(s): {sorted(removed)}")


def _check_grid(nlambda: object, lambda_min_ratio: object) -> int:
    nlambda = check_count(nlambda, "nlambda")
    if (
        isinstance(lambda_min_ratio, bool)
        or not isinstance(lambda_min_ratio, (int, float))
        or not 0 < lambda_min_ratio < 1
    ):
        raise InvalidOptionError(
            f"lambda_min_ratio must be a number in (0, 1), got {written(lambda_min_ratio)}."
        )
    return nlambda


def ebic_loglik_value(precision: np.ndarray, s: np.ndarray, rho: float, convention: str) -> float:
    """The Gaussian log-likelihood ``log det(Theta) - tr(S Theta)`` that EBIC uses.

    ``convention="penalized"``: of the fitted ``Theta`` itself. ``"huge"``: R
    huge 1.3.5's ``loglik``, where each node with no ``|S_ij| > rho``
    (``j != i``; screened out before the fit) counts ``-1`` (the value for a
    unit-variance node with ``Theta_ii = 1``) instead of its fitted
    ``log Theta_ii - S_ii Theta_ii``, and the rest is the fitted block's
    ``log det - tr``. Both agree when every node has an ``|S_ij|`` above
    ``rho``; on standardized data huge's favours sparse fits at large penalties.
    """
    if convention == "penalized":
        return _held_out(precision, s)
    off = np.abs(s - np.diag(np.diag(s)))
    kept = np.flatnonzero(np.any(off > rho, axis=1))
    screened = s.shape[0] - kept.size
    if kept.size == 0:
        return -float(screened)
    return _held_out(precision[np.ix_(kept, kept)], s[np.ix_(kept, kept)]) - screened


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
    nlambda: int | None = None,
    lambda_min_ratio: float | None = None,
    gamma: float = 0.5,
    ebic_loglik: str = "penalized",
    stars_rep: int = 20,
    stars_thresh: float = STARS_THRESH,
    penalize_diagonal: bool = True,
    kkt_tol: float = KKT_TOL,
    cv_kkt_tol: float = 1e-4,
    max_iter: int = 500,
    blas_threads: int | None = 1,
    **removed: object,
) -> GlassoSelection:
    """Graphical lasso of ``(n, p)`` data with the penalty chosen by K-fold CV, EBIC or StARS.

    The grid, EBIC and StARS follow R ``huge`` 1.3.5 (``huge.glasso`` and
    ``huge.select``) with its defaults and names; docs/validation.md lists
    the differences that remain.

    Parameters
    ----------
    x
        ``(n, p)`` observations (used as given: standardize first for a
        correlation-scale penalty, as the learner ``"glasso"`` and huge do).
    criterion
        ``"cv"``: mean held-out Gaussian log-likelihood over the folds;
        ``"ebic"``: extended BIC with ``gamma`` on the full-data path;
        ``"stars"``: the penalty before the first whose subsampling
        variability reaches ``stars_thresh`` over ``stars_rep`` subsamples (R
        ``huge.select``'s ``"stars"``, on huge's scale).
    folds, cv, seed
        Test-index arrays of the folds, or ``cv`` random folds seeded by
        ``seed`` (``seed`` also draws the StARS subsamples).
    rhos
        The penalty grid (any order; used decreasing), e.g. R's ``fit$lambda``.
    nlambda, lambda_min_ratio
        Otherwise the grid's length and depth (:func:`glasso_penalties`).
        Unset: for ``"ebic"`` and ``"stars"`` R ``huge``'s ``nlambda`` (10)
        and ``lambda.min.ratio`` (0.1); for ``"cv"`` (not in huge) 30
        penalties down to 0.01 (0.1 when ``n <= p``).
    gamma
        EBIC's extra penalty (``ebic.gamma``; 0 is BIC).
    ebic_loglik
        EBIC's log-likelihood: ``"penalized"`` (of the fitted precision) or
        ``"huge"`` (huge 1.3.5's ``loglik``, see ``ebic_loglik_value``).
    stars_rep, stars_thresh
        StARS's number of subsamples (``rep.num``) and variability threshold
        (``stars.thresh``, huge's scale, default 0.1). The former
        ``stars_beta`` (half that scale) raises an error naming the factor 2.
    penalize_diagonal, kkt_tol, max_iter
        As in :func:`graphical_lasso`.
    cv_kkt_tol
        Relative certificate of the fold paths (loose: they only score).
    blas_threads
        BLAS threads during the fit: 1 by default (the block coordinate
        descent is many small products, where a second thread made the fit
        12-25x slower on a 2-core machine); ``None`` leaves BLAS as it is.
        Numba is held so that Numba x BLAS threads stay within the cores
        (:func:`spdgraph._threads.thread_budget`); ``threads`` records both.

    Returns
    -------
    GlassoSelection
        ``fit`` (certified, on all the data), ``rhos``, ``scores``,
        ``criterion``, ``threads``.

    Examples
    --------
    >>> import spdgraph, networkx as nx
    >>> from spdgraph.validation import draw_gaussian, select_glasso, standardize
    >>> g = nx.cycle_graph(8)
    >>> prec = spdgraph.sample(g, seed=0, kind="precision")
    >>> x = standardize(draw_gaussian(prec.values, 300, seed=1))
    >>> sel = select_glasso(x, seed=0)
    >>> sel.rho in sel.rhos, sel.fit.kkt <= 1e-8 * sel.rho
    (True, True)
    >>> stable = select_glasso(x, criterion="stars", seed=0)
    >>> bool(stable.scores[list(stable.rhos).index(stable.rho)] < 0.1)
    True
    """
    _refuse_removed(removed)
    check_blas_threads(blas_threads)
    with thread_budget(blas_threads) as used:
        selection = _select_glasso(
            x, criterion=criterion, folds=folds, cv=cv, seed=seed, rhos=rhos, nlambda=nlambda,
            lambda_min_ratio=lambda_min_ratio, gamma=gamma, ebic_loglik=ebic_loglik,
            stars_rep=stars_rep, stars_thresh=stars_thresh, penalize_diagonal=penalize_diagonal,
            kkt_tol=kkt_tol, cv_kkt_tol=cv_kkt_tol, max_iter=max_iter,
        )  # fmt: skip
    return replace(selection, threads=dict(used))


def _select_glasso(
    x: np.ndarray,
    *,
    criterion: str,
    folds: Sequence[np.ndarray] | None,
    cv: int,
    seed: int | np.random.Generator | None,
    rhos: Sequence[float] | np.ndarray | None,
    nlambda: int | None,
    lambda_min_ratio: float | None,
    gamma: float,
    ebic_loglik: str,
    stars_rep: int,
    stars_thresh: float,
    penalize_diagonal: bool,
    kkt_tol: float,
    cv_kkt_tol: float,
    max_iter: int,
) -> GlassoSelection:
    check_criterion(criterion)
    check_choice(ebic_loglik, "ebic_loglik", EBIC_LOGLIKS)
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise InvalidOptionError(f"x must be (n, p) data with n >= 2, got shape {x.shape}.")
    n, p = x.shape
    xc = x - x.mean(axis=0)
    s = _check_covariance(xc.T @ xc / n)
    if rhos is None:
        if nlambda is None:
            nlambda = CV_NLAMBDA if criterion == "cv" else NLAMBDA
        if lambda_min_ratio is None:
            huge_depth = criterion != "cv" or n <= p
            lambda_min_ratio = LAMBDA_MIN_RATIO if huge_depth else CV_LAMBDA_MIN_RATIO
        grid = glasso_penalties(s, n, nlambda, lambda_min_ratio)
    else:
        grid = np.sort(np.asarray(rhos, dtype=float))[::-1]
    full = _Solver(s, bool(penalize_diagonal), max_iter, 2)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if criterion == "stars":
        grid, scores, best = stars_instability(
            x, grid, rep=stars_rep, thresh=stars_thresh, rng=rng,
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
            -n * ebic_loglik_value(f.precision, s, float(rho), ebic_loglik)
            + f.n_edges * (np.log(n) + 4.0 * gamma * np.log(p))
            for f, rho in zip(fits, grid, strict=True)
        ]
    )
    best = int(np.argmin(scores))
    return GlassoSelection(fit=fits[best], rhos=grid, scores=scores, criterion="ebic")
