"""The one progress helper of spdgraph: a bar on stderr for the CLI and the studies.

:class:`Progress` draws with tqdm when it is installed, else with a plain text
bar; it is silent when disabled, and appears only after ``delay`` seconds so
that short runs print nothing. ``spdgraph sample --chunks`` (dask tasks) and
``spdgraph reproduce`` (study cells) both use it. Plugins reach it as
``spdgraph.cli.Progress``.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spdgraph.plugins.types import GeneratorSpec

__all__ = [
    "PROGRESS_DELAY",
    "Progress",
    "estimated_seconds",
    "interactive",
    "show_progress",
    "stderr_is_tty",
]

#: Seconds a computation runs before its progress bar appears.
PROGRESS_DELAY = 0.5


#: ``sample(progress=None)`` shows a bar from this estimated duration on.
AUTO_PROGRESS_SECONDS = 2.0


def estimated_seconds(gen: GeneratorSpec, p: int, edges: int, n: int) -> float:
    """A rough duration of sampling ``n`` matrices on ``p`` nodes and ``edges`` edges
    with ``gen`` (its cost model, :meth:`~spdgraph.GeneratorSpec.seconds_per_matrix`)."""
    return n * gen.seconds_per_matrix(p, edges)


def interactive() -> bool:
    """A terminal on stderr, or a Jupyter kernel (where tqdm.auto draws a widget)."""
    if stderr_is_tty():
        return True
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return bool(get and type(get()).__name__ == "ZMQInteractiveShell")


def show_progress(progress: bool | None, gen: GeneratorSpec, p: int, edges: int, n: int) -> bool:
    """Resolve ``sample(progress=...)``: None shows a bar when interactive and long."""
    if progress is not None:
        return bool(progress)
    return interactive() and estimated_seconds(gen, p, edges, n) > AUTO_PROGRESS_SECONDS


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
