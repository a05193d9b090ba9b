"""Checksums of the stored values, and which variable of a damaged file fails them.

netCDF files get HDF5's Fletcher-32 filter, Zarr stores a CRC32C codec after
the compressor (Zarr v3's ``crc32c``): a changed byte of the values makes
``spdgraph.open`` raise a FileError naming the variable instead of returning
different numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["corrupted_variable", "is_checksum_error"]


def is_checksum_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a storage library's checksum mismatch."""
    return "checksum" in str(exc).lower()


def _fails(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) or is_checksum_error(exc)


def corrupted_variable(fmt: Any, path: Path) -> str:
    """Name the first variable of a file whose values cannot be read."""
    try:
        da = fmt.open(path)
        try:
            for name, variable in [(da.name, da.variable), *da.coords.items()]:
                try:
                    variable.load()
                except (RuntimeError, ValueError) as exc:
                    if _fails(exc):
                        return f"variable {str(name)!r}"
        finally:
            da.close()
    except Exception:  # the file is too damaged to even list its variables
        pass
    return "a variable"
