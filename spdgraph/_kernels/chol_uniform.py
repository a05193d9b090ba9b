"""Uniform correlation matrices on a chordal graph: kernels, arrays in, arrays out.

The facts used (Córdoba et al., IDEAL 2018 and IJAR 2020; gmat's ``mh_u``):

* A graph is chordal iff it has a perfect elimination order (PEO): an order
  in which the later neighbours of every vertex are pairwise adjacent.
  Maximum cardinality search (MCS) visits the vertices so that the reverse of
  its visit order is a PEO whenever the graph is chordal (Tarjan and
  Yannakakis 1984); checking that the reversed order has no fill-in decides
  chordality.
* In a PEO the lower Cholesky factor ``L`` of a correlation matrix ``C`` whose
  zeros are the graph's non-edges has no fill-in: row ``r`` is non-zero only
  on its earlier neighbours ``pa(r)`` and on ``r``, and it is a unit vector
  (``C_rr = 1``) with ``L_rr > 0``: a point of the hemisphere
  ``S^{k-1}_+``, ``k = |pa(r)| + 1``. Conversely every such ``L`` gives an
  SPD correlation matrix with exact zeros on the non-edges.
* The Jacobian of ``L -> C`` (free entries to the edge correlations) is
  ``prod_j L_jj^{ch(j)}`` (``ch(j)``: later neighbours of ``j``), and the
  Lebesgue measure of a row's free coordinates is ``L_rr`` times the surface
  measure of its hemisphere. So the uniform distribution on these
  correlation matrices is the product over rows of the hemisphere densities
  ``proportional to L_rr^{ch(r) + 1}`` (surface measure): the rows are
  independent. For the complete graph, row ``r`` (0-based) has
  ``k = r + 1`` and power ``p - r``, gmat's ``mh_sphere(k, i)`` in its upper
  (reversed) convention.
* Under the density ``x_pole^a`` on ``S^{k-1}_+``, ``x_pole^2`` is
  ``Beta((a + 1) / 2, (k - 1) / 2)`` and the other coordinates are a uniform
  direction scaled by ``sqrt(1 - x_pole^2)``: the exact sampler.

This module knows nothing of random generators: the callers draw the random
numbers and pass them in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the graph part (no Numba): chordality, elimination orders, triangulation
from spdgraph._kernels.chordal import (
    mcs_order,
    min_degree_triangulation,
    perfect_elimination_order,
)

__all__ = [
    "assemble_lower",
    "earlier_neighbours",
    "exact_row",
    "lower_product",
    "mcs_order",
    "mh_hemisphere",
    "mh_hemisphere_portable",
    "min_degree_triangulation",
    "onion_correlation",
    "perfect_elimination_order",
]


def earlier_neighbours(
    adjacency: np.ndarray, order: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray]:
    """For each position ``r`` of ``order``: the sorted positions of its earlier neighbours.

    Returns ``(pa, powers)``: ``pa[r]`` an int64 array, ``powers[r] = ch(r) + 1``
    (later neighbours plus one), the exponent of row ``r``'s hemisphere density.
    """
    permuted = adjacency[np.ix_(order, order)]
    pa = [np.flatnonzero(permuted[r, :r]) for r in range(order.size)]
    powers = np.triu(permuted, 1).sum(axis=1).astype(np.float64) + 1.0
    return pa, powers


@njit(cache=True, nogil=True)
def mh_hemisphere(start, noise, log_uniforms, power):  # pragma: no cover - compiled
    """Random-walk Metropolis-Hastings on ``S^{k-1}_+`` (pole: the last coordinate).

    Target density ``x[-1]^power`` with respect to the surface measure. Step
    ``t`` proposes ``normalize(x + noise[t])`` and accepts it when its pole
    coordinate is positive and ``log_uniforms[t] <= power * log(x'[-1] / x[-1])``
    (the proposal is symmetric). Returns ``(final state, accepted steps)``.
    """
    return _walk(start, noise, log_uniforms, power, False)


@njit(cache=True, nogil=True)
def mh_hemisphere_portable(start, noise, uniforms, power):  # pragma: no cover - compiled
    """:func:`mh_hemisphere` with only ``sqrt`` and the four basic operations (``portable=True``).

    The same walk and the same test, written without logarithms:
    ``uniforms[t] <= (x'[-1] / x[-1]) ** power`` for the *integer* ``power``
    (a row's density exponent ``ch(r) + 1``), the power taken by repeated
    squaring: a fixed sequence of correctly rounded multiplications, so the
    bits do not depend on the CPU or its C library. It takes the uniforms
    themselves (not their logarithms): NumPy's ``log`` has CPU-specific SIMD
    versions. The decisions are those of :func:`mh_hemisphere` except when a
    uniform lies within rounding of the bound.
    """
    return _walk(start, noise, uniforms, power, True)


@njit(nogil=True)
def _walk(start, noise, tests, power, by_products):  # pragma: no cover - compiled
    k = start.size
    x = start.copy()
    prop = np.empty(k)
    accepted = 0
    exponent = int(power)
    for t in range(noise.shape[0]):
        norm2 = 0.0
        for c in range(k):
            prop[c] = x[c] + noise[t, c]
            norm2 += prop[c] * prop[c]
        norm = np.sqrt(norm2)
        pole = prop[k - 1] / norm
        if pole > 0.0:
            if by_products:
                ok = tests[t] <= _integer_power(pole / x[k - 1], exponent)
            else:
                ok = tests[t] <= power * (np.log(pole) - np.log(x[k - 1]))
            if ok:
                for c in range(k):
                    x[c] = prop[c] / norm
                accepted += 1
    return x, accepted


@njit(nogil=True, inline="always")
def _integer_power(base, exponent):  # pragma: no cover - compiled
    """``base ** exponent`` (``exponent >= 0``) by repeated squaring, in a fixed order."""
    result = 1.0
    while exponent > 0:
        if exponent & 1:
            result *= base
        exponent >>= 1
        if exponent:
            base *= base
    return result


def exact_row(pole_squared: float, direction: np.ndarray, portable: bool = False) -> np.ndarray:
    """The hemisphere point with ``x[-1]^2 = pole_squared``, the rest along ``direction``.

    ``pole_squared`` is a ``Beta((a + 1) / 2, (k - 1) / 2)`` draw, ``direction``
    ``k - 1`` standard normal draws (any non-zero vector). ``portable``: the
    norm of ``direction`` in a fixed order (NumPy's goes through BLAS).
    """
    k = direction.size + 1
    x = np.empty(k)
    x[k - 1] = np.sqrt(pole_squared)
    if k > 1:
        x[: k - 1] = direction * (np.sqrt(1.0 - pole_squared) / _norm(direction, portable))
    return x


def _norm(v: np.ndarray, portable: bool) -> float:
    """The Euclidean norm: NumPy's (BLAS), or with ``portable`` in a fixed order."""
    if portable:
        from spdgraph._kernels.portable import vector_norm

        return vector_norm(v)
    return float(np.linalg.norm(v))


def assemble_lower(pa: list[np.ndarray], rows: list[np.ndarray]) -> np.ndarray:
    """The lower factor with row ``r`` equal to ``rows[r]`` on ``pa[r]`` then on ``r``."""
    p = len(pa)
    lower = np.zeros((p, p))
    for r in range(p):
        lower[r, pa[r]] = rows[r][:-1]
        lower[r, r] = rows[r][-1]
    return lower


def onion_correlation(
    r12_beta: float, ys: np.ndarray, normals: list[np.ndarray], portable: bool = False
) -> np.ndarray:
    """The onion method (Lewandowski, Kurowicka and Joe 2009) for LKJ(eta), from its draws.

    ``r12_beta`` is a ``Beta(b, b)`` draw with ``b = eta + (p - 2) / 2``; for
    ``k = 2 .. p - 1``, ``ys[k - 2]`` is a ``Beta(k / 2, b - (k - 1) / 2)`` draw
    and ``normals[k - 2]`` ``k`` standard normal draws. With ``eta = 1`` this is
    the uniform distribution on ``p x p`` correlation matrices (each
    correlation's marginal is ``Beta(p / 2, p / 2)`` on ``[-1, 1]``).

    Step ``k`` extends the correlation matrix ``C_k`` by the column
    ``z = chol(C_k) w`` with ``w = sqrt(y) u`` (``u`` uniform on the sphere);
    the Cholesky factor of the extended matrix is that of ``C_k`` plus the row
    ``(w, sqrt(1 - y))``, so no factorization is ever repeated: the factor is
    built row by row and multiplied once. Returns the ``(p, p)`` correlation
    matrix (exactly symmetric, unit diagonal). ``portable``: the norms and the
    product in fixed-order loops (no BLAS).
    """
    p = ys.size + 2
    lower = np.zeros((p, p))
    r12 = 2.0 * r12_beta - 1.0
    lower[0, 0] = 1.0
    lower[1, 0] = r12
    lower[1, 1] = np.sqrt(1.0 - r12 * r12)
    for k in range(2, p):
        u = normals[k - 2] / _norm(normals[k - 2], portable)
        lower[k, :k] = np.sqrt(ys[k - 2]) * u
        lower[k, k] = np.sqrt(1.0 - ys[k - 2])
    c = lower_product(lower, portable)
    c = (c + c.T) / 2.0
    d = 1.0 / np.sqrt(np.diagonal(c))
    c *= d[:, None] * d[None, :]
    np.fill_diagonal(c, 1.0)
    return c


def lower_product(lower: np.ndarray, portable: bool = False) -> np.ndarray:
    """``L L^T`` of a lower-triangular ``L``: BLAS, or with ``portable`` in a fixed order."""
    if portable:
        from spdgraph._kernels.portable import lower_gram

        return lower_gram(lower)
    return lower @ lower.T
