"""Finished cells on disk: one JSON file per cell, reused on a rerun.

Every file is written through spdgraph.io's one door to disk (``write_atomically``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spdgraph.io import write_atomically
from spdgraph.study._cell import cell_key

__all__ = ["CellStore", "atomic_write"]


#: The one atomic writer of spdgraph (:func:`spdgraph.io.write_atomically`), under the
#: name the study's modules have used: every file a study writes goes through it.
atomic_write = write_atomically


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as JSON numbers and lists; anything else is refused."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(
        f"a cell's result must be JSON-ready (dicts, lists, numbers, strings), "
        f"not {type(value).__name__}."
    )


class CellStore:
    """``DIR/cells/<cell>.json`` per finished cell, with the study's fingerprint.

    A cell counts as done when its file exists and carries the study's
    fingerprint (:meth:`spdgraph.study.Study.fingerprint`): changing a
    learner, the seed or the repeats recomputes every cell; adding a grid
    value computes only the new cells. Floats are stored as JSON (shortest
    repr: the exact double), so a reloaded cell has the bits it was computed with.
    """

    def __init__(self, out: Path, fingerprint: str) -> None:
        self.root = Path(out) / "cells"
        self.fingerprint = fingerprint

    def path(self, coords: Mapping[str, Any]) -> Path:
        return self.root / f"{cell_key(coords)}.json"

    def load(self, coords: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored result of a cell, or None (missing, unreadable or another study's)."""
        try:
            payload = json.loads(self.path(coords).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if payload.get("fingerprint") != self.fingerprint or payload.get("coords") != dict(coords):
            return None
        return dict(payload)

    def save(self, coords: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        payload = {"fingerprint": self.fingerprint, "coords": dict(coords), **result}
        text = json.dumps(payload, default=_plain)
        atomic_write(self.path(coords), lambda tmp: tmp.write_text(text, encoding="utf-8"))
