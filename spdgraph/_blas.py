"""A process-wide, re-entrant limit of BLAS to one thread (threadpoolctl).

Used around every BLAS/LAPACK call whose bits must not depend on the thread
count (QR, products, Cholesky checks, eigenvalues) and to avoid
oversubscription when matrices of a batch run in parallel threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict[str, Any] = {"controller": None, "depth": 0, "limiter": None}


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Context manager limiting BLAS to one thread (threadpoolctl), for the whole process.

    The QR and the final product run inside it: OpenBLAS's QR rounds
    differently with more threads (a matrix must not depend on the thread
    count), and small multi-threaded BLAS calls are pathologically slow on a
    busy machine. Batches get their parallelism from threads over matrices.
    The limit is process-wide, so overlapping uses (``sample`` called from
    several threads, e.g. by dask) share it: the first one in sets it, the
    last one out restores the original setting.
    """
    with _BLAS_LOCK:
        if _BLAS_STATE["depth"] == 0:
            if _BLAS_STATE["controller"] is None:
                from threadpoolctl import ThreadpoolController

                _BLAS_STATE["controller"] = ThreadpoolController()
            _BLAS_STATE["limiter"] = _BLAS_STATE["controller"].limit(limits=1, user_api="blas")
        _BLAS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0:
                _BLAS_STATE["limiter"].restore_original_limits()
                _BLAS_STATE["limiter"] = None
