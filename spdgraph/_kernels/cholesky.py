"""Blocked Cholesky factorization of a large matrix on up to two threads, with fixed rounding.

The output checks prove every matrix positive definite by a Cholesky
factorization. LAPACK's ``dpotrf`` runs on one BLAS thread there (the core
holds BLAS at one thread so that results do not depend on the machine's
thread settings), which at p = 10,000 is 7 s on one core while the other
idles. This right-looking blocked factorization does the same work by
panels of :data:`PANEL` columns: ``dpotrf`` on the diagonal block, ``dtrsm``
on the panel below it and ``dsyrk``/``dgemm`` on the trailing matrix, the
last two cut into :data:`PIECES` fixed pieces that run on a thread pool (the
BLAS routines of ``scipy.linalg.cython_blas``, called through ``ctypes``,
release the GIL). The pieces depend only on ``p``, so the bits do not depend
on the number of threads. The factor is computed in a Fortran-ordered copy:
read in C order it is ``U = L^T``.
"""

from __future__ import annotations

import ctypes
import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import scipy.linalg.cython_blas as _cython_blas

from spdgraph._kernels.raw_blas import capsule_function, lapack_function

#: Columns per panel.
PANEL = 256
#: Pieces of the panel solve and of the trailing update (fixed: they fix the rounding).
PIECES = 8

_P = ctypes.c_void_p
_I = ctypes.POINTER(ctypes.c_int)
_D = ctypes.POINTER(ctypes.c_double)
_C = ctypes.c_char_p
# dpotrf(uplo, n, a, lda, info)
_DPOTRF = lapack_function("dpotrf", _C, _I, _P, _I, _I)
# dtrsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
_DTRSM = capsule_function(_cython_blas, "dtrsm", _C, _C, _C, _C, _I, _I, _D, _P, _I, _P, _I)
# dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
_DSYRK = capsule_function(_cython_blas, "dsyrk", _C, _C, _I, _I, _D, _P, _I, _D, _P, _I)
# dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
_DGEMM = capsule_function(
    _cython_blas, "dgemm", _C, _C, _I, _I, _I, _D, _P, _I, _P, _I, _D, _P, _I
)


def _int(value: int) -> object:
    return ctypes.byref(ctypes.c_int(int(value)))


def _double(value: float) -> object:
    return ctypes.byref(ctypes.c_double(float(value)))


def _cuts(lo: int, hi: int, pieces: int, area: bool) -> list[int]:
    """Cut ``lo:hi`` into ``pieces`` (equal lengths, or equal lower-triangular areas)."""
    n = hi - lo
    if area:
        cuts = [lo + round(n * (1.0 - float(np.sqrt(1.0 - j / pieces)))) for j in range(pieces)]
        cuts.append(hi)
    else:
        cuts = [lo + (n * j) // pieces for j in range(pieces + 1)]
    return sorted(set(cuts))


def cholesky_upper(matrix: np.ndarray, threads: int = 1) -> np.ndarray | None:
    """``U = L^T`` (C-ordered, upper triangle) of symmetric ``matrix``, or None if not PD.

    ``matrix`` is C-ordered ``(p, p)`` float64; only its lower triangle is
    read (one copy is made). The strict lower triangle of the result holds
    the input's entries (not zeroed). Run it inside ``one_blas_thread``.

    >>> m = np.array([[4.0, 2.0], [2.0, 5.0]])
    >>> cholesky_upper(m)[0].tolist(), float(cholesky_upper(m)[1, 1])
    ([2.0, 1.0], 2.0)
    >>> cholesky_upper(np.array([[1.0, 2.0], [2.0, 1.0]])) is None
    True
    """
    p = matrix.shape[0]
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 and p > PANEL else None
    try:
        a = _copy(matrix, pool)  # = matrix^T in Fortran order
        if p == 0:
            return a
        base = a.ctypes.data
        ld = _int(p)

        def at(r: int, c: int) -> int:  # address of A[r, c] of the Fortran view (lower)
            return base + 8 * (r + c * p)

        for k in range(0, p, PANEL):
            nb = min(PANEL, p - k)
            info = ctypes.c_int(0)
            _DPOTRF(b"L", _int(nb), at(k, k), ld, ctypes.byref(info))
            if info.value != 0:
                return None
            if k + nb >= p:
                break
            rows = _cuts(k + nb, p, PIECES, area=False)
            _run(pool, [(_solve_rows, at, ld, k, nb, *r) for r in itertools.pairwise(rows)])
            cols = _cuts(k + nb, p, PIECES, area=True)
            _run(pool, [(_update_columns, at, ld, p, k, nb, *c) for c in itertools.pairwise(cols)])
    finally:
        if pool is not None:
            pool.shutdown()
    return a


def _copy(matrix: np.ndarray, pool: ThreadPoolExecutor | None) -> np.ndarray:
    """A C-ordered float64 copy of ``matrix``; on the pool, in pieces of rows (a fresh
    ``p x p`` array's first touch is about half of the copy's time)."""
    if pool is None or matrix.dtype != np.float64:
        return np.array(matrix, dtype=np.float64, order="C")
    out = np.empty(matrix.shape, dtype=np.float64)
    rows = _cuts(0, matrix.shape[0], PIECES, area=False)
    _run(pool, [(np.copyto, out[r0:r1], matrix[r0:r1]) for r0, r1 in itertools.pairwise(rows)])
    return out


def _solve_rows(
    at: Callable[[int, int], int], ld: object, k: int, nb: int, r0: int, r1: int
) -> None:
    """``A[r0:r1, k:k+nb] <- A[r0:r1, k:k+nb] L11^-T`` (the panel below the diagonal block)."""
    _DTRSM(
        b"R", b"L", b"T", b"N", _int(r1 - r0), _int(nb), _double(1.0), at(k, k), ld,
        at(r0, k), ld,
    )  # fmt: skip


def _update_columns(
    at: Callable[[int, int], int], ld: object, p: int, k: int, nb: int, c0: int, c1: int
) -> None:
    """Trailing columns ``c0:c1``: ``A[c0:, c0:c1] -= L21[c0:] L21[c0:c1]^T`` (lower part)."""
    _DSYRK(
        b"L", b"N", _int(c1 - c0), _int(nb), _double(-1.0), at(c0, k), ld, _double(1.0),
        at(c0, c0), ld,
    )  # fmt: skip
    if c1 < p:
        _DGEMM(
            b"N", b"T", _int(p - c1), _int(c1 - c0), _int(nb), _double(-1.0), at(c1, k), ld,
            at(c0, k), ld, _double(1.0), at(c1, c0), ld,
        )  # fmt: skip


def _run(pool: ThreadPoolExecutor | None, tasks: list[tuple[Any, ...]]) -> None:
    """Run ``(function, *args)`` tasks, on the pool when there is one; wait for all."""
    if pool is None:
        for function, *args in tasks:
            function(*args)
        return
    for future in [pool.submit(function, *args) for function, *args in tasks]:
        future.result()
