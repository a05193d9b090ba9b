"""Dask-backed values written block by block by the workers, a digest per block, resumable.

A format that :attr:`~spdgraph.FileFormat.writes_blocks` (Zarr) saves a
dask-backed variable without the values passing through the client: the core
has the format write everything else (:attr:`~spdgraph.FileFormat.save_layout`,
one file chunk per dask block), then each block is computed, written into its
own region (:attr:`~spdgraph.FileFormat.write_region`) and digested by the
worker that computed it, under the active dask scheduler (a
``distributed.Client`` set as default runs them on its cluster). The worker
records the block's digest in a small file inside the temporary
(:data:`~spdgraph.io._atomic.RESUMABLE`); the client reads those digests at the
end, stores them as the variable's block digests record (``{"chunks": grid,
"sha": [...]}``, :mod:`spdgraph.io._hashing`) and the temporary is renamed into
place as every save is.

An interrupted block-wise save (an error, Ctrl-C, SIGTERM, SIGKILL) keeps its
temporary, with the content fingerprint of what it was writing (the
provenance attrs, the digests of everything else, every lazy variable's
shape, dtype and chunks). ``spdgraph.save(..., resume=True)`` takes it over
when the fingerprint is the same: the blocks already written are read back on
the workers and checked against their digests, and only the missing or bad
ones are computed and written. A different fingerprint is refused.

Every lazy write is computed here (:func:`compute_unless`: under the active
scheduler, the local one with the machine's threads, stopping at the next
block once abandoned), and an in-memory array is written in slabs that are
views of it (:func:`in_slabs`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.errors import FileError
from spdgraph.io._atomic import (
    RESUMABLE,
    TEMPORARY,
    interrupted,
    remove,
    take_over,
    write_whole,
)
from spdgraph.io._digests import DIGESTS
from spdgraph.io._format import FileFormat
from spdgraph.io._hashing import Grid, block_digest, grid_regions
from spdgraph.io._zarr import UNNAMED

__all__ = [
    "BlockSave",
    "block_plan",
    "check_resumable",
    "compute_unless",
    "digest_written",
    "in_slabs",
    "interrupted_saves",
    "largest_block",
    "write_blocks",
]

#: The file (in :data:`RESUMABLE`) holding the content fingerprint of the save.
FINGERPRINT = "fingerprint.json"


@dataclass
class BlockSave:
    """One block-wise save: the object as the format lays it out and its lazy variables."""

    fmt: FileFormat
    obj: xr.DataArray | xr.Dataset
    lazy: dict[str, Any]  # stored name -> dask array (regular chunks)
    fingerprint: str
    kept: bool = False  # the temporary holds blocks a resumed save can take over
    written: int = 0
    reused: int = 0

    def keep(self) -> bool:
        return self.kept


def _regular(data: Any) -> Any:
    """``data`` with one chunk size per dim (but the last chunk), as a file's chunks are."""
    if all(len(set(sizes[:-1])) <= 1 and sizes[-1] <= sizes[0] for sizes in data.chunks):
        return data
    return data.rechunk(tuple(max(sizes) for sizes in data.chunks))


def _lazy(obj: xr.DataArray | xr.Dataset) -> dict[str, Any]:
    if isinstance(obj, xr.DataArray):
        variables = {UNNAMED if obj.name is None else str(obj.name): obj.variable}
    else:
        variables = {str(n): v.variable for n, v in obj.data_vars.items()}
    return {
        name: variable.data
        for name, variable in variables.items()
        if variable.chunks is not None and variable.ndim and variable.dtype.kind in "biuf"
    }


