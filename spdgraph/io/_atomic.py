"""Atomic writes that survive interrupts: temporaries, replacement, stale clean-up.

Every file or folder spdgraph writes goes first to a hidden temporary beside the
destination, named ``.<name>.<pid>-<32 hex>.tmp``, and is renamed into place
only when complete. This module owns that protocol:

* :func:`temporary_name` names a temporary (or the ``.old`` backup of a folder
  being replaced) so that a later save can tell whose it is;
* :func:`sweep_stale` removes, before each save to a folder, the temporaries
  left there by processes that no longer run (killed by SIGKILL, a power cut),
  and puts back a Zarr store whose replacement was cut between two renames;
* :func:`replace` moves a finished temporary into place: ``os.replace`` for a
  file, an atomic exchange (Linux ``renameat2(RENAME_EXCHANGE)``) for a folder;
* :func:`run_guarded` runs the write itself in a worker thread while the main
  thread waits, so that Ctrl-C (SIGINT) or SIGTERM is handled at once in the
  main thread, never inside the storage library's locks (an interrupt raised
  there deadlocked xarray's file manager). The temporary is removed and the
  interrupt goes on: ``KeyboardInterrupt`` for SIGINT; for SIGTERM (when the
  process had the default handler) the process then terminates by SIGTERM as
  it would have. The abandoned write is told to stop (a write in slabs stops
  after the slab in progress), ends in the background in the removed temporary
  and cleans up after itself; interpreter exit waits for it (an abandoned write
  cut by interpreter shutdown could crash the HDF5 library), and the command
  line, which has nothing left to do, leaves at once with :func:`exit_now`.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import os
import re
import shutil
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "exit_now",
    "interrupted",
    "remove",
    "replace",
    "run_guarded",
    "settle",
    "sweep_stale",
    "take_over",
    "temporary_name",
    "write_whole",
    "writes_abandoned",
]

#: ``.<name>.<pid>-<hex>.tmp`` / ``.old``: the temporaries of spdgraph's own naming.
TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{32}\.(?P<kind>tmp|old)$")

#: The folder inside a temporary store that makes it resumable (its content
#: fingerprint and the digest of each block written): kept by :func:`sweep_stale`.
RESUMABLE = ".spdgraph-resume"

#: How often (seconds) the waiting main thread wakes up to let signal handlers run.
POLL_SECONDS = 0.05


def temporary_name(path: Path, kind: str = "tmp") -> Path:
    """A fresh hidden sibling of ``path`` owned by this process (``kind``: tmp or old)."""
    return path.parent / f".{path.name}.{os.getpid()}-{uuid.uuid4().hex}.{kind}"


def remove(path: Path) -> None:
    """Remove a file, a link or a folder tree; nothing if it is gone.

    A file is truncated first: a storage library that failed mid-write may still
    hold it open (HDF5 after a full disk), and a removed file keeps its blocks as
    long as it is open, so the disk would stay full.
    """
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
        return
    if path.is_file() and not path.is_symlink():
        with contextlib.suppress(OSError):
            os.truncate(path, 0)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's live process (or a number we cannot check)
    return True


#: The temporaries this process is writing now (its other ones were interrupted).
WRITING: set[Path] = set()


def interrupted(path: Path, pid: int) -> bool:
    """Whether the temporary ``path`` of process ``pid`` is no longer being written."""
    if pid == os.getpid():
        return path not in WRITING
    return not _alive(pid)


def write_whole(path: Path, text: str) -> None:
    """A small file inside a temporary (a block's digest) written whole: a kill never
    leaves half of it."""
    part = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.part")
    part.write_text(text)
    os.replace(part, path)


def take_over(interrupted: Path, tmp: Path) -> bool:
    """Rename an interrupted save's temporary onto ``tmp`` (this save's); False when
    another process took it first.

    The chunk files the storage left half-written when the save was killed
    (Zarr writes ``NAME.partial``, then renames it) are removed: no recorded
    block refers to them, so the resumed save writes those blocks again.
    """
    try:
        os.replace(interrupted, tmp)
    except OSError:
        return False
    for partial in tmp.rglob("*.partial") if tmp.is_dir() else ():
        if partial.is_file() and not partial.is_symlink():
            partial.unlink()
    return True


def sweep_stale(folder: Path, replacing: str | None = None) -> list[Path]:
    """Remove temporaries of dead processes in ``folder``; return what was removed.

    A ``.old`` backup whose destination is missing is a Zarr store cut between
    the two renames of a non-atomic replacement: it is renamed back into place.
    A resumable temporary (an interrupted block-wise save, holding
    :data:`RESUMABLE`) is kept, unless it is one of the destination named
    ``replacing``, which the save at hand writes again from the start.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = TEMPORARY.match(entry.name)
        if match is None:
            continue
        path = Path(entry.path)
        own = (path / RESUMABLE).is_dir() and match["name"] == replacing
        if not (interrupted(path, int(match["pid"])) if own else not _alive(int(match["pid"]))):
            continue
        target = folder / match["name"]
        if match["name"] != replacing and (path / RESUMABLE).is_dir():
            continue  # an interrupted save that spdgraph.save(..., resume=True) finishes
        if match["kind"] == "old" and not (target.exists() or target.is_symlink()):
            with contextlib.suppress(OSError):
                os.replace(path, target)
                continue
        remove(path)
        removed.append(path)
    return removed


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Atomically swap two existing paths (Linux); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.argtypes += [ctypes.c_uint]
    status = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if status == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(code, os.strerror(code), os.fspath(first), None, os.fspath(second))


