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
    """A proven lower bound of ``lambda_min(m)`` from weights ``s`` found to prove ``m``
    positive definite (see the module), or 0 when none are found.

    With ``d_i`` the computed ``1 / sqrt(m_ii)`` and ``H = D m D`` (exact, a congruence):
    ``h_ii >= 1 - 3 eps`` (two roundings in ``d_i``), and Gershgorin on ``S^-1 H S``
    bounds ``lambda_min(H)`` below by ``min_i h_ii - R_i / s_i`` with ``R_i`` the exact
    weighted radius, at most the computed one times the slack (the module's
    rounding). Then ``lambda_min(m) >= lambda_min(H) min_i 1 / d_i^2`` and
    ``1 / d_i^2 >= m_ii (1 - 3 eps)``; each step rounded down.
    """
    p = m.shape[0]
    smallest = np.inf
    for i in range(p):
        d[i] = 1.0 / np.sqrt(m[i, i])
        smallest = min(smallest, m[i, i])
    for i in range(p):
        for q in range(ptr[i], ptr[i + 1]):
            vals[q] = abs(m[i, idx[q]]) * d[i] * d[idx[q]]
        s[i] = 1.0
    eps = 2.220446049250313e-16
    slack = 1.0 + (p + 10) * eps
    for _ in range(STEPS + 1):
        ok = True
        low = np.inf
        widest = 0.0
        for i in range(p):
            t = 0.0
            for q in range(ptr[i], ptr[i + 1]):
                t += vals[q] * s[idx[q]]
            u[i] = t
            radius = t * slack + 1e-290
            if not radius <= s[i] * (1.0 - need):
                ok = False
            widest = max(widest, radius / s[i])
            ratio = t / s[i]
            if not ratio >= low:
                low = ratio
        if ok:
            # lambda_min(H) >= 1 - 3 eps - max_i R_i / s_i, the quotient rounded up
            bound = (1.0 - 4.0 * eps - widest * (1.0 + 2.0 * eps)) * (1.0 - 2.0 * eps)
            bound = bound * smallest * (1.0 - 6.0 * eps)
            return bound if bound > 0.0 else 0.0
        if not low < 1.0:
            return 0.0
        for i in range(p):
            s[i] = 1.0 + u[i]
    return 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _certified_all(stack, ptr, idx, need, bounds):
    """Every matrix certified (its bound in ``bounds[k]``, when ``bounds`` has ``n`` entries)."""
    p = stack.shape[1]
    vals = np.empty(idx.shape[0])
    d = np.empty(p)
    s = np.empty(p)
    u = np.empty(p)
    record = bounds.shape[0] == stack.shape[0]
    for k in range(stack.shape[0]):
        bound = _certified_one(stack[k], ptr, idx, vals, d, s, u, need)
        if not bound > 0.0:
            return False
        if record:
            bounds[k] = bound
    return True


def proves_pd(
    stack: np.ndarray,
    adjacency: np.ndarray,
    condition_bound: float | None,
    lower_bounds: np.ndarray | None = None,
) -> bool:
    """True when every matrix of ``stack`` is proved positive definite by weighted dominance.

    ``stack`` is an ``(n, p, p)`` float64 stack of exactly symmetric matrices
    with positive diagonals and exact zeros on the non-edges of
    ``adjacency`` (checked before); with ``condition_bound`` the proof also
    bounds the scaled 1-norm condition number by it. False means "not proved"
    (the caller factors the matrices), never "not positive definite". When True and
    ``lower_bounds`` (``(n,)`` float64) is given, it holds each matrix's proven lower
    bound of its smallest eigenvalue.

    >>> m = np.array([[[2.0, 1.0], [1.0, 2.0]]])
    >>> adjacency = np.array([[False, True], [True, False]])
    >>> proves_pd(m, adjacency, 1e12)
    True
    >>> bounds = np.zeros(1)
    >>> proves_pd(m, adjacency, 1e12, bounds), 0.999 < float(bounds[0]) <= 1.0
    (True, True)
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
    out = np.empty(0) if lower_bounds is None else np.empty(stack.shape[0])
    if not _certified_all(stack, ptr, cols, need, out):
        return False
    if lower_bounds is not None:
        lower_bounds[...] = out
    return True
