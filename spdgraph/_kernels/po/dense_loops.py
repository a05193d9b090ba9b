"""Small dense linear algebra written out as loops, for the PO kernel.

Cholesky factorization (blocked above ``2 * _BLOCK``), solves with it, a
triangular substitution and row dot products: arrays in, arrays out, no BLAS
call, so that results do not depend on the number of BLAS threads (see
:mod:`spdgraph._kernels.po.fast`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FASTMATH = {"reassoc", "contract"}
#: Block size of the blocked Cholesky; sizes up to twice this use the plain loop.
_BLOCK = 8


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _chol_columns(a, k0, k1, n):
    """Left-looking Cholesky of columns ``k0:k1`` of ``a[:n, :n]`` (lower, in place).

    Assumes columns ``< k0`` are already factored and their contribution already
    subtracted from columns ``k0:k1``. Returns False if a pivot is not positive.
    """
    for j in range(k0, k1):
        s = a[j, j]
        for c in range(k0, j):
            s -= a[j, c] * a[j, c]
        if not s > 0.0:
            return False
        d = np.sqrt(s)
        a[j, j] = d
        for r in range(j + 1, n):
            t = a[r, j]
            for c in range(k0, j):
                t -= a[r, c] * a[j, c]
            a[r, j] = t / d
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy", inline="always")
def _take2(a, r, c, c1, two, t0, t1):
    """``a[r, c] -= t0`` and (if ``two``) ``a[r, c1] -= t1``, where in the lower triangle."""
    if c <= r:
        a[r, c] -= t0
    if two and c1 <= r:
        a[r, c1] -= t1


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def small_cholesky(a, n):
    """Lower Cholesky factor of ``a[:n, :n]`` in place; False if not positive definite.

    Blocked left-looking: before a block column of ``_BLOCK`` columns is
    factored, the contribution of all earlier columns is subtracted with a
    4 x 2 register-blocked loop (dot products of contiguous rows, which stay in
    cache for the whole block). Plain loops, no BLAS: the rounding is a fixed
    function of the input.
    """
    if n <= 2 * _BLOCK:
        return _chol_columns(a, 0, n, n)
    for k in range(0, n, _BLOCK):
        kb = min(_BLOCK, n - k)
        stop = k + kb
        if k > 0:
            for r in range(k, n, 4):
                r1 = min(r + 1, n - 1)
                r2 = min(r + 2, n - 1)
                r3 = min(r + 3, n - 1)
                for c in range(k, min(stop, r3 + 1), 2):
                    c1 = min(c + 1, stop - 1)
                    t00 = 0.0
                    t01 = 0.0
                    t10 = 0.0
                    t11 = 0.0
                    t20 = 0.0
                    t21 = 0.0
                    t30 = 0.0
                    t31 = 0.0
                    for q in range(k):
                        y0 = a[c, q]
                        y1 = a[c1, q]
                        x0 = a[r, q]
                        x1 = a[r1, q]
                        x2 = a[r2, q]
                        x3 = a[r3, q]
                        t00 += x0 * y0
                        t01 += x0 * y1
                        t10 += x1 * y0
                        t11 += x1 * y1
                        t20 += x2 * y0
                        t21 += x2 * y1
                        t30 += x3 * y0
                        t31 += x3 * y1
                    # write back the distinct entries of the lower triangle only
                    two = c1 != c
                    _take2(a, r, c, c1, two, t00, t01)
                    if r1 != r:
                        _take2(a, r1, c, c1, two, t10, t11)
                    if r2 != r1:
                        _take2(a, r2, c, c1, two, t20, t21)
                    if r3 != r2:
                        _take2(a, r3, c, c1, two, t30, t31)
        if not _chol_columns(a, k, stop, n):
            return False
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def chol_solve(c, n, b):
    """Solve ``(C C^T) z = b`` in place for the lower factor ``c[:n, :n]``."""
    for r in range(n):
        t = b[r]
        for k in range(r):
            t -= c[r, k] * b[k]
        b[r] = t / c[r, r]
    for r in range(n - 1, -1, -1):
        b[r] /= c[r, r]
        t = b[r]
        for k in range(r):
            b[k] -= c[r, k] * t


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def solve_upper_t(lmat, i, v, stop):
    """``v[:i] <- L'^{-T} v[:i]`` for ``L' = lmat[:i, :i]``, computed for rows >= ``stop``.

    Backward substitution by columns of ``L'^T`` (rows of ``lmat``, contiguous).
    Entries below ``stop`` are left partially updated (callers do not use them).
    """
    for j in range(i - 1, stop - 1, -1):
        v[j] /= lmat[j, j]
        t = v[j]
        for c in range(j):
            v[c] -= t * lmat[j, c]


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def row_dots(lmat, i, y, idx, n, out):
    """``out[a] = L[idx[a], :] . y`` (only the first ``idx[a] + 1`` entries are non-zero)."""
    for a in range(n):
        j = idx[a]
        t = 0.0
        for c in range(j + 1):
            t += lmat[j, c] * y[c]
        out[a] = t


# Inner loops over 1-d slices: LLVM vectorizes these (a loop ``for s in range(c, n)``
# over ``a[c, s]`` is not: the index is not known to be non-negative, so every
# access keeps NumPy's wraparound test; measured 7 vs 0.7 GFMA/s at n = 1000).
@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy", inline="always")
def dot(a, b):
    """``sum(a * b)`` over two 1-d arrays of the same length."""
    t = 0.0
    for s in range(a.shape[0]):
        t += a[s] * b[s]
    return t


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy", inline="always")
def axpy(t, x, y):
    """``y += t * x`` over two 1-d arrays of the same length."""
    for s in range(x.shape[0]):
        y[s] += t * x[s]
