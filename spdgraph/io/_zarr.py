"""The Zarr format (``.zarr`` stores): a built-in :class:`~spdgraph.io.FileFormat` plugin.

Written with zarr (``pip install "spdgraph[zarr]"``), unconsolidated. Each
chunk of the values carries a CRC32C (Zarr v3's ``crc32c`` codec after the
compressor), every chunk is written (none left out as "empty") and counted on
open, and every variable is covered by the digests of ``_digests``. String labels
are stored as variable-length strings (which have
a Zarr v3 specification; fixed-width ones have none).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import xarray as xr

from spdgraph.errors import FileError, MissingDependencyError
from spdgraph.io._atomic import settle
from spdgraph.io._content import open_whole_dataset
from spdgraph.io._offered import offered_format
from spdgraph.io._sparse import decode, encode, is_sparse, is_sparse_file
from spdgraph.io._sparse_datasets import encode_dataset

__all__ = ["ZARR", "spdgraph_file_formats"]

#: Metadata files of a Zarr v3 (``zarr.json``) or v2 (``.zgroup``/``.zarray``) store.
METADATA = ("zarr.json", ".zgroup", ".zarray")


def requires() -> None:
    """Zarr stores need zarr: a MissingDependencyError naming the extra otherwise."""
    try:
        import zarr  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            'Zarr stores need the zarr package; install it with pip install "spdgraph[zarr]", '
            "or save to a .nc path instead."
        ) from None


def recognises(path: Path) -> bool:
    """A Zarr store: a folder holding Zarr metadata."""
    return path.is_dir() and any((path / name).is_file() for name in METADATA)


#: Group attribute of a store spdgraph wrote: the names of all its arrays.
ARRAYS = "spdgraph_arrays"
#: xarray's name for the variable of a DataArray without a name.
UNNAMED = "__xarray_dataarray_variable__"


def _encoded(da: xr.DataArray) -> xr.Dataset:
    from zarr.codecs import Crc32cCodec, ZstdCodec

    if is_sparse(da.data):  # coordinate triplets, never densified
        ds = encode(da)
        for variable in ds.data_vars.values():
            variable.encoding["compressors"] = [ZstdCodec(), Crc32cCodec()]
        for name in list(ds.coords):
            if ds.coords[name].dtype.kind == "U":
                ds = ds.assign_coords({name: ds.coords[name].astype(object)})
        ds.attrs[ARRAYS] = ",".join(sorted(map(str, ds.variables)))
        return ds
    out = da.copy(deep=False)
    for name in list(out.coords):
        coord = out.coords[name]
        if coord.dtype.kind == "U":
            out = out.assign_coords({name: coord.astype(object)})
            out.coords[name].variable.encoding = dict(coord.variable.encoding)
    if out.ndim:
        out.encoding["compressors"] = [ZstdCodec(), Crc32cCodec()]
    name = UNNAMED if out.name is None else str(out.name)
    ds = out.to_dataset(name=name)
    ds[name].encoding = dict(out.encoding)
    ds.attrs[ARRAYS] = ",".join(sorted([name, *map(str, ds.coords)]))
    return ds


def save(da: xr.DataArray, path: Path) -> None:
    """Write ``da`` (in memory) as the Zarr store ``path``."""
    requires()
    try:
        _encoded(da).to_zarr(path, mode="w-", consolidated=False, write_empty_chunks=True)
    except BaseException:
        settle(path)
        raise


def _encoded_dataset(ds: xr.Dataset) -> xr.Dataset:
    """A Dataset as stored: sparse variables as triplets, numeric values with a CRC32C."""
    from zarr.codecs import Crc32cCodec, ZstdCodec

    out = encode_dataset(ds)  # sparse variables: triplets
    out = out.copy(deep=False)
    for variable in out.data_vars.values():
        if variable.ndim and variable.dtype.kind in "biuf":
            variable.encoding["compressors"] = [ZstdCodec(), Crc32cCodec()]
    return out


def save_dataset(ds: xr.Dataset, path: Path) -> None:
    """Write a whole Dataset (a simulation, a study's results) as the Zarr store ``path``."""
    requires()
    try:
        _encoded_dataset(ds).to_zarr(path, mode="w-")
    except BaseException:
        settle(path)
        raise


def save_layout(obj: xr.DataArray | xr.Dataset, path: Path) -> None:
    """Create the store ``path`` with everything but the dask-backed values (the core
    writes them block by block, :func:`write_region`); one Zarr chunk per dask block."""
    requires()
    encoded = _encoded(obj) if isinstance(obj, xr.DataArray) else _encoded_dataset(obj)
    try:  # the delayed write of the dask values is dropped: the core writes them
        encoded.to_zarr(
            path, mode="w-", consolidated=False, compute=False, write_empty_chunks=True
        )
    except BaseException:
        settle(path)
        raise


def write_region(path: Path, name: str, region: tuple[slice, ...], block: Any) -> None:
    """Write one block of the variable ``name`` of the store ``path`` (on a worker)."""
    import zarr

    zarr.open_array(store=os.fspath(path), path=name, mode="r+")[region] = block


def read_region(path: Path, name: str, region: tuple[slice, ...]) -> Any:
    """The stored values at ``region`` of the variable ``name`` of the store ``path``."""
    import zarr

    return zarr.open_array(store=os.fspath(path), path=name, mode="r")[region]


def save_delayed(da: xr.DataArray, path: Path) -> Any:
    """The delayed write of a dask-backed ``da`` (computed by the core)."""
    requires()
    return _encoded(da).to_zarr(
        path, mode="w-", consolidated=False, compute=False, write_empty_chunks=True
    )


def set_attrs(path: Path, name: str | None, attrs: Mapping[str, str]) -> None:
    """Add ``attrs`` to the array ``name`` of the Zarr store ``path`` (None: the store's)."""
    import zarr

    group = zarr.open_group(path, mode="r+")
    (group if name is None else group[name]).attrs.update(dict(attrs))


def check_chunks(path: Path) -> None:
    """Every chunk of every array of a store spdgraph wrote is there (none deleted or lost).

    spdgraph writes every chunk (``write_empty_chunks=True``), so a missing one is
    damage (a deleted file, a full disk), never a chunk of fill values: without this
    check Zarr would read it as NaN, an empty graph or labels ``0``.
    """
    import zarr

    group = zarr.open_group(path, mode="r")
    expected = str(group.attrs.get(ARRAYS, ""))
    if not expected:
        return  # not written by spdgraph: chunks may be legitimately absent
    with warnings.catch_warnings():  # a damaged member: reported below, by name
        warnings.simplefilter("ignore")
        arrays = dict(group.arrays())
    for name in expected.split(","):
        if name not in arrays:
            raise FileError(
                f"cannot read {os.fspath(path)!r}: variable {name!r} is missing (its metadata "
                "is gone); the store is damaged. Write it again."
            )
    for name, arr in arrays.items():
        present = arr.nchunks_initialized
        if present < arr.nchunks:
            raise FileError(
                f"cannot read {os.fspath(path)!r}: variable {name!r} is missing "
                f"{arr.nchunks - present} of its {arr.nchunks} chunks; the store is damaged "
                "or was cut short. Write it again."
            )


def open(path: Path) -> xr.DataArray:
    """The one DataArray of the Zarr store ``path`` (values left on disk), chunks counted."""
    requires()
    check_chunks(path)
    ds = xr.open_dataset(path, engine="zarr", consolidated=False)
    if is_sparse_file(ds.attrs):
        ds.attrs.pop(ARRAYS, None)
        return decode(ds.load())
    da = xr.open_dataarray(path, engine="zarr", consolidated=False)
    da.attrs.pop(ARRAYS, None)
    return da


def open_dataset(path: Path, chunks: Mapping[str, int] | None) -> xr.Dataset:
    """The whole Dataset ``save_dataset`` wrote: loaded, or lazily in ``chunks``."""
    requires()
    return open_whole_dataset(path, chunks, engine="zarr", consolidated=False)


def variables(path: Path) -> list[str]:
    """The names of the arrays of the Zarr store ``path`` (its folder's entries)."""
    return [p.name for p in path.iterdir()] if recognises(path) else []


ZARR, spdgraph_file_formats = offered_format(
    "zarr", globals(), suffixes=(".zarr",), description="Zarr", folder=True, holds_sparse=True
)
