"""Exact lasso paths and the cross-validated (adaptive) lasso of the node-wise learners.

One LARS-lasso homotopy per node and fold on Gram matrices computed once per
fold (:func:`lasso_path`), with a Numba coordinate-descent fallback
(:mod:`spdgraph._kernels.lasso_cd`) when LARS breaks down.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from spdgraph.errors import InvalidOptionError, MissingDependencyError, NumericalError

__all__ = ["kfold", "lasso_path", "require_sklearn"]


def require_sklearn(what: str) -> None:
    """Refuse ``what`` (a MissingDependencyError naming the extra) without scikit-learn."""
    import importlib.util

    if importlib.util.find_spec("sklearn") is None:
        raise MissingDependencyError(
            f'{what} needs scikit-learn; install it with pip install "spdgraph[validation]".'
        )


def kfold(n: int, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Random K-fold split of ``range(n)``: a list of ``k`` test-index arrays.

    Uses :class:`sklearn.model_selection.KFold` with shuffling, seeded from ``rng``.
    """
    require_sklearn("cross-validation (the built-in learners)")
    from sklearn.model_selection import KFold

    if n < k:
        raise InvalidOptionError(f"{k}-fold cross-validation needs at least {k} observations.")
    splitter = KFold(n_splits=k, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
    return [test for _, test in splitter.split(np.zeros((n, 1)))]


def _masks(n: int, folds: Sequence[np.ndarray]) -> list[np.ndarray]:
    out = []
    for test in folds:
        m = np.ones(n, dtype=bool)
        m[test] = False
        out.append(m)
    return out


def lasso_path(gram: np.ndarray, cross: np.ndarray, n: int, alphas: np.ndarray) -> np.ndarray:
    """Exact lasso coefficients at the penalties ``alphas``: ``(q, len(alphas))``.

    Solves ``min_w (1 / (2 n)) ||y - Z w||^2 + alpha ||w||_1`` (scikit-learn's
    ``Lasso`` objective) for centred ``Z`` and ``y`` given only ``gram = Z'Z``
    and ``cross = Z'y``. The whole path comes from one LARS-lasso homotopy
    (:func:`sklearn.linear_model.lars_path_gram`, ``method="lasso"``, stopped at
    the smallest penalty); it is piecewise linear in ``alpha``, so the
    coefficients at each penalty are interpolated exactly between its knots.
    Unlike coordinate descent stopped at a duality-gap tolerance, the result
    does not depend on a solver tolerance: the test suite checks it against
    coordinate descent run to a duality gap of 1e-13 and against
    scikit-learn's ``lasso_path`` at tolerance 1e-14.

    Should the homotopy break down numerically (scikit-learn's LARS can raise
    ``OverflowError`` on a degenerate Gram matrix, or return non-finite
    values), the path is computed instead by coordinate descent on the Gram
    matrix run until the optimality conditions hold to 1e-10 relative to the
    penalty (``spdgraph._kernels.lasso_cd``); if that does not converge
    either, :class:`~spdgraph.NumericalError` is raised.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import lasso_path
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(50, 3)); z -= z.mean(axis=0)
    >>> y = z @ [1.0, 0.0, -0.5] + 0.1 * rng.normal(size=50); y -= y.mean()
    >>> coefs = lasso_path(z.T @ z, z.T @ y, 50, np.array([10.0, 0.1, 0.001]))
    >>> coefs[:, 0], (coefs[:, 1] != 0).tolist()
    (array([0., 0., 0.]), [True, False, True])
    """
    require_sklearn("the lasso path")
    from sklearn.linear_model import lars_path_gram

    alphas = np.asarray(alphas, dtype=float)
    q = cross.shape[0]
    out = np.zeros((q, alphas.size))
    if q == 0 or alphas.size == 0 or not np.any(cross):
        return out
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # degenerate-regressor notices on tiny folds
            knots, _, coefs = lars_path_gram(
                cross, gram, n_samples=n, method="lasso", alpha_min=float(alphas.min())
            )
        finite = bool(np.isfinite(knots).all() and np.isfinite(coefs).all())
    except ArithmeticError:
        finite = False
    if not finite:
        return _lasso_path_cd(gram, cross, n, alphas)
    # a variable dropped by a LARS-lasso step keeps a rounding-level leftover
    # (~1e-17) instead of an exact zero: clear values at that level per knot
    scale = np.max(np.abs(coefs), axis=0, keepdims=True)
    coefs = np.where(np.abs(coefs) <= 64 * np.finfo(float).eps * scale, 0.0, coefs)
    # knots decrease; between two knots the path is linear in alpha
    for k, a in enumerate(alphas):
        if a >= knots[0]:
            continue  # above the first knot every coefficient is zero
        if a <= knots[-1]:
            out[:, k] = coefs[:, -1]
            continue
        j = int(np.searchsorted(-knots, -a, side="left"))  # knots[j-1] > a >= knots[j]
        t = (knots[j - 1] - a) / (knots[j - 1] - knots[j])
        out[:, k] = coefs[:, j - 1] + t * (coefs[:, j] - coefs[:, j - 1])
        # coefficients that are zero at both knots are exactly zero in between
        out[(coefs[:, j - 1] == 0) & (coefs[:, j] == 0), k] = 0.0
    return out


def _lasso_path_cd(gram, cross, n, alphas):
    """Fallback of :func:`lasso_path`: Gram coordinate descent to KKT tolerance 1e-10."""
    from spdgraph._kernels.lasso_cd import lasso_path_cd

    order = np.argsort(-alphas, kind="stable")
    coefs, converged = lasso_path_cd(
        np.ascontiguousarray(gram, dtype=float),
        np.ascontiguousarray(cross, dtype=float),
        np.ascontiguousarray(alphas[order] * n),
        1e-10,
        1_000_000,
    )
    if not converged:
        raise NumericalError(
            "the lasso path failed: LARS broke down and coordinate descent did not reach "
            "its tolerance; the data are too ill-conditioned for this learner."
        )
    out = np.empty_like(coefs)
    out[:, order] = coefs
    return out


class _Moments:
    """Column means and centred cross-products of the training part of each fold."""

    def __init__(self, xs: np.ndarray, trains: Sequence[np.ndarray]):
        self.folds = []
        for train in trains:
            xt = xs[train]
            mean = xt.mean(axis=0)
            xc = xt - mean
            self.folds.append((mean, xc.T @ xc, xt.shape[0]))
        mean = xs.mean(axis=0)
        xc = xs - mean
        self.full = (mean, xc.T @ xc, xs.shape[0])


def _grid(alpha_max: float, eps: float, n_alphas: int) -> np.ndarray:
    return alpha_max * np.logspace(0.0, np.log10(eps), n_alphas)


def _lasso_cv_path(xs, i, others, moments, folds, eps, n_alphas=100):
    """CV lasso of node i on the others over a glmnet-like grid.

    Returns (full-data coefficients, fold coefficients) at the best penalty.
    """
    _mean, cov, n = moments.full
    q = others.size
    alpha_max = float(np.max(np.abs(cov[others, i]))) / n if q else 0.0
    if q == 0 or alpha_max <= 0:
        zero = np.zeros(q)
        return zero, [zero for _ in folds]
    alphas = _grid(alpha_max, eps, n_alphas)
    err = np.zeros(n_alphas)
    fold_coefs = []
    for test, (mean, fcov, nt) in zip(folds, moments.folds, strict=True):
        coefs = lasso_path(fcov[np.ix_(others, others)], fcov[others, i], nt, alphas)
        pred = (xs[np.ix_(test, others)] - mean[others]) @ coefs + mean[i]
        err += np.sum((xs[test, i][:, None] - pred) ** 2, axis=0)
        fold_coefs.append(coefs)
    best = int(np.argmin(err))
    full = lasso_path(cov[np.ix_(others, others)], cov[others, i], n, alphas[best : best + 1])
    return full[:, 0], [c[:, best] for c in fold_coefs]


def _adaptive_cv(xs, i, others, beta, fold_betas, moments, folds, eps, n_alphas=100):
    """Adaptive lasso: weights 1/|beta| (zero-weight predictors dropped), nested per fold.

    Scaling column j by ``|beta_j|`` turns the weighted lasso into a plain one,
    so its Gram matrix is ``D G D`` with ``D = diag(|beta|)``.
    """
    _mean, cov, n = moments.full
    q = others.size
    keep = beta != 0
    out = np.zeros(q)
    if not keep.any():
        return out
    cols = others[keep]
    w = np.abs(beta[keep])
    alpha_max = float(np.max(np.abs(w * cov[cols, i]))) / n
    if alpha_max <= 0:
        return out
    alphas = _grid(alpha_max, eps, n_alphas)
    err = np.zeros(n_alphas)
    for test, (mean, fcov, nt), bf in zip(folds, moments.folds, fold_betas, strict=True):
        kf = bf != 0
        if not kf.any():
            err += np.sum((xs[test, i] - mean[i]) ** 2)
            continue
        fc = others[kf]
        wf = np.abs(bf[kf])
        gram = fcov[np.ix_(fc, fc)] * wf[:, None] * wf[None, :]
        coefs = lasso_path(gram, wf * fcov[fc, i], nt, alphas)
        pred = ((xs[np.ix_(test, fc)] - mean[fc]) * wf) @ coefs + mean[i]
        err += np.sum((xs[test, i][:, None] - pred) ** 2, axis=0)
    best = int(np.argmin(err))
    gram = cov[np.ix_(cols, cols)] * w[:, None] * w[None, :]
    coefs = lasso_path(gram, w * cov[cols, i], n, alphas[best : best + 1])
    out[keep] = coefs[:, 0] * w
    return out
