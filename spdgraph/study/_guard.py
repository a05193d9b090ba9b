"""A study under hostile input: bounded files, a locked folder, a checked scheduler.

* :func:`read_study_file` reads a study's TOML within :data:`MAX_STUDY_BYTES`,
  refuses text that is not UTF-8 and nesting deeper than :data:`MAX_NESTING`
  before the parser sees it (a 100 MB grid axis or 10,000 nested arrays give
  a clear error at once, not a hang or a ``RecursionError``);
  :func:`check_spec` bounds a parsed (or hand-made) specification the same way,
  with at most :data:`MAX_GRID_VALUES` values in the grid, at most
  :data:`MAX_CELLS` cells (the product of the axes' lengths), integers of at
  most 64 bits (a 5,000-digit seed is refused by name), and grid axis names
  that are plain labels (``[A-Za-z_][A-Za-z0-9_.-]*``, no ``/``).
* :func:`check_learner_timeout` accepts a finite positive number of seconds only.
* :func:`locked_folder` holds an exclusive ``flock`` on ``DIR/.spdgraph-lock`` (a
  regular file, opened without following a symbolic link)
  while a run uses the folder: a second run into it is refused with a message
  naming the folder and the holder's pid (or waits, with ``wait=True``).
* :func:`check_scheduler` and :func:`connect_scheduler` (from
  :mod:`spdgraph.study._scheduler`) check a scheduler's address, greeting and security;
  :func:`scheduler_client` holds a checked client for a run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from spdgraph.errors import (
    FileError,
    InvalidOptionError,
    SchedulerError,
    StudyLockedError,
)
from spdgraph.study._scheduler import (
    SCHEDULER_TIMEOUT,
    check_scheduler,
    check_timeout,
    connect_scheduler,
    scheduler_client,
)

__all__ = [
    "MAX_CELLS",
    "MAX_GRID_VALUES",
    "MAX_INT_BITS",
    "MAX_NESTING",
    "MAX_STUDY_BYTES",
    "SCHEDULER_TIMEOUT",
    "SchedulerError",
    "StudyLockedError",
    "check_learner_timeout",
    "check_scheduler",
    "check_spec",
    "check_timeout",
    "connect_scheduler",
    "locked_folder",
    "open_regular",
    "read_study_file",
    "scheduler_client",
]

#: A study file larger than this (bytes) is refused before it is read.
MAX_STUDY_BYTES = 1 * 2**20
#: Deepest nesting of arrays and tables accepted in a study.
MAX_NESTING = 32
#: Most values in all the grid's axes together.
MAX_GRID_VALUES = 100_000
#: Most cells in a study's grid (the product of its axes' lengths).
MAX_CELLS = 100_000
#: Integers in a study (seeds, counts) fit in this many bits.
MAX_INT_BITS = 64
#: A grid axis name: a plain label (it names a coordinate in the results and files).
_AXIS_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
#: The lock file a run holds in its folder.
LOCK_NAME = ".spdgraph-lock"


def _text_depth(text: str) -> int:
    """The deepest nesting of TOML text, outside strings and comments (one pass, O(n)).

    Counts ``[``/``{`` nesting and the segments of dotted keys (``a.b.c = 1``,
    ``[a.b.c]``): both make nested tables, and a parser given 10,000 of either
    recurses or allocates without bound.
    """
    depth = deepest = dots = 0
    quote: str | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote or (ch == "\n" and quote == "#"):
                quote = None
                if ch == "\n":
                    dots = 0
        elif ch == ".":
            dots += 1
            deepest = max(deepest, dots)
        elif ch.isalnum() or ch in "_- \t":
            pass  # a bare key (or a number): a dotted key goes on
        elif ch in "\"'#":
            quote = ch  # a quoted key segment keeps the dotted key going
        else:
            dots = 0
            if ch in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "]}":
                depth = max(0, depth - 1)
        i += 1
    return deepest


def read_study_file(path: Path) -> str:
    """A study file's text; InvalidOptionError when too big, not UTF-8 or too deep."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FileError(f"cannot read the study file {str(path)!r}: {exc.strerror}.") from exc
    if size > MAX_STUDY_BYTES:
        raise InvalidOptionError(
            f"the study file {str(path)!r} has {size:,} bytes, more than the "
            f"{MAX_STUDY_BYTES:,} a study may have; list fewer grid values (a grid axis is a "
            "short list, e.g. n = [50, 100, 200])."
        )
    try:
        with path.open("rb") as handle:
            data = handle.read(size + 1)  # size is bounded above: no larger buffer
    except OSError as exc:
        raise FileError(f"cannot read the study file {str(path)!r}: {exc.strerror}.") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidOptionError(
            f"the study file {str(path)!r} is not UTF-8 text (byte {exc.start}: {exc.reason}); "
            "save it as UTF-8 TOML."
        ) from None
    digits = re.search(r"[0-9][0-9_]{3999,}", text)  # Python's parser stops at 4,300
    if digits is not None:
        raise InvalidOptionError(
            f"the study file {str(path)!r} holds a number of {len(digits.group()):,} digits "
            f"(at character {digits.start():,}); seeds and counts are below 2**63 "
            "(e.g. seed = 2026)."
        )
    if _text_depth(text) > MAX_NESTING:
        raise InvalidOptionError(
            f"the study file {str(path)!r} nests arrays, tables or dotted keys more than "
            f"{MAX_NESTING} deep; "
            "a study needs at most a few levels (docs/study.md gives the schema)."
        )
    return text


def _spec_depth_and_size(spec: Any) -> tuple[int, int]:
    """(deepest nesting, number of leaves) of a parsed spec, iteratively (no recursion)."""
    deepest, leaves = 0, 0
    stack: list[tuple[Any, int]] = [(spec, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            items: Any = value.values()
        elif isinstance(value, list | tuple):
            items = value
        else:
            leaves += 1
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_NESTING:
            return deepest, leaves
        stack.extend((item, depth + 1) for item in items)
    return deepest, leaves


def check_spec(spec: Mapping[str, Any]) -> None:
    """Refuse a specification too deep, with too many grid values or cells, a huge
    integer or a grid axis name that is no plain label (before anything is built)."""
    depth, _ = _spec_depth_and_size(spec)
    _check_integers(spec)
    if depth > MAX_NESTING:
        raise InvalidOptionError(
            f"the study nests lists or tables more than {MAX_NESTING} deep; a study needs at "
            "most a few levels (docs/study.md gives the schema)."
        )
    grid = spec.get("grid")
    if isinstance(grid, Mapping):
        count = sum(len(v) if isinstance(v, list | tuple) else 1 for v in grid.values())
        if count > MAX_GRID_VALUES:
            raise InvalidOptionError(
                f"the study's grid lists {count:,} values, more than {MAX_GRID_VALUES:,}; "
                "list fewer values per axis."
            )
        check_grid(grid)


def _check_integers(spec: Mapping[str, Any]) -> None:
    """Refuse an integer beyond :data:`MAX_INT_BITS` bits anywhere in the spec (no recursion)."""
    from spdgraph.errors import written

    stack: list[Any] = [spec]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > MAX_INT_BITS:
                raise InvalidOptionError(
                    f"the study holds {written(value)}, an integer beyond {MAX_INT_BITS} bits; "
                    "seeds and counts are below 2**63 (e.g. seed = 2026)."
                )


def check_grid(grid: Mapping[Any, Any]) -> None:
    """Refuse grid axis names that are no plain label and a grid of more than MAX_CELLS cells."""
    cells = 1
    for axis, values in grid.items():
        if not isinstance(axis, str) or not _AXIS_NAME.match(axis):
            shown = repr(axis) if len(repr(axis)) <= 80 else repr(axis)[:77] + "..."
            raise InvalidOptionError(
                f"grid axis name {shown} is not a plain label; name an axis with letters, "
                "digits, '_', '.' or '-' (starting with a letter or '_'), e.g. edge_prob."
            )
        cells *= max(1, len(values)) if isinstance(values, list | tuple) else 1
    if cells > MAX_CELLS:
        raise InvalidOptionError(
            f"the study's grid has {cells:,} cells (the product of its axes' lengths), more "
            f"than {MAX_CELLS:,}; split it into several studies or list fewer values."
        )


def check_learner_timeout(timeout: object, name: str) -> float:
    """A ``timeout``: a finite positive number of seconds (``nan``, ``inf``, 0 refused)."""
    import math

    from spdgraph.errors import written

    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidOptionError(
            f"{name} must be a number of seconds (e.g. timeout = 600), got {written(timeout)}."
        )
    if isinstance(timeout, int) and timeout.bit_length() > MAX_INT_BITS:
        raise InvalidOptionError(f"{name} = {written(timeout)} is beyond any run; give seconds.")
    if not math.isfinite(timeout) or timeout <= 0:
        raise InvalidOptionError(
            f"{name} must be a finite positive number of seconds (e.g. timeout = 600), got "
            f"{written(timeout)}; leave it out for no limit."
        )
    return float(timeout)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return "another process"
    return f"process {text}" if text.isdigit() else "another process"


def open_regular(path: Path, flags: int, what: str) -> int:
    """A descriptor on ``path`` opened without following a symbolic link, a regular file only.

    A link (to a file outside the folder, to ``/dev/zero``), a FIFO or a
    device is refused with a :class:`FileError` naming ``what`` it is
    meant to be, before a byte is read or written (and without blocking).
    """
    nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | nofollow | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        link = exc.errno == errno.ELOOP or os.path.islink(path)
        raise FileError(
            f"the {what} {str(path)!r} "
            + ("is a symbolic link; remove it (spdgraph never follows one there)."
               if link else f"cannot be opened ({exc.strerror}).")
        ) from exc  # fmt: skip
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise FileError(
            f"the {what} {str(path)!r} is not a regular file (a FIFO, device or folder); "
            "remove it."
        )
    os.set_blocking(fd, True)
    return fd


@contextlib.contextmanager
def locked_folder(folder: Path, *, wait: bool = False) -> Iterator[Path]:
    """Hold an exclusive lock on ``folder`` (``folder/.spdgraph-lock``) for the block.

    Raises :class:`StudyLockedError` naming the folder and the holder's pid when
    another run holds it (``wait=True`` waits for it instead). The lock is the
    kernel's ``flock``: it ends with the process, so a killed run leaves no lock.
    """
    import fcntl

    lock = folder / LOCK_NAME
    try:
        fd = open_regular(lock, os.O_RDWR | os.O_CREAT, "study folder's lock file")
    except FileError as exc:
        cause = exc.__cause__
        if isinstance(cause, OSError) and cause.errno != errno.ELOOP and not lock.is_symlink():
            raise FileError(
                f"cannot lock the study folder {str(folder)!r} ({cause.strerror}); "
                "check that it is a writable folder."
            ) from cause
        raise
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise FileError(
                    f"cannot lock the study folder {str(folder)!r} ({exc.strerror})."
                ) from exc
            raise StudyLockedError(
                f"the study folder {str(folder)!r} is in use by {_holder(fd)} (another "
                "spdgraph study run); wait for it to end, pass wait=True (--wait) to wait, or "
                "choose another folder."
            ) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield lock
    finally:
        os.close(fd)  # releases the lock
