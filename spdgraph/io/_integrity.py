"""Checksums of the stored values, and which variable of a damaged file fails them.

netCDF files get HDF5's Fletcher-32 filter, Zarr stores a CRC32C codec after
the compressor (Zarr v3's ``crc32c``): a changed byte of the values makes
``spdgraph.open`` raise a FileError naming the variable instead of returning
different numbers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from spdgraph.errors import FileError

__all__ = ["corrupted_variable", "guarded_dask", "is_checksum_error", "storage_failure"]


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


def storage_failure(path: Path, variable: str, exc: BaseException) -> FileError:
    """The FileError of a value block that failed the storage's checks (or decoding)."""
    return FileError(
        f"cannot read {os.fspath(path)!r}: the data of {variable} failed the storage's "
        f"checks ({exc}); the file is corrupted or truncated. Write it again "
        "(spdgraph.save stores a checksum of the values)."
    )


class _GuardedReads:
    """A variable left on disk whose every read turns a storage failure into a FileError.

    The storage checks a block (netCDF's Fletcher32, a Zarr chunk's CRC32C, the
    decompressor) only when a lazy array's ``.compute()`` reads it: the libraries'
    raw errors (``NetCDF: HDF error``, ``Zstd decompression error``, a checksum
    ValueError) are reported there as an eager open reports them.
    """

    def __init__(self, variable: Any, failure: Callable[[BaseException, Any], FileError]) -> None:
        self.variable, self.failure = variable, failure
        self.shape, self.dtype, self.ndim = variable.shape, variable.dtype, variable.ndim

    def __getitem__(self, key: Any) -> Any:
        import numpy as np

        try:
            return np.asarray(self.variable[key].values)
        except (RuntimeError, ValueError) as exc:
            if isinstance(exc, ValueError) and not is_checksum_error(exc):
                raise
            raise self.failure(exc, key) from exc


def _rows(key: Any) -> str:
    first = key[0] if isinstance(key, tuple) and key else key
    if isinstance(first, slice) and first.start is not None and first.stop is not None:
        return f", rows {first.start} to {first.stop - 1}"
    return ""


def guarded_dask(variable: Any, sizes: Mapping[str, int], path: Path, name: str) -> Any:
    """``variable`` (an xarray Variable, values on disk) as a dask array read block by block.

    Dims in ``sizes`` are chunked that many at a time (at least 1, at most the
    dim), the others whole; each block is read through a guard that turns a
    storage failure into a :class:`FileError` naming ``path``, the variable
    ``name`` and the block's rows. No copy of the values is made.
    """
    import dask.array
    import numpy as np

    dims = zip(variable.dims, variable.shape, strict=True)
    chunks = tuple(max(1, min(int(sizes.get(str(d), n)), n)) for d, n in dims)

    def failure(exc: BaseException, key: Any) -> FileError:
        return storage_failure(path, f"variable {name!r}{_rows(key)}", exc)

    guarded = _GuardedReads(variable, failure)
    meta = np.empty((0,) * variable.ndim, dtype=variable.dtype)
    return dask.array.from_array(guarded, chunks=chunks, name=False, meta=meta)
