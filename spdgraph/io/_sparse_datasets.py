"""Datasets with sparse variables in files (``simulate(..., sparse=True)``): verified triplets.

:func:`encode_dataset` is what the netCDF and Zarr ``save_dataset`` write, and
:func:`decode_dataset` what :func:`spdgraph.io.open_simulation` reads back: each
sparse variable as its canonical triplets (as :mod:`spdgraph.io._sparse` stores a
single sparse array) with the SHA-256 digest of :mod:`spdgraph.io._digests`.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.io._digests import _digest
from spdgraph.io._sparse import canonical, checked_triplets, is_sparse

__all__ = ["SPARSE_VARIABLES", "decode_dataset", "encode_dataset", "has_sparse_variables"]


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
            shape = tuple(int(x) for x in spec["shape"])
            index = checked_triplets(
                np.asarray(ds[f"{name}_index"].values, dtype=np.int64).T,
                shape,
                f"cannot read {path!r}: sparse variable {name!r}",
            )
            values = np.asarray(ds[name].values).astype(spec["dtype"], copy=False)
            fill = np.asarray(spec["fill_value"]).astype(spec["dtype"]).item()
            array = sparse.COO(
                index, values, shape=shape, fill_value=fill,
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
