"""Learner processes contained: their own session, a scratch folder, bounded output, a watchdog.

* Every R or command learner process starts in a session and process group of
  its own (``start_new_session``), dies with the process that started it
  (Linux ``PR_SET_PDEATHSIG``), and is registered with this process's
  *watchdog*: a tiny process in a session of its own that reads a pipe from
  this one and, when the pipe closes (this process ended, even by SIGKILL),
  kills every registered group and unlinks the registered semaphores. What a
  learner starts in the background (R's ``system(..., wait = FALSE)``, a
  shell's ``&``) is in its group, and is killed with it when the fit ends.
* A fit works in a scratch folder of its cell and learner,
  ``STUDY/.scratch/<cell>/<learner>`` (:func:`scratch_folder`), emptied after
  each fit and removed with its cell; a run removes what a killed run left.
* A learner's standard output and error are kept up to :data:`TAIL_BYTES`
  (:class:`Tail`: the last bytes, for the failure message); its result file
  is checked before it is read (:mod:`spdgraph.study._output`).
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spdgraph.errors import SpdgraphError

__all__ = [
    "SCRATCH",
    "TAIL_BYTES",
    "LearnerContext",
    "LearnerFailure",
    "Tail",
    "cell_folder",
    "in_context",
    "kill_group",
    "running_fits",
    "scratch_folder",
    "watch",
]

#: The study folder's scratch folder (one sub-folder per running fit).
SCRATCH = ".scratch"
#: Bytes of a learner's standard output and error kept (the last ones) for its failure message.
TAIL_BYTES = 64 * 1024
#: Environment of R and command learners: BLAS on one thread (recorded in study.json).
THREAD_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}


class LearnerFailure(SpdgraphError, RuntimeError):
    """An R or command-line learner failed on one fit (its own error text is in the message)."""


@dataclass(frozen=True)
class LearnerContext:
    """Where a study's fits run: the scratch root, the default timeout, the cell."""

    scratch_root: str | None = None
    timeout: float | None = None
    cell: str = ""


_DEFAULT = LearnerContext()
_CONTEXT: contextvars.ContextVar[LearnerContext | None] = contextvars.ContextVar(
    "spdgraph_learner_context", default=None
)


def current() -> LearnerContext:
    """The context of the fit running in this thread (a default one outside a study)."""
    return _CONTEXT.get() or _DEFAULT


def in_context(
    context: LearnerContext,
    compute: Callable[[Any], Any],
    coords: Any,
    *,
    key: Callable[[Any], str] = str,
) -> Any:
    """``compute(coords)`` with ``context`` (and the cell's ``key(coords)``) set for its fits."""
    cell = _safe(key(coords), 160)
    token = _CONTEXT.set(replace(context, cell=cell))
    try:
        return compute(coords)
    finally:
        _CONTEXT.reset(token)
        if context.scratch_root is not None:  # the cell's scratch: its learners' folders
            shutil.rmtree(Path(context.scratch_root) / cell, ignore_errors=True)


def learner_timeout(entry: Any) -> float | None:
    """The learner's own ``timeout``, else the study-wide default (None: no limit)."""
    timeout = entry.get("timeout")
    return current().timeout if timeout is None else float(timeout)


def _safe(name: str, length: int = 60) -> str:
    return re.sub(r"[^A-Za-z0-9_=,+-]", "_", name)[:length] or "learner"


#: A fit running longer than this (seconds) is marked for the progress bar (:func:`running_fits`).
SHOWN_AFTER = 1.0


@contextlib.contextmanager
def cell_folder() -> Iterator[Path]:
    """The running cell's scratch folder, ``STUDY/.scratch/<cell>`` (created; removed with
    the cell by :func:`in_context`); outside a study (or on a remote worker that cannot see
    the study folder) a temporary folder, removed afterwards."""
    context = current()
    if context.scratch_root is None or not Path(context.scratch_root).parent.is_dir():
        folder = Path(tempfile.mkdtemp(prefix="spdgraph-scratch-"))
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    folder = Path(context.scratch_root) / (context.cell or "cell")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    yield folder


@contextlib.contextmanager
def scratch_folder(learner: str) -> Iterator[Path]:
    """An empty folder for one fit of ``learner``, emptied (or removed) afterwards.

    Inside a study run it is ``STUDY/.scratch/<cell>/<learner>`` (reused by the
    cell's repeats, emptied after each fit, removed with the cell by
    :func:`in_context`); outside one, in a temporary :func:`cell_folder`. A fit
    running past :data:`SHOWN_AFTER` seconds leaves the marker
    ``<cell>/<learner>.<start>.<id>`` while it runs.
    """
    with cell_folder() as cell:
        folder = cell / _safe(learner)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _empty(folder)  # what a failed fit of an earlier repeat left
        marker = _Marker(cell / f"{_safe(learner)}.{int(time.time())}.{secrets.token_hex(4)}")
        try:
            yield folder
        finally:
            marker.remove()
            _empty(folder)


