"""Structure learners of the Krämer, Schäfer and Boulesteix (2009) study.

Node-wise learners regress each node on all the others (columns
standardized, K-fold cross-validation with folds shared by all nodes) and turn
the coefficient matrix ``B`` (``B[i, j]``: coefficient of node ``j`` when
predicting node ``i``) into partial correlations with
``rho_ij = sign(b_ij) sqrt(b_ij b_ji)`` (0 when the signs disagree, capped at
1). scikit-learn is imported lazily, only when a learner needs it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.validation._glasso_select import GLASSO_CRITERION, check_criterion
from spdgraph.validation._lasso import (
    _adaptive_cv,
    _lasso_cv_path,
    _masks,
    _Moments,
    kfold,
    lasso_path,
    require_sklearn,
)
from spdgraph.validation._shrink import precision_to_pcor, shrink_pcor, standardize
from spdgraph.vocabulary import check_count

__all__ = [
    "BUILTIN_LEARNERS",
    "LEARNER_GRAPHS",
    "SELECTION_RULES",
    "coefficients_to_pcor",
    "fit_learners",
    "kfold",
    "lasso_path",
]

#: Built-in learners and how their edges are selected.
SELECTION_RULES: dict[str, str] = {
    "lasso": "nonzero",
    "adalasso": "nonzero",
    "ridge": "lfdr",
    "pls": "lfdr",
    "shrink": "lfdr",
    "glasso": "nonzero",
    "mb": "nonzero",
}
BUILTIN_LEARNERS: tuple[str, ...] = tuple(SELECTION_RULES)
#: Which graph each built-in learner estimates: the zeros of the precision
#: (concentration graph) or of the covariance. A custom learner declares its
#: own with a ``graph_of`` attribute or ``score(..., graph_of=...)``.
LEARNER_GRAPHS: dict[str, str] = dict.fromkeys(SELECTION_RULES, "precision")


def coefficients_to_pcor(b: np.ndarray) -> np.ndarray:
    """Node-wise coefficients to partial correlations.

    ``rho_ij = sign(b_ij) sqrt(b_ij b_ji)`` where ``b_ij b_ji > 0``, else 0;
    magnitudes capped at 1; unit diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import coefficients_to_pcor
    >>> coefficients_to_pcor(np.array([[0, 0.5, 0.2], [0.18, 0, -1], [-0.3, 0.1, 0]]))
    array([[1. , 0.3, 0. ],
           [0.3, 1. , 0. ],
           [0. , 0. , 1. ]])
    """
    b = np.asarray(b, dtype=float)
    prod = b * b.T
    rho = np.where(prod > 0, np.sign(b) * np.sqrt(np.where(prod > 0, prod, 0.0)), 0.0)
    rho = np.clip(rho, -1.0, 1.0)
    np.fill_diagonal(rho, 1.0)
    return rho


def _ridge_cv(z, y, folds, trains, k):
    """Ridge over parcor's grid 10^seq(-10, -1, len=1000) (n - n//k)(p - 1), by SVD."""
    n, q = z.shape
    lams = 10.0 ** np.linspace(-10.0, -1.0, 1000) * (n - n // k) * q
    err = np.zeros(lams.size)
    for test, train in zip(folds, trains, strict=True):
        ztr, ytr = z[train], y[train]
        mz, my = ztr.mean(axis=0), ytr.mean()
        u, s, vt = np.linalg.svd(ztr - mz, full_matrices=False)
        a = u.T @ (ytr - my)
        b = (z[test] - mz) @ vt.T
        fac = s[:, None] / (s[:, None] ** 2 + lams[None, :])
        pred = b @ (fac * a[:, None]) + my
        err += np.sum((y[test][:, None] - pred) ** 2, axis=0)
    lam = lams[int(np.argmin(err))]
    u, s, vt = np.linalg.svd(z - z.mean(axis=0), full_matrices=False)
    return vt.T @ (s / (s**2 + lam) * (u.T @ (y - y.mean())))


def pls_coefficients(z: np.ndarray, y: np.ndarray, max_components: int) -> np.ndarray:
    """PLS1 coefficients for 1..K components from one scikit-learn fit: ``(q, K)``.

    With NIPALS, the rotations of the first k components are the first k
    columns of ``x_rotations_``, so the k-component coefficient is
    ``x_rotations_[:, :k] @ y_loadings_[:, :k].T`` (tested against separate
    fits in the test suite).
    """
    require_sklearn("the pls learner")
    from sklearn.cross_decomposition import PLSRegression

    pls = PLSRegression(n_components=max_components, scale=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pls.fit(z, y)
    rot = pls.x_rotations_
    yl = pls.y_loadings_.ravel()
    return np.cumsum(rot * yl[None, :], axis=1)


def _pls_cv(z, y, folds, trains, max_components=15):
    _n, q = z.shape
    ntr = min(int(t.sum()) for t in trains)
    kmax = max(1, min(max_components, q, ntr - 1))
    err = np.zeros(kmax)
    for test, train in zip(folds, trains, strict=True):
        ztr, ytr = z[train], y[train]
        mz, my = ztr.mean(axis=0), ytr.mean()
        coefs = pls_coefficients(ztr - mz, ytr - my, kmax)
        pred = (z[test] - mz) @ coefs + my
        err += np.sum((y[test][:, None] - pred) ** 2, axis=0)
    best = int(np.argmin(err))
    return pls_coefficients(z - z.mean(axis=0), y - y.mean(), best + 1)[:, best]


def _glasso_pcor(
    xs: np.ndarray,
    folds: Sequence[np.ndarray],
    rng: np.random.Generator,
    criterion: str,
    gamma: float,
) -> np.ndarray:
    """spdgraph's certified graphical lasso, penalty chosen by ``criterion``.

    30 penalties from ``max |S_ij|`` down to 0.01 of it (0.1 when ``n <= p``),
    the diagonal penalized (R ``glasso``'s default); ``"cv"`` uses the
    learners' folds, ``"stars"`` draws its subsamples from ``rng``; see
    :func:`spdgraph.validation.select_glasso`.
    """
    from spdgraph.validation._glasso_select import select_glasso

    prec = select_glasso(xs, criterion=criterion, folds=folds, seed=rng, gamma=gamma).fit.precision
    pc = precision_to_pcor(prec)
    pc[prec == 0] = 0.0  # exact zeros of the precision stay exact zeros
    np.fill_diagonal(pc, 1.0)
    return pc


def _mb_adjacency(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The learner ``"mb"``: huge's neighbourhood selection (OR, RIC), a boolean adjacency."""
    from spdgraph.validation._mb import neighbourhood_selection

    return neighbourhood_selection(x, seed=rng, blas_threads=None).adjacency()


def fit_learners(
    x: np.ndarray,
    learners: Sequence[str] = BUILTIN_LEARNERS,
    *,
    seed: int | np.random.Generator | np.random.SeedSequence | None = None,
    cv: int = 5,
    on_fit: Callable[[str, float], None] | None = None,
    blas_threads: int | None = 1,
    criterion: str = GLASSO_CRITERION,
    gamma: float = 0.5,
) -> dict[str, np.ndarray]:
    """Fit built-in learners on ``(n, p)`` data; return their partial-correlation matrices.

    Lasso and adaptive lasso share their cross-validation folds and paths
    when both are asked for (the adaptive weights of a fold come from the
    lasso fitted on that fold's training part only).

    Parameters
    ----------
    x
        ``(n, p)`` observations (standardized inside).
    learners
        Names among ``"lasso", "adalasso", "ridge", "pls", "shrink", "glasso", "mb"``
        (``"mb"``: :func:`~spdgraph.validation.neighbourhood_selection` with
        huge's defaults, OR rule, RIC penalty; its estimate is the boolean
        adjacency).
    seed
        Seeds the cross-validation folds.
    cv
        Number of folds (5 in the study).
    on_fit
        Called as ``on_fit(name, seconds)`` after each learner (timing hook).
    blas_threads
        BLAS threads while fitting (via threadpoolctl, a scikit-learn
        dependency); the node-wise fits are many small problems where extra
        threads only add contention (measured 25x slower ridge with 2 threads
        on a busy 2-core machine). ``None`` leaves the BLAS setting alone.
        Numba is held so that Numba x BLAS threads stay within the cores
        (:func:`spdgraph._threads.thread_budget`).
    criterion, gamma
        How ``"glasso"`` chooses its penalty: ``"stars"``, ``"ebic"`` (with
        ``gamma``) or ``"cv"`` (:func:`~spdgraph.validation.select_glasso`);
        the default was chosen by the table in docs/validation.md.

    Returns
    -------
    dict
        ``{name: (p, p) partial correlations}`` with unit diagonal (``"mb"``: a
        boolean adjacency).

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import fit_learners
    >>> x = np.random.default_rng(0).normal(size=(40, 6))
    >>> out = fit_learners(x, ["shrink", "ridge"], seed=1)
    >>> sorted(out), out["ridge"].shape
    (['ridge', 'shrink'], (6, 6))
    """
    from spdgraph._threads import check_blas_threads, thread_budget

    with thread_budget(check_blas_threads(blas_threads)):
        return _fit_learners(
            x, learners, seed=seed, cv=cv, on_fit=on_fit, criterion=criterion, gamma=gamma
        )


def _fit_learners(x, learners, *, seed, cv, on_fit, criterion, gamma):
    import time

    unknown = [name for name in learners if name not in SELECTION_RULES]
    if unknown:
        raise InvalidOptionError(
            f"unknown learner(s) {unknown}; built-in learners are {list(BUILTIN_LEARNERS)} "
            "(or pass a callable / estimator to spdgraph.validation.score)."
        )
    check_count(cv, "cv", low=2)
    check_criterion(criterion)  # before any learner runs
    xs = standardize(x)
    n, p = xs.shape
    if p < 2:
        raise InvalidOptionError(f"data need at least 2 nodes, got {p}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    folds = kfold(n, cv, rng)
    trains = _masks(n, folds)
    eps = 0.01 if n < p - 1 else 1e-4
    wanted = list(dict.fromkeys(learners))
    out: dict[str, np.ndarray] = {}

    nodewise = [name for name in wanted if name in ("lasso", "adalasso", "ridge", "pls")]
    if nodewise:
        coefs = {name: np.zeros((p, p)) for name in nodewise}
        seconds = dict.fromkeys(nodewise, 0.0)
        t0 = time.perf_counter()
        moments = _Moments(xs, trains) if {"lasso", "adalasso"} & set(coefs) else None
        lasso_setup = time.perf_counter() - t0
        for name in ("lasso", "adalasso"):
            if name in seconds:
                seconds[name] += lasso_setup
                break
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence warnings on tiny folds
            for i in range(p):
                others = np.r_[0:i, i + 1 : p]
                z, y = xs[:, others], xs[:, i]
                if "lasso" in coefs or "adalasso" in coefs:
                    t0 = time.perf_counter()
                    beta, fold_betas = _lasso_cv_path(xs, i, others, moments, folds, eps)
                    t1 = time.perf_counter()
                    if "lasso" in coefs:
                        coefs["lasso"][i, others] = beta
                        seconds["lasso"] += t1 - t0
                    if "adalasso" in coefs:
                        if "lasso" not in coefs:
                            seconds["adalasso"] += t1 - t0
                        coefs["adalasso"][i, others] = _adaptive_cv(
                            xs, i, others, beta, fold_betas, moments, folds, eps
                        )
                        seconds["adalasso"] += time.perf_counter() - t1
                if "ridge" in coefs:
                    t0 = time.perf_counter()
                    coefs["ridge"][i, others] = _ridge_cv(z, y, folds, trains, cv)
                    seconds["ridge"] += time.perf_counter() - t0
                if "pls" in coefs:
                    t0 = time.perf_counter()
                    coefs["pls"][i, others] = _pls_cv(z, y, folds, trains)
                    seconds["pls"] += time.perf_counter() - t0
        for name in nodewise:
            out[name] = coefficients_to_pcor(coefs[name])
            if on_fit is not None:
                on_fit(name, seconds[name])
    whole_matrix = {"shrink": lambda: shrink_pcor(xs)}  # in this order: glasso, mb share rng
    whole_matrix["glasso"] = lambda: _glasso_pcor(xs, folds, rng, criterion, gamma)
    whole_matrix["mb"] = lambda: _mb_adjacency(x, rng)
    for name in (name for name in whole_matrix if name in wanted):
        t0 = time.perf_counter()
        out[name] = whole_matrix[name]()
        if on_fit is not None:
            on_fit(name, time.perf_counter() - t0)
    return {name: out[name] for name in wanted}
