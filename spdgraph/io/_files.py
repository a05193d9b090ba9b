"""Files: save and open spdgraph arrays in any registered :class:`FileFormat`.

Round trips keep the values bit for bit, the node labels (integers or
strings), the boolean ``adjacency`` coordinate (the graph) and the provenance
attrs, so ``spdgraph.open(path)`` gives back an array equal to the one saved,
on which ``spdgraph.sample`` and the ``da.spd`` accessor work as before.

Writes go through the one door to disk (``_writer``): the file (or Zarr
directory) is written under a temporary name in the destination folder and
renamed into place only when complete (a Zarr store replaces an existing one by
an atomic exchange where the system has one). A failure, Ctrl-C or SIGTERM
mid-write leaves nothing behind and an existing file of that name untouched;
temporaries that a killed process left are removed by the next save to that
folder (see ``_atomic``).

The format is found through the format table only (``_format``): by the
suffix (or ``format=``) when saving, by the content when opening. netCDF needs
``netCDF4`` (or ``h5netcdf`` with ``h5py``): ``pip install "spdgraph[netcdf]"``;
Zarr needs ``zarr``: ``pip install "spdgraph[zarr]"``; both are imported only
when used.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import xarray as xr

from spdgraph._machine import require_dask
from spdgraph.errors import FileError, InvalidOptionError, TooLargeError, written
from spdgraph.io._blocks import (
    block_plan,
    check_resumable,
    compute_unless,
    in_slabs,
    largest_block,
    write_blocks,
)
from spdgraph.io._content import prepare, restore
from spdgraph.io._digests import DIGESTS, read_block_digests
from spdgraph.io._digests import verify as check_digests
from spdgraph.io._format import FileFormat, format_for_reading
from spdgraph.io._integrity import (
    corrupted_variable,
    guarded_dask,
    is_checksum_error,
    storage_failure,
)
from spdgraph.io._paths import as_path
from spdgraph.io._save_memory import check_save_memory
from spdgraph.io._writer import check_sparse_format, check_writable, guarded_write, save_dataset
from spdgraph.io._zarr import UNNAMED
from spdgraph.layout import SPARSE, is_sparse, layout_of
from spdgraph.plugins.graph_files import refuse_beyond_memory

__all__ = ["open", "read_array", "save", "write_array"]


def save(
    da: xr.DataArray | xr.Dataset,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    format: str | None = None,
    resume: bool = False,
) -> Path:
    """Save a DataArray to a file (netCDF ``.nc``, Zarr ``.zarr``, CSV ``.csv``...), atomically.

    Parameters
    ----------
    da
        A matrix or stack from :func:`spdgraph.sample` (eager or dask-backed:
        a lazy array is computed and written chunk by chunk), data from
        ``da.spd.draw``, or any DataArray with storable labels and attrs. A
        Dataset (what :func:`spdgraph.simulate` returns) is written whole by
        :func:`spdgraph.io.save_dataset`, in a format that holds Datasets.
    path
        Destination; its suffix picks the format among the registered ones
        (:func:`spdgraph.io.file_formats`).
    overwrite
        Replace an existing file (or store) of that name. It is replaced
        only once the new one is complete.
    format
        The name of a registered format, for a path whose suffix says none
        (e.g. a folder of CSV tables: ``format="csv"``).
    resume
        Finish an interrupted save of the same content to ``path``. In a
        format written block by block (Zarr), the dask-backed values are
        computed and written by the workers, one region each, under the
        active dask scheduler (a ``distributed.Client`` runs them on its
        cluster; only digests come back), each block's SHA-256 recorded; a
        save killed or failed half-way keeps its hidden temporary beside
        ``path``. With ``resume=True`` it is taken over when it was writing
        the same content (the same provenance attrs, shapes and chunks): the
        blocks there are checked against their digests and only the missing
        or bad ones are computed. An interrupted save of other content is
        refused (:class:`FileError`); with ``resume=False`` (default) it is
        removed and the save starts over. Refused for a format not written
        block by block.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    FileError
        Unknown suffix, missing folder, or a destination that must not be
        replaced.
    InvalidOptionError
        Labels or attrs that files cannot hold (tuples, bool, None, dict).
    MissingDependencyError
        netCDF4 / zarr is not installed.

    Examples
    --------
    >>> import networkx as nx, spdgraph, tempfile, os
    >>> cov = spdgraph.sample(nx.path_graph(["a", "b", "c"]), size=2, seed=0)
    >>> folder = tempfile.mkdtemp()
    >>> path = spdgraph.save(cov, os.path.join(folder, "cov.nc"))
    >>> back = spdgraph.open(path)
    >>> back.identical(cov)
    True
    """
    if isinstance(da, xr.Dataset):  # a simulation, a study's results
        from spdgraph.io._simulation import is_simulation

        if is_simulation(da):  # with its digests, as save_simulation writes it
            from spdgraph.io._digests import dataset_with_digests
            from spdgraph.io._writer import check_dataset_format

            if check_dataset_format(as_path(path), format).keeps_digests:
                da = dataset_with_digests(da)
        return save_dataset(da, path, overwrite=overwrite, format=format, resume=resume)
    return write_array(da, path, overwrite=overwrite, format=format, resume=resume)


def _has_dask() -> bool:
    try:
        import dask.array  # noqa: F401
    except ImportError:
        return False
    return True


def write_array(
    da: xr.DataArray,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    compute: Callable[[Any], Any] | None = None,
    format: str | None = None,
    resume: bool = False,
) -> Path:
    """``save``, with a hook computing the delayed write of a dask-backed array.

    ``compute(delayed)`` lets the command line show progress or use a
    distributed client; it must run the delayed object to completion.
    """
    path = as_path(path)
    fmt = check_writable(path, overwrite=overwrite, format=format)
    check_resumable(fmt, resume)
    sparse = layout_of(da) == SPARSE
    if sparse:  # refused before anything is written, never densified on the way
        check_sparse_format(fmt, "this array is sparse (sample(..., sparse=True))")
    prepared = prepare(da)
    lazy = prepared.chunks is not None
    if not sparse:  # a lazy array: one block per thread, not the whole array
        check_save_memory(prepared.nbytes, fmt.name, path, block=largest_block(prepared))
    plan = None if sparse else block_plan(fmt, prepared)
    if plan is not None:  # each block written and digested by its worker; resumable

        def write_by_blocks(tmp: Path, abandoned: threading.Event) -> None:
            write_blocks(plan, path, tmp, abandoned, resume=resume, compute=compute)
            if not abandoned.is_set():
                _read_back(fmt, tmp, path)

        return guarded_write(path, write_by_blocks, keep=plan.keep, resume=resume)

    def write(tmp: Path, abandoned: threading.Event) -> None:
        if sparse:  # its triplets in one write: as large as the stored entries, not p x p
            fmt.save(prepared, tmp)
        elif fmt.save_delayed is None or not (lazy or _has_dask()):
            fmt.save(prepared.load() if lazy else prepared, tmp)
        else:
            source = prepared if lazy else in_slabs(prepared)
            if source.chunks is None:  # small: one plain write
                fmt.save(source, tmp)
            elif lazy and compute is not None:
                compute(fmt.save_delayed(source, tmp))
            else:  # computed slab by slab: an interrupt stops it between two
                compute_unless(fmt.save_delayed(source, tmp), abandoned)
        if lazy and not abandoned.is_set():
            _stamp_written_values(fmt, tmp, prepared)
        if not abandoned.is_set():
            _read_back(fmt, tmp, path)

    return guarded_write(path, write)


def _stamp_written_values(fmt: FileFormat, tmp: Path, prepared: xr.DataArray) -> None:
    """Add the block digests of a lazily written array's values to the written temporary.

    The values were never all in memory, so they are digested from what was
    written, read back one block (:data:`~spdgraph.io._digests.BLOCK_BYTES`) at a
    time, and the digests attribute of the temporary is rewritten before it is
    renamed into place: an edited value then fails an eager or a lazy open.
    A format without ``set_attrs`` (a plugin's) keeps digests of labels and attrs.
    """
    if fmt.set_attrs is None or is_sparse(prepared.data):
        return
    try:
        da = fmt.open(tmp)
        try:
            blocks = read_block_digests(da)
        finally:
            da.close()
    except (ValueError, KeyError) as exc:  # OSError, RuntimeError: named by the door
        raise FileError(
            f"cannot write {os.fspath(tmp)!r}: what was written does not read back "
            f"({exc}); the disk may be full. Nothing was written."
        ) from exc
    if blocks is None:
        return
    name = UNNAMED if prepared.name is None else str(prepared.name)
    digests = json.loads(str(prepared.attrs[DIGESTS]))
    digests[f"blocks {name}"] = blocks
    fmt.set_attrs(tmp, name, {DIGESTS: json.dumps(digests)})


def _read_back(fmt: FileFormat, tmp: Path, path: Path) -> None:
    """Verify what was written before it is renamed into place (a full disk can be silent).

    The temporary is opened again: every coordinate (labels, graph) and the attrs
    must match their digests and, in a Zarr store, every chunk must be there. The
    values are not read again: the storage's checksums cover them chunk by chunk.
    """
    try:
        da = fmt.open(tmp)
        try:
            check_digests(restore(da), os.fspath(path), values=False)
        finally:
            da.close()
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise FileError(
            f"cannot write {os.fspath(path)!r}: what was written does not read back "
            f"({exc}); the disk may be full. Nothing was written (an existing file of that "
            "name is untouched)."
        ) from exc


def open(
    path: str | os.PathLike[str],
    *,
    chunks: int | dict[str, int] | None = None,
    verify: bool = True,
) -> Any:
    """Open an array saved by :func:`spdgraph.save` (any registered format), or a simulation.

    Parameters
    ----------
    path
        A file or store; its format is recognised by its content (netCDF and
        HDF5 magic bytes, a Zarr store's metadata, CSV tables), else by its
        suffix.
    chunks
        ``None`` (default) loads the values into memory and closes the file.
        An int (matrices per chunk along ``sample``) or a dict of dim sizes
        opens lazily as a dask array (needs dask); each block of values is
        checked against its digest as it is read. Dims the file does not have
        are ignored (a single matrix has no ``sample``). A sparse file
        (``sample(..., sparse=True)``) is read as its stored entries, sparse
        and verified, whatever ``chunks`` says; a simulation lazily as
        :func:`spdgraph.io.open_simulation` opens it.
    verify
        Check the file against the digests stored in it (default): an edited
        value, label, graph or attribute, or swapped chunks, raise
        :class:`FileError`, and so does a file spdgraph wrote whose digests
        were removed. ``verify=False`` opens such a file unchecked.

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        Equal to the saved array: values, labels, ``adjacency`` and attrs; for
        a file ``spdgraph simulate`` (:func:`spdgraph.simulation.save_simulation`)
        wrote, the Dataset :func:`spdgraph.simulate` returned
        (:func:`spdgraph.io.open_simulation`).

    Raises
    ------
    FileError
        Missing file, a file no format recognises, or not a readable
        one-variable file.

    Examples
    --------
    >>> import networkx as nx, spdgraph, tempfile, os
    >>> prec = spdgraph.sample(nx.cycle_graph(4), seed=1, kind="precision")
    >>> path = os.path.join(tempfile.mkdtemp(), "prec.zarr")
    >>> _ = spdgraph.save(prec, path)
    >>> spdgraph.open(path).spd.check().name
    'precision'
    """
    from spdgraph.io._simulation import open_simulation, simulation_file

    if simulation_file(as_path(path)):  # what spdgraph.simulate returned, eager or lazy
        return open_simulation(path, chunks=chunks, verify=verify)
    return read_array(path, chunks=chunks, load=True, verify=verify)


def read_array(
    path: str | os.PathLike[str],
    *,
    chunks: int | dict[str, int] | None = None,
    load: bool = True,
    format: str | None = None,
    verify: bool = True,
) -> xr.DataArray:
    """``open``; with ``load=False`` and no chunks the values stay on disk until indexed."""
    path = as_path(path)
    if not _exists(path):
        raise FileError(f"cannot open {os.fspath(path)!r}: no such file or directory.")
    fmt = format_for_reading(path, format)
    fmt.requires()
    if isinstance(chunks, bool) or not isinstance(chunks, int | dict | None):
        raise InvalidOptionError(
            f"chunks must be a positive integer (matrices per chunk) or a dict of dim -> "
            f"size, got {written(chunks)}."
        )
    if isinstance(chunks, int):
        chunks = {"sample": chunks}
    if chunks is not None:
        require_dask("spdgraph.open(..., chunks=...)")
    try:
        if chunks is None and fmt.header is not None:
            _check_claim(fmt.header(path), path)
        da = fmt.open(path)
        if isinstance(da, xr.Dataset):  # a whole Dataset (save_dataset): as it was written
            return da.load() if chunks is None and load else da
        if chunks is not None and layout_of(da) != SPARSE:  # sparse: its stored entries
            da = _guarded_chunks(da, chunks, fmt, path)
        elif chunks is None:
            _check_fits(da, path)
            if load:
                da = da.load()
                da.close()
    except (FileError, TooLargeError):
        raise
    except (RuntimeError, ValueError) as exc:
        if isinstance(exc, ValueError) and not is_checksum_error(exc):
            raise _unreadable(path, fmt, exc) from exc
        # HDF5 refused to decode a chunk, or a Zarr chunk failed its CRC32C
        raise _corrupted(path, fmt, exc) from exc
    except (OSError, KeyError, TypeError) as exc:
        raise _unreadable(path, fmt, exc) from exc
    if not isinstance(da, xr.DataArray):
        raise FileError(
            f"the {fmt.name} format's open returned {type(da).__name__} for {os.fspath(path)!r}, "
            "not an xarray.DataArray."
        )
    da = restore(da)
    if verify:
        da = check_digests(da, os.fspath(path), values=chunks is None and load, required=True)
    da.attrs.pop(DIGESTS, None)
    return da


def _guarded_chunks(da: xr.DataArray, chunks: dict[str, int], fmt: FileFormat, path: Path) -> Any:
    """``da`` (values on disk) as a dask array of ``chunks`` (dims it lacks ignored; the
    others whole), each block's storage failure a FileError (:func:`guarded_dask`)."""
    name = UNNAMED if da.name is None else str(da.name)
    return da.copy(data=guarded_dask(da.variable, chunks, path, name))


def _corrupted(path: Path, fmt: FileFormat, exc: Exception) -> FileError:
    return storage_failure(path, corrupted_variable(fmt, path), exc)


def _exists(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except OSError as exc:  # a name too long, a loop of links...
        raise FileError(f"cannot open {os.fspath(path)!r}: {exc.strerror or exc}.") from exc


def _check_claim(header: Any, path: Path) -> None:
    """The memory guard on what a file's header claims, before anything is read."""
    need = sum(math.prod(shape) * size for shape, size in header.values())
    largest = max(header.items(), key=lambda kv: math.prod(kv[1][0]), default=None)
    if largest is not None:
        _refuse_beyond_memory(need, f"{largest[0]} of shape {largest[1][0]}", path)


def _check_fits(da: xr.DataArray, path: Path) -> None:
    """Refuse a file whose header claims more than memory holds, before reading it."""
    need = da.variable.nbytes + sum(c.variable.nbytes for c in da.coords.values())
    _refuse_beyond_memory(need, ", ".join(f"{d}: {n:,}" for d, n in da.sizes.items()), path)


def _refuse_beyond_memory(need: int, dims: str, path: Path) -> None:
    refuse_beyond_memory(
        need,
        f"{os.fspath(path)!r} claims {dims}",
        "open it lazily with spdgraph.open(path, chunks=...) (needs dask) or check the file.",
    )


def _unreadable(path: Path, fmt: FileFormat, exc: Exception) -> FileError:
    return FileError(
        f"cannot read {os.fspath(path)!r} as an spdgraph array ({type(exc).__name__}: "
        f"{exc}); it must be a {fmt.title} file holding one DataArray, as spdgraph.save "
        "writes."
    )
