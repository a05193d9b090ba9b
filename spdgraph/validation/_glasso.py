"""A certified graphical lasso: block coordinate descent with a KKT certificate.

Solves

    minimize_Theta  -log det(Theta) + tr(S Theta) + rho * sum_{i != j} |Theta_ij|

plus ``rho * sum_i Theta_ii`` by default (R ``glasso``'s default; with
``penalize_diagonal=False`` the diagonal is not penalized, scikit-learn's
``graphical_lasso`` objective) by the block
coordinate descent of Friedman, Hastie and Tibshirani (2008)
(:mod:`spdgraph._kernels.glasso_cd`), on the connected components of the
thresholded sample covariance ``|S_ij| > rho`` only (the solution is block
diagonal over them: Witten, Friedman and Simon 2011; Mazumder and Hastie
2012). Every returned solution is certified: the optimality (KKT) conditions,
computed from the exact inverse of the returned precision, hold to
``kkt_tol * rho``; if they do not, the solve is resumed with tighter
tolerances a bounded number of times, then :class:`~spdgraph.NumericalError`
is raised. It always ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spdgraph.errors import InvalidOptionError, NumericalError
from spdgraph.vocabulary import check_count, check_positive

__all__ = ["GlassoFit", "glasso_kkt", "graphical_lasso", "graphical_lasso_path"]

#: Default relative tolerance of the certificate (KKT violation / rho).
KKT_TOL = 1e-8


@dataclass(frozen=True)
class GlassoFit:
    """A certified graphical lasso solution.

    Attributes
    ----------
    precision
        ``(p, p)`` estimated precision ``Theta`` (exactly symmetric, exact
        zeros off its support).
    covariance
        ``(p, p)`` its inverse.
    rho
        The penalty.
    iterations
        Block coordinate descent sweeps used (0 when the solution is diagonal).
    kkt
        Largest violation of the optimality conditions (absolute; at most
        ``kkt_tol * rho``), see :func:`glasso_kkt`.
    penalize_diagonal
        Whether the diagonal was penalized.
    """

    precision: np.ndarray
    covariance: np.ndarray
    rho: float
    iterations: int
    kkt: float
    penalize_diagonal: bool = True

    @property
    def n_edges(self) -> int:
        """Nonzero entries of the precision's upper triangle."""
        return int(np.count_nonzero(np.triu(self.precision, 1)))


