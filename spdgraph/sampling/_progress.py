"""When ``sample`` shows a progress bar: its cost model against the machine's terminal.

The bar itself (:class:`~spdgraph._machine.Progress`) and the terminal's facts
(:func:`~spdgraph._machine.interactive`) live on the ground floor,
:mod:`spdgraph._machine`; this module decides from a generator's cost model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spdgraph._machine import interactive

if TYPE_CHECKING:
    from spdgraph.plugins.types import GeneratorSpec

__all__ = ["estimated_seconds", "show_progress"]


#: ``sample(progress=None)`` shows a bar from this estimated duration on.
AUTO_PROGRESS_SECONDS = 2.0


def estimated_seconds(gen: GeneratorSpec, p: int, edges: int, n: int) -> float:
    """A rough duration of sampling ``n`` matrices on ``p`` nodes and ``edges`` edges
    with ``gen`` (its cost model, :meth:`~spdgraph.GeneratorSpec.seconds_per_matrix`)."""
    return n * gen.seconds_per_matrix(p, edges)


def show_progress(progress: bool | None, gen: GeneratorSpec, p: int, edges: int, n: int) -> bool:
    """Resolve ``sample(progress=...)``: None shows a bar when interactive and long."""
    if progress is not None:
        return bool(progress)
    return interactive() and estimated_seconds(gen, p, edges, n) > AUTO_PROGRESS_SECONDS
