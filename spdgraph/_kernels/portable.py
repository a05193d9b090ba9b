"""Portable kernels: the same bits on every CPU (``spdgraph.sample(..., portable=True)``).

A result is identical on every machine when the order of every floating-point
operation on its path is fixed by the code, not by the CPU. The default
kernels give that up for speed in three places: BLAS and LAPACK (OpenBLAS
picks kernels per CPU, with different blockings and FMA use), Numba's
``fastmath`` flags (``reassoc`` lets LLVM reorder sums for the vector width
of the CPU it compiles for; ``contract`` fuses multiply-adds where the CPU
has FMA), and NumPy's SIMD-dispatched transcendental functions. Here:

* every loop is Numba code compiled **without** fastmath: LLVM then keeps the
  written order of every sum and never fuses a multiply with an add, so the
  rounding is IEEE 754's on any x86-64 or arm64 CPU;
* dot products use four partial sums written out (``_dot4``): a fixed order
  that the compiler may still run in one vector register;
* the PO row kernel is the default kernel's own source
  (:mod:`spdgraph._kernels.po.fast`) compiled a second time without fastmath
  (:func:`portable_version`), so both modes run the same algorithm and agree
  to rounding;
* the QR of the factor is a Householder LQ in these loops, the products are
  ``L L^T`` in these loops, norms are :func:`vector_norm` (``uniform`` and
  ``port_chol`` use them with
  :func:`spdgraph._kernels.chol_uniform.mh_hemisphere_portable`); only
  ``sqrt`` and the four basic operations are used (all correctly rounded).

Costs are in ``docs/reproducibility.md``. Arrays in, arrays out; this module
imports Numba, import it lazily.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from numba import njit
from numba.core.dispatcher import Dispatcher

__all__ = [
    "inverse_diagonal_sqrt",
    "lower_coordinates",
    "lower_gram",
    "matmul_at_b",
    "portable_version",
    "row_abs_sums",
    "smallest_eigenvalue",
    "unit_lower_inverse",
    "vector_norm",
]

_PORTABLE: dict[Any, Any] = {}


def portable_version(kernel: Any) -> Any:
    """``kernel`` (a Numba function of :mod:`spdgraph._kernels`) compiled without fastmath.

    Every Numba function of :mod:`spdgraph._kernels` the kernel calls is
    recompiled the same way (memoized), so the whole call tree keeps the
    order of operations written in the source. Not cached on disk: the first
    call in a process compiles (a few seconds for the PO row kernel).
    """
    if kernel in _PORTABLE:
        return _PORTABLE[kernel]
    source = kernel.py_func
    namespace = dict(source.__globals__)
    for name in source.__code__.co_names:
        callee = namespace.get(name)
        if isinstance(callee, Dispatcher) and callee.py_func.__module__.startswith(
            "spdgraph._kernels"
        ):
            namespace[name] = portable_version(callee)
    clone = types.FunctionType(
        source.__code__, namespace, source.__name__, source.__defaults__, source.__closure__
    )
    clone.__qualname__ = f"{source.__qualname__}__portable"
    inline = kernel.targetoptions.get("inline", "never")
    compiled = njit(nogil=True, error_model="numpy", inline=inline)(clone)
    _PORTABLE[kernel] = compiled
    return compiled


@njit(nogil=True, error_model="numpy", inline="always")
def _dot4(a, b, n):
    """``sum(a[:n] * b[:n])`` in a fixed order: four partial sums, then pairwise."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    m = n - n % 4
    for c in range(0, m, 4):
        s0 += a[c] * b[c]
        s1 += a[c + 1] * b[c + 1]
        s2 += a[c + 2] * b[c + 2]
        s3 += a[c + 3] * b[c + 3]
    for c in range(m, n):
        s0 += a[c] * b[c]
    return (s0 + s1) + (s2 + s3)


@njit(nogil=True, error_model="numpy")
def _lq_in_place(a, v):
    """Householder LQ of ``a`` (rows): ``a = L U^T``, ``L`` lower triangular, in place."""
    p = a.shape[0]
    for k in range(p):
        n = p - k
        row = a[k, k:]
        s = _dot4(row, row, n)
        alpha = np.sqrt(s)
        if alpha == 0.0:
            continue
        x0 = row[0]
        beta = -alpha if x0 >= 0.0 else alpha  # no cancellation in x0 - beta
        tail = v[k:]
        tail[0] = x0 - beta
        for c in range(1, n):
            tail[c] = row[c]
        vv = _dot4(tail, tail, n)
        a[k, k] = beta
        for c in range(k + 1, p):
            a[k, c] = 0.0
        for r in range(k + 1, p):
            other = a[r, k:]
            t = 2.0 * _dot4(other, tail, n) / vv
            for c in range(n):
                other[c] -= t * tail[c]


