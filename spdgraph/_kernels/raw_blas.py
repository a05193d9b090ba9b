"""BLAS and LAPACK routines of SciPy called on views of C-ordered arrays, without copies.

SciPy's wrappers (``scipy.linalg.blas``) copy any operand that is not
contiguous, and a block of a larger array is not. The Fortran routines of
``scipy.linalg.cython_blas`` / ``cython_lapack`` take a leading dimension
instead; they are called here through ``ctypes`` (which releases the GIL).
A C-ordered ``(m, n)`` block with row stride ``ld`` is, to Fortran, the
``(n, m)`` transpose with leading dimension ``ld``. Run the callers inside
``one_blas_thread`` (the rounding of some routines depends on BLAS's threads).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import scipy.linalg.cython_blas as _cython_blas
import scipy.linalg.cython_lapack as _cython_lapack

_P = ctypes.c_void_p
_I = ctypes.POINTER(ctypes.c_int)
_D = ctypes.POINTER(ctypes.c_double)
_C = ctypes.c_char_p


def capsule_function(module: Any, name: str, *argtypes: Any) -> Any:
    """The Fortran routine ``name`` exported by a SciPy cython module, as a ctypes function."""
    capsule = module.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    return ctypes.CFUNCTYPE(None, *argtypes)(address)


def lapack_function(name: str, *argtypes: Any) -> Any:
    """``capsule_function`` of ``scipy.linalg.cython_lapack``."""
    return capsule_function(_cython_lapack, name, *argtypes)


# dtrmm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
_DTRMM = capsule_function(_cython_blas, "dtrmm", _C, _C, _C, _C, _I, _I, _D, _P, _I, _P, _I)
# dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
_DSYRK = capsule_function(_cython_blas, "dsyrk", _C, _C, _I, _I, _D, _P, _I, _D, _P, _I)


def _int(value: int) -> Any:
    return ctypes.byref(ctypes.c_int(int(value)))


def _double(value: float) -> Any:
    return ctypes.byref(ctypes.c_double(float(value)))


def _address(block: np.ndarray) -> tuple[int, int]:
    """Address and row stride (in elements) of a float64 block with contiguous rows."""
    if block.dtype != np.float64 or block.ndim != 2 or block.strides[1] != 8:
        raise ValueError("expected a 2-d float64 block with contiguous rows")
    return block.ctypes.data, max(block.strides[0] // 8, 1)


def _trmm_right(what: str, tri: np.ndarray, block: np.ndarray, uplo: bytes, trans: bytes) -> None:
    """``block <- block @ op(tri)`` in place by BLAS ``dtrmm`` on the Fortran views.

    ``block`` (``(m, n)``, C order) is ``B = block^T`` to Fortran and ``tri``
    (``(n, n)``, C order) is ``A = tri^T``: ``block @ X = (X^T B)^T``, so the call is
    ``B <- op(A) B`` with the caller's ``uplo`` (of ``A``) and ``trans``.
    """
    n, m = tri.shape[0], block.shape[0]
    if tri.shape != (n, n) or block.shape[1] != n:
        raise ValueError(f"{what}: shapes do not match")
    if n == 0 or m == 0:
        return
    a, lda = _address(tri)
    b, ldb = _address(block)
    _DTRMM(b"L", uplo, trans, b"N", _int(n), _int(m), _double(1.0), a, _int(lda), b, _int(ldb))


def triangular_times(tri_t: np.ndarray, block: np.ndarray, transpose: bool) -> None:
    """``block <- block @ tri_t`` (or ``block @ tri_t.T`` with ``transpose``), in place.

    ``tri_t`` is a C-ordered ``(n, n)`` block whose upper triangle is read
    (``T^T`` of a lower-triangular ``T``); ``block`` is ``(m, n)``.
    """
    # Fortran: A = T (lower); block @ tri_t = (T B)^T, block @ tri_t.T = (T^T B)^T
    _trmm_right("triangular_times", tri_t, block, b"L", b"T" if transpose else b"N")


def add_gram_of_rows_lower(target: np.ndarray, rows: np.ndarray) -> None:
    """Lower triangle (and diagonal) of ``target += rows.T @ rows``, in place.

    ``rows`` is ``(k, n)``, ``target`` ``(n, n)``; the strict upper triangle
    of ``target`` is not touched (BLAS ``dsyrk``: half the work of the product).
    """
    k, n = rows.shape
    if target.shape != (n, n):
        raise ValueError("add_gram_of_rows_lower: shapes do not match")
    if n == 0 or k == 0:
        return
    a, lda = _address(rows)
    c, ldc = _address(target)
    # Fortran view: A = rows^T (n x k), C = target^T, whose upper triangle is
    # target's lower one: C += A A^T
    _DSYRK(b"U", b"N", _int(n), _int(k), _double(1.0), a, _int(lda), _double(1.0), c, _int(ldc))


# dpotrf(uplo, n, a, lda, info)
_DPOTRF = lapack_function("dpotrf", _C, _I, _P, _I, _I)
#: ``dpotrf`` with every argument an untyped pointer, for Numba code: passed to a
#: compiled function as an argument (the address is then not baked into its cache),
#: which calls it on ``array.ctypes`` pointers (see ``spdgraph._kernels.po.dense``).
DPOTRF_POINTERS = lapack_function("dpotrf", _P, _P, _P, _P, _P)


def times_lower_transposed(lower: np.ndarray, block: np.ndarray) -> None:
    """``block <- block @ lower.T`` in place, reading the lower triangle of ``lower``.

    ``lower`` is a C-ordered ``(n, n)`` block (``L``, lower triangular),
    ``block`` is ``(m, n)``: row ``t`` becomes the dot products of ``block[t]``
    with the rows of ``L`` (BLAS ``dtrmm``).
    """
    # Fortran: A = L^T (upper); block @ L^T = (L B)^T = (A^T B)^T
    _trmm_right("times_lower_transposed", lower, block, b"U", b"T")
