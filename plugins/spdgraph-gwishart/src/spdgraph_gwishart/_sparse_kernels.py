"""Numba kernels of the sparse chordal G-Wishart draw (see :mod:`spdgraph_gwishart.sparse`).

Every kernel takes a symmetric CSR adjacency (``indptr``, ``indices``, sorted
column indices, no diagonal) and runs in time proportional to its stored
entries (times a clique size where it says so), never ``p**2``:

* :func:`chordal_min_fill_order`: the greedy minimum fill-in order of
  :func:`spdgraph_gwishart._order.min_fill_order` on a chordal graph (there a
  node of zero fill, a simplicial node, always exists; the greedy takes, among
  them, the smallest current degree, then the lowest index), kept in a binary
  heap of ``degree * p + node`` keys; it stops at the first step with no
  simplicial node (the graph is not chordal). Neighbour lists shrink as nodes
  are eliminated (dead prefix dropped, a list compacted once half dead), so a
  star or a tree of a million nodes takes a fraction of a second; a
  simpliciality check costs at most the pairs of a node's neighbourhood.
* :func:`later_neighbours`: row ``i`` of the permuted upper triangle (the
  neighbours eliminated after ``i``), sorted: the edges of ``Phi``.
* :func:`gram_upper`: ``K = Phi^T Phi`` on the diagonal and the edges, each
  entry summed over its rows in increasing order as the dense
  :func:`spdgraph_gwishart._ar_kernels.gram_on_pattern` does (its extra terms
  are exact zeros, which change no sum): the same bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning

__all__ = ["chordal_min_fill_order", "gram_upper", "later_neighbours"]


@njit(cache=True, nogil=True)
def _has_edge(first, last, adj, u, v):  # pragma: no cover - numba
    lo = first[u]
    hi = last[u]
    while lo < hi:
        mid = (lo + hi) // 2
        if adj[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < last[u] and adj[lo] == v


@njit(cache=True, nogil=True)
def _simplicial(first, last, adj, dead, alive, v):  # pragma: no cover - numba
    """Whether node ``v``'s alive neighbours form a clique (its fill-in is zero).

    Node ``v``'s list is ``adj[first[v]:last[v]]`` (sorted; alive neighbours and
    some dead ones); its dead prefix is dropped first, so a hub whose neighbours
    die in index order is checked in constant time.
    """
    while first[v] < last[v] and not alive[adj[first[v]]]:
        first[v] += 1
        dead[v] -= 1
    for s in range(first[v], last[v]):
        a = adj[s]
        if not alive[a]:
            continue
        for t in range(s + 1, last[v]):
            c = adj[t]
            if alive[c] and not _has_edge(first, last, adj, a, c):
                return False
    return True


@njit(cache=True, nogil=True)
def _compact(first, last, adj, dead, alive, x):  # pragma: no cover - numba
    """Drop node ``x``'s dead neighbours from its list (kept sorted)."""
    k = first[x]
    for s in range(first[x], last[x]):
        if alive[adj[s]]:
            adj[k] = adj[s]
            k += 1
    last[x] = k
    dead[x] = 0


@njit(cache=True, nogil=True)
def _push(heap, size, key):  # pragma: no cover - numba
    i = size
    heap[i] = key
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] <= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return size + 1


@njit(cache=True, nogil=True)
def _pop(heap, size):  # pragma: no cover - numba
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and heap[left + 1] < heap[left]:
            child = left + 1
        if heap[i] <= heap[child]:
            break
        heap[i], heap[child] = heap[child], heap[i]
        i = child
    return top, size