class _Marker:
    """A folder made after :data:`SHOWN_AFTER` seconds (a fast fit makes none), then removed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._made = self._done = False
        self._timer = threading.Timer(SHOWN_AFTER, self._make)
        self._timer.daemon = True
        self._timer.start()

    def _make(self) -> None:
        with self._lock:
            if not self._done:
                with contextlib.suppress(OSError):
                    self.path.mkdir()
                    self._made = True

    def remove(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._done = True
            if self._made:
                with contextlib.suppress(OSError):
                    self.path.rmdir()


def _empty(folder: Path) -> None:
    """Remove what ``folder`` holds (links removed, never followed); cheap when empty."""
    for name in _entries(folder):
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()


def _entries(folder: Path) -> list[str]:
    """The names in ``folder``, [] when it is gone (or not yet there)."""
    try:
        with os.scandir(folder) as it:
            return [entry.name for entry in it]
    except OSError:
        return []


def clean_scratch(study_folder: Path) -> None:
    """Remove ``STUDY/.scratch`` (what a killed run left); call it holding the study's lock."""
    shutil.rmtree(Path(study_folder) / SCRATCH, ignore_errors=True)


def running_fits(study_folder: Path, now: float | None = None) -> list[tuple[str, float]]:
    """``(learner, seconds running)`` of the fits under way in a study, longest first."""
    now = time.time() if now is None else now
    found = []
    root = Path(study_folder) / SCRATCH
    for cell in _entries(root):  # fits come and go meanwhile
        for name in _entries(root / cell):
            learner, _, rest = name.partition(".")
            started = rest.partition(".")[0]
            if started.isdigit():
                found.append((learner, max(0.0, now - int(started))))
    return sorted(found, key=lambda item: -item[1])


# -- the watchdog ------------------------------------------------------------------------

_WATCHDOG = r"""
import os, signal, sys
groups, sems = set(), set()
for line in sys.stdin.buffer:
    op, arg = line[:1], line[1:].strip().decode("ascii", "replace")
    if op == b"+": groups.add(int(arg))
    elif op == b"-": groups.discard(int(arg))
    elif op == b"s": sems.add(arg)
for group in groups:
    try: os.killpg(group, signal.SIGKILL)
    except OSError: pass
try:
    from _multiprocessing import sem_unlink
except ImportError:
    sem_unlink = None
for name in sems if sem_unlink is not None else ():
    try: sem_unlink(name)
    except OSError: pass
"""

_lock = threading.Lock()
_watchdog: subprocess.Popen[bytes] | None = None
_owner = 0


def _stop_watchdog() -> None:
    global _watchdog
    proc, _watchdog = _watchdog, None
    if proc is not None and _owner == os.getpid():
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.close()  # the watchdog kills what is registered, then ends
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def watch(op: str, arg: int | str) -> None:
    """Tell this process's watchdog: ``+`` a process group, ``-`` no longer, ``s`` a semaphore.

    The watchdog (started on first use, POSIX only) kills the groups and
    unlinks the semaphores when this process ends, however it ends.
    """
    global _watchdog, _owner
    if os.name != "posix":
        return
    with _lock:
        if _watchdog is None or _owner != os.getpid() or _watchdog.poll() is not None:
            _watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # outlives a kill of this process's group
            )
            if _owner == 0:
                atexit.register(_stop_watchdog)
            _owner = os.getpid()
        try:
            assert _watchdog.stdin is not None
            _watchdog.stdin.write(f"{op}{arg}\n".encode("ascii"))
            _watchdog.stdin.flush()
        except OSError:
            pass


def die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the child gets SIGKILL when the process that started it dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start_contained(args: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """A learner process (``Popen(args, **options)``) contained: its own session and group,
    BLAS on one thread, dying with this process, registered with the watchdog.

    End it with :func:`end_contained`: the whole group is killed.
    """
    proc = subprocess.Popen(
        args,
        env={**os.environ, **THREAD_ENV},
        start_new_session=True,
        preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
        **options,
    )
    watch("+", proc.pid)
    return proc


def end_contained(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s whole group (what it started in the background too) and reap it."""
    kill_group(proc.pid)
    proc.wait()
    watch("-", proc.pid)


def _group_members(group: int) -> list[int]:
    """Linux: the pids in process group ``group`` (from /proc)."""
    members = []
    for name in os.listdir("/proc"):  # raw reads: ~2 ms for a few hundred processes
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            data = os.read(fd, 512)
        except OSError:
            continue
        finally:
            os.close(fd)
        fields = data.rpartition(b")")[2].split(None, 3)  # state, ppid, pgrp, ...
        if len(fields) > 2 and int(fields[2]) == group:
            members.append(int(name))
    return members


def kill_group(group: int, keep: int | None = None) -> None:
    """SIGKILL every process of ``group`` (all but ``keep``: Linux only when ``keep`` is given)."""
    if os.name != "posix":
        return
    if keep is None:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
        return
    if not sys.platform.startswith("linux"):
        return
    for pid in _group_members(group):
        if pid != keep:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


# -- bounded output ----------------------------------------------------------------------


class Tail:
    """The last :data:`TAIL_BYTES` of a stream, read by a thread of its own until it ends."""

    def __init__(self, stream: Any, limit: int = TAIL_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: Any) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self.total += len(chunk)
                self._buffer += chunk
                if len(self._buffer) > 2 * self.limit:
                    del self._buffer[: -self.limit]
        with contextlib.suppress(OSError):
            stream.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self, limit: int = 2000) -> str:
        """The last ``limit`` bytes as text, saying how many earlier ones are not shown."""
        with self._lock:
            kept = bytes(self._buffer[-min(limit, self.limit) :])
            total = self.total
        text = kept.decode("utf-8", "replace").strip()
        dropped = total - len(kept)
        return f"[{dropped:,} earlier bytes not shown] {text}" if dropped > 0 else text
