"""Exact G-Wishart draws on decomposable (chordal) graphs, for any SPD scale D.

For a decomposable graph whose nodes are numbered in a perfect elimination
order (each node's later neighbours form a clique), write ``K = Phi^T Phi``
with ``Phi`` upper triangular and positive diagonal. Then ``Phi`` is zero off
the edges (no fill-in), and the free entries of row i are
``x_i = (Phi_ii, Phi_{i, N_i})`` with ``N_i`` the later neighbours of i,
``nu_i = |N_i|`` (Roverato 2002; Atay-Kayis and Massam 2005).

With ``S_i = {i} + N_i``, ``tr(D K) = sum_i x_i^T D[S_i, S_i] x_i`` and
``det K = prod_i Phi_ii^2``; the Jacobian of the map from the free entries of
Phi to those of K is ``2^p prod_i Phi_ii^(nu_i + 1)``. The density of
``W_G(b, D)`` in these coordinates is therefore a product over rows:

    prod_i Phi_ii^(b + nu_i - 1) exp(-x_i^T D[S_i, S_i] x_i / 2),

so the rows are independent (Carvalho, Massam and West 2007 give the same
sequential construction for the hyper-inverse Wishart). In row i, with
``d = D_ii``, ``c = D[N_i, i]``, ``A = D[N_i, N_i]`` and the Schur complement
``s = d - c^T A^-1 c``:

* ``Phi_ii^2 ~ chi2(b + nu_i) / s``;
* given ``Phi_ii``, ``Phi_{i, N_i} ~ N(-Phi_ii A^-1 c, A^-1)``.

For a diagonal D this is ``K = D^-1/2 K' D^-1/2`` with ``K' ~ W_G(b, I)``
(independent standard normals on the edges, ``Phi_ii^2 ~ chi2(b + nu_i)``),
which is what a diagonal D computes (the same random numbers are used either
way: first the p chi-squares, then the edge normals in row-major order).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.linalg

import spdgraph
from spdgraph.graphs import perfect_elimination_order

__all__ = ["chordal_gwishart", "perfect_elimination_order"]


def _elimination_order(adjacency: np.ndarray) -> np.ndarray:
    return _cached_order(adjacency.shape[0], np.packbits(adjacency).tobytes())


@functools.lru_cache(maxsize=16)
def _cached_order(p: int, packed: bytes) -> np.ndarray:
    adjacency = np.unpackbits(np.frombuffer(packed, dtype=np.uint8), count=p * p)
    order = perfect_elimination_order(adjacency.reshape(p, p).astype(bool))
    if order is None:
        raise spdgraph.InvalidOptionError(
            "gwishart algorithm='chordal' needs a decomposable (chordal) graph, and this "
            "graph has a chordless cycle of length >= 4; use algorithm='auto' (exact on any "
            "graph), or triangulate the graph."
        )
    out = np.array(order)
    out.setflags(write=False)  # shared by every call through the cache
    return out


@dataclass(frozen=True)
class _RowPlan:
    """Per row i (elimination order): s_i, and with A = L L^T, L^-T and A^-1 c."""

    schur: np.ndarray
    l_inv_t: tuple[np.ndarray, ...]
    a_inv_c: tuple[np.ndarray, ...]


def _row_plan(d_perm: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> _RowPlan:
    return _cached_plan(
        d_perm.shape[0],
        d_perm.tobytes(),
        rows.astype(np.int64).tobytes(),
        cols.astype(np.int64).tobytes(),
    )


@functools.lru_cache(maxsize=16)
def _cached_plan(p: int, d_bytes: bytes, row_bytes: bytes, col_bytes: bytes) -> _RowPlan:
    d_perm = np.frombuffer(d_bytes, dtype=np.float64).reshape(p, p)
    rows = np.frombuffer(row_bytes, dtype=np.int64)
    cols = np.frombuffer(col_bytes, dtype=np.int64)
    starts = np.searchsorted(rows, np.arange(p + 1))
    schur = np.empty(p)
    l_inv_t: list[np.ndarray] = []
    a_inv_c: list[np.ndarray] = []
    for i in range(p):
        nbrs = cols[starts[i] : starts[i + 1]]
        if nbrs.size == 0:
            schur[i] = d_perm[i, i]
            l_inv_t.append(np.zeros((0, 0)))
            a_inv_c.append(np.zeros(0))
            continue
        chol = np.linalg.cholesky(d_perm[np.ix_(nbrs, nbrs)])
        c = d_perm[nbrs, i]
        solved = scipy.linalg.cho_solve((chol, True), c)
        schur[i] = d_perm[i, i] - c @ solved
        # A = L L^T: L^-T z has covariance A^-1
        l_inv_t.append(scipy.linalg.solve_triangular(chol, np.eye(nbrs.size), lower=True).T)
        a_inv_c.append(solved)
    return _RowPlan(schur, tuple(l_inv_t), tuple(a_inv_c))


def chordal_gwishart(
    adjacency: np.ndarray, rng: np.random.Generator, b: float, D: np.ndarray
) -> np.ndarray:
    """One exact draw ``K ~ W_G(b, D)`` on a chordal graph.

    Parameters
    ----------
    adjacency
        Boolean ``(p, p)`` symmetric adjacency with a False diagonal.
    rng
        The random number generator.
    b
        Degrees of freedom, > 2.
    D
        The scale: a ``(p, p)`` symmetric positive definite array, or a 1-D
        array of length p holding the diagonal of a diagonal scale.

    Returns
    -------
    numpy.ndarray
        ``(p, p)`` precision matrix with exact zeros on the non-edges.

    Notes
    -----
    Draws, in the perfect elimination order of :func:`perfect_elimination_order`:
    first the p values ``chi2(b + nu_i)``, then the standard normals of the
    edges i < j in row-major order (see the module docstring for the law).

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not chordal.
    """
    order = _elimination_order(adjacency)
    p = adjacency.shape[0]
    d = np.asarray(D, dtype=np.float64)
    diagonal = d.ndim == 1
    if not diagonal and np.all(d[~np.eye(p, dtype=bool)] == 0):
        d, diagonal = np.diag(d).copy(), True
    a = adjacency[np.ix_(order, order)]
    upper = np.triu(a, 1)
    chi2 = rng.chisquare(b + upper.sum(axis=1))
    rows, cols = np.nonzero(upper)
    z = rng.standard_normal(rows.size)
    phi = np.zeros((p, p))
    if diagonal:
        d_perm = d[order]
        phi[np.arange(p), np.arange(p)] = np.sqrt(chi2 / d_perm)
        phi[rows, cols] = z / np.sqrt(d_perm[cols])
    else:
        d_perm = np.ascontiguousarray(d[np.ix_(order, order)])
        plan = _row_plan(d_perm, rows, cols)  # depends on D and G only: cached across draws
        starts = np.searchsorted(rows, np.arange(p + 1))
        phi[np.arange(p), np.arange(p)] = np.sqrt(chi2 / plan.schur)
        for i in range(p):
            lo, hi = starts[i], starts[i + 1]
            if hi > lo:
                phi[i, cols[lo:hi]] = plan.l_inv_t[i] @ z[lo:hi] - phi[i, i] * plan.a_inv_c[i]
    k_perm = phi.T @ phi  # exact zeros on non-edges: every product has a zero factor
    k_perm = (k_perm + k_perm.T) * 0.5
    k = np.empty_like(k_perm)
    k[np.ix_(order, order)] = k_perm
    return k
