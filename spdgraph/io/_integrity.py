"""Which variable of a damaged netCDF file cannot be read (for the FileError of ``open``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import xarray as xr

__all__ = ["corrupted_variable"]


def corrupted_variable(path: Path, kwargs: dict[str, Any]) -> str:
    """Name the first variable of a netCDF file whose values cannot be read."""
    try:
        with xr.open_dataset(path, **kwargs) as ds:
            for name in [*ds.data_vars, *ds.coords]:
                try:
                    ds[name].load()
                except RuntimeError:
                    return f"variable {str(name)!r}"
    except Exception:  # the file is too damaged to even list its variables
        pass
    return "a variable"
