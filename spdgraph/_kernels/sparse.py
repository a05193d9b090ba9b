"""Compiled loops of the sparse path: row sums, the dominance certificate, the fill count.

Every function takes CSR arrays (``indptr``, ``indices``, ``data``) with sorted
column indices and runs in time proportional to the stored entries (the fill
count: to the factor's entries, stopped at a budget).

* :func:`row_abs_sums`: ``sum_j |m_ij|`` over the off-diagonal entries, left to
  right in column order: the same IEEE operations in the same order as the
  portable dense loop (:func:`spdgraph._kernels.portable.row_abs_sums`, whose
  ``+ 0.0`` for each zero changes no non-negative sum), so the same bits.
* :func:`dominance_margins`: the weighted Gershgorin test of a symmetric matrix
  with a positive weight vector ``w`` (generalized diagonal dominance): row ``i``
  passes when ``m_ii w_i > sum_{j != i} |m_ij| w_j`` with a margin that covers
  every rounding of the floating-point sums (Higham's ``gamma_k``). Every row
  passing proves ``W^-1 M W``'s Gershgorin discs lie right of 0, so the
  eigenvalues of ``M`` (similar to it) are positive: ``M`` is positive definite.
* :func:`cholesky_fill`: the entries of the Cholesky factor of a symmetric
  pattern in a given order, counted exactly (elimination tree, then each row's
  subtree), stopping once the count passes a budget.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Unit roundoff of float64.
UNIT_ROUNDOFF = 2.0**-53


@njit(cache=True, nogil=True, error_model="numpy")
def row_abs_sums(indptr, indices, data):  # pragma: no cover - compiled
    """``sum_{j != i} |m_ij|`` per row, left to right over the stored entries."""
    p = indptr.size - 1
    out = np.empty(p)
    for i in range(p):
        t = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] != i:
                t += abs(data[k])
        out[i] = t
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def dominance_margins(indptr, indices, data, w, u):  # pragma: no cover - compiled
    """Per row: ``(m_ii w_i, sum_{j != i} |m_ij| w_j, passes)``, roundings accounted.

    ``passes[i]`` is True when ``fl(m_ii w_i) (1 - 2u)`` exceeds
    ``fl(sum) (1 + gamma_{k+4})`` computed upward (``k`` the row's stored
    entries): then the exact ``m_ii w_i`` exceeds the exact sum.
    """
    p = indptr.size - 1
    diag = np.zeros(p)
    off = np.empty(p)
    passes = np.empty(p, dtype=np.bool_)
    for i in range(p):
        t = 0.0
        d = 0.0
        count = 0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j == i:
                d = data[k] * w[i]
            else:
                t += abs(data[k]) * w[j]
                count += 1
        gamma = (count + 4) * u / (1.0 - (count + 4) * u)
        diag[i] = d
        off[i] = t
        # the right side rounded up twice more (its own two operations)
        passes[i] = d * (1.0 - 2.0 * u) > t * (1.0 + 2.0 * gamma)
    return diag, off, passes


@njit(cache=True, nogil=True)
def elimination_tree(indptr, indices):  # pragma: no cover - compiled
    """Parent of each column in the elimination tree of a symmetric pattern (-1: root).

    Liu's algorithm with path compression over the entries ``j < i`` of each row.
    """
    p = indptr.size - 1
    parent = np.full(p, -1, dtype=np.int64)
    ancestor = np.full(p, -1, dtype=np.int64)
    for i in range(p):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            while j != -1 and j < i:
                following = ancestor[j]
                ancestor[j] = i
                if following == -1:
                    parent[j] = i
                j = following
    return parent


@njit(cache=True, nogil=True)
def cholesky_fill(indptr, indices, parent, budget, flop_budget=np.inf):  # pragma: no cover
    """Entries of the lower Cholesky factor (diagonal included) and its column counts.

    Returns ``(entries, counts)``, ``entries = budget + 1`` once the count passes
    the budget or the sum of squared column counts (the factorization's
    floating-point operations) passes ``flop_budget`` (the counts then partial,
    a lower bound). Row ``i`` of the factor is the union of
    the paths from each ``j < i`` of row ``i`` of the matrix up the elimination
    tree to ``i``: each path is walked until a node already marked for row ``i``;
    each node ``j`` met is an entry ``L[i, j]`` (column ``j`` counted).
    """
    p = indptr.size - 1
    mark = np.full(p, -1, dtype=np.int64)
    counts = np.ones(p, dtype=np.int64)
    count = 0
    flops = float(p)
    for i in range(p):
        mark[i] = i
        count += 1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            while j < i and mark[j] != i:
                mark[j] = i
                counts[j] += 1
                flops += 2.0 * counts[j] - 1.0
                count += 1
                j = parent[j]
                if j == -1:
                    break
            if count > budget or flops > flop_budget:
                return budget + 1, counts
    return count, counts


@njit(cache=True, nogil=True)
def _find(indices, start, stop, j):  # pragma: no cover - compiled
    """Position of column ``j`` in the sorted ``indices[start:stop]``, or -1."""
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    if lo < stop and indices[lo] == j:
        return lo
    return -1


@njit(cache=True, nogil=True)
def symmetric_pattern_values(indptr, indices, data):  # pragma: no cover - compiled
    """``(code, i, j)``: code 0 when ``data`` is exactly symmetric, else 3 at ``[i, j]``.

    Rows in order; the mirror of ``[i, j]``, ``j < i``, is the next entry of row
    ``j`` right of its diagonal not yet matched (the rows ``j < c < i`` came
    first), so every entry is visited twice in all: time ``O(nnz)``. An entry
    without a stored mirror must be zero.
    """
    p = indptr.size - 1
    nxt = np.empty(p, dtype=np.int64)
    for r in range(p):
        q = indptr[r]
        while q < indptr[r + 1] and indices[q] <= r:
            q += 1
        nxt[r] = q
    for i in range(p):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j >= i:
                break
            q = nxt[j]
            stop = indptr[j + 1]
            while q < stop and indices[q] < i:  # no mirror in rows j < c < i: zero
                if data[q] != 0.0:
                    return 3, j, indices[q]
                q += 1
            if q < stop and indices[q] == i:
                if not (data[q] == data[k]):
                    return 3, i, j
                q += 1
            elif data[k] != 0.0:
                return 3, i, j
            nxt[j] = q
    for r in range(p):  # entries right of the diagonal never matched: zero
        for q in range(nxt[r], indptr[r + 1]):
            if data[q] != 0.0:
                return 3, r, indices[q]
    return 0, -1, -1


@njit(cache=True, nogil=True)
def first_structure_violation(indptr, indices, data, adj_indptr, adj_indices):  # pragma: no cover
    """The first problem of a canonical CSR matrix against a canonical adjacency.

    Returns ``(code, i, j)``: code 0 none, 1 a non-finite value, 2 a non-zero off
    the graph, 3 ``m_ij != m_ji``. Each row is walked against its row of the
    adjacency (both sorted), then the symmetry by :func:`symmetric_pattern_values`:
    time ``O(nnz)``, no temporaries.
    """
    p = indptr.size - 1
    for i in range(p):
        a = adj_indptr[i]
        a_stop = adj_indptr[i + 1]
        for k in range(indptr[i], indptr[i + 1]):
            x = data[k]
            j = indices[k]
            if not (x - x == 0.0):
                return 1, i, j
            if j == i or x == 0.0:
                continue
            while a < a_stop and adj_indices[a] < j:
                a += 1
            if a == a_stop or adj_indices[a] != j:
                return 2, i, j
    return symmetric_pattern_values(indptr, indices, data)


@njit(cache=True, nogil=True)
def off_diagonal_nonzeros(indptr, indices, data, out_ptr, out_idx):  # pragma: no cover
    """The CSR pattern of the non-zero entries off the diagonal, written into
    ``out_ptr`` (``p + 1``) and ``out_idx`` (at least the stored entries, allocated by
    the caller in its index type); returns how many entries were written."""
    p = indptr.size - 1
    out_ptr[0] = 0
    n = 0
    for i in range(p):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j != i and data[k] != 0:
                out_idx[n] = j
                n += 1
        out_ptr[i + 1] = n
    return n


@njit(cache=True, nogil=True)
def expand_rows(indptr, rows):  # pragma: no cover - compiled
    """The row of each stored entry of a CSR pattern, written into ``rows`` (COO rows)."""
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            rows[k] = i


@njit(cache=True, nogil=True, error_model="numpy")
def rescale_unit_diagonal(indptr, indices, data, d, out):  # pragma: no cover - compiled
    """``m_ij * (d_i * d_j) + 0.0`` per stored entry into ``out``, the diagonal set to 1.

    ``out`` (the size of ``data``) is allocated by the caller, or is ``data`` itself:
    each entry is read once, before it is written.
    """
    p = indptr.size - 1
    for i in range(p):
        di = d[i]
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j == i:
                out[k] = 1.0
            else:
                out[k] = data[k] * (di * d[j]) + 0.0
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def dominance_csr(  # pragma: no cover - compiled
    adj_indptr, adj_indices, edge_values, perturbation, indptr, indices, data
):
    """``dd``'s matrix in CSR on a canonical symmetric adjacency, diagonal included.

    ``edge_values`` are one per edge in row-major order of the upper triangle;
    ``m_ii = sum_{j != i} |m_ij|`` (left to right in column order) ``+ 2 |eps_i|``.
    The result is written into ``indptr`` (``p + 1``), ``indices`` and ``data``
    (one per stored entry: the adjacency's plus the diagonal), allocated by the
    caller in the index type it chose (int32 where it fits): the caller's NumPy
    allocations, which ``tracemalloc`` sees, and no index array copied.
    """
    p = adj_indptr.size - 1
    # where row j's upper entries start in edge_values, consumed as rows i > j come
    upper_next = np.empty(p, dtype=np.int64)
    count = 0
    for i in range(p):
        upper_next[i] = count
        for k in range(adj_indptr[i], adj_indptr[i + 1]):
            if adj_indices[k] > i:
                count += 1
    indptr[0] = 0
    for i in range(p):
        indptr[i + 1] = indptr[i] + (adj_indptr[i + 1] - adj_indptr[i]) + 1
    own = upper_next.copy()
    for i in range(p):
        n = indptr[i]
        t = 0.0
        diagonal_at = -1
        for k in range(adj_indptr[i], adj_indptr[i + 1]):
            j = adj_indices[k]
            if j > i and diagonal_at < 0:
                diagonal_at = n
                n += 1
            if j < i:
                x = edge_values[upper_next[j]]
                upper_next[j] += 1
            else:
                x = edge_values[own[i]]
                own[i] += 1
            indices[n] = j
            data[n] = x
            t += abs(x)
            n += 1
        if diagonal_at < 0:
            diagonal_at = n
        indices[diagonal_at] = i
        data[diagonal_at] = t + 2.0 * abs(perturbation[i])


@njit(cache=True, nogil=True)
def with_diagonal(  # pragma: no cover - compiled
    adj_indptr, adj_indices, edge_value, diagonal_value, indptr, indices, data
):
    """``edge_value`` on a canonical adjacency's entries, ``diagonal_value`` on the
    diagonal, in CSR with sorted columns, written into the caller's ``indptr``
    (``p + 1``), ``indices`` and ``data`` (the adjacency's entries plus ``p``)."""
    p = adj_indptr.size - 1
    n = 0
    indptr[0] = 0
    for i in range(p):
        placed = False
        for k in range(adj_indptr[i], adj_indptr[i + 1]):
            j = adj_indices[k]
            if j > i and not placed:
                indices[n] = i
                data[n] = diagonal_value
                n += 1
                placed = True
            indices[n] = j
            data[n] = edge_value
            n += 1
        if not placed:
            indices[n] = i
            data[n] = diagonal_value
            n += 1
        indptr[i + 1] = n


@njit(cache=True, nogil=True, error_model="numpy")
def abs_off_diagonal_product(indptr, indices, data, x, out):  # pragma: no cover
    """``out_i = sum_{j != i} |m_ij| x_j``, left to right over the stored entries.

    scipy's CSR product of ``|M|`` with its diagonal set to a stored zero, in the
    same order (that zero adds ``+0.0`` to a sum of non-negative terms: nothing),
    without building ``|M|``.
    """
    for i in range(indptr.size - 1):
        t = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j != i:
                t += abs(data[k]) * x[j]
        out[i] = t


@njit(cache=True, nogil=True)
def permuted_pattern(indptr, indices, order, out_ptr, out_idx):  # pragma: no cover
    """The CSR pattern of ``M[order][:, order]`` with sorted columns, into the caller's
    ``out_ptr`` (``p + 1``) and ``out_idx`` (the stored entries): the pattern alone
    (no values), one pass and a sort of each row."""
    p = indptr.size - 1
    inverse = np.empty(p, dtype=np.int64)
    for r in range(p):
        inverse[order[r]] = r
    out_ptr[0] = 0
    n = 0
    for r in range(p):
        old = order[r]
        start = n
        for k in range(indptr[old], indptr[old + 1]):
            out_idx[n] = inverse[indices[k]]
            n += 1
        out_idx[start:n] = np.sort(out_idx[start:n])
        out_ptr[r + 1] = n


@njit(cache=True, nogil=True)
def lower_entries(indptr, indices):  # pragma: no cover - compiled
    """How many stored entries lie on or below the diagonal."""
    count = 0
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] <= i:
                count += 1
    return count


@njit(cache=True, nogil=True)
def lower_triplets(indptr, indices, data, rows, cols, values):  # pragma: no cover
    """The entries on and below the diagonal, row by row, into the caller's arrays."""
    n = 0
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j <= i:
                rows[n] = i
                cols[n] = j
                values[n] = data[k]
                n += 1
