"""Numba kernels of the sparse chordal G-Wishart draw (see :mod:`spdgraph_gwishart.sparse`).

Every kernel takes a symmetric CSR adjacency (``indptr``, ``indices``, sorted
column indices, no diagonal) and runs in time proportional to its stored
entries (times a clique size where it says so), never ``p**2``:

* :func:`max_cardinality_order`: the reverse of a maximum cardinality search,
  a perfect elimination order iff the graph is chordal (checked), and the
  later-neighbour counts, whose squares give the draw's cost (the ``max_flops``
  check): linear time, before any heavy work.
* :func:`chordal_min_fill_order`: the greedy minimum fill-in order of
  :func:`spdgraph_gwishart._order.min_fill_order` on a chordal graph (there a
  node of zero fill, a simplicial node, always exists; the greedy takes, among
  them, the smallest current degree, then the lowest index), kept in a binary
  heap of ``degree * p + node`` keys. Whether a node is simplicial is kept as
  a count of the missing edges among its neighbours, started from the
  triangles counted on a perfect elimination order and updated in constant
  time per edge: linear in the edges (a 1,000-node clique: milliseconds; the
  former pairwise checks were cubic in a clique's size).
* :func:`later_neighbours`: row ``i`` of the permuted upper triangle (the
  neighbours eliminated after ``i``), sorted: the edges of ``Phi``.
* :func:`gram_upper`: ``K = Phi^T Phi`` on the diagonal and the edges, each
  entry summed over its rows in increasing order as the dense
  :func:`spdgraph_gwishart._ar_kernels.gram_on_pattern` does (its extra terms
  are exact zeros, which change no sum): the same bits. A row's products land
  on a clique; each target is found by galloping from the previous one (one
  step on a dense block), so the work is the products, ``sum_i nu_i**2 / 2``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning

__all__ = [
    "chordal_min_fill_order",
    "gram_upper",
    "later_neighbours",
    "max_cardinality_order",
]


@njit(cache=True, nogil=True)
def _unlink(head, nxt, prv, bucket, v):  # pragma: no cover - numba
    if prv[v] >= 0:
        nxt[prv[v]] = nxt[v]
    else:
        head[bucket] = nxt[v]
    if nxt[v] >= 0:
        prv[nxt[v]] = prv[v]


@njit(cache=True, nogil=True)
def _link(head, nxt, prv, bucket, v):  # pragma: no cover - numba
    prv[v] = -1
    nxt[v] = head[bucket]
    if head[bucket] >= 0:
        prv[head[bucket]] = v
    head[bucket] = v


@njit(cache=True, nogil=True)
def max_cardinality_order(indptr, indices):  # pragma: no cover - numba
    """``(order, chordal, later)``: the reverse of a maximum cardinality search.

    ``order`` is a perfect elimination order iff the graph is chordal (Tarjan and
    Yannakakis 1984), which ``chordal`` reports (their follower test);
    ``later[i]`` is the number of neighbours of ``order[i]`` after it. Buckets of
    doubly linked lists: time proportional to the nodes and edges.
    """
    p = indptr.size - 1
    head = np.full(p + 1, -1, dtype=np.int64)
    nxt = np.empty(p, dtype=np.int64)
    prv = np.empty(p, dtype=np.int64)
    weight = np.zeros(p, dtype=np.int64)
    done = np.zeros(p, dtype=np.bool_)
    for v in range(p - 1, -1, -1):
        _link(head, nxt, prv, 0, v)
    order = np.empty(p, dtype=np.int64)
    top = 0
    for step in range(p - 1, -1, -1):
        while head[top] < 0:
            top -= 1
        v = head[top]
        _unlink(head, nxt, prv, top, v)
        done[v] = True
        order[step] = v
        for s in range(indptr[v], indptr[v + 1]):
            u = indices[s]
            if not done[u]:
                _unlink(head, nxt, prv, weight[u], u)
                weight[u] += 1
                _link(head, nxt, prv, weight[u], u)
                top = max(top, weight[u])
    position = np.empty(p, dtype=np.int64)
    for i in range(p):
        position[order[i]] = i
    # the follower test: each node's later neighbours but its first (the follower f)
    # are neighbours of f; ``mark[v] == i`` when v is an earlier neighbour of order[i]
    follower = np.arange(p)
    mark = np.full(p, -1, dtype=np.int64)
    later = np.zeros(p, dtype=np.int64)
    chordal = True
    for i in range(p):
        w = order[i]
        mark[w] = i
        for s in range(indptr[w], indptr[w + 1]):
            v = indices[s]
            if position[v] < i:
                mark[v] = i
                later[position[v]] += 1
                if follower[v] == v:
                    follower[v] = w
        for s in range(indptr[w], indptr[w + 1]):
            v = indices[s]
            if position[v] < i and mark[follower[v]] != i:
                chordal = False
    return order, chordal, later


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
def chordal_min_fill_order(indptr, indices, peo, later):  # pragma: no cover - numba
    """``(order, done)``: the greedy minimum fill-in order of a chordal graph, given
    one of its perfect elimination orders ``peo`` and its later-neighbour counts
    (from :func:`max_cardinality_order`).

    Each node's *missing* count (the non-adjacent pairs of its alive neighbours:
    zero iff it is simplicial) starts as its neighbour pairs minus its triangles,
    counted on ``peo`` (a triangle's first node has the other two among its later
    neighbours, a clique). Eliminating a simplicial ``v`` removes, for each alive
    neighbour ``x``, the pairs ``(v, y)`` with ``y`` not adjacent to ``v``: ``N(v)``
    is a clique holding ``x``, so there are ``degree(x) - degree(v)`` of them. Time
    proportional to the edges (times a logarithm for the heap). ``done < p``: the
    counts were wrong (``peo`` not perfect) and no simplicial node was left.
    """
    p = indptr.size - 1
    degree = np.empty(p, dtype=np.int64)
    missing = np.empty(p, dtype=np.int64)
    for v in range(p):
        degree[v] = indptr[v + 1] - indptr[v]
        missing[v] = degree[v] * (degree[v] - 1) // 2
    position = np.empty(p, dtype=np.int64)
    for i in range(p):
        position[peo[i]] = i
    for i in range(p):
        v = peo[i]
        missing[v] -= later[i] * (later[i] - 1) // 2
        for s in range(indptr[v], indptr[v + 1]):
            if position[indices[s]] > i:
                missing[indices[s]] -= later[i] - 1
    alive = np.ones(p, dtype=np.bool_)
    heap = np.empty(p + indices.size + 1, dtype=np.int64)
    size = 0
    for v in range(p):
        if missing[v] == 0:
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
        if v < 0:  # no simplicial node: ``peo`` was not a perfect elimination order
            return order, step
        order[step] = v
        alive[v] = False
        for s in range(indptr[v], indptr[v + 1]):
            x = indices[s]
            if alive[x]:
                missing[x] -= degree[x] - degree[v]
                degree[x] -= 1
                if missing[x] == 0:
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
def _add_products(start, stop, idx, off, koff, va, lo, hi):  # pragma: no cover - numba
    """``koff[position of idx[c] in idx[start:stop]] += va * off[c]`` for c in lo:hi.

    The targets ``idx[lo:hi]`` are sorted and all in the sorted row ``idx[start:stop]``
    (a clique's later nodes): each is found by galloping from the previous one; when
    they fill a contiguous run of the row (a dense block) the products are added in
    one vectorizable loop. Each entry gets one addition either way: the same bits.
    """
    q = start
    for c in range(lo, hi):
        ic = idx[c]
        if idx[q] != ic:
            step = 1
            while q + step < stop and idx[q + step] < ic:
                step *= 2
            left = q + step // 2
            right = min(q + step + 1, stop)
            while left < right:
                mid = (left + right) // 2
                if idx[mid] < ic:
                    left = mid + 1
                else:
                    right = mid
            q = left
        if c == lo:
            n = hi - lo
            if q + n <= stop and idx[q + n - 1] == idx[hi - 1]:
                for t in range(n):  # the run idx[q:q + n] is idx[lo:hi]
                    koff[q + t] += va * off[lo + t]
                return
        koff[q] += va * off[c]
        q += 1


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
            _add_products(ptr[ia], ptr[ia + 1], idx, off, koff, va, a + 1, hi)
    return kdiag, koff
