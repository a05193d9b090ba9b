"""Positive definiteness proved by (weighted) diagonal dominance: Gershgorin, no Cholesky.

A symmetric matrix ``M`` with a positive diagonal is positive definite when its
unit-diagonal form ``H = D^-1/2 M D^-1/2`` (``D = diag(M)``) is *weighted*
diagonally dominant: for some positive weights ``s``,

    sum_{j != i} |h_ij| s_j <= (1 - delta) s_i   for every row i, delta > 0.

Then ``G = S^-1 H S`` (similar to ``H``) is strictly row diagonally dominant,
so by Gershgorin every eigenvalue of ``H`` lies in ``[delta, 2 - delta]``:
``H`` and ``M`` are positive definite, ``cond_2(H) <= 2 / delta`` and the
scaled 1-norm condition number that the core bounds is at most
``p cond_2(H) <= 2 p / delta``. A matrix is certified only when
``delta >= 2 p / bound``, so that a certified matrix would also pass the
Cholesky factorization and condition estimate of
:func:`~spdgraph._kernels.numerics.find_violation` (whose estimate is a lower
bound of the 1-norm condition number).

The weights: ``s = 1`` (plain Gershgorin on ``H``), then Jacobi steps
``s <- 1 + B s`` with ``B = |H| - I`` (they converge to ``(I - B)^-1 1``,
which certifies every H-matrix); the search stops as soon as the rows pass,
or when ``min_i (B s)_i / s_i >= 1`` (Collatz-Wielandt: then the spectral
radius of ``B`` is at least 1 and no weights exist), or after :data:`STEPS`
steps. A diagonally dominant matrix (``dd``, ``m_ii > sum_j |m_ij|``) is
certified by ``s = sqrt(diag(M))`` in its unit-diagonal form, which these
steps approach.

Rounding: each ``(B s)_i`` is computed with at most ``p + 8`` roundings of
non-negative terms, so the exact value is below the computed one times
``1 + (p + 10) eps`` (``eps`` machine epsilon, twice the unit roundoff), plus
an absolute ``1e-290`` for subnormal terms; the test uses those bounds. The
exact zeros of the non-edges must have been checked before (only the edges
are read). Arrays in, a bool out; imported lazily (Numba).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph._kernels.csr import neighbour_lists

#: Largest number of Jacobi steps of the weight search.
STEPS = 24
#: Largest number of stored edge entries (both triangles) of the search's sparse copy.
MAX_ENTRIES = 1 << 21


@njit(cache=True, nogil=True, error_model="numpy")
def _certified_one(m, ptr, idx, vals, d, s, u, need):
    """Whether weights ``s`` are found that prove ``m`` positive definite (see the module)."""
    p = m.shape[0]
    for i in range(p):
        d[i] = 1.0 / np.sqrt(m[i, i])
    for i in range(p):
        for q in range(ptr[i], ptr[i + 1]):
            vals[q] = abs(m[i, idx[q]]) * d[i] * d[idx[q]]
        s[i] = 1.0
    slack = 1.0 + (p + 10) * 2.220446049250313e-16
    for _ in range(STEPS + 1):
        ok = True
        low = np.inf
        for i in range(p):
            t = 0.0
            for q in range(ptr[i], ptr[i + 1]):
                t += vals[q] * s[idx[q]]
            u[i] = t
            if not t * slack + 1e-290 <= s[i] * (1.0 - need):
                ok = False
            ratio = t / s[i]
            if not ratio >= low:
                low = ratio
        if ok:
            return True
        if not low < 1.0:
            return False
        for i in range(p):
            s[i] = 1.0 + u[i]
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _certified_all(stack, ptr, idx, need):
    p = stack.shape[1]
    vals = np.empty(idx.shape[0])
    d = np.empty(p)
    s = np.empty(p)
    u = np.empty(p)
    for k in range(stack.shape[0]):
        if not _certified_one(stack[k], ptr, idx, vals, d, s, u, need):
            return False
    return True


def proves_pd(stack: np.ndarray, adjacency: np.ndarray, condition_bound: float | None) -> bool:
    """True when every matrix of ``stack`` is proved positive definite by weighted dominance.

    ``stack`` is an ``(n, p, p)`` float64 stack of exactly symmetric matrices
    with positive diagonals and exact zeros on the non-edges of
    ``adjacency`` (checked before); with ``condition_bound`` the proof also
    bounds the scaled 1-norm condition number by it. False means "not proved"
    (the caller factors the matrices), never "not positive definite".

    >>> m = np.array([[[2.0, 1.0], [1.0, 2.0]]])
    >>> adjacency = np.array([[False, True], [True, False]])
    >>> proves_pd(m, adjacency, 1e12)
    True
    >>> proves_pd(np.array([[[1.0, 1.0], [1.0, 1.0]]]), adjacency, 1e12)
    False
    """
    p = stack.shape[-1]
    if stack.dtype != np.float64 or p < 2:
        return False
    ptr, cols = neighbour_lists(np.ascontiguousarray(adjacency, dtype=np.bool_), False)
    if cols.size > MAX_ENTRIES:
        return False
    need = 0.0 if condition_bound is None else 2.0 * p / condition_bound
    if not need < 1.0:
        return False
    stack = np.ascontiguousarray(stack)
    return bool(_certified_all(stack, ptr, cols, need))
