"""Elimination orders and their fill-in (Numba), for the exact non-chordal sampler.

Writing ``K = Phi^T Phi`` with the nodes numbered in an elimination order,
the entries of ``Phi`` that are not free (non-edges i < j) but structurally
non-zero are the *fill-in* of eliminating the nodes in that order: each one
costs the accept-reject sampler a factor in its acceptance probability. The
greedy minimum fill-in heuristic eliminates, at each step, a node whose
neighbours miss the fewest edges among themselves (ties: fewest neighbours,
then the lowest index). On a decomposable graph it finds a perfect
elimination order (no fill-in).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning

__all__ = ["fill_pattern", "min_fill_order"]


@njit(cache=True)
def _fill_and_degree(a, alive, v):  # pragma: no cover - numba
    p = a.shape[0]
    nbrs = np.empty(p, dtype=np.int64)
    d = 0
    for u in range(p):
        if alive[u] and a[v, u]:
            nbrs[d] = u
            d += 1
    missing = 0
    for s in range(d):
        for t in range(s + 1, d):
            if not a[nbrs[s], nbrs[t]]:
                missing += 1
    return missing, d


@njit(cache=True)
def min_fill_order(adjacency):  # pragma: no cover - numba
    """Greedy minimum fill-in elimination order of a boolean adjacency (``int64`` array).

    Ties are broken by the smaller degree, then the lower node index, so the
    order depends on the graph only.
    """
    p = adjacency.shape[0]
    a = adjacency.copy()
    alive = np.ones(p, dtype=np.bool_)
    fill = np.empty(p, dtype=np.int64)
    degree = np.empty(p, dtype=np.int64)
    for v in range(p):
        fill[v], degree[v] = _fill_and_degree(a, alive, v)
    order = np.empty(p, dtype=np.int64)
    mark = np.zeros(p, dtype=np.bool_)
    for step in range(p):
        best = -1
        for v in range(p):
            if alive[v] and (
                best < 0
                or fill[v] < fill[best]
                or (fill[v] == fill[best] and degree[v] < degree[best])
            ):
                best = v
        order[step] = best
        alive[best] = False
        nbrs = np.flatnonzero(a[best] & alive)
        for s in range(nbrs.size):
            for t in range(nbrs.size):
                if s != t:
                    a[nbrs[s], nbrs[t]] = True
        mark[:] = False
        for s in range(nbrs.size):
            x = nbrs[s]
            mark[x] = True
            for y in range(p):
                if alive[y] and a[x, y]:
                    mark[y] = True
        for v in range(p):
            if mark[v] and alive[v]:
                fill[v], degree[v] = _fill_and_degree(a, alive, v)
    return order


@njit(cache=True)
def fill_pattern(permuted):  # pragma: no cover - numba
    """The filled pattern of eliminating nodes 0, 1, ..., p - 1 of ``permuted`` in turn.

    Returns a boolean ``(p, p)`` array: True on the edges and on the fill-in
    (symmetric, False diagonal). ``Phi_ij`` (i < j) can be non-zero only there.
    """
    p = permuted.shape[0]
    f = permuted.copy()
    for i in range(p):
        later = np.flatnonzero(f[i, i + 1 :]) + i + 1
        for s in range(later.size):
            for t in range(later.size):
                if s != t:
                    f[later[s], later[t]] = True
    return f
