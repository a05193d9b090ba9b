"""Files: save and open spdgraph arrays in any registered :class:`FileFormat`.

Round trips keep the values bit for bit, the node labels (integers or
strings), the boolean ``adjacency`` coordinate (the graph) and the provenance
attrs, so ``spdgraph.open(path)`` gives back an array equal to the one saved,
on which ``spdgraph.sample`` and the ``da.spd`` accessor work as before.

Writes are atomic: the file (or Zarr directory) is written under a temporary
name in the destination folder and renamed into place only when complete (a Zarr
store replaces an existing one by an atomic exchange where the system has one).
A failure, Ctrl-C or SIGTERM mid-write leaves nothing behind and an existing
file of that name untouched; temporaries that a killed process left are removed
by the next save to that folder (see ``_atomic``).

The format is found through the format table only (``_format``): by the
suffix (or ``format=``) when saving, by the content when opening. netCDF needs
``netCDF4`` (or ``h5netcdf`` with ``h5py``): ``pip install "spdgraph[netcdf]"``;
Zarr needs ``zarr``: ``pip install "spdgraph[zarr]"``; both are imported only
when used.
"""

from __future__ import annotations

import numbers
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.io._atomic import (
    compute_unless,
    in_slabs,
    remove,
    replace,
    run_guarded,
    sweep_stale,
    temporary_name,
)
from spdgraph.io._format import FileFormat, format_for_reading, format_for_writing
from spdgraph.io._integrity import corrupted_variable, is_checksum_error

__all__ = ["check_writable", "open", "read_array", "save", "write_array"]

#: Attribute (in files only) naming the attrs that were Python lists.
LIST_ATTRS = "spdgraph_list_attrs"


def _check_attr(name: str, value: object) -> None:
    ok_scalar = (str, numbers.Number, np.number)
    if isinstance(value, bool | np.bool_) or value is None or isinstance(value, dict):
        bad = True
    elif isinstance(value, ok_scalar):
        bad = False
    elif isinstance(value, np.ndarray):
        bad = value.ndim > 1 or value.dtype.kind not in "iufU"
    elif isinstance(value, list | tuple):
        bad = not all(
            isinstance(x, ok_scalar) and not isinstance(x, bool | np.bool_) for x in value
        )
    else:
        bad = True
    if bad:
        raise InvalidOptionError(
            f"attribute {name!r} = {value!r} cannot be stored in a file; attrs must be "
            "strings, numbers or 1-D lists/arrays of them (no bool, None or dict)."
        )


def _prepare(da: object) -> xr.DataArray:
    """Check that ``da`` can be stored and return a copy with clean encodings."""
    if not isinstance(da, xr.DataArray):
        raise InvalidOptionError(
            f"spdgraph.save stores an xarray.DataArray, got {type(da).__name__}."
        )
    for name, value in da.attrs.items():
        _check_attr(str(name), value)
    out = da.copy(deep=False)
    out.encoding = {}
    # netCDF turns lists into arrays (and one-element lists into scalars): note which
    # attrs were lists so that open() gives them back as lists
    lists = [str(k) for k, v in da.attrs.items() if isinstance(v, list | tuple)]
    if lists:
        out.attrs[LIST_ATTRS] = ",".join(lists)
    if out.dtype.kind == "f":
        out.encoding["_FillValue"] = None  # no NaN masking: values come back bit for bit
    for name in list(out.coords):
        coord = out.coords[name]
        if coord.dtype == object:
            values = coord.values.ravel()
            if not all(isinstance(x, str) for x in values):
                example = next(x for x in values if not isinstance(x, str))
                raise InvalidOptionError(
                    f"coordinate {name!r} holds {type(example).__name__} values such as "
                    f"{example!r}, which files cannot store; relabel the nodes with strings "
                    "or integers first."
                )
        coord.variable.encoding = {}
        if coord.dtype.kind == "f":
            coord.variable.encoding["_FillValue"] = None
        for key, value in coord.attrs.items():
            _check_attr(f"{name}.{key}", value)
    return out


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


def _check_target(path: Path, fmt: FileFormat, overwrite: bool) -> None:
    parent = path.parent
    if not parent.is_dir():
        raise FileError(
            f"cannot write {os.fspath(path)!r}: folder {os.fspath(parent)!r} does not exist."
        )
    if not (path.exists() or path.is_symlink()):
        return
    if not overwrite:
        raise FileError(f"{os.fspath(path)!r} exists; pass overwrite=True to replace it.")
    if fmt.recognises(path):
        return
    if not fmt.folder and path.is_dir():
        raise FileError(f"{os.fspath(path)!r} is a directory; it will not be replaced by a file.")
    if fmt.folder:
        raise FileError(
            f"{os.fspath(path)!r} exists and is not a {fmt.title} store; it will not be replaced."
        )


def check_writable(
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    format: str | None = None,
) -> FileFormat:
    """Check, before any heavy work, that ``save`` can write ``path``; return its format.

    The format is ``format`` (a registered name) or the one whose suffix ``path``
    has. Raises :class:`FileError` (unknown suffix, missing folder, a destination
    that must not be replaced) or :class:`MissingDependencyError`.
    """
    target = as_path(path)
    fmt = format_for_writing(target, format)
    _check_target(target, fmt, overwrite)
    fmt.requires()
    return fmt


