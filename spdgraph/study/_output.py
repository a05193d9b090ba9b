"""A learner's output, checked before it is read: its result file and its values.

:func:`read_result` opens a command learner's result without following a
link, only as a regular file no larger than a p x p matrix takes in its
format (:data:`CSV_BYTES_PER_VALUE` per CSV value; a ``.npy``'s header is
read first and its declared shape checked against p and the file's size):
a result linked to ``/dev/zero``, a FIFO or a 12 GB file is refused by name,
never read. :func:`check_finite` names the entries that are NaN or infinite.

A learner may return a sparse result (:func:`sparse_result`: a scipy.sparse
array; an edge list, :func:`edge_list`, from a command's ``{out}.edges`` or an
R two-column matrix). A dense one at a size whose ``p x p`` float64 array does
not fit in :func:`dense_budget` is refused with the learner's and the cell's
names by :func:`refuse_dense`, on its declared shape, before it is read or built.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.errors import FileError
from spdgraph.study._contain import LearnerFailure, current
from spdgraph.study._guard import open_regular

__all__ = [
    "CSV_BYTES_PER_VALUE",
    "MAX_DRAWS_BYTES",
    "check_finite",
    "dense_budget",
    "edge_list",
    "is_scipy_sparse",
    "read_result",
    "refuse_dense",
    "sparse_pcor",
    "sparse_result",
]

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
    refuse_dense(f"the result {name}", shape)
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


def read_result(path: Path, p: int) -> Any:
    """A learner's result (CSV, ``.npy`` or an ``.edges`` list), checked before it is read
    (a dense one refused by :func:`refuse_dense` first); LearnerFailure else."""
    npy = path.suffix == ".npy"
    if path.suffix == ".edges":
        budget = dense_budget()
        fd = _open_regular(path, (budget or 2**62) + 65536)
        with os.fdopen(fd, "rb") as handle:
            text = handle.read().decode("utf-8", "replace").replace(",", " ")
        try:
            pairs = np.loadtxt(text.splitlines(), ndmin=2) if text.strip() else np.zeros((0, 2))
        except ValueError as exc:
            raise LearnerFailure(f"the edge list {path.name} cannot be read ({exc})") from None
        return edge_list(pairs, p, path.name, base=0)
    if not npy:
        refuse_dense(f"the result {path.name}", (p, p))
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


def dense_budget() -> int | None:
    """Bytes a learner's dense result may take in a cell: half the available memory
    (None when the machine does not say)."""
    from spdgraph._machine import available_memory

    free = available_memory()
    return None if free is None else free // 2


def refuse_dense(learner: str, shape: tuple[int, ...]) -> None:
    """A LearnerFailure naming ``learner`` and the cell when a dense float64 array of
    ``shape`` would exceed :func:`dense_budget`; nothing else (checked on the shape only)."""
    budget = dense_budget()
    need = 8 * math.prod(int(n) for n in shape)
    if budget is None or need <= budget:
        return
    raise LearnerFailure(
        f"{learner} gives a dense {' x '.join(f'{int(n):,}' for n in shape)} result in cell "
        f"{current().cell or '(outside a study)'}: {need:,} bytes as float64, more than the "
        f"{budget:,} a cell may hold; return a sparse result instead (a scipy.sparse array; "
        "for R a Matrix sparse matrix or a two-column edge list; for a command an edge list, "
        "{out}.edges)"
    )


def is_scipy_sparse(value: object) -> bool:
    """Whether ``value`` is a scipy.sparse array or matrix (without importing scipy)."""
    import sys

    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(value))


def sparse_result(value: Any, p: int, learner: str) -> Any:
    """A learner's scipy.sparse result as a float64 ``csr_array``: shape ``(p, p)``, finite
    stored values, no explicit zero kept; LearnerFailure naming the learner else."""
    from scipy import sparse

    if value.ndim != 2 or value.shape != (p, p):
        raise LearnerFailure(f"{learner} returned a sparse {value.shape}; expected ({p}, {p})")
    out = sparse.csr_array(value, dtype=float)
    out.sum_duplicates()
    check_finite(out.data, learner)
    out.eliminate_zeros()
    return out


def edge_list(pairs: np.ndarray, p: int, name: str, base: int = 0) -> Any:
    """An edge list (``k x 2`` node indices counted from ``base``, or ``k x 3`` with a
    score) as a symmetric ``csr_array`` (a selection of 1s, or the scores); LearnerFailure
    on indices out of range or a wrong number of columns."""
    from scipy import sparse

    if pairs.ndim != 2 or pairs.shape[1] not in (2, 3):
        raise LearnerFailure(
            f"the edge list {name} has {pairs.shape[-1]} columns; expected 2 (i j) or 3 "
            "(i j score)"
        )
    check_finite(pairs, name)
    index = pairs[:, :2] - base
    if index.size and (np.any(index != np.round(index)) or index.min() < 0 or index.max() >= p):
        raise LearnerFailure(
            f"the edge list {name} names nodes outside {base}..{p - 1 + base} (or not "
            "integers): node indices count from "
            f"{base}"
        )
    i, j = index.astype(np.int64).T
    score = pairs[:, 2] if pairs.shape[1] == 3 else np.ones(len(i))
    keep = i != j  # a pair listed twice (i j and j i) counts once, its first score
    low, high = np.minimum(i, j)[keep], np.maximum(i, j)[keep]
    _, first = np.unique(low * p + high, return_index=True)
    upper = sparse.coo_array((score[keep][first], (low[first], high[first])), shape=(p, p))
    return sparse.csr_array(upper + upper.T)


def sparse_pcor(precision: Any, learner: str) -> Any:
    """Partial correlations of a sparse precision on its stored entries (unit diagonal)."""
    coo = precision.tocoo()
    diagonal = precision.diagonal()
    if np.any(diagonal <= 0):
        raise LearnerFailure(f"{learner} returned a precision without a positive diagonal")
    scale = np.sqrt(diagonal[coo.row] * diagonal[coo.col])
    coo.data = np.where(coo.row == coo.col, 1.0, -coo.data / scale)
    return coo.tocsr()
