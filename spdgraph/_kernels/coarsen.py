"""Compiled contraction of a graph to a minor: the fill of a large factor predicted small.

Minimum fill-in is monotone under taking minors: a chordal completion ``H`` of
``G`` contracts, along an edge ``uv`` of ``G``, to a chordal completion of
``G / uv`` with at least one edge fewer, and deleting a vertex keeps a chordal
completion chordal. So the factor of a minor of ``G`` (ordered well) is a lower
estimate of ``G``'s factor, and a minor of a few tens of thousands of nodes is
ordered and counted in a fraction of a second where AMD on ``G`` itself takes
minutes.

* :func:`aggregate_level`: one level of contraction in time ``O(nnz)``, free
  nodes taking their free neighbours (a large reduction at once, for the first
  level of a sparse graph).
* :func:`contract_level`: one level of contraction in time ``O(nnz)``. Nodes
  are visited in a given (seeded) order; an unmatched node is matched with its
  unmatched neighbour of least degree; a node left unmatched (every neighbour
  already matched) joins the group of its neighbour of least degree; a node
  without neighbours is deleted. Every group is connected (a matched pair and
  nodes adjacent to one of the pair), every node with a neighbour is in a group
  of two or more, so each level at least halves the nodes; a cap on the pairs
  stops the last level at the size wanted.
* :func:`contracted_pattern`: the pattern of the contracted graph (an edge
  between two groups when any of their nodes are adjacent), in CSR without
  diagonal (columns in order of discovery, unsorted).
* :func:`permuted_pattern`: ``P A P^T``'s pattern for an order, unsorted rows
  (what :func:`spdgraph._kernels.sparse.elimination_tree` and
  :func:`~spdgraph._kernels.sparse.cholesky_fill` need).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _degrees(indptr, indices):  # pragma: no cover - compiled
    """Each node's neighbours (a stored diagonal not counted)."""
    p = indptr.size - 1
    degree = np.zeros(p, dtype=np.int32)
    for v in range(p):
        for k in range(indptr[v], indptr[v + 1]):
            if indices[k] != v:
                degree[v] += 1
    return degree


@njit(cache=True, nogil=True)
def _lightest_neighbour(indptr, indices, degree, group, v, free_only):  # pragma: no cover
    """``v``'s neighbour of least degree (the first found on a tie), -1 when it has none;
    with ``free_only``, among its neighbours in no group yet."""
    best = -1
    best_degree = indptr.size  # above any degree (p + 1)
    for k in range(indptr[v], indptr[v + 1]):
        u = indices[k]
        if u != v and (not free_only or group[u] == -1) and degree[u] < best_degree:
            best = u
            best_degree = degree[u]
    return best


@njit(cache=True, nogil=True)
def _join_leftovers(indptr, indices, visit_order, degree, group):  # pragma: no cover - compiled
    """Each node still free (all its neighbours taken) joins its lightest neighbour's group.

    Decided on the groups as they stand, then applied (a leftover never joins
    another leftover). Nodes without neighbours stay deleted (-1).
    """
    p = indptr.size - 1
    joined = np.full(p, -1, dtype=np.int32)
    for v in visit_order:
        if group[v] != -1 or degree[v] == 0:
            continue
        joined[v] = group[_lightest_neighbour(indptr, indices, degree, group, v, False)]
    for v in range(p):
        if joined[v] != -1:
            group[v] = joined[v]


@njit(cache=True, nogil=True)
def contract_level(indptr, indices, visit_order, most_pairs):  # pragma: no cover - compiled
    """``(group, groups)``: a matching contracted, at most ``most_pairs`` pairs.

    ``indptr``/``indices`` is a symmetric pattern (a stored diagonal is ignored);
    ``visit_order`` a permutation of the nodes. Each free node visited is matched
    with its free neighbour of least degree. When the matching is maximal (fewer
    than ``most_pairs`` pairs), each node left free then joins the group of its
    neighbour of least degree (all its neighbours are matched); otherwise the
    nodes not matched stay alone. A node without neighbours is deleted (-1).
    """
    p = indptr.size - 1
    degree = _degrees(indptr, indices)
    group = np.full(p, -1, dtype=np.int32)
    groups = 0
    stopped = False
    for v in visit_order:
        if groups >= most_pairs:
            stopped = True
            break
        if group[v] != -1 or degree[v] == 0:
            continue
        best = _lightest_neighbour(indptr, indices, degree, group, v, True)
        if best >= 0:
            group[v] = groups
            group[best] = groups
            groups += 1
    if stopped:
        for v in range(p):
            if group[v] == -1 and degree[v] > 0:
                group[v] = groups
                groups += 1
        return group, groups
    _join_leftovers(indptr, indices, visit_order, degree, group)
    return group, groups