def block_plan(fmt: FileFormat, obj: xr.DataArray | xr.Dataset) -> BlockSave | None:
    """The block-wise save of ``obj`` in ``fmt``, or None (no dask values, or a format
    that does not write blocks)."""
    if not fmt.writes_blocks or not _lazy(obj):
        return None
    if isinstance(obj, xr.DataArray):
        obj = obj.copy(data=_regular(obj.data))
    else:
        obj = obj.copy(deep=False)
        for name in _lazy(obj):
            obj[name] = obj[name].copy(data=_regular(obj[name].data))
    lazy = _lazy(obj)
    facts = {
        "format": fmt.name,
        "digests": str(obj.attrs.get(DIGESTS, "")),
        "attrs": json.dumps({str(k): str(v) for k, v in obj.attrs.items()}, sort_keys=True),
        "lazy": {
            name: [str(data.dtype), list(data.shape), [list(c) for c in data.chunks]]
            for name, data in lazy.items()
        },
    }
    text = json.dumps(facts, sort_keys=True)
    return BlockSave(fmt, obj, lazy, hashlib.sha256(text.encode()).hexdigest())


def check_resumable(fmt: FileFormat, resume: bool) -> None:
    """Refuse ``resume=True`` for a format that does not write blocks, before any work."""
    if resume and not fmt.writes_blocks:
        from spdgraph.errors import InvalidOptionError
        from spdgraph.io._format import file_formats

        able = [f"{f.name} ({', '.join(f.suffixes)})" for f in file_formats().values()]
        able = [
            name for name, f in zip(able, file_formats().values(), strict=True) if f.writes_blocks
        ]
        raise InvalidOptionError(
            f"resume=True needs a format written block by block, which the {fmt.title} "
            f"format is not; save to one that is: {', '.join(able) or 'none is registered'}."
        )


def largest_block(obj: xr.DataArray | xr.Dataset) -> int | None:
    """The bytes of the largest dask block of ``obj``'s values (None: nothing is lazy)."""
    sizes = [
        int(np.prod([max(c) for c in data.chunks])) * data.dtype.itemsize
        for data in _lazy(obj).values()
    ]
    return max(sizes) if sizes else None


def _record_folder(tmp: Path, name: str) -> Path:
    return tmp / RESUMABLE / urllib.parse.quote(name, safe="")


def _record_name(index: tuple[int, ...]) -> str:
    return ".".join(map(str, index))


def _write_block(
    block: Any, write_region: Any, tmp: str, name: str, region: Any, index: Any
) -> int:
    """On a worker: write one computed block at its region, then record its digest."""
    block = np.asarray(block)
    write_region(Path(tmp), name, region, block)
    write_whole(_record_folder(Path(tmp), name) / _record_name(index), block_digest(block))
    return 1


def _stored_block_ok(read_region: Any, tmp: str, name: str, region: Any, expected: str) -> bool:
    """On a worker: whether the block stored at ``region`` still has its recorded digest."""
    try:
        return bool(block_digest(np.asarray(read_region(Path(tmp), name, region))) == expected)
    except Exception:  # unreadable (cut by a kill, damaged): written again
        return False


def _recorded(tmp: Path, name: str, index: tuple[int, ...]) -> str | None:
    try:
        return (_record_folder(tmp, name) / _record_name(index)).read_text().strip()
    except OSError:
        return None


def _grid(data: Any) -> Grid:
    return tuple(tuple(int(n) for n in sizes) for sizes in data.chunks)


def _verified(plan: BlockSave, tmp: Path) -> set[tuple[str, tuple[int, ...]]]:
    """The blocks of a resumed temporary whose stored values match their recorded digest
    (read back and digested on the workers); the others' records are dropped."""
    import dask

    checks, keys = [], []
    for name, data in plan.lazy.items():
        for index, region in grid_regions(_grid(data)):
            expected = _recorded(tmp, name, index)
            if expected is not None:
                task = dask.delayed(_stored_block_ok, pure=False)
                checks.append(task(plan.fmt.read_region, str(tmp), name, region, expected))
                keys.append((name, index))
    results = compute_unless(dask.delayed(list)(checks), threading.Event()) if checks else ()
    good = {key for key, ok in zip(keys, results, strict=True) if ok}
    for name, index in set(keys) - good:
        with contextlib.suppress(OSError):
            (_record_folder(tmp, name) / _record_name(index)).unlink()
    return good


