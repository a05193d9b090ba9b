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
def cholesky_fill(indptr, indices, parent, budget):  # pragma: no cover - compiled
    """Entries of the lower Cholesky factor (diagonal included), or ``budget + 1`` once above.

    Row ``i`` of the factor is the union of the paths from each ``j < i`` of
    row ``i`` of the matrix up the elimination tree to ``i``: each path is
    walked until a node already marked for row ``i``.
    """
    p = indptr.size - 1
    mark = np.full(p, -1, dtype=np.int64)
    count = 0
    for i in range(p):
        mark[i] = i
        count += 1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            while j < i and mark[j] != i:
                mark[j] = i
                count += 1
                j = parent[j]
                if j == -1:
                    break
            if count > budget:
                return budget + 1
    return count