@njit(cache=True, nogil=True)
def aggregate_level(indptr, indices, visit_order, largest):  # pragma: no cover - compiled
    """``(group, groups)``: groups of up to ``largest`` nodes grown from a free node.

    Nodes are visited in ``visit_order``; a free node with a free neighbour starts
    a group and takes its free neighbours, lightest first found, until the group
    holds ``largest`` nodes (``largest = 2``: a maximal matching). Each node left
    free (every neighbour taken) then joins the group of its lightest neighbour. A
    node without neighbours is deleted (-1). Every group is connected.
    """
    p = indptr.size - 1
    degree = _degrees(indptr, indices)
    group = np.full(p, -1, dtype=np.int32)
    groups = 0
    for v in visit_order:
        if group[v] != -1 or degree[v] == 0:
            continue
        size = 1
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if u != v and group[u] == -1:
                group[u] = groups
                size += 1
                if size >= largest:
                    break
        if size > 1:
            group[v] = groups
            groups += 1
    _join_leftovers(indptr, indices, visit_order, degree, group)
    return group, groups


@njit(cache=True, nogil=True)
def contracted_pattern(indptr, indices, group, groups):  # pragma: no cover - compiled
    """CSR ``(indptr, indices)`` of the contracted graph: no diagonal, columns unsorted."""
    p = indptr.size - 1
    # the members of each group, by a counting sort
    start = np.zeros(groups + 1, dtype=np.int64)
    for v in range(p):
        if group[v] >= 0:
            start[group[v] + 1] += 1
    for c in range(groups):
        start[c + 1] += start[c]
    members = np.empty(start[groups], dtype=np.int32)
    fill = start[:-1].copy()
    for v in range(p):
        c = group[v]
        if c >= 0:
            members[fill[c]] = v
            fill[c] += 1
    mark = np.full(groups, -1, dtype=np.int32)
    out_ptr = np.zeros(groups + 1, dtype=np.int64)
    out_idx = np.empty(indices.size, dtype=np.int32)  # never more than the fine entries
    n = 0
    for c in range(groups):
        mark[c] = c
        for m in range(start[c], start[c + 1]):
            v = members[m]
            for k in range(indptr[v], indptr[v + 1]):
                g = group[indices[k]]
                if g >= 0 and mark[g] != c:
                    mark[g] = c
                    out_idx[n] = g
                    n += 1
        out_ptr[c + 1] = n
    return out_ptr, out_idx[:n].copy()


@njit(cache=True, nogil=True)
def permuted_pattern(indptr, indices, order):  # pragma: no cover - compiled
    """CSR pattern of ``A[order][:, order]`` (row ``i`` is row ``order[i]``), unsorted rows."""
    p = indptr.size - 1
    position = np.empty(p, dtype=np.int64)
    for i in range(p):
        position[order[i]] = i
    out_ptr = np.zeros(p + 1, dtype=np.int64)
    for i in range(p):
        v = order[i]
        out_ptr[i + 1] = out_ptr[i] + indptr[v + 1] - indptr[v]
    out_idx = np.empty(out_ptr[p], dtype=np.int64)
    for i in range(p):
        v = order[i]
        n = out_ptr[i]
        for k in range(indptr[v], indptr[v + 1]):
            out_idx[n] = position[indices[k]]
            n += 1
    return out_ptr, out_idx


@njit(cache=True, nogil=True)
def lower_triplets_by_column(indptr, indices):  # pragma: no cover - compiled
    """``(rows, cols)`` of the lower triangle of a symmetric pattern, column by column.

    Column ``j`` of the lower triangle is row ``j``'s entries right of (and on)
    the diagonal; each is sorted, so the triplets come in column-major order
    (which cvxopt builds a sparse matrix from several times faster).
    """
    p = indptr.size - 1
    count = 0
    for j in range(p):
        for k in range(indptr[j], indptr[j + 1]):
            if indices[k] >= j:
                count += 1
    rows = np.empty(count, dtype=np.int64)
    cols = np.empty(count, dtype=np.int64)
    n = 0
    for j in range(p):
        start = n
        for k in range(indptr[j], indptr[j + 1]):
            if indices[k] >= j:
                rows[n] = indices[k]
                cols[n] = j
                n += 1
        rows[start:n].sort()
    return rows, cols