@njit(nogil=True, error_model="numpy")
def _lower_gram_into(lmat, out):
    p = lmat.shape[0]
    for i in range(p):
        for j in range(i + 1):
            t = _dot4(lmat[i], lmat[j], j + 1)
            out[i, j] = t
            out[j, i] = t


@njit(nogil=True, error_model="numpy")
def _matmul_at_b_into(a, b, out):
    # out = a^T b, column sums in a fixed order (rows of a and b in turn)
    n, p = a.shape
    q = b.shape[1]
    for i in range(p):
        for j in range(q):
            out[i, j] = 0.0
    for k in range(n):
        for i in range(p):
            t = a[k, i]
            if t != 0.0:
                for j in range(q):
                    out[i, j] += t * b[k, j]


@njit(nogil=True, error_model="numpy")
def _unit_lower_inverse_into(m, out):
    # forward substitution, one column at a time, in a fixed order
    p = m.shape[0]
    for j in range(p):
        for i in range(p):
            out[i, j] = 0.0
        out[j, j] = 1.0
        for i in range(j + 1, p):
            t = 0.0
            for c in range(j, i):
                t += m[i, c] * out[c, j]
            out[i, j] = -t


@njit(nogil=True, error_model="numpy")
def _row_abs_sums_into(m, out):
    p = m.shape[0]
    for i in range(p):
        t = 0.0
        for j in range(p):
            t += abs(m[i, j])
        out[i] = t


def lower_coordinates(factor: np.ndarray) -> np.ndarray:
    """``L`` with ``factor = L U^T``, ``U`` orthonormal (Householder LQ, portable).

    The same matrix as :func:`spdgraph._kernels.po.fast.lower_coordinates` up to
    the signs of its columns (``L L^T = factor factor^T`` either way).

    >>> f = np.array([[3.0, 4.0], [1.0, 2.0]])
    >>> low = lower_coordinates(f)
    >>> bool(low[0, 1] == 0.0), np.allclose(low @ low.T, f @ f.T)
    (True, True)
    """
    a = np.array(factor, dtype=np.float64, order="C", copy=True)
    _lq_in_place(a, np.empty(a.shape[0]))
    return a


@njit(nogil=True, error_model="numpy")
def _sum_of_squares(v):
    return _dot4(v, v, v.shape[0])


def vector_norm(v: np.ndarray) -> float:
    """The Euclidean norm of a vector, its squares summed in a fixed order (portable).

    >>> vector_norm(np.array([3.0, 4.0]))
    5.0
    """
    return float(np.sqrt(_sum_of_squares(np.ascontiguousarray(v, dtype=np.float64))))


def lower_gram(lmat: np.ndarray) -> np.ndarray:
    """``L L^T`` of a lower-triangular ``L``, exactly symmetric (portable order).

    >>> lower_gram(np.array([[2.0, 0.0], [1.0, 1.0]])).tolist()
    [[4.0, 2.0], [2.0, 2.0]]
    """
    out = np.empty_like(lmat, dtype=np.float64)
    _lower_gram_into(np.ascontiguousarray(lmat, dtype=np.float64), out)
    return out


def matmul_at_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a^T b`` in a fixed order (portable).

    >>> matmul_at_b(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])).tolist()
    [[3.0, 4.0], [6.0, 8.0]]
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    out = np.empty((a.shape[1], b.shape[1]))
    _matmul_at_b_into(a, b, out)
    return out


def unit_lower_inverse(m: np.ndarray) -> np.ndarray:
    """The inverse of a unit lower-triangular matrix (portable forward substitution).

    >>> unit_lower_inverse(np.array([[1.0, 0.0], [0.5, 1.0]])).tolist()
    [[1.0, 0.0], [-0.5, 1.0]]
    """
    m = np.ascontiguousarray(m, dtype=np.float64)
    out = np.empty_like(m)
    _unit_lower_inverse_into(m, out)
    return out


def row_abs_sums(m: np.ndarray) -> np.ndarray:
    """``sum_j |m_ij|`` for each row, left to right (portable).

    >>> row_abs_sums(np.array([[1.0, -2.0], [0.5, 0.0]])).tolist()
    [3.0, 0.5]
    """
    m = np.ascontiguousarray(m, dtype=np.float64)
    out = np.empty(m.shape[0])
    _row_abs_sums_into(m, out)
    return out


