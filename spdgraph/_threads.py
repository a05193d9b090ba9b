"""Thread use of the compiled and BLAS-heavy entry points: Numba × BLAS threads <= cores.

Every entry point that runs many BLAS calls or compiled (Numba) loops --
:func:`spdgraph.validation.select_glasso`, :func:`spdgraph.validation.score`,
:func:`spdgraph.validation.fit_learners`, a study's cells -- runs inside
:func:`thread_budget`, which by default holds BLAS at one thread and Numba at
``cores // blas_threads`` (never above its own setting), so the product never
exceeds the cores this process may use. Sampling (every generator, G-Wishart's
plugin included) already holds BLAS at one thread around its batches
(:func:`spdgraph._kernels.blas.one_blas_thread`) and takes its parallelism from
Numba's threads.

Why one BLAS thread by default: these workloads are many small matrix
operations (glasso's block coordinate descent on ``p - 1`` vectors, node-wise
lasso paths), where a second BLAS thread only adds contention: select_glasso
at p = 100, n = 2000 took 63-123 s with two BLAS threads against 5 s with one
on a shared 2-core machine (issue 47; ``benchmarks/bench_glasso_threads.py``).

The chosen counts are returned as ``{"blas_threads": b, "numba_threads": m}``
for results to record (``attrs`` or a ``threads`` field).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from spdgraph.errors import InvalidOptionError, written

__all__ = ["available_cores", "check_blas_threads", "thread_budget"]


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def check_blas_threads(blas_threads: object) -> int | None:
    """``blas_threads`` as given (a positive integer or ``None``), else InvalidOptionError."""
    if blas_threads is None:
        return None
    if isinstance(blas_threads, bool) or not isinstance(blas_threads, int) or blas_threads < 1:
        raise InvalidOptionError(
            f"blas_threads must be a positive integer or None (leave BLAS as it is), "
            f"got {written(blas_threads)}."
        )
    return int(blas_threads)


def _current_blas_threads() -> int:
    from threadpoolctl import threadpool_info

    counts = [int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"]
    return max(counts, default=1)


@contextmanager
def thread_budget(blas_threads: int | None = 1) -> Iterator[dict[str, int]]:
    """Hold BLAS and Numba so that their product stays within the available cores.

    Parameters
    ----------
    blas_threads
        BLAS threads inside the block: 1 (the default; process-wide and
        re-entrant, see :func:`spdgraph._kernels.blas.one_blas_thread`), a
        larger count, or ``None`` to leave the BLAS setting as it is. Numba
        gets ``max(1, cores // blas_threads)`` threads at most (its own
        setting when lower), restored on exit.

    Yields
    ------
    dict
        ``{"blas_threads": b, "numba_threads": m}``, the counts in force.

    Examples
    --------
    >>> from spdgraph._threads import available_cores, thread_budget
    >>> with thread_budget() as used:
    ...     used["blas_threads"], used["numba_threads"] <= available_cores()
    (1, True)
    """
    import contextlib

    import numba

    blas_threads = check_blas_threads(blas_threads)
    cores = available_cores()
    with contextlib.ExitStack() as stack:
        if blas_threads == 1:
            from spdgraph._kernels.blas import one_blas_thread

            stack.enter_context(one_blas_thread())
            blas = 1
        elif blas_threads is None:
            blas = _current_blas_threads()
        else:
            from threadpoolctl import threadpool_limits

            stack.enter_context(threadpool_limits(limits=blas_threads, user_api="blas"))
            blas = blas_threads
        before = int(numba.get_num_threads())
        allowed = max(1, min(before, cores // max(1, blas)))
        if allowed != before:
            numba.set_num_threads(allowed)
            stack.callback(numba.set_num_threads, before)
        yield {"blas_threads": int(blas), "numba_threads": allowed}
