"""Compiled loops of the graph families whose steps depend on the steps before them.

``scale_free_targets``: huge's SFGen with a Fenwick tree of the counted degrees
(O(p log p), the same node for the same uniform as the linear search).
``small_world_edges``: Watts–Strogatz rewiring with a hash set of the edges.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def scale_free_targets(p, u):
    """``targets[i]`` (i >= 2): the node new node ``i`` links to, given ``u[i - 2]``.

    Node ``i`` links to the first node ``j`` whose cumulative counted degree
    reaches ``x = total * u[i - 2]`` (huge's ``SFGen``, ``d0 = 2``: nodes 0
    and 1 start with degree 2, ``total`` is the sum of the degrees). The
    cumulative degrees are a Fenwick tree, so each step is O(log p) instead of
    a scan, and the comparisons are the scan's (integers against ``x``).
    """
    tree = np.zeros(p + 1, dtype=np.int64)  # 1-based Fenwick tree of the degrees
    targets = np.zeros(p, dtype=np.int64)
    for node in (0, 1):
        k = node + 1
        while k <= p:
            tree[k] += 2
            k += k & -k
    top = 1
    while top * 2 <= p:
        top *= 2
    total = 4
    for i in range(2, p):
        x = total * u[i - 2]
        pos = 0
        rest = x
        step = top
        while step > 0:  # the longest prefix whose sum stays below x
            nxt = pos + step
            if nxt <= p and tree[nxt] < rest:
                pos = nxt
                rest -= tree[nxt]
            step >>= 1
        j = min(pos, i - 1)
        targets[i] = j
        for node in (j, i):
            k = node + 1
            while k <= p:
                tree[k] += 1
                k += k & -k
        total += 2
    return targets


@njit(cache=True, nogil=True)
def small_world_edges(p, neighbors, rewire, rng):
    """The edges (rows, cols) of a ring lattice rewired as ``small_world`` describes.

    Edge ``(i, i + k)`` (k = 1..neighbors, then i in order) is, when
    ``rng.random() < rewire``, replaced by ``(i, w)`` with ``w`` uniform over
    the nodes neither ``i`` nor linked to it (drawn by rejection; skipped
    when ``i`` is linked to every node).
    """
    edges = set()
    degree = np.full(p, 2 * neighbors, dtype=np.int64)
    for k in range(1, neighbors + 1):
        for i in range(p):
            v = (i + k) % p
            edges.add(min(i, v) * p + max(i, v))
    for k in range(1, neighbors + 1):
        for i in range(p):
            v = (i + k) % p
            key = min(i, v) * p + max(i, v)
            if key not in edges or rng.random() >= rewire:
                continue
            if degree[i] >= p - 1:
                continue
            while True:
                w = rng.integers(0, p)
                if w != i and (min(i, w) * p + max(i, w)) not in edges:
                    break
            edges.discard(key)
            edges.add(min(i, w) * p + max(i, w))
            degree[v] -= 1
            degree[w] += 1
    rows = np.empty(len(edges), dtype=np.int64)
    cols = np.empty(len(edges), dtype=np.int64)
    n = 0
    for key in edges:
        rows[n] = key // p
        cols[n] = key % p
        n += 1
    return rows, cols
