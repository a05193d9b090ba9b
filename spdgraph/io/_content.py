"""What a file holds: arrays checked and stamped before a save, restored after an open.

:func:`prepare` refuses labels and attrs that files cannot store exactly (tuples,
bool, None, dict attrs; NUL characters, lone surrogates, integers beyond 64 bits)
before anything is written, notes which attrs were lists, and stamps the digests
of every variable (``_digests``); :func:`restore` undoes what files change
(string coordinates, numpy scalar attrs, lists of one element).
"""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import numpy as np
import xarray as xr

from spdgraph.errors import InvalidOptionError
from spdgraph.io._digests import DIGESTS, bad_text, check_labels, stamp
from spdgraph.io._integrity import guarded_dask

__all__ = ["LIST_ATTRS", "open_whole_dataset", "prepare", "restore"]

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
    items = value if isinstance(value, list | tuple | np.ndarray) else [value]
    for item in np.asarray(items, dtype=object).ravel().tolist():
        if isinstance(item, str) and (why := bad_text(item)) is not None:
            raise InvalidOptionError(
                f"attribute {name!r} holds {why}, which files cannot store exactly."
            )
        if isinstance(item, int) and not -(2**63) <= item < 2**63:
            raise InvalidOptionError(
                f"attribute {name!r} = {item} does not fit in 64 bits, which files cannot "
                "store; store it as a string."
            )


def prepare(da: object) -> xr.DataArray:
    """Check that ``da`` can be stored and return a copy with clean encodings."""
    if not isinstance(da, xr.DataArray):
        raise InvalidOptionError(
            f"spdgraph.save stores an xarray.DataArray (or a whole Dataset), got "
            f"{type(da).__name__}."
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
    check_labels(out)
    out.attrs[DIGESTS] = json.dumps(stamp(out, da.attrs))
    return out


def restore(da: xr.DataArray) -> xr.DataArray:
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


def open_whole_dataset(path: object, chunks: object, **options: object) -> xr.Dataset:
    """A stored Dataset through xarray (``options``: its engine): loaded and closed when
    ``chunks`` is None, else left on disk as dask arrays of the dim sizes ``chunks``
    (a dict) asks for, each block's storage failure (a checksum, a decompression
    error) a :class:`FileError` naming the file, the variable and the rows, raised
    at the ``.compute()`` that reads it. The ``open_dataset`` of the netCDF and Zarr
    formats."""
    if chunks is None:
        with xr.open_dataset(path, **options) as opened:  # type: ignore[arg-type]
            return opened.load()
    ds = xr.open_dataset(path, **options)  # type: ignore[arg-type]  # lazily indexed
    sizes = {str(d): int(n) for d, n in dict(chunks).items() if d in ds.dims}  # type: ignore[call-overload]
    lazy = {
        name: variable.copy(data=guarded_dask(variable, sizes, Path(str(path)), str(name)))
        for name, variable in ds.variables.items()
        if name not in ds.indexes
    }
    coords = {name: v for name, v in lazy.items() if name in ds.coords}
    values = {name: v for name, v in lazy.items() if name not in ds.coords}
    out = ds.assign(values).assign_coords(coords)
    out.set_close(ds.close)  # closing it closes the file (assign does not carry that over)
    return out
