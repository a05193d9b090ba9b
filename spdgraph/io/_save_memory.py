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
#: values, by format: netCDF the library's buffers (measured 0.52); Zarr the
#: compressed slabs (0.24); CSV the text (about 25 characters a value). A format not
#: listed (a plugin's) is counted as :data:`DEFAULT_SAVE_COPIES`.
SAVE_COPIES = {"netcdf": 0.5, "zarr": 0.25, "csv": 8.3}
#: Fixed bytes of a binary save besides the copies: the library's buffers and caches
#: and the writing threads' slabs (measured at 80 and 320 MB of values: 97 and 107 MB).
SAVE_FIXED_BYTES = {"netcdf": 96 * 2**20, "zarr": 100 * 2**20}
DEFAULT_SAVE_COPIES = 8.3


def _threads() -> int:
    """The blocks a local dask scheduler computes at once (its worker threads)."""
    from spdgraph._threads import available_cores

    try:
        import dask
    except ImportError:
        return available_cores()
    return int(dask.config.get("num_workers", None) or available_cores())


def save_need(
    nbytes: int, format_name: str, *, block: int | None = None, threads: int | None = None
) -> int:
    """Bytes :func:`save` holds besides an in-memory dense array of ``nbytes`` in a format.

    For a dask-backed array give ``block``, the bytes of its largest block:
    the save then holds one block per thread (``threads``, default the local
    scheduler's), each computed, encoded and written, whatever ``nbytes`` is.

    >>> save_need(10**8, "csv") / 10**8
    8.3
    >>> save_need(10**12, "zarr", block=10**8, threads=2) < 10**9
    True
    """
    copies = SAVE_COPIES.get(format_name, DEFAULT_SAVE_COPIES)
    fixed = SAVE_FIXED_BYTES.get(format_name, 0)
    if block is not None:  # each thread's block is new memory, with its copies
        return int((1 + copies) * block * (threads or _threads())) + fixed
    return int(copies * nbytes) + fixed


def check_save_memory(nbytes: int, format_name: str, path: Path, block: int | None = None) -> None:
    """The save's memory guard: refuse before writing when its copies will not fit.

    ``block``: a dask-backed array's largest block (:func:`save_need`).
    """
    need = save_need(nbytes, format_name, block=block)
    available = _machine.available_memory()
    if available is None or need <= available:
        return
    what = (
        f"saving {nbytes / 2**30:,.1f} GiB of values"
        if block is None
        else f"saving blocks of {block / 2**30:,.2f} GiB, {_threads()} at a time,"
    )
    fix = (
        "Save a smaller array (fewer observations or matrices per file), or a binary "
        "format (.nc holds the least besides the values)."
        if block is None
        else "Chunk the array in smaller blocks (e.g. chunks= of fewer observations)."
    )
    raise TooLargeError(
        f"{what} as {format_name} to {os.fspath(path)!r} needs about {need / 2**30:,.1f} GiB "
        f"while it writes, but only {available / 2**30:,.1f} GiB of memory is available; "
        f"nothing was written. {fix}"
    )
