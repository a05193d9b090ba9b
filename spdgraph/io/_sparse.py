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
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.layout import is_sparse

__all__ = [
    "SPARSE",
    "canonical",
    "checked_triplets",
    "decode",
    "encode",
    "is_sparse",
    "is_sparse_file",
    "plain_values",
]

#: The attribute marking a stored sparse DataArray (its layout, JSON).
SPARSE = "spdgraph_sparse"


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


def checked_triplets(index: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``index`` (``ndim x nnz`` int64) verified as canonical triplets of ``shape``: in
    range, non-negative, in strictly increasing row-major order (sorted, no duplicate),
    as :func:`encode` writes them; a FileError naming ``what`` otherwise. O(nnz)."""
    from spdgraph.errors import FileError

    if index.ndim != 2 or index.shape[0] != len(shape):
        raise FileError(
            f"{what}: the stored indices have shape {index.shape}, not ({len(shape)}, entries)."
        )
    if index.size and int(index.min()) < 0:
        raise FileError(f"{what}: a stored index is negative; the file is damaged.")
    bounds = np.asarray(shape, dtype=np.int64)[:, None]
    if index.size and bool((index >= bounds).any()):
        raise FileError(
            f"{what}: a stored index lies outside the shape {shape}; the file is damaged."
        )
    if index.shape[1] > 1:
        linear = np.ravel_multi_index(tuple(index), shape)
        if not bool((np.diff(linear) > 0).all()):
            raise FileError(
                f"{what}: the stored entries are not in their canonical (row-major, one per "
                "position) order, which the file claims; the file is damaged or was edited."
            )
    return index


def decode(ds: xr.Dataset) -> xr.DataArray:
    """The sparse-backed DataArray of a triplet Dataset (loaded into memory)."""
    import sparse

    from spdgraph.errors import FileError

    try:
        layout = json.loads(str(ds.attrs[SPARSE]))
        shape = tuple(int(x) for x in layout["shape"])
        index = checked_triplets(
            np.asarray(ds["values_index"].values, dtype=np.int64).T, shape, "the values"
        )
        values = sparse.COO(
            index, np.asarray(ds["values"].values), shape=shape,
            fill_value=layout["fill_value"], sorted=True, has_duplicates=False,
        )  # fmt: skip
        coords: dict[str, Any] = {str(name): ds.coords[name].variable for name in ds.coords}
        for name, spec in layout["coords"].items():
            where = checked_triplets(
                np.asarray(ds[f"{name}_index"].values, dtype=np.int64).T,
                tuple(int(x) for x in spec["shape"]),
                f"the coordinate {name!r}",
            )
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
