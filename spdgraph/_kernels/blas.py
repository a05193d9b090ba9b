"""A process-wide, re-entrant limit of BLAS to one thread (threadpoolctl).

Used around every BLAS/LAPACK call whose bits must not depend on the thread
count (QR, products, Cholesky checks, eigenvalues) and to avoid
oversubscription when matrices of a batch run in parallel threads.

threadpoolctl 3.8 lets only one "controlling" thread change the size of
OpenBLAS's process-wide pool (pthreads threading layer) and silently ignores
the requests of every other thread; a limit taken with
``ThreadpoolController.limit`` outside a ``with`` block keeps its thread in
control for as long as that thread lives. This module therefore hands control
to the thread that sets or restores the limit, and gives it up again at once
(see docs/performance.md, "Identical bits on any thread").
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict[str, Any] = {"controller": None, "depth": 0, "limiter": None, "modules": 0}


def _release_openblas_control() -> None:
    """Let the next thread that changes OpenBLAS's pool size be obeyed (threadpoolctl >= 3.8).

    Older threadpoolctl versions obey every thread and have no such state.
    """
    from threadpoolctl import OpenBLASController

    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear(force=True)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Context manager limiting BLAS to one thread (threadpoolctl), for the whole process.

    Small multi-threaded BLAS calls are pathologically slow on a busy
    machine, and OpenBLAS rounds some calls (``A @ A.T``, QR, eigenvalues)
    differently with more threads: results must not depend on that. Batches
    get their parallelism from threads over matrices. The limit is
    process-wide, so overlapping uses (``sample`` called from several
    threads, e.g. by dask) share it: the first one in sets it, the last one
    out restores the original setting, whichever threads they are.
    """
    with _BLAS_LOCK:
        if _BLAS_STATE["depth"] == 0:
            if _BLAS_STATE["controller"] is None or len(sys.modules) != _BLAS_STATE["modules"]:
                # (re)scan the loaded libraries (~5 ms) when an import may have loaded a
                # BLAS (SciPy's OpenBLAS is another library than NumPy's)
                from threadpoolctl import ThreadpoolController

                _BLAS_STATE["controller"] = ThreadpoolController()
                _BLAS_STATE["modules"] = len(sys.modules)
            _release_openblas_control()
            _BLAS_STATE["limiter"] = _BLAS_STATE["controller"].limit(limits=1, user_api="blas")
            _release_openblas_control()
        _BLAS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0:
                _release_openblas_control()
                _BLAS_STATE["limiter"].restore_original_limits()
                _release_openblas_control()
                _BLAS_STATE["limiter"] = None
