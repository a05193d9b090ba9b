"""The machine the process runs on: memory, dask, the terminal, paths (the ground floor).

What every room asks of the machine, in one module that imports nothing of
spdgraph but :mod:`spdgraph.errors`, so that ``io``, ``graphs``, ``accessor``
and ``sampling`` can all stand on it without leaning on one another:

* :func:`available_memory`: the bytes this process can still get (the memory
  guards of ``sample``, ``open``, ``draw`` and the graph families compare with it);
* :func:`require_dask`: a :class:`~spdgraph.errors.MissingDependencyError`
  naming the extra when dask is missing;
* :class:`Progress`, :data:`PROGRESS_DELAY`, :func:`interactive`,
  :func:`stderr_is_tty`: the one progress bar (the command line, ``draw``, the
  studies and plugins' commands, as ``spdgraph.cli.Progress``);
* :func:`as_path`: what the user passed as a path, as a :class:`~pathlib.Path`
  (a :class:`~spdgraph.errors.FileError` for what is no path).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from spdgraph.errors import FileError, MissingDependencyError

__all__ = [
    "PROGRESS_DELAY",
    "Progress",
    "as_path",
    "available_memory",
    "interactive",
    "require_dask",
    "stderr_is_tty",
]


def available_memory() -> int | None:
    """Bytes this process can still get: the least of the machine's ``MemAvailable``,
    the address-space limit ``RLIMIT_AS`` (``ulimit -v``, less what is already
    mapped) and the cgroup's ``memory.max`` (less ``memory.current``); None when
    none is known."""
    limits = [x for x in (_physical(), _address_space(), _cgroup()) if x is not None]
    return min(limits) if limits else None


def _physical() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _address_space() -> int | None:
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        mapped = 0
    return max(0, soft - mapped)


def _cgroup() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current") as fh:
            used = int(fh.read().strip())
        return max(0, int(limit) - used)
    except (OSError, ValueError):
        return None


def require_dask(what: str) -> None:
    """Raise :class:`MissingDependencyError` naming ``what`` when dask is missing."""
    try:
        import dask.array  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f'{what} needs dask; install it with pip install "spdgraph[dask]" (or call '
            "without chunks for an in-memory result)."
        ) from None


def as_path(path: object) -> Path:
    """``path`` as a :class:`~pathlib.Path`; a :class:`FileError` for what is no path."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str | os.PathLike):
        raise FileError(
            f"a file path must be a string or os.PathLike, got {type(path).__name__} {path!r:.60}."
        )
    text = os.fspath(path)
    if not text or "\0" in str(text):
        raise FileError(f"{text!r} is not a valid file path (empty, or holds a NUL character).")
    return Path(text)


#: Seconds a computation runs before its progress bar appears.
PROGRESS_DELAY = 0.5


def interactive() -> bool:
    """A terminal on stderr, or a Jupyter kernel (where tqdm.auto draws a widget)."""
    if stderr_is_tty():
        return True
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return bool(get and type(get()).__name__ == "ZMQInteractiveShell")


def stderr_is_tty() -> bool:
    """Whether stderr is a terminal (False when it is closed or replaced)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """A progress bar on stderr: tqdm when installed, else a simple text bar.

    Parameters
    ----------
    desc
        Label printed before the bar.
    total
        Number of steps, when known (:meth:`set` can change it later).
    enabled
        Draw anything at all; callers pass e.g. ``progress and stderr_is_tty()``.
    delay
        Seconds before the bar first appears (default :data:`PROGRESS_DELAY`).
    unit
        What a step is (``"task"``, ``"cell"``), shown by tqdm.

    Examples
    --------
    >>> with Progress("demo", total=3, enabled=False) as bar:
    ...     for _ in range(3):
    ...         bar.update()
    >>> bar.done, bar.total
    (3, 3)
    """

    def __init__(
        self,
        desc: str,
        *,
        total: int = 0,
        enabled: bool = True,
        delay: float | None = None,
        unit: str = "task",
    ) -> None:
        self.enabled = enabled
        self.desc = desc
        self.delay = PROGRESS_DELAY if delay is None else delay
        self.done = 0
        self.total = total
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = False
        self._tqdm: Any = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._tqdm = tqdm(
                    total=total, desc=desc, file=sys.stderr, delay=self.delay, unit=unit
                )

    def set(self, done: int, total: int) -> None:
        """Record ``done`` of ``total`` steps and redraw (at most every 0.1 s)."""
        self.done, self.total = done, total
        if not self.enabled:
            return
        if self._tqdm is not None:
            if self._tqdm.total != total:
                self._tqdm.total = total
            self._tqdm.update(done - self._tqdm.n)
            return
        now = time.monotonic()
        if now - self._start < self.delay or (now - self._last < 0.1 and done < total):
            return
        self._last = now
        width = 30
        frac = done / total if total else 1.0
        bar = "#" * int(width * frac)
        sys.stderr.write(f"\r{self.desc} [{bar:<{width}}] {done}/{total} ({frac:.0%})")
        sys.stderr.flush()
        self._shown = True

    def note(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. what runs now and for how long); "" clears it."""
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.set_postfix_str(text, refresh=True)
            return
        if time.monotonic() - self._start < self.delay:
            return
        frac = self.done / self.total if self.total else 1.0
        sys.stderr.write(f"\r{self.desc} {self.done}/{self.total} ({frac:.0%}) {text[:60]:<60}")
        sys.stderr.flush()
        self._shown = True

    def update(self, k: int = 1) -> None:
        """Advance by ``k`` steps."""
        self.set(self.done + k, self.total)

    def close(self) -> None:
        """Finish the bar (a newline after a text bar); safe to call twice."""
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
        elif self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
