"""Neighbour lists of a graph's adjacency matrix in CSR form (arrays in, arrays out)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def neighbour_lists(adjacency, earlier):
    """``(ptr, idx)``: row ``i``'s neighbours ``idx[ptr[i]:ptr[i + 1]]``, ascending.

    With ``earlier`` only the neighbours ``j < i`` (the order of elimination of
    the PO kernels); otherwise all of them (``np.nonzero``'s lists).
    """
    p = adjacency.shape[0]
    ptr = np.zeros(p + 1, dtype=np.int64)
    for i in range(p):
        c = 0
        for j in range(i if earlier else p):
            c += adjacency[i, j]
        ptr[i + 1] = ptr[i] + c
    idx = np.empty(ptr[p], dtype=np.int64)
    for i in range(p):
        c = ptr[i]
        for j in range(i if earlier else p):
            if adjacency[i, j]:
                idx[c] = j
                c += 1
    return ptr, idx