def _rename(src: Path, dst: Path) -> None:
    """``os.replace`` (atomic within a folder; a folder only onto a missing name)."""
    os.replace(src, dst)


def replace(tmp: Path, path: Path) -> None:
    """Move the finished ``tmp`` onto ``path``, replacing what is there atomically."""
    if not tmp.is_dir() or not path.exists():
        _rename(tmp, path)
        return
    # a folder cannot os.replace a non-empty one: swap the two in one step, then
    # remove the old store (now under the temporary name)
    if _exchange(tmp, path):
        remove(tmp)
        return
    # elsewhere, through a backup; sweep_stale puts it back if we die in between
    backup = temporary_name(path, "old")
    _rename(path, backup)
    try:
        _rename(tmp, path)
    except BaseException:
        _rename(backup, path)
        raise
    remove(backup)


#: How long a failed write may take to let its writes in flight end (seconds).
SETTLE_SECONDS = 5.0


def _listing(path: Path) -> set[tuple[str, int]]:
    found = set()
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                found.add(
                    (os.path.join(folder, name), os.stat(os.path.join(folder, name)).st_size)
                )
    return found


def settle(path: Path) -> None:
    """Wait until a failed folder write's writes still in flight have ended.

    Zarr writes chunks concurrently: when one fails (a full disk) the call raises
    while others still run, and they would recreate the temporary after it was
    removed. Returns once ``path`` has not changed for 0.2 s (at most
    :data:`SETTLE_SECONDS`); at once for a path that is no folder.
    """
    deadline = time.monotonic() + SETTLE_SECONDS
    last, stable = _listing(path), 0
    while path.is_dir() and stable < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        now = _listing(path)
        stable = stable + 1 if now == last else 0
        last = now


class _Terminated(BaseException):
    """SIGTERM arrived while a write was in progress."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[bool]:
    """In the main thread with SIGTERM at its default: make it raise ``_Terminated``."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield False  # the program has its own handler: leave it alone
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Terminated

    signal.signal(signal.SIGTERM, handler)
    try:
        yield True
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


#: Worker threads still running a write that an interrupt abandoned.
_ABANDONED: set[threading.Thread] = set()


def writes_abandoned() -> bool:
    """Whether an interrupted write is still ending in the background."""
    return any(worker.is_alive() for worker in _ABANDONED)


def _join_abandoned() -> None:
    for worker in list(_ABANDONED):
        worker.join()


def exit_now(status: int) -> None:
    """Flush the standard streams and end the process (no interpreter shutdown)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _abandon(worker: threading.Thread, abandoned: threading.Event) -> None:
    abandoned.set()
    if not _ABANDONED:
        atexit.register(_join_abandoned)
    _ABANDONED.add(worker)


def run_guarded(
    write: Callable[[threading.Event], Any],
    tmp: Path,
    keep: Callable[[], bool] | None = None,
) -> Any:
    """Run ``write(abandoned)`` (which fills ``tmp``) so that interrupts leave no temporary.

    In the main thread the write runs in a daemon worker thread; the main thread
    waits, handles SIGINT/SIGTERM at once, sets ``abandoned`` (a long write
    checks it between slabs and stops), removes ``tmp`` and re-raises. Any error
    of the write removes ``tmp`` too, unless ``keep()`` says it can be resumed.
    Returns what ``write`` returned.
    """
    abandoned = threading.Event()

    def discard() -> None:
        if keep is None or not keep():
            remove(tmp)

    if threading.current_thread() is not threading.main_thread():
        try:
            return write(abandoned)
        except BaseException:
            discard()
            raise
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = write(abandoned)
        except BaseException as exc:  # re-raised in the main thread
            outcome["error"] = exc
        if abandoned.is_set():
            discard()

    worker = threading.Thread(target=work, name="spdgraph-write", daemon=True)
    with _sigterm_raises():
        try:
            worker.start()
            while worker.is_alive():
                worker.join(POLL_SECONDS)
        except _Terminated:
            abandoned.set()
            discard()
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1.0)  # the default action ends the process here
            raise KeyboardInterrupt from None  # pragma: no cover
        except BaseException:
            _abandon(worker, abandoned)
            discard()
            raise
    if "error" in outcome:
        discard()
        raise outcome["error"]
    return outcome.get("value")
