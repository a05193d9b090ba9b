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
from spdgraph.io._sparse import canonical, is_sparse, plain_values

__all__ = ["DIGESTS", "bad_text", "check_labels", "stamp", "verify"]

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


def _update(sha: Any, values: Any) -> None:
    """Feed a canonical encoding of ``values`` to ``sha`` (no copy of a float64 stack)."""
    if is_sparse(values):  # its canonical triplets: shape, coordinates, values
        coo = canonical(values)
        sha.update(b"sparse" + repr(tuple(coo.shape)).encode())
        _update(sha, coo.coords)
        _update(sha, coo.data)
        return
    array = np.asarray(values)
    sha.update(repr(tuple(array.shape)).encode())
    if array.dtype.kind in "OUST":
        sha.update(b"s")
        for item in array.ravel().tolist():
            data = str(item).encode("utf-8", "surrogatepass")
            sha.update(len(data).to_bytes(8, "little") + data)
        return
    kinds: dict[str, tuple[str, np.dtype[Any]]] = {
        "b": ("b", np.dtype(np.uint8)),
        "i": ("i", np.dtype("<i8")),
        "u": ("i", np.dtype("<i8")),
    }
    tag, dtype = kinds.get(array.dtype.kind, ("f", np.dtype("<f8")))
    if array.dtype.kind not in "biuf":
        sha.update(b"?" + repr(array.tolist()).encode())
        return
    sha.update(tag.encode())
    contiguous = np.ascontiguousarray(array, dtype=dtype)  # no copy when it already is
    sha.update(contiguous if contiguous.size else b"")


def _digest(values: Any) -> str:
    sha = hashlib.sha256()
    _update(sha, values)
    return sha.hexdigest()


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


def stamp(da: xr.DataArray, attrs: Mapping[Any, Any]) -> dict[str, str]:
    """The digests of ``da``'s coordinates, values (when in memory) and ``attrs``."""
    digests = {f"coord {name}": _digest(plain_values(da.coords[name])) for name in da.coords}
    if da.chunks is None:
        digests[f"values {da.name}"] = _digest(plain_values(da))
    digests[ATTRS] = _attrs_digest(attrs)
    return digests


def verify(da: xr.DataArray, path: str, *, values: bool) -> None:
    """Check ``da`` (as opened, attrs restored) against the digests stored in it.

    Coordinates and attrs are always checked; the values only when ``values``
    (they are in memory). A file without digests (written by another tool) is
    not checked.
    """
    text = da.attrs.get(DIGESTS)
    if text is None:
        return
    try:
        digests = json.loads(str(text))
    except ValueError as exc:
        raise FileError(f"{path!r}: the attribute {DIGESTS!r} is damaged ({exc}).") from exc
    for key, expected in digests.items():
        kind, _, name = key.partition(" ")
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
            raise FileError(
                f"cannot read {path!r}: {what} changed since it was saved (its digest does "
                "not match); the file is corrupted or was edited. Write it again."
            )
