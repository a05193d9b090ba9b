"""Where a study's cells run: fresh local processes or a dask cluster, none outliving the study.

* :func:`local_pool` runs cells in "spawn" worker processes guarded by
  :func:`orphan_guard` (a worker ends when the study's process does); the
  pool's semaphores are registered with the watchdog
  (:mod:`spdgraph.study._contain`), so a killed study leaves none in /dev/shm.
* :func:`dask_pool` runs them on a LocalCluster or a scheduler reached
  through :func:`spdgraph.study._guard.scheduler_client`.
* :func:`show_running` names the learners running now on the progress bar.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from spdgraph.study._contain import running_fits, watch
from spdgraph.study._guard import SCHEDULER_TIMEOUT, scheduler_client

__all__ = [
    "Compute",
    "Coords",
    "Finish",
    "dask_pool",
    "local_pool",
    "orphan_guard",
    "show_running",
]

Coords = dict[str, Any]
Compute = Callable[[Coords], dict[str, Any]]
Finish = Callable[[Coords, Callable[[], dict[str, Any]]], None]


def orphan_guard(parent: int) -> None:
    """A worker's initializer: it never outlives the study's process.

    On Linux the kernel sends the worker SIGKILL when its parent dies
    (``PR_SET_PDEATHSIG``); everywhere, a daemon thread polls the parent's pid
    once a second and ends the worker when the parent is gone. The R
    processes and commands a worker started, and what they started, end with
    it: the worker's watchdog (:func:`spdgraph.study._contain.watch`) kills
    their process groups.
    """
    import signal
    import sys
    import threading
    import time

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    if os.getppid() != parent:  # died before the guard was set
        os._exit(1)
    threading.Thread(target=watch, name="spdgraph-orphan-guard", daemon=True).start()


def local_pool(todo: Sequence[Coords], compute: Compute, workers: int, finish: Finish) -> None:
    """Cells in fresh ("spawn") worker processes; each is stored as it arrives."""
    import concurrent.futures as cf
    import multiprocessing

    pool = cf.ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=orphan_guard,
        initargs=(os.getpid(),),
    )
    for queue in (pool._call_queue, pool._result_queue):  # type: ignore[attr-defined]
        for lock in (getattr(queue, name, None) for name in ("_rlock", "_wlock", "_sem")):
            name = getattr(getattr(lock, "_semlock", None), "name", None)
            if isinstance(name, str):
                watch("s", name)  # unlinked by the watchdog if this process is killed
    try:
        futures = {pool.submit(compute, c): c for c in todo}
        for fut in cf.as_completed(futures):
            finish(futures[fut], fut.result)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def dask_pool(
    todo: Sequence[Coords],
    compute: Compute,
    scheduler: Any,
    workers: int,
    finish: Finish,
    timeout: float = SCHEDULER_TIMEOUT,
) -> None:
    with scheduler_client(scheduler, timeout=timeout, workers=workers) as client:
        from distributed import as_completed  # there: scheduler_client refuses without it

        futures = {client.submit(compute, c, pure=False): c for c in todo}
        for fut in as_completed(futures):
            finish(futures[fut], fut.result)


def show_running(bar: Any, folder: Path) -> Callable[[], None]:
    """A thread naming the learners running now and for how long (``folder``'s scratch)."""
    import threading

    done = threading.Event()

    def show() -> None:
        while not done.wait(1.0):
            fits = running_fits(folder)
            shown = ", ".join(f"{name} {seconds:.0f}s" for name, seconds in fits[:3])
            more = f" +{len(fits) - 3}" if len(fits) > 3 else ""
            bar.note(f"running {shown}{more}" if fits else "")

    thread = threading.Thread(target=show, name="spdgraph-running-fits", daemon=True)
    thread.start()

    def stop() -> None:
        done.set()
        thread.join(2.0)

    return stop
