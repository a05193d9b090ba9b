"""Scaled condition number estimates of SPD matrices from their Cholesky factors.

The core refuses a matrix as numerically singular when its *scaled* condition
number (that of the unit-diagonal matrix ``D^-1/2 M D^-1/2``, which is what
decides whether a Cholesky factorization succeeds in floating point) exceeds
a documented bound. The decision is then the same on every machine for every
matrix clearly on one side of the bound, instead of hinging on whether a
Cholesky factorization happens to fail in the last bits.

The estimate is Hager's 1-norm estimator of ``||H^-1||_1`` with Higham's extra
test vector (as LAPACK's ``dlacon``), computed with triangular solves against
the factor, and never below the largest inverse squared pivot of the factor of
``H``; times ``||H||_1``. It is a lower bound of the 1-norm condition
number that is almost always within a factor of 3 of it. Arrays in, arrays
out; no BLAS call.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "factor_rounding_bound",
    "scaled_condition_estimate_upper",
    "scaled_condition_estimates",
    "shifted_bound",
    "shifted_into",
    "trace_rounding_bound",
]

_U = float(np.finfo(np.float64).eps) / 2
_EPS = 2 * _U
_TINY = float(np.finfo(np.float64).tiny)


@njit(cache=True, nogil=True, error_model="numpy")
def factor_rounding_bound(column_max, row_max, terms, count):
    """At least ``||dA||_2`` for a floating-point Cholesky factorization that completed.

    The computed ``L`` has ``L L^T = A + dA`` exactly with
    ``|dA| <= gamma_terms |L| |L|^T`` entrywise (Demmel 1989; Higham, *Accuracy
    and Stability*, Thm 10.5; ``terms`` one more than the most entries in a row
    of ``L``, any order of summation, blocked or fused), so
    ``||dA||_2 <= gamma_terms ||L||_1 ||L||_inf``. ``column_max`` and ``row_max``
    are those norms as summed in floating point (sums of at most ``count``
    non-negative terms, each perhaps rounded once): the product is inflated by
    their rounding. The one bound of both the dense and the sparse proofs.
    """
    gamma = terms * _U / (1.0 - terms * _U)
    inflate = (1.0 + 2 * (count + 4) * _U / (1.0 - 2 * (count + 4) * _U)) ** 2
    return gamma * column_max * row_max * inflate


@njit(cache=True, nogil=True, error_model="numpy")
def trace_rounding_bound(diagonal_sum, p):
    """At least ``||dA||_2`` for a completed factorization of a ``p x p`` matrix ``A``, unread.

    ``||dA||_2 <= gamma_(p+1) || |L| |L|^T ||_2 <= gamma_(p+1) ||L||_F^2`` and
    ``||L||_F^2 = tr(A + dA) <= tr(A) / (1 - gamma_(p+1))``: known before
    factorizing from ``diagonal_sum``, the floating-point sum of ``A``'s
    (positive) diagonal, inflated for its rounding.
    """
    gamma = (p + 1) * _U / (1.0 - (p + 1) * _U)
    trace = diagonal_sum * (1.0 + 2 * (p + 2) * _U)  # a sum of positives, up
    return gamma / (1.0 - gamma) * trace * (1.0 + 8 * _U)


@njit(cache=True, nogil=True, error_model="numpy")
def _solve_both(lower, scale, x, y):
    """``y = H^-1 x`` for ``H = S L L^T S`` with ``S = diag(scale)`` (two substitutions)."""
    p = lower.shape[0]
    # H^-1 x = S^-1 L^-T L^-1 S^-1 x
    for i in range(p):
        t = x[i] / scale[i]
        for c in range(i):
            t -= lower[i, c] * y[c]
        y[i] = t / lower[i, i]
    for i in range(p - 1, -1, -1):
        t = y[i]
        for r in range(i + 1, p):
            t -= lower[r, i] * y[r]
        y[i] = t / lower[i, i]
    for i in range(p):
        y[i] /= scale[i]


@njit(cache=True, nogil=True, error_model="numpy")
def _solve_both_upper(upper, scale, x, y):
    """``y = H^-1 x`` for ``H = S U^T U S`` (the factor stored as ``U = L^T``, rows contiguous).

    Both substitutions read rows of ``U`` as 1-d slices (loops from 0 over a
    slice vectorize; a loop over ``upper[i, r]`` from ``r = i + 1`` keeps an
    index check per access), the dot products with four partial sums (a
    fixed order that still runs in vector registers without fastmath).
    """
    p = upper.shape[0]
    for i in range(p):
        y[i] = x[i] / scale[i]
    # L w = b with L = U^T, by columns of L (rows of U)
    for i in range(p):
        t = y[i] / upper[i, i]
        y[i] = t
        row = upper[i, i + 1 :]
        rest = y[i + 1 :]
        for r in range(row.shape[0]):
            rest[r] -= row[r] * t
    # U y = w by rows of U
    for i in range(p - 1, -1, -1):
        row = upper[i, i + 1 :]
        rest = y[i + 1 :]
        n = row.shape[0]
        t0 = t1 = t2 = t3 = 0.0
        r = 0
        while r + 4 <= n:
            t0 += row[r] * rest[r]
            t1 += row[r + 1] * rest[r + 1]
            t2 += row[r + 2] * rest[r + 2]
            t3 += row[r + 3] * rest[r + 3]
            r += 4
        while r < n:
            t0 += row[r] * rest[r]
            r += 1
        y[i] = (y[i] - ((t0 + t1) + (t2 + t3))) / upper[i, i]
    for i in range(p):
        y[i] /= scale[i]


@njit(cache=True, nogil=True, error_model="numpy")
def _solve(factor, upper, scale, x, y):
    if upper:
        _solve_both_upper(factor, scale, x, y)
    else:
        _solve_both(factor, scale, x, y)


@njit(cache=True, nogil=True, error_model="numpy")
def scaled_one_norm(matrix, scale):
    """``||S M S||_1`` for ``S = diag(scale)``: the largest column sum of
    ``|m_ij| s_i s_j``, summed along rows (``M`` exactly symmetric: the same numbers
    in the same order, read contiguously)."""
    p = matrix.shape[0]
    norm = 0.0
    for j in range(p):
        col = 0.0
        row = matrix[j]
        for i in range(p):
            col += abs(row[i]) * scale[i]
        col *= scale[j]
        norm = max(norm, col)
    return norm


@njit(cache=True, nogil=True, error_model="numpy")
def _estimate_one(matrix, lower, upper=False):
    """The estimate from the lower factor, or with ``upper`` from ``U = L^T`` (same diagonal)."""
    p = lower.shape[0]
    if p == 0:
        return 1.0
    scale = np.empty(p)
    for i in range(p):
        scale[i] = 1.0 / np.sqrt(matrix[i, i])
    norm = scaled_one_norm(matrix, scale)
    x = np.full(p, 1.0 / p)
    y = np.empty(p)
    z = np.empty(p)
    sign = np.empty(p)
    estimate = 0.0
    for iteration in range(5):
        _solve(lower, upper, scale, x, y)
        total = 0.0
        for i in range(p):
            total += abs(y[i])
        if iteration > 0 and total <= estimate:
            break
        estimate = total
        for i in range(p):
            sign[i] = 1.0 if y[i] >= 0.0 else -1.0
        _solve(lower, upper, scale, sign, z)
        best = 0
        for i in range(p):
            if abs(z[i]) > abs(z[best]):
                best = i
        zx = 0.0
        for i in range(p):
            zx += z[i] * x[i]
        if iteration > 0 and abs(z[best]) <= zx:
            break
        x[:] = 0.0
        x[best] = 1.0
    # Higham's alternative vector guards against the estimator's known traps
    for i in range(p):
        alt = 1.0 + i / max(p - 1, 1)
        x[i] = alt if i % 2 == 0 else -alt
    _solve(lower, upper, scale, x, y)
    total = 0.0
    for i in range(p):
        total += abs(y[i])
    estimate = max(estimate, 2.0 * total / (3.0 * p))
    # and the pivots: (H^-1)_ii >= 1 / l_ii^2 for the factor l of H, and a diagonal
    # entry of an SPD matrix is at most its 1-norm (catches nearly dependent rows, which
    # the sign vectors above can miss when they are orthogonal to the bad direction)
    for i in range(p):
        pivot = lower[i, i] * scale[i]
        estimate = max(estimate, 1.0 / (pivot * pivot))
    return norm * estimate


@njit(cache=True, nogil=True, error_model="numpy")
def _estimates(matrices, lowers, out):
    for k in range(matrices.shape[0]):
        out[k] = _estimate_one(matrices[k], lowers[k])


def scaled_condition_estimates(matrices: np.ndarray, lowers: np.ndarray) -> np.ndarray:
    """Estimated 1-norm condition numbers of the unit-diagonal rescalings of SPD matrices.

    ``matrices`` is an ``(n, p, p)`` stack of SPD matrices with positive
    diagonals and ``lowers`` their lower Cholesky factors (as
    ``np.linalg.cholesky`` returns them). The estimate does not change when a
    matrix is rescaled by a positive diagonal matrix on both sides.

    >>> m = np.array([[[4.0, 0.0], [0.0, 1e-6]]])  # diagonal: scaled condition 1
    >>> scaled_condition_estimates(m, np.linalg.cholesky(m)).tolist()
    [1.0]
    >>> m = np.array([[[1.0, 0.999], [0.999, 1.0]]])
    >>> round(float(scaled_condition_estimates(m, np.linalg.cholesky(m))[0]), 6)
    1999.0
    """
    matrices = np.ascontiguousarray(matrices, dtype=np.float64)
    lowers = np.ascontiguousarray(lowers, dtype=np.float64)
    out = np.empty(matrices.shape[0])
    _estimates(matrices, lowers, out)
    return out


def scaled_condition_estimate_upper(matrix: np.ndarray, upper: np.ndarray) -> float:
    """:func:`scaled_condition_estimates` of one matrix from its factor stored as ``U = L^T``.

    ``upper`` (C-contiguous, only its upper triangle is read) is what LAPACK's
    ``dpotrf(lower=1)`` returns in Fortran order, seen in C order (``factor.T``):
    the estimate without a second ``p x p`` copy of the factor.

    >>> m = np.array([[1.0, 0.999], [0.999, 1.0]])
    >>> round(scaled_condition_estimate_upper(m, np.linalg.cholesky(m).T.copy()), 6)
    1999.0
    """
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    upper = np.ascontiguousarray(upper, dtype=np.float64)
    return float(_estimate_one(matrix, upper, True))


#: The largest shift of the shifted proof (:func:`shifted_into`): at most 1/4 keeps the
#: subtraction from a diagonal in [1/2, 2) exact (Sterbenz).
SHIFT_LIMIT = 2.0**-10


@njit(cache=True, nogil=True, error_model="numpy")
def shifted_into(m, a):
    """``a = fl(H - delta I)`` for the proof by a shifted factorization; ``(least, eta, unscale)``.

    ``H = S m S`` with ``S = diag(2**e_i)`` bringing the diagonal into [1/2, 2)
    (exact: checked entry by entry), ``delta`` the power of two at least twice
    ``eta``, the rounding bound of a factorization of ``a`` known before
    factorizing (:func:`~spdgraph._kernels.condition.trace_rounding_bound`), at
    most :data:`SHIFT_LIMIT`. ``H = a + E`` with ``E >= least I`` (the diagonal
    subtractions are exact). A factorization of ``a`` that completes proves
    ``lambda_min(m) >= (least - eta) unscale`` (:func:`shifted_bound`).
    ``least`` is 0 (nothing to prove with) when the rescaling is not exact or
    the shift too large.
    """
    p = m.shape[0]
    scale = np.empty(p)
    diagonal_sum = 0.0
    for i in range(p):
        d = m[i, i]
        if not (d > 0.0 and d - d == 0.0):
            return 0.0, 0.0, 0.0
        _, power = math.frexp(d)  # d = f 2**power, f in [1/2, 1)
        scale[i] = math.ldexp(1.0, -(power // 2))
    unscale = np.inf
    for i in range(p):
        unscale = min(unscale, 1.0 / (scale[i] * scale[i]))  # powers of two: exact
        for j in range(p):
            x = m[i, j] * (scale[i] * scale[j])
            if x / (scale[i] * scale[j]) != m[i, j] or (x != 0.0 and abs(x) < _TINY):
                return 0.0, 0.0, 0.0  # an entry under- or overflows
            a[i, j] = x
        if not 0.5 <= a[i, i] < 2.0:
            return 0.0, 0.0, 0.0
        diagonal_sum += a[i, i]
    eta = trace_rounding_bound(diagonal_sum, p)
    _, power = math.frexp(2.0 * eta)
    delta = math.ldexp(1.0, power)  # a power of two >= 2 eta
    if not (eta > 0.0 and delta <= SHIFT_LIMIT):
        return 0.0, 0.0, 0.0
    least = np.inf
    for i in range(p):
        h = a[i, i]
        a[i, i] = h - delta
        least = min(least, h - a[i, i])  # exact: Sterbenz
    return least * (1.0 - 2.0 * _EPS), eta, unscale


@njit(cache=True, nogil=True, error_model="numpy")
def shifted_bound(least, eta, unscale):
    """``lambda_min(m) >= (least - eta) unscale`` rounded down, or 0 (see :func:`shifted_into`)."""
    bound = (least - eta * (1.0 + 2.0 * _EPS)) * (1.0 - 2.0 * _EPS)
    return bound * unscale * (1.0 - 2.0 * _EPS) if bound > 0.0 else 0.0