@njit(cache=True, nogil=True)
def chordal_min_fill_order(indptr, indices):  # pragma: no cover - numba
    """``(order, done)``: the greedy minimum fill-in order; ``done < p`` if not chordal.

    ``order[:done]`` are the nodes eliminated before no simplicial node was left.
    """
    p = indptr.size - 1
    alive = np.ones(p, dtype=np.bool_)
    simplicial = np.zeros(p, dtype=np.bool_)
    degree = np.empty(p, dtype=np.int64)
    heap = np.empty(p + indices.size + 1, dtype=np.int64)
    # each node's neighbour list, shrunk as its neighbours are eliminated: a list is
    # compacted once it holds more dead entries than alive ones (amortized: O(edges))
    first = indptr[:-1].copy()
    last = indptr[1:].copy()
    adj = indices.copy()
    dead = np.zeros(p, dtype=np.int64)
    size = 0
    for v in range(p):
        degree[v] = indptr[v + 1] - indptr[v]
        if _simplicial(first, last, adj, dead, alive, v):
            simplicial[v] = True
            size = _push(heap, size, degree[v] * p + v)
    order = np.empty(p, dtype=np.int64)
    for step in range(p):
        v = -1
        while size > 0:
            key, size = _pop(heap, size)
            u = key % p
            if alive[u] and key // p == degree[u]:
                v = u
                break
        if v < 0:
            return order, step
        order[step] = v
        alive[v] = False
        for s in range(first[v], last[v]):
            x = adj[s]
            if not alive[x]:
                continue
            degree[x] -= 1
            dead[x] += 1
            if dead[x] > degree[x]:
                _compact(first, last, adj, dead, alive, x)
            if not simplicial[x]:
                if not _simplicial(first, last, adj, dead, alive, x):
                    continue
                simplicial[x] = True
            size = _push(heap, size, degree[x] * p + x)
    return order, p


@njit(cache=True, nogil=True)
def later_neighbours(indptr, indices, order):  # pragma: no cover - numba
    """The permuted upper triangle as CSR ``(ptr, idx)``: row ``i`` holds the positions
    ``j > i`` of node ``order[i]``'s neighbours, sorted."""
    p = indptr.size - 1
    position = np.empty(p, dtype=np.int64)
    for i in range(p):
        position[order[i]] = i
    ptr = np.zeros(p + 1, dtype=np.int64)
    for i in range(p):
        v = order[i]
        count = 0
        for s in range(indptr[v], indptr[v + 1]):
            if position[indices[s]] > i:
                count += 1
        ptr[i + 1] = ptr[i] + count
    idx = np.empty(ptr[p], dtype=np.int64)
    for i in range(p):
        v = order[i]
        k = ptr[i]
        for s in range(indptr[v], indptr[v + 1]):
            j = position[indices[s]]
            if j > i:
                idx[k] = j
                k += 1
        idx[ptr[i] : ptr[i + 1]] = np.sort(idx[ptr[i] : ptr[i + 1]])
    return ptr, idx


@njit(cache=True, nogil=True)
def gram_upper(ptr, idx, diag, off):  # pragma: no cover - numba
    """``K = Phi^T Phi`` on the pattern, upper triangle in elimination order.

    ``Phi`` has diagonal ``diag`` and, in row ``i``, the value ``off[e]`` at
    column ``idx[e]`` for ``e`` in ``ptr[i]:ptr[i + 1]``. Returns ``(kdiag, koff)``
    on the same layout (``K_ii`` and ``K_{i, idx[e]}``). Row ``r`` adds its
    products to the entries of ``{r} + later neighbours`` (a clique on a perfect
    elimination order: every pair is an edge), so rows are summed in increasing
    order, each sum starting at ``0.0``.
    """
    p = diag.size
    kdiag = np.zeros(p)
    koff = np.zeros(idx.size)
    for r in range(p):
        d = diag[r]
        lo = ptr[r]
        hi = ptr[r + 1]
        kdiag[r] += d * d
        for e in range(lo, hi):
            koff[e] += d * off[e]
        for a in range(lo, hi):
            ia = idx[a]
            va = off[a]
            kdiag[ia] += va * va
            start = ptr[ia]
            stop = ptr[ia + 1]
            for c in range(a + 1, hi):
                ic = idx[c]
                # position of ic in row ia (sorted): a binary search
                lo2 = start
                hi2 = stop
                while lo2 < hi2:
                    mid = (lo2 + hi2) // 2
                    if idx[mid] < ic:
                        lo2 = mid + 1
                    else:
                        hi2 = mid
                koff[lo2] += va * off[c]
    return kdiag, koff
