"""Sparse results in files: coordinate triplets, at a size proportional to the non-zeros.

A DataArray backed by a PyData sparse array (``sample(..., sparse=True)``) is
stored by the netCDF and Zarr formats as a Dataset of triplets, never densified:

* ``values`` over ``entry``: the stored values, canonical (row-major) order;
* ``values_index`` over ``(entry, axis)``: their int64 coordinates;
* ``adjacency_index`` over ``(edge, axis_2)``: the graph's stored entries;
* the dimension coordinates (``node``, ``node_2``, ``sample``) as they are;
* attrs: the DataArray's (its digests included), and :data:`SPARSE` (JSON: name,
  dims, shape, dtypes, fill values) marking the layout.

:func:`decode` rebuilds the DataArray (the same canonical COO arrays, so the
same digests: :func:`plain_values` gives :mod:`spdgraph.io._digests` the sparse
array, whose digest covers its shape, coordinates and values).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import xarray as xr

__all__ = [
    "SPARSE",
    "SPARSE_VARIABLES",
    "canonical",
    "decode",
    "decode_dataset",
    "encode",
    "encode_dataset",
    "has_sparse_variables",
    "is_sparse",
    "is_sparse_file",
    "plain_values",
]

#: The attribute marking a stored sparse DataArray (its layout, JSON).
SPARSE = "spdgraph_sparse"


def is_sparse(data: object) -> bool:
    """Whether ``data`` is a PyData sparse array."""
    module = sys.modules.get("sparse")
    return module is not None and isinstance(data, module.SparseArray)


def plain_values(variable: Any) -> Any:
    """A variable's values for digests and label checks: the sparse array itself when
    sparse (never densified), else ``.values``."""
    data = variable.data
    return data if is_sparse(data) else variable.values


def canonical(data: Any) -> Any:
    """A sparse array as a canonical ``sparse.COO``: row-major order, one entry per position."""
    import sparse

    coo = data.asformat("coo")
    return sparse.COO(coo.coords, coo.data, shape=coo.shape, fill_value=coo.fill_value)


def encode(da: xr.DataArray) -> xr.Dataset:
    """The triplet Dataset of a sparse-backed DataArray (see the module docstring)."""
    values = canonical(da.data)
    variables: dict[str, Any] = {
        "values": (("entry",), values.data),
        "values_index": (("entry", "axis"), np.ascontiguousarray(values.coords.T, np.int64)),
    }
    layout: dict[str, Any] = {
        "name": None if da.name is None else str(da.name),
        "dims": list(da.dims),
        "shape": list(da.shape),
        "dtype": str(values.dtype),
        "fill_value": float(values.fill_value),
        "coords": {},
    }
    coords: dict[str, Any] = {}
    for name, coord in da.coords.items():
        if is_sparse(coord.data):
            stored = canonical(coord.data)
            variables[f"{name}_index"] = (
                (f"{name}_entry", f"{name}_axis"),
                np.ascontiguousarray(stored.coords.T, np.int64),
            )
            if stored.dtype != bool:
                variables[f"{name}_values"] = ((f"{name}_entry",), stored.data)
            layout["coords"][str(name)] = {
                "dims": list(coord.dims),
                "shape": list(coord.shape),
                "dtype": str(stored.dtype),
            }
        else:
            coords[str(name)] = coord.variable
    ds = xr.Dataset(variables, coords=coords, attrs=dict(da.attrs))
    ds.attrs[SPARSE] = json.dumps(layout)
    for name in ("values", *(f"{n}_values" for n in layout["coords"])):
        if name in ds and ds[name].dtype.kind == "f":
            ds[name].encoding["_FillValue"] = None
    return ds


def is_sparse_file(attrs: Any) -> bool:
    return SPARSE in attrs


def decode(ds: xr.Dataset) -> xr.DataArray:
    """The sparse-backed DataArray of a triplet Dataset (loaded into memory)."""
    import sparse

    from spdgraph.errors import FileError

    try:
        layout = json.loads(str(ds.attrs[SPARSE]))
        shape = tuple(int(x) for x in layout["shape"])
        index = np.asarray(ds["values_index"].values, dtype=np.int64).T
        values = sparse.COO(
            index, np.asarray(ds["values"].values), shape=shape,
            fill_value=layout["fill_value"], sorted=True, has_duplicates=False,
        )  # fmt: skip
        coords: dict[str, Any] = {str(name): ds.coords[name].variable for name in ds.coords}
        for name, spec in layout["coords"].items():
            where = np.asarray(ds[f"{name}_index"].values, dtype=np.int64).T
            if spec["dtype"] == "bool":
                stored = np.ones(where.shape[1], dtype=bool)
                fill: Any = False
            else:
                stored = np.asarray(ds[f"{name}_values"].values)
                fill = 0
            coords[name] = (
                tuple(spec["dims"]),
                sparse.COO(
                    where, stored, shape=tuple(spec["shape"]), fill_value=fill,
                    sorted=True, has_duplicates=False,
                ),
            )  # fmt: skip
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise FileError(f"a sparse array's triplets are damaged ({exc}).") from exc
    attrs = {k: v for k, v in ds.attrs.items() if k != SPARSE}
    return xr.DataArray(
        values, dims=tuple(layout["dims"]), coords=coords, name=layout["name"], attrs=attrs
    )


#: The attribute marking a Dataset with sparse variables stored as triplets (JSON:
#: variable name -> layout and digest).
SPARSE_VARIABLES = "spdgraph_sparse_variables"


def has_sparse_variables(ds: xr.Dataset) -> bool:
    """Whether a Dataset holds a sparse-backed variable or coordinate."""
    return any(is_sparse(v.data) for v in ds.variables.values())


def encode_dataset(ds: xr.Dataset) -> xr.Dataset:
    """A Dataset with each sparse variable replaced by its triplets (others as they are).

    Variable ``name`` (a data variable or a coordinate, e.g. ``precision`` and
    ``adjacency`` of ``simulate(..., sparse=True)``) becomes ``name`` over
    ``name_entry`` (its stored values, canonical row-major order) and
    ``name_index`` over ``(name_entry, name_axis)`` (their int64 coordinates);
    the attribute :data:`SPARSE_VARIABLES` records each one's dims, shape, fill
    value, whether it was a coordinate, and the SHA-256 digest of its canonical
    triplets, which :func:`decode_dataset` checks. Memory and file size are
    proportional to the non-zeros. A Dataset without sparse variables is
    returned unchanged.
    """
    from spdgraph.io._digests import _digest

    if not has_sparse_variables(ds):
        return ds
    layout: dict[str, Any] = {}
    out = ds.copy(deep=False)
    for name in [str(n) for n, v in ds.variables.items() if is_sparse(v.data)]:
        variable = ds.variables[name]
        stored = canonical(variable.data)
        layout[name] = {
            "dims": [str(d) for d in variable.dims],
            "shape": [int(x) for x in stored.shape],
            "dtype": str(stored.dtype),
            "fill_value": stored.fill_value.item(),
            "coord": name in ds.coords,
            "digest": _digest(stored),
        }
        out = out.drop_vars(name)
        out[name] = ((f"{name}_entry",), stored.data, dict(variable.attrs))
        out[f"{name}_index"] = (
            (f"{name}_entry", f"{name}_axis"),
            np.ascontiguousarray(stored.coords.T, dtype=np.int64),
        )
        if stored.dtype.kind == "f":
            out[name].encoding["_FillValue"] = None
    out.attrs[SPARSE_VARIABLES] = json.dumps(layout, sort_keys=True)
    return out


def decode_dataset(ds: xr.Dataset, path: str) -> xr.Dataset:
    """The Dataset :func:`encode_dataset` stored, each sparse variable rebuilt and verified.

    Raises
    ------
    spdgraph.errors.FileError
        A triplet array is missing, damaged or changed since it was saved (its
        digest does not match), naming the variable.
    """
    import sparse

    from spdgraph.errors import FileError
    from spdgraph.io._digests import _digest

    try:
        layout = json.loads(str(ds.attrs[SPARSE_VARIABLES]))
    except (KeyError, ValueError) as exc:
        raise FileError(
            f"{path!r}: the attribute {SPARSE_VARIABLES!r} is damaged ({exc})."
        ) from exc
    out = ds.copy(deep=False)
    out.attrs = {k: v for k, v in ds.attrs.items() if k != SPARSE_VARIABLES}
    rebuilt: dict[str, tuple[Any, Any, dict[str, Any]]] = {}
    for name, spec in layout.items():
        try:
            index = np.asarray(ds[f"{name}_index"].values, dtype=np.int64).T
            values = np.asarray(ds[name].values).astype(spec["dtype"], copy=False)
            fill = np.asarray(spec["fill_value"]).astype(spec["dtype"]).item()
            array = sparse.COO(
                index, values, shape=tuple(spec["shape"]), fill_value=fill,
                sorted=True, has_duplicates=False,
            )  # fmt: skip
            intact = _digest(array) == spec["digest"]
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise FileError(
                f"cannot read {path!r}: the triplets of sparse variable {name!r} are "
                f"missing or unreadable ({exc}); the file is damaged. Write it again."
            ) from exc
        if not intact:
            raise FileError(
                f"cannot read {path!r}: sparse variable {name!r} changed since it was saved "
                "(the digest of its triplets does not match); the file is corrupted or was "
                "edited. Write it again."
            )
        rebuilt[name] = (tuple(spec["dims"]), array, dict(ds[name].attrs))
        out = out.drop_vars([name, f"{name}_index"])
    for name, (dims, array, attrs) in rebuilt.items():
        if layout[name]["coord"]:
            out = out.assign_coords({name: (dims, array, attrs)})
        else:
            out[name] = (dims, array, attrs)
    return out
