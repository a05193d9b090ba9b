"""A study under hostile input: bounded files, a locked folder, a checked scheduler.

* :func:`read_study_file` reads a study's TOML within :data:`MAX_STUDY_BYTES`,
  refuses text that is not UTF-8 and nesting deeper than :data:`MAX_NESTING`
  before the parser sees it (a 100 MB grid axis or 10,000 nested arrays give
  a clear error at once, not a hang or a ``RecursionError``);
  :func:`check_spec` bounds a parsed (or hand-made) specification the same way,
  with at most :data:`MAX_GRID_VALUES` values in the grid.
* :func:`locked_folder` holds an exclusive ``flock`` on ``DIR/.spdgraph-lock``
  while a run uses the folder: a second run into it is refused with a message
  naming the folder and the holder's pid (or waits, with ``wait=True``).
* :func:`check_scheduler` refuses what is not a scheduler address, and
  :func:`connect_scheduler` connects with a short timeout: an unreachable host,
  or a listener that accepts and never answers, ends in a clear error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from spdgraph.errors import (
    FileError,
    InvalidOptionError,
    SchedulerError,
    StudyLockedError,
)

__all__ = [
    "MAX_GRID_VALUES",
    "MAX_NESTING",
    "MAX_STUDY_BYTES",
    "SCHEDULER_TIMEOUT",
    "StudyLockedError",
    "check_scheduler",
    "check_spec",
    "connect_scheduler",
    "locked_folder",
    "read_study_file",
]

#: A study file larger than this (bytes) is refused before it is read.
MAX_STUDY_BYTES = 1 * 2**20
#: Deepest nesting of arrays and tables accepted in a study.
MAX_NESTING = 32
#: Most values in all the grid's axes together.
MAX_GRID_VALUES = 100_000
#: Default seconds to connect to a dask scheduler (``scheduler_timeout=``).
SCHEDULER_TIMEOUT = 10.0
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
    """Refuse a specification nested deeper than MAX_NESTING or with too many grid values."""
    depth, _ = _spec_depth_and_size(spec)
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


def _holder(lock: Path) -> str:
    try:
        text = lock.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return "another process"
    return f"process {text}" if text.isdigit() else "another process"


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
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise FileError(
            f"cannot lock the study folder {str(folder)!r} ({exc.strerror}); "
            "check that it is a writable folder."
        ) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise FileError(
                    f"cannot lock the study folder {str(folder)!r} ({exc.strerror})."
                ) from exc
            raise StudyLockedError(
                f"the study folder {str(folder)!r} is in use by {_holder(lock)} (another "
                "spdgraph study run); wait for it to end, pass wait=True (--wait) to wait, or "
                "choose another folder."
            ) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield lock
    finally:
        os.close(fd)  # releases the lock


_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[a-z][a-z0-9+]*)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})?)"
    r"(?::(?P<port>\d{1,5}))?/?$"
)
_SCHEMES = {"tcp", "tls", "ucx", "ws", "wss"}
_INPROC = re.compile(r"^inproc://[\w.:-]+(/[\w.-]+)*$")


def _is_client(value: object) -> bool:
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(value, Client)


def check_scheduler(scheduler: Any) -> Any:
    """``scheduler`` when it is None, ``"local"``, a Client or a scheduler address; else refuse."""
    if scheduler is None or (isinstance(scheduler, str) and scheduler == "local"):
        return scheduler
    if not isinstance(scheduler, str):
        if _is_client(scheduler):
            return scheduler
        raise InvalidOptionError(
            f"scheduler must be a dask scheduler address ('tcp://host:8786'), 'local' or a "
            f"distributed.Client, not {type(scheduler).__name__}."
        )
    if _INPROC.match(scheduler) and len(scheduler) <= 300:
        return scheduler  # a cluster in this process (LocalCluster(processes=False))
    match = _ADDRESS.match(scheduler.strip()) if len(scheduler) <= 300 else None
    bad_port = match is not None and match["port"] is not None and int(match["port"]) > 65535
    if match is None or bad_port or (match["scheme"] or "tcp") not in _SCHEMES:
        shown = scheduler if len(scheduler) <= 80 else scheduler[:77] + "..."
        raise InvalidOptionError(
            f"scheduler {shown!r} is not a dask scheduler address; give one like "
            "'tcp://host:8786' (scheme tcp, tls, ucx, ws or wss; inproc:// for a cluster in "
            "this process), or 'local' for a "
            "LocalCluster on this machine."
        )
    return scheduler.strip()


def check_timeout(timeout: object) -> float:
    """A positive, finite number of seconds."""
    import math

    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidOptionError(
            f"scheduler_timeout must be a number of seconds, got {type(timeout).__name__}."
        )
    if not math.isfinite(timeout) or timeout <= 0:
        raise InvalidOptionError(
            f"scheduler_timeout must be a positive number of seconds, got {timeout!r}."
        )
    return float(timeout)


def connect_scheduler(address: str, timeout: float) -> Any:
    """A ``distributed.Client`` on ``address``, or a clear error after ``timeout`` seconds.

    A scheduler that cannot be reached, or an endpoint that accepts the
    connection and never answers the handshake, is refused with a
    :class:`SpdgraphError` naming the address and the option.
    """
    import dask
    from distributed import Client

    seconds = f"{timeout:g}s"
    try:
        _probe(address, timeout)
        with dask.config.set({"distributed.comm.timeouts.connect": seconds}):
            return Client(address, timeout=seconds)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(
            f"cannot reach the dask scheduler at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}); check that a scheduler runs there (dask scheduler), or "
            "raise scheduler_timeout (--scheduler-timeout)."
        ) from None


def _probe(address: str, timeout: float) -> None:
    """For a tcp address: connect and wait for the scheduler's greeting, within ``timeout``.

    A dask scheduler writes its handshake as soon as it accepts a connection;
    an endpoint that accepts and stays silent (or is no scheduler) is refused
    here, before ``distributed`` would wait on it without a bound.
    """
    import socket

    match = _ADDRESS.match(address)
    if match is None or (match["scheme"] or "tcp") != "tcp":
        return  # TLS/websocket speak first from the client side: distributed's timeout
    host = match["host"].strip("[]")
    port = int(match["port"] or 8786)
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        if not sock.recv(1):
            raise ConnectionError("the connection was closed without a greeting")
