"""Digests of every variable of a saved array: values, labels, the graph and the attrs.

:func:`stamp` computes, before a save, a SHA-256 digest of each variable (the
values when they are in memory, every coordinate: labels, ``adjacency``,
``sample``...) and of the provenance attrs, and stores them as one attribute
(:data:`DIGESTS`, JSON). :func:`verify` recomputes them on open and raises a
:class:`FileError` naming the first variable that is missing or changed, so a
flipped bit in the stored graph or labels, a deleted Zarr chunk or an edited
attribute never opens "successfully". Digests are format-independent: they
cover netCDF, Zarr and a plugin's format alike (a format that stores no attrs,
CSV, keeps none). Labels that cannot come back exactly (NUL characters, lone
surrogates, integers beyond 64 bits) are refused here, at save, naming the label.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.io._hashing import (
    _digest,
    block_digest,
    changed,
    check_blocks_now,
    verified_blocks,
)
from spdgraph.io._sparse import is_sparse, plain_values

__all__ = [
    "DIGESTS",
    "bad_text",
    "block_digests",
    "check_labels",
    "dataset_with_digests",
    "read_block_digests",
    "stamp",
    "stamp_dataset",
    "verified_blocks",
    "verify",
    "verify_dataset",
]

#: The attribute holding the digests (JSON: variable name -> SHA-256 hex).
DIGESTS = "spdgraph_digests"
#: The key of the attrs' digest in :data:`DIGESTS`.
ATTRS = "(attrs)"

_INT64 = (-(2**63), 2**63 - 1)


def bad_text(text: str) -> str | None:
    if "\0" in text:
        return "a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate (not valid Unicode)"
    return None


def check_labels(da: xr.DataArray) -> None:
    """Refuse labels files cannot store exactly: NUL, lone surrogates, ints beyond 64 bits."""
    for name in da.coords:
        values = plain_values(da.coords[name])
        if values.dtype.kind not in "OU":
            continue
        for label in values.ravel().tolist():
            if isinstance(label, str) and (why := bad_text(label)) is not None:
                raise InvalidOptionError(
                    f"label {label!r} of coordinate {str(name)!r} holds {why}, which files "
                    "cannot store exactly; relabel the nodes first."
                )
            if isinstance(label, int) and not _INT64[0] <= label <= _INT64[1]:
                raise InvalidOptionError(
                    f"label {label} of coordinate {str(name)!r} does not fit in 64 bits, which "
                    "files cannot store exactly; relabel the nodes (e.g. as strings) first."
                )


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray | list | tuple):
        items = [_plain(x) for x in (value.tolist() if isinstance(value, np.ndarray) else value)]
        return items[0] if len(items) == 1 else items
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    return value


def _attrs_digest(attrs: Mapping[Any, Any]) -> str:
    plain = {str(k): _plain(v) for k, v in attrs.items() if k != DIGESTS}
    text = json.dumps(plain, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


#: Values are also digested in blocks of about this many bytes along their first dim,
#: so that a lazy open (``chunks=``) checks each block as it is read.
BLOCK_BYTES = 4 * 2**20


def block_rows(shape: tuple[int, ...], itemsize: int) -> int:
    """Rows (along the first dim) per digest block of an array of ``shape``."""
    per_row = max(1, math.prod(shape[1:]) * max(1, itemsize))
    return max(1, BLOCK_BYTES // per_row)


def block_digests(values: Any) -> dict[str, Any] | None:
    """``{"rows": r, "sha": [...]}``: digests of ``values`` in blocks of ``r`` first-dim rows."""
    array = np.asarray(values)
    if array.ndim == 0 or array.dtype.kind not in "biuf":
        return None
    rows = block_rows(array.shape, array.dtype.itemsize)
    sha = [block_digest(array[i : i + rows]) for i in range(0, array.shape[0], rows)]
    return {"rows": rows, "sha": sha}


def read_block_digests(da: xr.DataArray) -> dict[str, Any] | None:
    """:func:`block_digests` of ``da``'s values read one block at a time (never all at once).

    ``da`` is a freshly written array whose values are still on disk (or dask):
    each block of :func:`block_rows` first-dim rows is read, digested and let go,
    so the memory used is one block whatever the array's size.
    """
    if da.ndim == 0 or da.dtype.kind not in "biuf":
        return None
    rows = block_rows(tuple(da.shape), da.dtype.itemsize)
    first = da.dims[0]
    sha = [
        block_digest(np.asarray(da.isel({first: slice(i, i + rows)}).values))
        for i in range(0, da.shape[0], rows)
    ]
    return {"rows": rows, "sha": sha}


def stamp(da: xr.DataArray, attrs: Mapping[Any, Any]) -> dict[str, Any]:
    """The digests of ``da``'s coordinates, values (when in memory) and ``attrs``.

    A dask-backed ``da`` gets no values digest here: its block digests are
    computed from what was written, one block at a time, and added to the
    written file before it is renamed into place (:func:`read_block_digests`).
    """
    digests: dict[str, Any] = {
        f"coord {name}": _digest(plain_values(da.coords[name])) for name in da.coords
    }
    if da.chunks is None:
        values = plain_values(da)
        digests[f"values {da.name}"] = _digest(values)
        if not is_sparse(values) and (blocks := block_digests(values)) is not None:
            digests[f"blocks {da.name}"] = blocks
    digests[ATTRS] = _attrs_digest(attrs)
    return digests


#: An attribute every array and Dataset spdgraph makes carries (its provenance).
PROVENANCE = "spdgraph_version"


def _load_digests(attrs: Mapping[Any, Any], path: str, required: bool) -> dict[str, Any] | None:
    text = attrs.get(DIGESTS)
    if text is None:
        if required and PROVENANCE in attrs:
            raise FileError(
                f"cannot read {path!r}: it was written by spdgraph (it has the attribute "
                f"{PROVENANCE!r}) but its digests ({DIGESTS!r}) were removed, so a change to "
                "it cannot be detected. Write it again, or open it unchecked with "
                "verify=False (--no-verify) if you trust it."
            )
        return None
    try:
        digests = json.loads(str(text))
    except ValueError as exc:
        raise FileError(f"{path!r}: the attribute {DIGESTS!r} is damaged ({exc}).") from exc
    if not isinstance(digests, dict):
        raise FileError(f"{path!r}: the attribute {DIGESTS!r} is damaged (not a table).")
    return digests


def verify(da: xr.DataArray, path: str, *, values: bool, required: bool = False) -> xr.DataArray:
    """Check ``da`` (as opened, attrs restored) against the digests stored in it.

    Coordinates and attrs are always checked; the values when ``values`` (they
    are in memory), else, for a dask-backed ``da``, block by block as they are
    read (the returned array). A file without digests written by another tool
    is not checked; one written by spdgraph (it has :data:`PROVENANCE`) is
    refused when ``required``.
    """
    digests = _load_digests(da.attrs, path, required)
    if digests is None:
        return da
    for key, expected in digests.items():
        kind, _, name = key.partition(" ")
        if kind == "blocks" and not values and da.chunks is not None and name == str(da.name):
            da = da.copy(data=verified_blocks(da.data, expected, path, f"variable {name!r}"))
            continue
        if kind == "blocks" and values and f"values {name}" not in digests:
            # written lazily: its values are digested in blocks only; check them all now
            check_blocks_now(plain_values(da), expected, path, f"variable {name!r}")
            continue
        if key == ATTRS:
            actual = _attrs_digest(da.attrs)
            what = "the provenance attributes"
        elif kind == "coord":
            if name not in da.coords:
                raise FileError(
                    f"cannot read {path!r}: its variable {name!r} (a coordinate) is missing; "
                    "the file is damaged. Write it again."
                )
            actual, what = _digest(plain_values(da.coords[name])), f"variable {name!r}"
        elif kind == "values":
            if not values:
                continue
            actual, what = _digest(plain_values(da)), f"variable {name!r} (the values)"
        else:
            continue
        if actual != expected:
            raise changed(path, what)
    return da


def stamp_dataset(ds: xr.Dataset) -> dict[str, Any]:
    """The digests of a Dataset (a simulation): every variable's values, blocks, the attrs.

    A dask-backed variable is not computed here: its block digests are made
    as its blocks are written (:mod:`spdgraph.io._blocks`) and added to the
    file before it is renamed into place.
    """
    digests: dict[str, Any] = {}
    for name, variable in ds.variables.items():
        kind = "coord" if name in ds.coords else "values"
        if variable.chunks is not None and kind == "values":
            continue  # lazy: digested block by block as written
        values = plain_values(variable)  # a sparse variable: its triplets, never densified
        digests[f"{kind} {name}"] = _digest(values)
        if is_sparse(values):
            continue
        if kind == "values" and (blocks := block_digests(values)) is not None:
            digests[f"blocks {name}"] = blocks
    digests[ATTRS] = _attrs_digest(ds.attrs)
    return digests


def verify_dataset(
    ds: xr.Dataset, path: str, *, values: bool, required: bool = False
) -> xr.Dataset:
    """Check an opened Dataset against its digests; a lazy one block by block as read.

    ``values=False`` checks the coordinates (labels, ``adjacency`` when it is
    one) and attrs only, and wraps each dask-backed data variable so that its
    blocks are checked as they are read; ``values=True`` checks everything now.
    A variable that is missing, or changed, raises :class:`FileError`; so does a
    Dataset spdgraph wrote whose digests were removed, when ``required``.
    """
    digests = _load_digests(ds.attrs, path, required)
    if digests is None:
        return ds
    out = ds
    for key, expected in digests.items():
        kind, _, name = key.partition(" ")
        if key == ATTRS:
            if _attrs_digest(ds.attrs) != expected:
                raise changed(path, "the provenance attributes")
            continue
        if kind not in ("coord", "values", "blocks"):
            continue
        if name not in ds.variables:
            raise FileError(
                f"cannot read {path!r}: its variable {name!r} is missing; the file is damaged. "
                "Write it again."
            )
        variable = ds.variables[name]
        lazy = variable.chunks is not None
        if kind == "blocks":
            if lazy and not values:
                data = verified_blocks(variable.data, expected, path, f"variable {name!r}")
                out = out.assign({name: variable.copy(data=data)})
            elif values and f"values {name}" not in digests:  # written lazily: blocks only
                check_blocks_now(plain_values(variable), expected, path, f"variable {name!r}")
            continue
        if kind == "values" and not values and (lazy or name not in ds.coords):
            if lazy or not isinstance(variable.data, np.ndarray):
                continue  # on disk: checked block by block (lazy) or when loaded
        if _digest(plain_values(variable)) != expected:
            raise changed(path, f"variable {name!r}")
    return out


def dataset_with_digests(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` carrying its digests (:data:`DIGESTS`), checked storable.

    Every variable's values (whole, and in blocks along the first dim for a
    lazy open), every coordinate and the attrs; labels that files cannot hold
    exactly (NUL characters, lone surrogates, integers beyond 64 bits) are
    refused first (:class:`InvalidOptionError` naming the label).
    """
    for name in ds.variables:
        check_labels(ds[name])
    out = ds.copy(deep=False)
    out.attrs = {k: v for k, v in ds.attrs.items() if k != DIGESTS}
    out.attrs[DIGESTS] = json.dumps(stamp_dataset(out))
    return out