def save(
    da: xr.DataArray,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    format: str | None = None,
) -> Path:
    """Save a DataArray to a file (netCDF ``.nc``, Zarr ``.zarr``, CSV ``.csv``...), atomically.

    Parameters
    ----------
    da
        A matrix or stack from :func:`spdgraph.sample` (eager or dask-backed:
        a lazy array is computed and written chunk by chunk), data from
        ``da.spd.draw``, or any DataArray with storable labels and attrs.
    path
        Destination; its suffix picks the format among the registered ones
        (:func:`spdgraph.io.file_formats`).
    overwrite
        Replace an existing file (or store) of that name. It is replaced
        only once the new one is complete.
    format
        The name of a registered format, for a path whose suffix says none
        (e.g. a folder of CSV tables: ``format="csv"``).

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
    return write_array(da, path, overwrite=overwrite, format=format)


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
) -> Path:
    """``save``, with a hook computing the delayed write of a dask-backed array.

    ``compute(delayed)`` lets the command line show progress or use a
    distributed client; it must run the delayed object to completion.
    """
    path = as_path(path)
    fmt = check_writable(path, overwrite=overwrite, format=format)
    prepared = _prepare(da)
    lazy = prepared.chunks is not None
    sweep_stale(path.parent)
    tmp = temporary_name(path)

    def write(abandoned: threading.Event) -> None:
        if fmt.save_delayed is None or not (lazy or _has_dask()):
            fmt.save(prepared.load() if lazy else prepared, tmp)
            return
        source = prepared if lazy else in_slabs(prepared)
        if source.chunks is None:  # small: one plain write
            fmt.save(source, tmp)
        elif lazy and compute is not None:
            compute(fmt.save_delayed(source, tmp))
        else:  # computed slab by slab: an interrupt stops it between two
            compute_unless(fmt.save_delayed(source, tmp), abandoned)

    run_guarded(write, tmp)
    try:
        replace(tmp, path)
    except BaseException:
        remove(tmp)
        raise
    return path


def _restore(da: xr.DataArray) -> xr.DataArray:
    """Undo what files change: string coords as str arrays, numpy scalar attrs as Python."""
    for name in list(da.coords):
        coord = da.coords[name]
        if coord.dtype.kind in "OT" and all(isinstance(x, str) for x in coord.values.ravel()):
            values = np.array(coord.values.tolist(), dtype=str).reshape(coord.shape)
            da = da.assign_coords({name: (coord.dims, values, coord.attrs)})
    attrs = dict(da.attrs)
    lists = set(str(attrs.pop(LIST_ATTRS, "")).split(",")) - {""}
    da.attrs = {
        k: (
            np.atleast_1d(v).tolist()
            if k in lists
            else v.item()
            if isinstance(v, np.generic)
            else v
        )
        for k, v in attrs.items()
    }
    return da


def open(
    path: str | os.PathLike[str],
    *,
    chunks: int | dict[str, int] | None = None,
) -> xr.DataArray:
    """Open an array saved by :func:`spdgraph.save`, in any registered format.

    Parameters
    ----------
    path
        A file or store; its format is recognised by its content (netCDF and
        HDF5 magic bytes, a Zarr store's metadata, CSV tables), else by its
        suffix.
    chunks
        ``None`` (default) loads the values into memory and closes the file.
        An int (matrices per chunk along ``sample``) or a dict of dim sizes
        opens lazily as a dask array (needs dask).

    Returns
    -------
    xarray.DataArray
        Equal to the saved array: values, labels, ``adjacency`` and attrs.

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
    return read_array(path, chunks=chunks, load=True)


def read_array(
    path: str | os.PathLike[str],
    *,
    chunks: int | dict[str, int] | None = None,
    load: bool = True,
    format: str | None = None,
) -> xr.DataArray:
    """``open``; with ``load=False`` and no chunks the values stay on disk until indexed."""
    path = as_path(path)
    if not (path.exists() or path.is_symlink()):
        raise FileError(f"cannot open {os.fspath(path)!r}: no such file or directory.")
    fmt = format_for_reading(path, format)
    fmt.requires()
    if isinstance(chunks, int) and not isinstance(chunks, bool):
        chunks = {"sample": chunks}
    if chunks is not None:
        from spdgraph.sampling import require_dask

        require_dask("spdgraph.open(..., chunks=...)")
    try:
        da = fmt.open(path)
        if chunks is not None:
            da = da.chunk(chunks)
        elif load:
            da = da.load()
            da.close()
    except FileError:
        raise
    except (RuntimeError, ValueError) as exc:
        if isinstance(exc, ValueError) and not is_checksum_error(exc):
            raise _unreadable(path, fmt, exc) from exc
        # HDF5 refused to decode a chunk, or a Zarr chunk failed its CRC32C
        raise FileError(
            f"cannot read {os.fspath(path)!r}: the data of {corrupted_variable(fmt, path)} "
            f"failed the storage's checks ({exc}); the file is corrupted or truncated. "
            "Write it again (spdgraph.save stores a checksum of the values)."
        ) from exc
    except (OSError, KeyError, TypeError) as exc:
        raise _unreadable(path, fmt, exc) from exc
    if not isinstance(da, xr.DataArray):
        raise FileError(
            f"the {fmt.name} format's open returned {type(da).__name__} for {os.fspath(path)!r}, "
            "not an xarray.DataArray."
        )
    return _restore(da)


def _unreadable(path: Path, fmt: FileFormat, exc: Exception) -> FileError:
    return FileError(
        f"cannot read {os.fspath(path)!r} as an spdgraph array ({type(exc).__name__}: "
        f"{exc}); it must be a {fmt.title} file holding one DataArray, as spdgraph.save "
        "writes."
    )
