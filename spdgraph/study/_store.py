"""Finished cells on disk: one JSON file per cell, reused on a rerun.

Every file is written through spdgraph.io's one door to disk (``write_atomically``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spdgraph.errors import FileError
from spdgraph.io import write_atomically
from spdgraph.study._cell import cell_key
from spdgraph.study._guard import open_regular

#: The key of a cell's digest: SHA-256 of the rest of its JSON, canonically written.
DIGEST = "digest"

__all__ = ["CellStore", "atomic_write"]


#: The one atomic writer of spdgraph (:func:`spdgraph.io.write_atomically`), under the
#: name the study's modules have used: every file a study writes goes through it.
atomic_write = write_atomically


#: A cell file larger than this (bytes) is not read: it is computed anew.
MAX_CELL_BYTES = 256 * 2**20


def cell_digest(payload: Mapping[str, Any]) -> str:
    """SHA-256 of a cell's JSON without its digest (sorted keys, floats as shortest repr)."""
    import hashlib

    rest = {k: v for k, v in payload.items() if k != DIGEST}
    try:
        text = json.dumps(rest, sort_keys=True, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return ""
    return hashlib.sha256(text.encode()).hexdigest()


def _well_formed(payload: Mapping[str, Any]) -> bool:
    """A study cell's records and curves are lists of rows (what the tables are built from)."""
    if "result" in payload:  # a run_cells cell: any JSON value
        return True
    for key in ("records", "curves"):
        rows = payload.get(key, [] if key == "curves" else None)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            return False
    return all({"metric", "value"} <= set(r) for r in payload["records"])


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

    A cell counts as done when its file exists, matches its digest (a
    SHA-256 of its content stored in it: an edited, truncated or swapped cell
    is computed anew, never tabled) and carries the study's
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
            fd = open_regular(self.path(coords), os.O_RDONLY, "cell file")
        except FileError as exc:
            if isinstance(exc.__cause__, FileNotFoundError):
                return None  # not computed yet
            raise  # a link, a FIFO or a device where a cell belongs: said, never read
        try:
            with os.fdopen(fd, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_CELL_BYTES:
                    return None  # too large to be a cell: never read
                # a regular file (open_regular): a buffer of its size, not of the bound
                data = handle.read(size + 1)
            if len(data) > MAX_CELL_BYTES:
                return None
            payload = json.loads(data.decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(payload, dict) or payload.get(DIGEST) != cell_digest(payload):
            return None  # edited, truncated or from before digests: computed anew
        if payload.get("fingerprint") != self.fingerprint or payload.get("coords") != dict(coords):
            return None
        if not _well_formed(payload):
            return None
        return dict(payload)

    def save(self, coords: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FileError(
                f"cannot create the folder {str(self.root)!r}: {exc.strerror or exc}."
            ) from exc
        payload = {"fingerprint": self.fingerprint, "coords": dict(coords), **result}
        payload = json.loads(json.dumps(payload, default=_plain))  # as it will read back
        payload[DIGEST] = cell_digest(payload)
        text = json.dumps(payload)
        atomic_write(self.path(coords), lambda tmp: tmp.write_text(text, encoding="utf-8"))
