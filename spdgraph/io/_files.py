"""Files: save and open spdgraph arrays as netCDF (``.nc``) or Zarr (``.zarr``).

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

netCDF needs ``netCDF4`` (or ``h5netcdf`` with ``h5py``): ``pip install
"spdgraph[netcdf]"``; Zarr needs ``zarr``: ``pip install "spdgraph[zarr]"``.
Both are imported only when used.
"""

from __future__ import annotations

import numbers
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np
import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError, MissingDependencyError
from spdgraph.io._atomic import (
    compute_unless,
    in_slabs,
    remove,
    replace,
    run_guarded,
    sweep_stale,
    temporary_name,
)
from spdgraph.io._integrity import checksum_encoding, corrupted_variable, is_checksum_error

__all__ = ["netcdf_engine", "open", "save"]

#: Attribute (in files only) naming the attrs that were Python lists.
LIST_ATTRS = "spdgraph_list_attrs"

#: File suffixes spdgraph reads and writes, and their format.
FORMATS = {".nc": "netcdf", ".nc4": "netcdf", ".zarr": "zarr"}


def file_format(path: str | os.PathLike[str]) -> str:
    """``"netcdf"`` or ``"zarr"`` from the suffix of ``path``; :class:`FileError` otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FileError(
            f"cannot tell the file format of {os.fspath(path)!r} from its suffix "
            f"{suffix or '(none)'!r}; use .nc for netCDF or .zarr for Zarr (on the command "
            "line, --format csv writes a folder of CSV tables)."
        )
    return FORMATS[suffix]


def netcdf_engine() -> Literal["netcdf4", "h5netcdf"]:
    """The xarray engine spdgraph reads and writes netCDF with: netCDF4, else h5netcdf.

    The one engine picker of spdgraph (files, the CLI, the studies of
    spdgraph-reproduce). Raises :class:`MissingDependencyError` naming the pip
    command when neither is installed.

    >>> netcdf_engine() in ("netcdf4", "h5netcdf")
    True
    """
    try:
        import netCDF4  # noqa: F401

        return "netcdf4"
    except ImportError:
        pass
    try:
        import h5netcdf  # noqa: F401
        import h5py  # noqa: F401

        return "h5netcdf"
    except ImportError:
        raise MissingDependencyError(
            "netCDF files need the netCDF4 package (or h5netcdf with h5py); install it "
            'with pip install "spdgraph[netcdf]", or save to a .zarr path instead.'
        ) from None


def _require_zarr() -> None:
    try:
        import zarr  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            'Zarr stores need the zarr package; install it with pip install "spdgraph[zarr]", '
            "or save to a .nc path instead."
        ) from None


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


def _prepare(da: object, fmt: str) -> xr.DataArray:
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
    out.encoding.update(checksum_encoding(fmt, out.ndim))
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
        if fmt == "zarr" and coord.dtype.kind == "U":
            # variable-length strings have a Zarr v3 specification, fixed-width ones not
            out = out.assign_coords({name: coord.astype(object)})
            coord = out.coords[name]
        coord.variable.encoding = {}
        if coord.dtype.kind == "f":
            coord.variable.encoding["_FillValue"] = None
        for key, value in coord.attrs.items():
            _check_attr(f"{name}.{key}", value)
    return out


def _looks_like_zarr(path: Path) -> bool:
    return any((path / name).exists() for name in ("zarr.json", ".zgroup", ".zarray"))


def _check_target(path: Path, fmt: str, overwrite: bool) -> None:
    parent = path.parent
    if not parent.is_dir():
        raise FileError(
            f"cannot write {os.fspath(path)!r}: folder {os.fspath(parent)!r} does not exist."
        )
    if not (path.exists() or path.is_symlink()):
        return
    if not overwrite:
        raise FileError(f"{os.fspath(path)!r} exists; pass overwrite=True to replace it.")
    if fmt == "netcdf" and path.is_dir():
        raise FileError(f"{os.fspath(path)!r} is a directory; it will not be replaced by a file.")
    if fmt == "zarr" and (not path.is_dir() or not _looks_like_zarr(path)):
        raise FileError(
            f"{os.fspath(path)!r} exists and is not a Zarr store; it will not be replaced."
        )


def check_writable(path: str | os.PathLike[str], *, overwrite: bool = True) -> str:
    """Check, before any heavy work, that ``save`` can write to ``path``; return the format."""
    path = Path(path)
    fmt = file_format(path)
    _check_target(path, fmt, overwrite)
    if fmt == "netcdf":
        netcdf_engine()
    else:
        _require_zarr()
    return fmt


def save(
    da: xr.DataArray,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
) -> Path:
    """Save a DataArray to netCDF (``.nc``) or Zarr (``.zarr``), atomically.

    Parameters
    ----------
    da
        A matrix or stack from :func:`spdgraph.sample` (eager or dask-backed:
        a lazy array is computed and written chunk by chunk), data from
        ``da.spd.draw``, or any DataArray with storable labels and attrs.
    path
        Destination; the suffix picks the format.
    overwrite
        Replace an existing file (or Zarr store) of that name. It is replaced
        only once the new one is complete.

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
    return write_array(da, path, overwrite=overwrite)


