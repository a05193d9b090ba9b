"""The save's memory guard: what :func:`spdgraph.save` holds besides an in-memory array.

Measured (the resident peak of the save, ``tests/test_memory_guards.py``) per format: a
dense array in memory is written in slabs through dask, each slab a view of the
values (no copy of them); netCDF holds about half a copy more in its library's
buffers, Zarr its compressed slabs, CSV the text.
"""

from __future__ import annotations

import os
from pathlib import Path

from spdgraph import _machine
from spdgraph.errors import TooLargeError

__all__ = ["check_save_memory", "save_need"]

#: Bytes a save of an in-memory dense array holds besides the array, per byte of its
#: values, by format: netCDF the library's buffers (measured 0.45); Zarr the
#: compressed slabs (0.08); CSV the text (about 25 characters a value). A format not
#: listed (a plugin's) is counted as :data:`DEFAULT_SAVE_COPIES`.
SAVE_COPIES = {"netcdf": 0.5, "zarr": 0.1, "csv": 8.3}
#: Fixed bytes of a binary save besides the copies: the library's buffers and caches
#: and the writing threads' slabs.
SAVE_FIXED_BYTES = {"netcdf": 256 * 2**20, "zarr": 256 * 2**20}
DEFAULT_SAVE_COPIES = 8.3


def save_need(nbytes: int, format_name: str) -> int:
    """Bytes :func:`save` holds besides an in-memory dense array of ``nbytes`` in a format.

    >>> save_need(10**8, "csv") / 10**8
    8.3
    """
    copies = SAVE_COPIES.get(format_name, DEFAULT_SAVE_COPIES)
    return int(copies * nbytes) + SAVE_FIXED_BYTES.get(format_name, 0)


def check_save_memory(nbytes: int, format_name: str, path: Path) -> None:
    """The save's memory guard: refuse before writing when its copies will not fit."""
    need = save_need(nbytes, format_name)
    available = _machine.available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"saving {nbytes / 2**30:,.1f} GiB of values as {format_name} to "
            f"{os.fspath(path)!r} needs about {need / 2**30:,.1f} GiB more while it writes, "
            f"but only {available / 2**30:,.1f} GiB of memory is available; nothing was "
            "written. Save a smaller array (fewer observations or matrices per file), or "
            "a binary format (.nc holds the least besides the values)."
        )
