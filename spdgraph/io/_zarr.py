"""The Zarr format (``.zarr`` stores): a built-in :class:`~spdgraph.io.FileFormat` plugin.

Written with zarr (``pip install "spdgraph[zarr]"``), unconsolidated. Each
chunk of the values carries a CRC32C (Zarr v3's ``crc32c`` codec after the
compressor). String labels are stored as variable-length strings (which have
a Zarr v3 specification; fixed-width ones have none).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import xarray as xr

from spdgraph.errors import MissingDependencyError
from spdgraph.io._format import FileFormat
from spdgraph.plugins.hookspecs import hookimpl

__all__ = ["ZARR", "spdgraph_file_formats"]

#: Metadata files of a Zarr v3 (``zarr.json``) or v2 (``.zgroup``/``.zarray``) store.
METADATA = ("zarr.json", ".zgroup", ".zarray")


def _requires() -> None:
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


def _encoded(da: xr.DataArray) -> xr.DataArray:
    from zarr.codecs import Crc32cCodec, ZstdCodec

    out = da.copy(deep=False)
    for name in list(out.coords):
        coord = out.coords[name]
        if coord.dtype.kind == "U":
            out = out.assign_coords({name: coord.astype(object)})
            out.coords[name].variable.encoding = dict(coord.variable.encoding)
    if out.ndim:
        out.encoding["compressors"] = [ZstdCodec(), Crc32cCodec()]
    return out


def save(da: xr.DataArray, path: Path) -> None:
    """Write ``da`` (in memory) as the Zarr store ``path``."""
    _requires()
    _encoded(da).to_zarr(path, mode="w-", consolidated=False)


def save_delayed(da: xr.DataArray, path: Path) -> Any:
    """The delayed write of a dask-backed ``da`` (computed by the core)."""
    _requires()
    return _encoded(da).to_zarr(path, mode="w-", consolidated=False, compute=False)


def open(path: Path) -> xr.DataArray:
    """The one DataArray of the Zarr store ``path`` (values left on disk)."""
    _requires()
    return xr.open_dataarray(path, engine="zarr", consolidated=False)


ZARR = FileFormat(
    name="zarr",
    suffixes=(".zarr",),
    save=save,
    open=open,
    recognises=recognises,
    folder=True,
    description="Zarr",
    save_delayed=save_delayed,
    requires=_requires,
)


@hookimpl
def spdgraph_file_formats() -> Sequence[FileFormat]:
    """The built-in Zarr format."""
    return [ZARR]