def write_array(
    da: xr.DataArray,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    compute: Callable[[Any], Any] | None = None,
) -> Path:
    """``save``, with a hook computing the delayed write of a dask-backed array.

    ``compute(delayed)`` lets the command line show progress or use a
    distributed client; it must run the delayed object to completion.
    """
    path = Path(path)
    fmt = check_writable(path, overwrite=overwrite)
    prepared = _prepare(da, fmt)
    lazy = compute is not None and prepared.chunks is not None
    sweep_stale(path.parent)
    tmp = temporary_name(path)

    def write(abandoned: threading.Event) -> None:
        source = prepared if lazy else in_slabs(prepared)
        result: Any
        if fmt == "netcdf":
            result = source.to_netcdf(tmp, engine=netcdf_engine(), compute=False)
        else:
            result = source.to_zarr(tmp, mode="w-", consolidated=False, compute=False)
        if lazy and compute is not None:
            compute(result)
        elif result is not None:  # a dask-backed write, computed slab by slab
            compute_unless(result, abandoned)
        if fmt == "netcdf":
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

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
    """Open an array saved by :func:`spdgraph.save` (or any one-variable netCDF/Zarr).

    Parameters
    ----------
    path
        A ``.nc`` file or ``.zarr`` store.
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
        Missing file, unknown suffix, or not a readable one-variable file.

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
) -> xr.DataArray:
    """``open``; with ``load=False`` and no chunks the values stay on disk until indexed."""
    path = Path(path)
    fmt = file_format(path)
    if not path.exists():
        raise FileError(f"cannot open {os.fspath(path)!r}: no such file or directory.")
    if isinstance(chunks, int) and not isinstance(chunks, bool):
        chunks = {"sample": chunks}
    if chunks is not None:
        from spdgraph.sampling import require_dask

        require_dask("spdgraph.open(..., chunks=...)")
    kwargs: dict[str, Any]
    if fmt == "netcdf":
        kwargs = {"engine": netcdf_engine()}
    else:
        _require_zarr()
        kwargs = {"engine": "zarr", "consolidated": False}
    try:
        da = xr.open_dataarray(path, chunks=chunks, **kwargs)
        if chunks is None and load:
            da = da.load()
            da.close()
    except (RuntimeError, ValueError) as exc:
        if isinstance(exc, ValueError) and not is_checksum_error(exc):
            raise _unreadable(path, exc) from exc
        # HDF5 refused to decode a chunk, or a Zarr chunk failed its CRC32C
        raise FileError(
            f"cannot read {os.fspath(path)!r}: the data of {corrupted_variable(path, kwargs)} "
            f"failed the storage's checks ({exc}); the file is corrupted or truncated. "
            "Write it again (spdgraph.save stores a checksum of the values)."
        ) from exc
    except (OSError, KeyError, TypeError) as exc:
        raise _unreadable(path, exc) from exc
    return _restore(da)


def _unreadable(path: Path, exc: Exception) -> FileError:
    return FileError(
        f"cannot read {os.fspath(path)!r} as an spdgraph array ({type(exc).__name__}: "
        f"{exc}); it must be a netCDF file or Zarr store holding one DataArray, as "
        "spdgraph.save writes."
    )