def _check_covariance(s: object) -> np.ndarray:
    arr = np.asarray(s, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise InvalidOptionError(
            f"S must be a square (p, p) covariance matrix, got shape {arr.shape}; "
            "pass np.cov(x, rowvar=False) for (n, p) data."
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidOptionError("S has non-finite entries; remove NaN/inf from the data first.")
    scale = float(np.max(np.abs(arr)))
    if np.max(np.abs(arr - arr.T)) > 1e-10 * scale:
        raise InvalidOptionError(
            "S is not symmetric; pass a covariance matrix (e.g. (S + S.T) / 2)."
        )
    if np.any(np.diag(arr) <= 0):
        raise InvalidOptionError(
            "S has a non-positive diagonal entry; a covariance matrix has positive variances "
            "(drop constant columns)."
        )
    return (arr + arr.T) / 2.0


def glasso_kkt(
    s: np.ndarray, precision: np.ndarray, rho: float, *, penalize_diagonal: bool = True
) -> float:
    """Largest violation of the graphical lasso optimality (KKT) conditions.

    With ``W = inv(Theta)`` and ``G = S - W``, a minimizer satisfies
    ``G_ij + rho * sign(Theta_ij) = 0`` where ``Theta_ij != 0``,
    ``|G_ij| <= rho`` where ``Theta_ij = 0`` (``i != j``) and ``G_ii = 0``
    (``G_ii + rho = 0`` when the diagonal is penalized). Returns the largest
    absolute violation; ``inf`` when ``precision`` is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import glasso_kkt
    >>> s = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> glasso_kkt(s, np.eye(2) / 1.5, 0.5) < 1e-15   # rho >= |S_12|: 1 / (S_ii + rho)
    True
    >>> round(glasso_kkt(s, np.eye(2) / 1.4, 0.4), 3)  # |S_12| > rho: not optimal
    0.1
    >>> glasso_kkt(s, np.eye(2), 0.5, penalize_diagonal=False)
    0.0
    """
    theta = np.asarray(precision, dtype=float)
    try:
        chol = np.linalg.cholesky(theta)
    except np.linalg.LinAlgError:
        return float("inf")
    inv_l = np.linalg.inv(chol)
    w = inv_l.T @ inv_l
    g = np.asarray(s, dtype=float) - w
    sign = np.sign(theta)
    viol = np.where(theta != 0, np.abs(g + rho * sign), np.maximum(np.abs(g) - rho, 0.0))
    diag = np.abs(np.diag(g) + (rho if penalize_diagonal else 0.0))
    np.fill_diagonal(viol, diag)
    return float(np.max(viol))


class _Solver:
    """Warm-started glasso state (``W``, ``B``) over a path of penalties."""

    def __init__(self, s: np.ndarray, penalize_diagonal: bool, max_iter: int, max_retries: int):
        p = s.shape[0]
        self.s = s
        self.w = np.diag(np.diag(s)).astype(float)
        self.b = np.zeros((p, p))
        self.penalize_diagonal = penalize_diagonal
        self.max_iter = max_iter
        self.max_retries = max_retries

    def _components(self, rho: float) -> list[np.ndarray]:
        from scipy.sparse.csgraph import connected_components

        big = np.abs(self.s) > rho
        np.fill_diagonal(big, False)
        _n_comp, label = connected_components(big, directed=False)
        order = np.argsort(label, kind="stable")
        cuts = np.flatnonzero(np.diff(label[order])) + 1
        return [c for c in np.split(order, cuts) if c.size > 1]

    def _sweeps(self, comps: list[np.ndarray], rho: float, tol_w: float) -> int:
        from spdgraph._kernels.glasso_cd import glasso_sweeps

        used = 0
        for idx in comps:
            ix = np.ix_(idx, idx)
            if not self.b[ix].any():  # a cold start: W = S + rho I (Friedman et al.)
                cold = self.s[ix] * (1.0 if self.penalize_diagonal else 0.95)
                np.fill_diagonal(cold, np.diag(self.w[ix]))
                self.w[ix] = cold
            wc, bc = np.ascontiguousarray(self.w[ix]), np.ascontiguousarray(self.b[ix])
            n, status, _inner = glasso_sweeps(
                np.ascontiguousarray(self.s[ix]), wc, bc, rho, tol_w, tol_w / 10.0,
                self.max_iter, 100,
            )  # fmt: skip
            if status == 2:
                raise NumericalError(
                    f"graphical lasso at rho={rho:.3g}: the block coordinate descent lost "
                    "positive definiteness (S is too ill-conditioned); use "
                    "penalize_diagonal=True (if it was False) or a larger rho."
                )
            self.w[ix], self.b[ix] = wc, bc
            used = max(used, n)
        return used

    def solve(self, rho: float, kkt_tol: float) -> GlassoFit:
        """Solve at ``rho`` from the current state; certified to ``kkt_tol * rho``."""
        from spdgraph._kernels.glasso_cd import precision_from_blocks

        p = self.s.shape[0]
        comps = self._components(rho)
        label = np.full(p, -1)
        for c, idx in enumerate(comps):
            label[idx] = c
        same = (label[:, None] == label[None, :]) & (label[:, None] >= 0)
        self.w[~same] = 0.0  # the solution is block diagonal over the components
        self.b[~same] = 0.0
        np.fill_diagonal(self.w, np.diag(self.s) + (rho if self.penalize_diagonal else 0.0))
        target = kkt_tol * rho
        tol_w, sweeps, gap = target, 0, float("inf")
        for _attempt in range(self.max_retries + 1):
            if comps:
                sweeps += self._sweeps(comps, rho, tol_w)
            theta = precision_from_blocks(self.w, self.b)
            gap = glasso_kkt(self.s, theta, rho, penalize_diagonal=self.penalize_diagonal)
            if gap <= target:
                return GlassoFit(
                    precision=theta,
                    covariance=np.linalg.inv(theta),
                    rho=rho,
                    iterations=sweeps,
                    kkt=gap,
                    penalize_diagonal=self.penalize_diagonal,
                )
            tol_w /= 100.0
        raise NumericalError(
            f"graphical lasso at rho={rho:.3g} did not reach its optimality certificate "
            f"(KKT violation {gap:.2e} > {target:.2e}) within {self.max_retries} retries of "
            f"{self.max_iter} sweeps; raise max_iter, loosen kkt_tol or use a larger rho "
            "(S may be nearly singular)."
        )


def graphical_lasso_path(
    s: np.ndarray,
    rhos: Sequence[float] | np.ndarray,
    *,
    penalize_diagonal: bool = True,
    kkt_tol: float = KKT_TOL,
    max_iter: int = 500,
    max_retries: int = 2,
) -> list[GlassoFit]:
    """Certified graphical lasso solutions along penalties, each warm-started from the last.

    Give ``rhos`` decreasing (sparse to dense) for the warm starts to help;
    see :func:`graphical_lasso` for the other parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import graphical_lasso_path
    >>> s = np.array([[1.0, 0.6, 0.3], [0.6, 1.0, 0.5], [0.3, 0.5, 1.0]])
    >>> [fit.n_edges for fit in graphical_lasso_path(s, [0.7, 0.4, 0.01])]
    [0, 2, 3]
    """
    s = _check_covariance(s)
    values = [check_positive(r, "rho") for r in np.atleast_1d(np.asarray(rhos, dtype=object))]
    tol = check_positive(kkt_tol, "kkt_tol")
    solver = _Solver(
        s,
        bool(penalize_diagonal),
        check_count(max_iter, "max_iter"),
        check_count(max_retries, "max_retries", low=0),
    )
    return [solver.solve(rho, tol) for rho in values]


def graphical_lasso(
    s: np.ndarray,
    rho: float,
    *,
    penalize_diagonal: bool = True,
    kkt_tol: float = KKT_TOL,
    max_iter: int = 500,
    max_retries: int = 2,
) -> GlassoFit:
    """The graphical lasso at one penalty, with an optimality certificate.

    Minimizes ``-log det(Theta) + tr(S Theta) + rho * sum_{i != j} |Theta_ij|``
    (plus ``rho * sum_i Theta_ii`` unless ``penalize_diagonal=False``) by block
    coordinate descent (Friedman et al. 2008) on the connected components of
    ``|S_ij| > rho``; the returned solution satisfies the KKT conditions to
    ``kkt_tol * rho`` (:func:`glasso_kkt`, from the exact inverse of the
    returned precision). When ``rho >= max_{i != j} |S_ij|`` the solution is
    diagonal, ``1 / (S_ii + rho)`` (``1 / S_ii`` when the diagonal is not penalized).

    Parameters
    ----------
    s
        ``(p, p)`` sample covariance (symmetric, positive diagonal; it may be
        singular, e.g. ``n <= p``).
    rho
        Penalty, > 0.
    penalize_diagonal
        Penalize the diagonal too (R ``glasso``'s default). Without it
        (scikit-learn's objective) the block coordinate descent can lose
        positive definiteness on ill-conditioned ``S`` (a strong-link truth),
        which then ends in :class:`~spdgraph.NumericalError`.
    kkt_tol
        Relative tolerance of the certificate (violation / ``rho``).
    max_iter
        Most block coordinate descent sweeps per attempt (each column's lasso
        gets at most 100 rounds per sweep).
    max_retries
        Resumptions with 100x tighter sweep tolerances before giving up: at
        most ``max_iter * (max_retries + 1)`` sweeps in all.

    Returns
    -------
    GlassoFit
        ``precision``, ``covariance``, ``rho``, ``iterations``, ``kkt``.

    Raises
    ------
    spdgraph.NumericalError
        When the certificate is not reached within the bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import glasso_kkt, graphical_lasso
    >>> s = np.array([[1.0, 0.6, 0.3], [0.6, 1.0, 0.5], [0.3, 0.5, 1.0]])
    >>> fit = graphical_lasso(s, 0.4)
    >>> fit.n_edges, fit.kkt <= 1e-8 * 0.4, fit.precision[0, 2]
    (2, True, np.float64(0.0))
    """
    return graphical_lasso_path(
        s,
        [rho],
        penalize_diagonal=penalize_diagonal,
        kkt_tol=kkt_tol,
        max_iter=max_iter,
        max_retries=max_retries,
    )[0]
