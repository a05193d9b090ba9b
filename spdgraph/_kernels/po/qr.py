"""Householder QR of a large factor in place, on up to two threads, with fixed rounding.

``L0`` with ``factor = L0 U^T`` is ``R^T`` of the QR of ``factor^T``. A
C-ordered copy of ``factor`` is ``factor^T`` in Fortran order, which this
module factors in place by panels: LAPACK ``dgeqrf`` on a panel of
``PANEL`` columns, then ``dormqr`` applies the panel's reflectors to the
trailing columns, cut into a fixed number of pieces (the pieces depend only
on ``p`` and the panel, not on the number of threads, so neither do the
bits). The LAPACK routines are SciPy's (``scipy.linalg.cython_lapack``),
called through ``ctypes`` with the leading dimension of the whole array (no
copies), which releases the GIL while they run.
"""

from __future__ import annotations

import ctypes
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from spdgraph._kernels.raw_blas import lapack_function as _lapack

#: Columns per panel.
PANEL = 128
#: Pieces the trailing columns of a panel are cut into.
PIECES = 4

_P = ctypes.c_void_p
_I = ctypes.POINTER(ctypes.c_int)


# dgeqrf(m, n, a, lda, tau, work, lwork, info)
_DGEQRF = _lapack("dgeqrf", _I, _I, _P, _I, _P, _P, _I, _I)
# dormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info)
_C = ctypes.c_char_p
_DORMQR = _lapack("dormqr", _C, _C, _I, _I, _I, _P, _I, _P, _P, _I, _P, _I, _I)


def _int(value: int) -> ctypes.c_int:
    return ctypes.c_int(int(value))


def _check(info: ctypes.c_int, name: str) -> None:
    if info.value != 0:  # pragma: no cover - LAPACK contract for valid arguments
        raise RuntimeError(f"{name} failed (info={info.value})")


def qr_lower_inplace(buf: np.ndarray, threads: int = 1) -> None:
    """Replace C-ordered square ``buf`` (holding ``factor``) by ``L0`` in its lower triangle.

    The strict upper triangle is left holding the Householder vectors; the
    caller zeroes it. Run inside ``one_blas_thread``.
    """
    p = buf.shape[0]
    if not (buf.flags.c_contiguous and buf.dtype == np.float64 and buf.shape == (p, p)):
        raise ValueError("qr_lower_inplace needs a C-contiguous square float64 array")
    base = buf.ctypes.data
    tau = np.empty(p)
    lda = _int(p)

    def at(r: int, c: int) -> int:  # address of A[r, c], A = buf^T in Fortran order
        return base + 8 * (r + c * p)

    panel_work = np.empty(PANEL * 64 + 64)
    # one work array per piece (pieces may run at the same time)
    works = [np.empty(PANEL * (p // PIECES + 2) + 8192) for _ in range(PIECES)]
    # below ~768 columns a thread pool costs more than it saves (measured at p = 400)
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 and p >= 768 else None
    try:
        for k in range(0, p, PANEL):
            nb = min(PANEL, p - k)
            info = ctypes.c_int(0)
            _DGEQRF(
                _int(p - k), _int(nb), at(k, k), lda, tau.ctypes.data + 8 * k,
                panel_work.ctypes.data, _int(panel_work.size), ctypes.byref(info),
            )  # fmt: skip
            _check(info, "dgeqrf")
            rest = p - k - nb
            if rest <= 0:
                continue
            cuts = [k + nb + (rest * j) // PIECES for j in range(PIECES + 1)]

            def apply(
                j: int, work: np.ndarray, k: int = k, nb: int = nb, cuts: list[int] = cuts
            ) -> None:
                if cuts[j + 1] == cuts[j]:
                    return
                info = ctypes.c_int(0)
                _DORMQR(
                    b"L", b"T", _int(p - k), _int(cuts[j + 1] - cuts[j]), _int(nb), at(k, k),
                    lda, tau.ctypes.data + 8 * k, at(k, cuts[j]), lda, work.ctypes.data,
                    _int(work.size), ctypes.byref(info),
                )  # fmt: skip
                _check(info, "dormqr")

            if pool is None:
                for j in range(PIECES):
                    apply(j, works[j])
            else:
                futures = [pool.submit(apply, j, works[j]) for j in range(PIECES)]
                for f in futures:
                    f.result()
    finally:
        if pool is not None:
            pool.shutdown()
