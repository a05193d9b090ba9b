"""A learner's output, checked before it is read: its result file and its values.

:func:`read_result` opens a command learner's result without following a
link, only as a regular file no larger than a p x p matrix takes in its
format (:data:`CSV_BYTES_PER_VALUE` per CSV value; a ``.npy``'s header is
read first and its declared shape checked against p and the file's size):
a result linked to ``/dev/zero``, a FIFO or a 12 GB file is refused by name,
never read. :func:`check_finite` names the entries that are NaN or infinite.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.errors import FileError
from spdgraph.study._contain import LearnerFailure
from spdgraph.study._guard import open_regular

__all__ = ["CSV_BYTES_PER_VALUE", "MAX_DRAWS_BYTES", "check_finite", "read_result"]

#: Largest CSV result per value (``%.17g`` needs at most 24 characters plus a separator).
CSV_BYTES_PER_VALUE = 64
#: Largest ``.npy`` of posterior draws (``(draws, p, p)``) a command learner may write.
MAX_DRAWS_BYTES = 2**31


def _open_regular(path: Path, limit: int) -> int:
    """A descriptor on ``path``, a regular file (no link followed) of at most ``limit`` bytes."""
    try:
        fd = open_regular(path, os.O_RDONLY, "result")
    except FileError as exc:
        if isinstance(exc.__cause__, FileNotFoundError):
            raise LearnerFailure(f"it exited 0 but wrote no result at {path.name}") from None
        raise LearnerFailure(str(exc).replace(f"{str(path)!r}", path.name)) from None
    size = os.fstat(fd).st_size
    if size > limit:
        os.close(fd)
        raise LearnerFailure(
            f"its result {path.name} has {size:,} bytes, more than the {limit:,} a "
            "matrix of this size takes in that format"
        )
    return fd


def _read_npy(handle: Any, p: int, name: str) -> np.ndarray:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(handle)
        header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, fortran, dtype = header(handle)
    except ValueError as exc:
        raise LearnerFailure(f"cannot read the result {name}: {exc}") from None
    if dtype.kind in "USO":
        raise LearnerFailure(f"the result {name} holds text or objects ({dtype}), not numbers")
    if dtype.kind not in "biuf":
        raise LearnerFailure(f"the result {name} holds {dtype} values, not real numbers")
    if shape != (p, p) and not (len(shape) == 3 and shape[1:] == (p, p)):
        raise LearnerFailure(
            f"the result {name} has shape {shape}; expected ({p}, {p}) (or draws (k, {p}, {p}))"
        )
    count = int(np.prod(shape))
    left = os.fstat(handle.fileno()).st_size - handle.tell()
    if count * dtype.itemsize > left:  # declared bigger than the file: never allocated
        raise LearnerFailure(
            f"the result {name} declares shape {shape} but holds only {left:,} bytes of data"
        )
    values = np.fromfile(handle, dtype=dtype, count=count)
    if values.size != count:
        raise LearnerFailure(f"the result {name} is truncated ({values.size} of {count} values)")
    return values.reshape(shape, order="F" if fortran else "C").astype(float)


def read_result(path: Path, p: int) -> np.ndarray:
    """A learner's result (CSV or ``.npy``), checked before it is read; LearnerFailure else."""
    npy = path.suffix == ".npy"
    limit = MAX_DRAWS_BYTES + 65536 if npy else p * p * CSV_BYTES_PER_VALUE + 65536
    fd = _open_regular(path, limit)
    with os.fdopen(fd, "rb") as handle:
        if npy:
            return _read_npy(handle, p, path.name)
        try:
            values = np.loadtxt(handle, delimiter=",", ndmin=2)
        except ValueError as exc:
            text = "holds text, not numbers" if "convert" in str(exc) else "cannot be read"
            raise LearnerFailure(f"the result {path.name} {text} ({exc})") from None
    if values.shape != (p, p):
        raise LearnerFailure(
            f"the result {path.name} has shape {values.shape}; expected ({p}, {p})"
        )
    return values


def check_finite(values: np.ndarray, learner: str) -> np.ndarray:
    """``values`` when every entry is finite, else a LearnerFailure naming the bad entries."""
    bad = ~np.isfinite(values)
    if not bad.any():
        return values
    where = np.argwhere(bad)
    shown = ", ".join(str(tuple(int(i) for i in row)) for row in where[:5])
    kinds = sorted({"NaN" if np.isnan(v) else "infinite" for v in values[bad][:1000]})
    raise LearnerFailure(
        f"{learner} returned {' and '.join(kinds)} values at {len(where):,} of {values.size:,} "
        f"entries (first: {shown}); a learner must return finite numbers"
    )