def _start(plan: BlockSave, target: Path, tmp: Path, resume: bool) -> set[Any]:
    """The temporary made (or an interrupted one taken over); the blocks already there."""
    if resume and _take_over(plan, target, tmp):
        plan.kept = True
        return _verified(plan, tmp)
    assert plan.fmt.save_layout is not None  # writes_blocks
    plan.fmt.save_layout(plan.obj, tmp)
    for name in plan.lazy:
        _record_folder(tmp, name).mkdir(parents=True, exist_ok=True)
    write_whole(tmp / RESUMABLE / FINGERPRINT, json.dumps({"fingerprint": plan.fingerprint}))
    plan.kept = True
    return set()


def write_blocks(
    plan: BlockSave,
    target: Path,
    tmp: Path,
    abandoned: threading.Event,
    *,
    resume: bool = False,
    compute: Callable[[Any], Any] | None = None,
) -> None:
    """Write ``plan`` into ``tmp`` block by block (see the module); its digests stored.

    Nothing is finished once ``abandoned`` is set; the temporary is then kept
    (``plan.kept``) for a resumed save, as it is on any failure of a block.
    """
    import dask

    done = _start(plan, target, tmp, resume)
    tasks = []
    for name, data in plan.lazy.items():
        blocks = data.to_delayed(optimize_graph=True)
        for index, region in grid_regions(_grid(data)):
            if (name, index) not in done:
                task = dask.delayed(_write_block, pure=False)
                tasks.append(
                    task(blocks[index], plan.fmt.write_region, str(tmp), name, region, index)
                )
    plan.written, plan.reused = len(tasks), len(done)
    if tasks:
        everything = dask.delayed(sum, pure=False)(tasks)
        if compute is not None:
            compute(everything)
        else:
            compute_unless(everything, abandoned)
    if abandoned.is_set():
        return
    _store_digests(plan, tmp)
    remove(tmp / RESUMABLE)
    plan.kept = False


def _store_digests(plan: BlockSave, tmp: Path) -> None:
    """Every lazy variable's block digests record, from the workers' records, in the file."""
    records = {}
    for name, data in plan.lazy.items():
        grid = _grid(data)
        sha = [_recorded(tmp, name, index) for index, _ in grid_regions(grid)]
        if None in sha:
            raise FileError(
                f"cannot write {os.fspath(tmp)!r}: the digest of a block of variable "
                f"{name!r} is missing; a worker did not finish its block. Save again."
            )
        records[f"blocks {name}"] = {"chunks": [list(c) for c in grid], "sha": sha}
    if DIGESTS not in plan.obj.attrs or plan.fmt.set_attrs is None:
        return
    digests = json.loads(str(plan.obj.attrs[DIGESTS]))
    digests.update(records)
    owner = next(iter(plan.lazy)) if isinstance(plan.obj, xr.DataArray) else None
    plan.fmt.set_attrs(tmp, owner, {DIGESTS: json.dumps(digests)})


def digest_written(fmt: FileFormat, tmp: Path, ds: xr.Dataset) -> None:
    """A format that does not write blocks (netCDF): the block digests of ``ds``'s
    dask-backed variables, read back from the written ``tmp`` one dask block at a
    time (never all at once), added to its digests before it is renamed into place."""
    lazy = _lazy(ds)
    if not lazy or DIGESTS not in ds.attrs or None in (fmt.set_attrs, fmt.open_dataset):
        return
    assert fmt.open_dataset is not None and fmt.set_attrs is not None
    written = fmt.open_dataset(tmp, {})
    try:
        digests = json.loads(str(ds.attrs[DIGESTS]))
        for name, data in lazy.items():
            grid = _grid(data)
            stored = written.variables[name]
            sha = [block_digest(np.asarray(stored[region])) for _, region in grid_regions(grid)]
            digests[f"blocks {name}"] = {"chunks": [list(c) for c in grid], "sha": sha}
    finally:
        written.close()
    fmt.set_attrs(tmp, None, {DIGESTS: json.dumps(digests)})


