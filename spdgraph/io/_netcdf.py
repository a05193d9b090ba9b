"""The netCDF file format (``.nc``): a built-in :class:`~spdgraph.io.FileFormat` plugin.

Written with netCDF4 (or h5netcdf with h5py): ``pip install "spdgraph[netcdf]"``.
The values carry HDF5's Fletcher-32 checksum; NaN is not masked (no
``_FillValue``), so values come back bit for bit. An eager array is written by
one plain ``to_netcdf`` call (no dask needed); a dask-backed one chunk by chunk
(:attr:`FileFormat.save_delayed`).
"""

from __future__ import annotations

import gc
import os
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import xarray as xr

from spdgraph.errors import MissingDependencyError
from spdgraph.io._content import open_whole_dataset
from spdgraph.io._offered import offered_format
from spdgraph.io._sparse import decode, encode, is_sparse, is_sparse_file
from spdgraph.io._sparse_datasets import encode_dataset

__all__ = ["NETCDF", "netcdf_engine", "spdgraph_file_formats"]

#: First bytes of a netCDF classic / 64-bit offset / CDF-5 file, and of an HDF5 file.
MAGICS = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")
#: Where an HDF5 superblock may start (a user block before it moves it).
HDF5_OFFSETS = (0, 512, 1024, 2048)


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


def requires() -> None:
    """netCDF files need netCDF4 or h5netcdf: :func:`netcdf_engine` checks."""
    netcdf_engine()


def recognises(path: Path) -> bool:
    """A netCDF (classic or HDF5-based) file by its magic bytes."""
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        head = handle.read(4)
        if head in MAGICS[:3]:
            return True
        for offset in HDF5_OFFSETS:
            handle.seek(offset)
            if handle.read(8) == MAGICS[3]:
                return True
    return False


def _encoded(da: xr.DataArray) -> xr.DataArray | xr.Dataset:
    if is_sparse(da.data):  # coordinate triplets, never densified
        ds = encode(da)
        for variable in ds.data_vars.values():
            variable.encoding["fletcher32"] = True
        return ds
    out = da.copy(deep=False)
    if out.ndim:
        out.encoding["fletcher32"] = True
    return out


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _release(exc: BaseException) -> None:
    """Let a failed write's HDF5 handle go now (not at some later garbage collection).

    After a failure (a full disk) the netCDF4 dataset stays open, referenced from the
    traceback's frames; when it is finally collected it flushes its buffers into the
    removed temporary and fills the disk again. Clearing the frames and collecting
    closes it before the core truncates and removes the temporary.
    """
    seen: BaseException | None = exc
    while seen is not None:
        traceback.clear_frames(seen.__traceback__)
        seen = seen.__cause__ or seen.__context__
    gc.collect()


def save(da: xr.DataArray, path: Path) -> None:
    """Write ``da`` (in memory) to the netCDF file ``path`` and flush it to disk."""
    try:
        _encoded(da).to_netcdf(path, engine=netcdf_engine())
    except BaseException as exc:
        _release(exc)
        raise
    _fsync(path)


def save_dataset(ds: xr.Dataset, path: Path) -> None:
    """Write a whole Dataset (a simulation, a study's results) to ``path``, flushed to disk."""
    try:
        encode_dataset(ds).to_netcdf(path, engine=netcdf_engine())  # sparse: triplets
    except BaseException as exc:
        _release(exc)
        raise
    _fsync(path)


def save_delayed(da: xr.DataArray, path: Path) -> Any:
    """The delayed write of a dask-backed ``da`` (computed by the core), then flushed."""
    import dask

    delayed = _encoded(da).to_netcdf(path, engine=netcdf_engine(), compute=False)
    return dask.delayed(lambda _: _fsync(path))(delayed)


def set_attrs(path: Path, name: str | None, attrs: Mapping[str, str]) -> None:
    """Add ``attrs`` to the variable ``name`` of the netCDF file ``path`` (None: the
    file's own attrs), flushed to disk."""
    if netcdf_engine() == "netcdf4":
        import netCDF4

        with netCDF4.Dataset(path, "a") as nc:
            (nc if name is None else nc.variables[name]).setncatts(dict(attrs))
    else:
        import h5netcdf

        with h5netcdf.File(path, "a") as nc:
            (nc if name is None else nc.variables[name]).attrs.update(dict(attrs))
    _fsync(path)


def open(path: Path) -> xr.DataArray:
    """The one DataArray of the netCDF file ``path`` (values left on disk)."""
    ds = xr.open_dataset(path, engine=netcdf_engine())
    if is_sparse_file(ds.attrs):
        try:
            return decode(ds.load())
        finally:
            ds.close()
    ds.close()
    return xr.open_dataarray(path, engine=netcdf_engine())


def open_dataset(path: Path, chunks: Mapping[str, int] | None) -> xr.Dataset:
    """The whole Dataset ``save_dataset`` wrote: loaded, or lazily in ``chunks``."""
    return open_whole_dataset(path, chunks, engine=netcdf_engine())


def variables(path: Path) -> list[str]:
    """The names of the variables of the netCDF file ``path``, from its header."""
    return list(header(path)) if recognises(path) else []


def header(path: Path) -> dict[str, tuple[tuple[int, ...], int]]:
    """Every variable's shape and item size, from the header only (nothing is read)."""
    if netcdf_engine() == "netcdf4":
        import netCDF4

        with netCDF4.Dataset(path) as nc:
            return {
                name: (tuple(var.shape), getattr(var.dtype, "itemsize", 8))
                for name, var in nc.variables.items()
            }
    import h5py

    found: dict[str, tuple[tuple[int, ...], int]] = {}
    with h5py.File(path, "r") as handle:
        handle.visititems(
            lambda name, obj: (
                found.__setitem__(name, (tuple(obj.shape), obj.dtype.itemsize))
                if isinstance(obj, h5py.Dataset)
                else None
            )
        )
    return found


NETCDF, spdgraph_file_formats = offered_format(
    "netcdf", globals(), suffixes=(".nc", ".nc4"), description="netCDF", holds_sparse=True
)
