"""Checksums of the stored values, and which variable of a damaged file fails them.

netCDF files get HDF5's Fletcher-32 filter, Zarr stores a CRC32C codec after
the compressor (Zarr v3's ``crc32c``): a changed byte of the values makes
``spdgraph.open`` raise a FileError naming the variable instead of returning
different numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import xarray as xr

__all__ = ["checksum_encoding", "corrupted_variable", "is_checksum_error"]


def checksum_encoding(fmt: str, ndim: int) -> dict[str, Any]:
    """The encoding that stores a checksum of the values in format ``fmt``."""
    if ndim == 0:
        return {}
    if fmt == "netcdf":
        return {"fletcher32": True}
    from zarr.codecs import Crc32cCodec, ZstdCodec

    return {"compressors": [ZstdCodec(), Crc32cCodec()]}


def is_checksum_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a storage library's checksum mismatch."""
    return "checksum" in str(exc).lower()


def _fails(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) or is_checksum_error(exc)


def corrupted_variable(path: Path, kwargs: dict[str, Any]) -> str:
    """Name the first variable of a file whose values cannot be read."""
    try:
        with xr.open_dataset(path, **kwargs) as ds:
            for name in [*ds.data_vars, *ds.coords]:
                try:
                    ds[name].load()
                except (RuntimeError, ValueError) as exc:
                    if _fails(exc):
                        return f"variable {str(name)!r}"
    except Exception:  # the file is too damaged to even list its variables
        pass
    return "a variable"