def interrupted_saves(target: Path) -> list[tuple[Path, str | None]]:
    """The resumable temporaries of dead processes for ``target``, with their fingerprints."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            match = TEMPORARY.match(entry.name)
            if match is None or match["name"] != target.name or match["kind"] != "tmp":
                continue
            marker = Path(entry.path) / RESUMABLE / FINGERPRINT
            if not marker.is_file() or not interrupted(Path(entry.path), int(match["pid"])):
                continue
            try:
                fingerprint = str(json.loads(marker.read_text())["fingerprint"])
            except (OSError, ValueError, KeyError, TypeError):
                fingerprint = None
            found.append((Path(entry.path), fingerprint))
    return found


def _take_over(plan: BlockSave, target: Path, tmp: Path) -> bool:
    """Rename the interrupted save of the same fingerprint onto ``tmp``; False if none.

    Interrupted saves of ``target`` holding other content are refused: the
    user says whether to start over.
    """
    found = interrupted_saves(target)
    for path, fingerprint in found:
        if fingerprint == plan.fingerprint:
            if take_over(path, tmp):  # ours now (another resumer loses the race)
                return True
    if found:
        raise FileError(
            f"cannot resume the save of {os.fspath(target)!r}: the interrupted save there "
            f"({os.fspath(found[0][0])!r}) was writing other content (its fingerprint, of the "
            "provenance attrs, the shapes and the chunks, differs: another seed, size or "
            "chunking). Save without resume=True (--resume) to start over; the interrupted "
            "save is then removed."
        )
    return False


#: Larger arrays are written in slabs of this size (with dask): an interrupt stops it.
SLAB_BYTES = 32 * 2**20


class _Slabs:
    """An in-memory array dask reads slab by slab as views (``from_array`` of a numpy array
    copies every chunk up front: a whole second copy of the values)."""

    def __init__(self, values: Any) -> None:
        self.values = values
        self.shape, self.dtype, self.ndim = values.shape, values.dtype, values.ndim

    def __getitem__(self, key: Any) -> Any:
        return self.values[key]


def in_slabs(da: xr.DataArray) -> xr.DataArray:
    """``da`` chunked along its first dim in slabs of ~``SLAB_BYTES`` (needs dask).

    The slabs are views of ``da``'s values, read when a slab is written: no
    copy of the values is made.
    """
    if da.chunks is not None or da.ndim == 0 or da.nbytes <= SLAB_BYTES:
        return da
    try:
        import dask.array
        import numpy as np
    except ImportError:
        return da  # one write; an interrupt then waits for it at interpreter exit
    per_row = max(1, da.nbytes // da.shape[0])
    rows = max(1, SLAB_BYTES // per_row)
    meta = np.empty((0,) * da.ndim, dtype=da.dtype)
    slabs = dask.array.from_array(
        _Slabs(da.values), chunks=(rows, *da.shape[1:]), name=False, meta=meta, asarray=False
    )
    return da.copy(data=slabs)


def compute_unless(delayed: Any, abandoned: threading.Event) -> Any:
    """Compute a lazy write (and return its result) under the active dask scheduler; on a
    local scheduler stop at the next slab once abandoned.

    The local threaded scheduler runs as many threads as the machine's cores (dask's
    own count, or ``num_workers`` as configured): called from the write's worker
    thread it would otherwise start a pool of Python's default size, holding that
    many blocks at once.
    """
    import dask
    from dask.base import get_scheduler
    from dask.system import CPU_COUNT

    def stop_when_abandoned(key: Any, dsk: Any, state: Any) -> None:
        if abandoned.is_set():
            raise KeyboardInterrupt("write abandoned")

    scheduler = get_scheduler(collections=[delayed])
    if getattr(scheduler, "__module__", "").startswith("dask."):
        # local schedulers take (start, start_state, pretask, posttask, finish) tuples
        threads = dask.config.get("num_workers", None) or CPU_COUNT
        callbacks = [(None, None, stop_when_abandoned, None, None)]
        return dask.compute(delayed, callbacks=callbacks, num_workers=threads)[0]
    return dask.compute(delayed)[0]  # a distributed client: it runs the write where it lives
