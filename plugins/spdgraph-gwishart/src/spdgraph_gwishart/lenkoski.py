"""Lenkoski's (2013) G-Wishart sampler, as in R BDgraph's ``rgwish`` (``algorithm="lenkoski"``).

Its marginals are right (each clique's inverse-Wishart law on a decomposable
graph, each diagonal entry's Gamma law without edges) and it is exact on the
complete graph, but its joint law is not W_G(b, D) in general: without edges
it returns ``1 / diag(Sigma)`` of one inverse-Wishart draw, whose entries are
correlated, where W_G's are independent (see the plugin README and
``benchmarks/check_gwishart_exact.py``). Kept for comparability with BDgraph.

1. ``K0 ~ W(b, D)`` by :func:`wishart_bartlett`; ``Sigma = K0^-1``; ``W = Sigma``.
2. Sweep over the nodes j until the largest change of W is at most
   ``tol * max_i W_ii``: with N the neighbours of j,
   ``beta = W[N, N]^-1 Sigma[N, j]`` and ``W[-j, j] = W[-j, N] beta``
   (zero off the diagonal for a node without neighbours). More than
   ``max_iter`` sweeps raise :class:`spdgraph.NumericalError`.
3. ``K = W^-1`` (Cholesky solve, symmetrized). Its non-edge entries are at
   rounding/convergence level; they are checked against
   ``residual_tolerance`` (relative, ``|k_ij| / sqrt(k_ii k_jj)``) and set to
   exactly 0. For the complete graph ``K = K0`` (no iteration).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

import spdgraph
from spdgraph_gwishart._kernels import complete_covariance

__all__ = ["lenkoski_gwishart", "wishart_bartlett"]


def wishart_bartlett(rng: np.random.Generator, b: float, D: np.ndarray) -> np.ndarray:
    """A Wishart draw ``K0 ~ W(b + p - 1, D^-1)`` (BDgraph's ``W(b, D)``), Bartlett's way.

    ``Phi`` is upper triangular with ``Phi_ii^2 ~ chi2(b + p - 1 - i)``
    (drawn first, i = 0..p-1) and standard normal ``Phi_ij``, i < j (drawn
    next, row-major order); with ``T`` the upper Cholesky factor of ``D^-1``
    (``T^T T = D^-1``), ``K0 = (Phi T)^T (Phi T)``.

    Examples
    --------
    >>> import numpy as np
    >>> k0 = wishart_bartlett(np.random.default_rng(0), 3.0, np.eye(3))
    >>> bool(np.array_equal(k0, k0.T)), k0.shape
    (True, (3, 3))
    """
    p = D.shape[0]
    phi = np.zeros((p, p))
    phi[np.arange(p), np.arange(p)] = np.sqrt(rng.chisquare(b + p - 1 - np.arange(p)))
    iu = np.triu_indices(p, 1)
    phi[iu] = rng.standard_normal(iu[0].size)
    d_inv = scipy.linalg.cho_solve(scipy.linalg.cho_factor(D), np.eye(p))
    t = np.linalg.cholesky((d_inv + d_inv.T) * 0.5).T
    psi = phi @ t
    k0 = psi.T @ psi
    return (k0 + k0.T) * 0.5


def lenkoski_gwishart(
    adjacency: np.ndarray,
    rng: np.random.Generator,
    b: float,
    d: np.ndarray,
    *,
    tol: float,
    max_iter: int,
    residual_tolerance: float,
) -> np.ndarray:
    """One draw of Lenkoski's sampler (steps in the module docstring)."""
    p = adjacency.shape[0]
    k0 = wishart_bartlett(rng, b, d)
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    if not nonedge.any():
        return k0
    sigma = scipy.linalg.cho_solve(scipy.linalg.cho_factor(k0), np.eye(p))
    sigma = (sigma + sigma.T) * 0.5
    lengths = adjacency.sum(axis=1)
    nbr_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    nbr_idx = np.nonzero(adjacency)[1].astype(np.int64)  # row-major: sorted per row
    w, sweeps, change = complete_covariance(sigma, nbr_ptr, nbr_idx, tol, int(max_iter))
    if sweeps < 0:
        raise spdgraph.NumericalError(
            f"the G-Wishart completion did not converge in max_iter={max_iter} sweeps "
            f"(last relative change {change:.3g} > tol={tol:g}); raise max_iter or tol."
        )
    try:
        k = scipy.linalg.cho_solve(scipy.linalg.cho_factor(w), np.eye(p))
    except np.linalg.LinAlgError as exc:  # pragma: no cover - W is SPD in exact arithmetic
        raise spdgraph.NumericalError(
            "the completed G-Wishart covariance is not positive definite; lower tol."
        ) from exc
    k = (k + k.T) * 0.5
    diag = np.sqrt(np.diag(k))
    residual = float((np.abs(k[nonedge]) / np.outer(diag, diag)[nonedge]).max())
    if residual > residual_tolerance:
        raise spdgraph.NumericalError(
            f"the G-Wishart draw has a relative residual {residual:.3g} on a non-edge, above "
            f"residual_tolerance={residual_tolerance:g}; lower tol (now {tol:g}) or raise "
            "residual_tolerance."
        )
    k[nonedge] = 0.0
    return k