@njit(nogil=True, error_model="numpy")
def _tridiagonalize(a, diag, off):
    """Householder reduction of symmetric ``a`` (overwritten) to tridiagonal ``diag``/``off``."""
    p = a.shape[0]
    v = np.empty(p)
    w = np.empty(p)
    for k in range(p - 2):
        n = p - k - 1
        col = a[k + 1 :, k]
        for c in range(n):
            v[c] = col[c]
        s = _dot4(v, v, n)
        alpha = np.sqrt(s)
        off[k] = a[k + 1, k]
        diag[k] = a[k, k]
        if alpha == 0.0:
            continue
        beta = -alpha if v[0] >= 0.0 else alpha
        v[0] -= beta
        vv = _dot4(v, v, n)
        off[k] = beta
        # A22 <- H A22 H with H = I - 2 v v^T / vv: w = A22 v, then the rank-2 update
        for r in range(n):
            w[r] = _dot4(a[k + 1 + r, k + 1 :], v, n) * (2.0 / vv)
        kappa = _dot4(w, v, n) / vv
        for r in range(n):
            w[r] -= kappa * v[r]
        for r in range(n):
            for c in range(n):
                a[k + 1 + r, k + 1 + c] -= v[r] * w[c] + w[r] * v[c]
    if p >= 2:
        diag[p - 2] = a[p - 2, p - 2]
        off[p - 2] = a[p - 1, p - 2]
    if p >= 1:
        diag[p - 1] = a[p - 1, p - 1]


@njit(nogil=True, error_model="numpy")
def _count_below(diag, off, x):
    """Eigenvalues of the symmetric tridiagonal matrix below ``x`` (Sturm sequence)."""
    count = 0
    d = 1.0
    tiny = 1e-300
    for i in range(diag.shape[0]):
        b2 = off[i - 1] * off[i - 1] if i > 0 else 0.0
        d = diag[i] - x - b2 / d
        if d == 0.0:
            d = -tiny
        if d < 0.0:
            count += 1
    return count


@njit(nogil=True, error_model="numpy")
def _smallest_eigenvalue(a):
    p = a.shape[0]
    diag = np.zeros(p)
    off = np.zeros(max(p - 1, 1))
    _tridiagonalize(a, diag, off)
    lo = np.inf
    hi = -np.inf
    for i in range(p):
        radius = (abs(off[i - 1]) if i > 0 else 0.0) + (abs(off[i]) if i < p - 1 else 0.0)
        lo = min(lo, diag[i] - radius)
        hi = max(hi, diag[i] + radius)
    for _ in range(200):  # bisection to adjacent floating-point numbers
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _count_below(diag, off, mid) >= 1:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def smallest_eigenvalue(m: np.ndarray) -> float:
    """The smallest eigenvalue of a symmetric matrix (Householder + bisection, portable).

    >>> round(smallest_eigenvalue(np.array([[2.0, 1.0], [1.0, 2.0]])), 12)
    1.0
    """
    a = np.array(m, dtype=np.float64, order="C", copy=True)
    if a.shape[0] == 0:
        return 0.0
    return float(_smallest_eigenvalue(a))


@njit(nogil=True, error_model="numpy")
def _cholesky_in_place(a):
    p = a.shape[0]
    for j in range(p):
        s = a[j, j] - _dot4(a[j], a[j], j)
        if not s > 0.0:
            return False
        d = np.sqrt(s)
        a[j, j] = d
        for i in range(j + 1, p):
            a[i, j] = (a[i, j] - _dot4(a[i], a[j], j)) / d
        for c in range(j + 1, p):
            a[j, c] = 0.0
    return True


@njit(nogil=True, error_model="numpy")
def _inverse_column_norms(lower, out):
    """``out_j = sqrt((L^-T L^-1)_jj)``: the norms of the columns of ``L^-1``, fixed order."""
    p = lower.shape[0]
    inv = np.zeros((p, p))
    for j in range(p):
        inv[j, j] = 1.0 / lower[j, j]
        for i in range(j + 1, p):
            t = 0.0
            for c in range(j, i):
                t += lower[i, c] * inv[c, j]
            inv[i, j] = -t / lower[i, i]
    # diag(Omega^-1)_j = sum_i (L^-1)_ij^2, column j of L^-1, top to bottom
    for j in range(p):
        t = 0.0
        for i in range(j, p):
            t += inv[i, j] * inv[i, j]
        out[j] = np.sqrt(t)


def inverse_diagonal_sqrt(m: np.ndarray) -> np.ndarray | None:
    """``sqrt(diag(M^-1))`` of an SPD matrix by a portable Cholesky; None when not PD.

    >>> inverse_diagonal_sqrt(np.array([[4.0, 0.0], [0.0, 0.25]])).tolist()
    [0.5, 2.0]
    """
    a = np.array(m, dtype=np.float64, order="C", copy=True)
    if not _cholesky_in_place(a):
        return None
    out = np.empty(a.shape[0])
    _inverse_column_norms(a, out)
    return out
