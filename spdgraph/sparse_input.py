"""Sparse adjacency inputs checked before any work: shape, size, then the raw arrays.

Every graph backend that takes a sparse matrix (scipy.sparse in any format,
PyData ``sparse`` arrays, a ``.npz`` graph file) calls :func:`check_sparse_input`
(or, for arrays read from a file, :func:`check_sparse_arrays`) before it
converts anything: a malformed matrix is a :class:`~spdgraph.GraphError` naming
the culprit entry, a node count this machine cannot hold a
:class:`~spdgraph.TooLargeError` estimated from the declared shape, both in
time O(p + nnz) and without building scipy's canonical form (whose own checks
allocate by the shape or raise raw errors).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import GraphError, TooLargeError, written
from spdgraph.vocabulary import MAX_COUNT

__all__ = [
    "SPARSE_BYTES_PER_ENTRY",
    "SPARSE_BYTES_PER_NODE",
    "as_scipy",
    "check_sparse_arrays",
    "check_sparse_input",
    "declared_nodes",
]


#: Peak bytes of the sparse canonical form per node (the ``indptr`` copies in
#: int64) and per stored entry (indices, values and their int64/float64 copies).
SPARSE_BYTES_PER_NODE = 32
SPARSE_BYTES_PER_ENTRY = 48


def check_sparse_input(matrix: object, what: str, *, dense: bool = False) -> int:
    """Check a scipy.sparse or PyData sparse adjacency before anything is converted; its ``p``.

    The one check every backend taking a sparse matrix runs first: the
    declared shape (2-D, square, non-empty), the memory the next step needs
    estimated from it (``dense``: the ``p x p`` arrays of a dense read, else
    the sparse canonical form), then the raw arrays in time O(p + nnz) with
    numpy (:func:`check_sparse_arrays`), never through scipy's own checks
    (which allocate by the shape or raise raw errors).

    Raises
    ------
    spdgraph.GraphError
        A malformed matrix (not square, an index out of range or negative, an
        ``indptr`` that does not start at 0, decreases or does not end at the
        number of stored entries, a non-finite, complex or non-numeric value).
    spdgraph.TooLargeError
        Its node count needs more memory than is available (or than any
        machine has), said with the amount and what to do.

    Examples
    --------
    >>> import scipy.sparse
    >>> check_sparse_input(scipy.sparse.eye(3, format="csr"), "a graph")
    3
    >>> indices, indptr = np.array([-3, 0]), np.array([0, 1, 2])
    >>> bad = scipy.sparse.csr_array((np.ones(2), indices, indptr), shape=(2, 2))
    >>> try:
    ...     check_sparse_input(bad, "the graph")
    ... except GraphError as error:
    ...     print(str(error).split(";")[0])
    the graph has the negative column index -3 (stored entry 0, in row 0)
    """
    p = declared_nodes(getattr(matrix, "shape", None), what)
    layout, parts = _raw_parts(matrix, what)
    data = np.asarray(parts.pop("data"))
    check_sparse_arrays(layout, (p, p), data, what, dense=dense, **parts)
    fill = getattr(matrix, "fill_value", 0)
    if not np.isfinite(fill) or (fill != 0 and not dense):
        raise GraphError(
            f"{what} has fill_value {written(fill)}: every entry it does not store would be "
            f"{'an edge' if np.isfinite(fill) else 'undefined'}; store the edges and make it "
            "sparse with fill_value=0."
        )
    return p


def declared_nodes(declared: object, what: str) -> int:
    """The node count of a declared shape (Python ints): 2-D, square, at least one node.

    Examples
    --------
    >>> declared_nodes((3, 3), "a graph")
    3
    """
    try:
        shape = tuple(int(np.asarray(x).item()) for x in declared)  # type: ignore[attr-defined]
    except (TypeError, ValueError, OverflowError):
        shape = ()
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 0:
        raise GraphError(
            f"{what} must be a square 2-D matrix, got shape {written(declared)}; pass a p x p "
            "adjacency."
        )
    if shape[0] == 0:
        raise GraphError(f"{what} has no nodes; a graph needs at least one node.")
    return shape[0]


def _raw_parts(matrix: object, what: str) -> tuple[str, dict[str, Any]]:
    """``(layout, arrays)``: the stored arrays of a scipy.sparse or PyData matrix, as they are."""
    m: Any = matrix
    fmt = str(getattr(m, "format", "")).lower()
    if fmt in ("csr", "csc", "bsr", "gcxs"):
        blocks = tuple(getattr(m, "blocksize", (1, 1)))
        axes = tuple(getattr(m, "compressed_axes", (0 if fmt != "csc" else 1,)))
        layout = "csc" if axes == (1,) else "csr"
        arrays = {"indptr": m.indptr, "indices": m.indices, "blocksize": blocks}
        return layout, {"data": m.data, **arrays}
    if fmt == "coo" and hasattr(m, "coords"):
        return "coo", {"data": m.data, "coords": tuple(np.asarray(m.coords))}
    if fmt == "coo":
        return "coo", {"data": m.data, "coords": (m.row, m.col)}
    if fmt == "dok" and isinstance(getattr(m, "data", None), dict):  # PyData DOK
        return "stored", {"data": np.asarray(list(m.data.values()))}
    if hasattr(m, "tocoo") and fmt in ("dia", "lil", "dok"):  # scipy checks what they store
        return "stored", {"data": m.tocoo().data}
    raise GraphError(
        f"{what} is in the sparse format {fmt!r}, which spdgraph does not read; convert it "
        "with .tocsr() first."
    )


def _check_room(p: int, nnz: int, itemsize: int, what: str, *, dense: bool) -> None:
    """Refuse a node count whose next step cannot fit, from the shape alone (no allocation)."""
    from spdgraph._machine import available_memory

    if p > MAX_COUNT:
        raise TooLargeError(
            f"{what} declares {written(p)} nodes, beyond any machine's memory; use fewer nodes."
        )
    if dense:
        need = float(p) * p * (2 * itemsize + 4)  # the dense values, a copy, boolean masks
        form, fix = f"read densely as {p:,} x {p:,} arrays", "pass sparse=True (method 'dd'),"
    else:
        need = SPARSE_BYTES_PER_NODE * float(p + 1) + SPARSE_BYTES_PER_ENTRY * float(nnz)
        form, fix = f"in sparse form ({p:,} nodes, {nnz:,} stored entries)", "check its shape,"
    available = available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{what} {form} needs about {need / 2**30:,.1f} GiB, more than the "
            f"{available / 2**30:,.1f} GiB of memory available; {fix} or use a graph with "
            "fewer nodes."
        )


def check_sparse_arrays(
    layout: str,
    shape: tuple[int, int],
    data: np.ndarray,
    what: str,
    *,
    indptr: object = None,
    indices: object = None,
    coords: tuple[object, ...] = (),
    blocksize: tuple[int, ...] = (1, 1),
    dense: bool = False,
) -> None:
    """Check a sparse matrix's raw arrays in O(p + nnz), before scipy reads them.

    ``layout`` is ``"csr"``/``"csc"`` (``indptr``, ``indices``, optional
    ``blocksize`` for BSR), ``"coo"`` (``coords``: rows and columns) or
    ``"stored"`` (values only: a layout whose library checked its indices).
    ``shape`` is the declared one (checked by :func:`declared_nodes`); the
    memory the next step needs (``dense``: a dense read) is checked against
    it before the arrays. What :func:`check_sparse_input` and the ``.npz``
    reader run.

    Examples
    --------
    >>> try:
    ...     check_sparse_arrays(
    ...         "csr", (3, 3), np.ones(1), "the graph",
    ...         indptr=np.array([0, 2, 1, 1]), indices=np.array([1]),
    ...     )
    ... except GraphError as error:
    ...     print(str(error).split(";")[0])
    the graph has an indptr that decreases at row 1 (indptr[1] = 2 > indptr[2] = 1)
    """
    p = declared_nodes(shape, what)
    shape = (p, p)
    _check_room(p, data.size, data.dtype.itemsize, what, dense=dense)
    if layout in ("csr", "csc"):
        _check_compressed(layout, shape, data, what, indptr, indices, blocksize)
    elif layout == "coo":
        if len(coords) != 2:
            raise GraphError(f"{what} stores {len(coords)} coordinate arrays; a matrix has 2.")
        for name, values in zip(("row", "column"), coords, strict=True):
            _check_indices(np.asarray(values), name, shape[0], data.size, what)
    _check_values(data, what)


def _check_compressed(
    layout: str,
    shape: tuple[int, int],
    data: np.ndarray,
    what: str,
    indptr: object,
    indices: object,
    blocksize: tuple[int, ...],
) -> None:
    """``indptr``: ``n + 1`` offsets from 0 to the stored count, never down; indices in range."""
    line, other = ("row", "column") if layout == "csr" else ("column", "row")
    rows, cols = (int(b) for b in blocksize) if len(blocksize) == 2 else (0, 0)
    if rows < 1 or cols < 1 or shape[0] % rows or shape[1] % cols:
        raise GraphError(f"{what} has blocks of {blocksize}, which do not tile {shape}.")
    n_lines, n_other = (shape[0] // rows, shape[1] // cols)
    if layout == "csc":
        n_lines, n_other = shape[1] // cols, shape[0] // rows
    ptr = np.asarray(indptr)
    if ptr.ndim != 1 or ptr.dtype.kind not in "iu":
        raise GraphError(
            f"{what} has an indptr of dtype {ptr.dtype}, shape {ptr.shape}; "
            "it must be a 1-D integer array."
        )
    stored = np.asarray(indices).size
    if ptr.size != n_lines + 1 or ptr[0] != 0 or ptr[-1] != stored:
        raise GraphError(
            f"{what} has an indptr of {ptr.size:,} entries from {_end(ptr, 0)} to "
            f"{_end(ptr, -1)}; for {n_lines:,} {line}s and {stored:,} "
            f"stored entries it must have {n_lines + 1:,} entries from 0 to {stored:,}."
        )
    down = np.flatnonzero(ptr[1:] < ptr[:-1])
    if down.size:
        k = int(down[0])
        raise GraphError(
            f"{what} has an indptr that decreases at {line} {k} (indptr[{k}] = "
            f"{written(ptr[k])} > indptr[{k + 1}] = {written(ptr[k + 1])}); the offsets must "
            "not decrease."
        )
    blocks = max(1, rows * cols)
    if data.size != stored * blocks:
        raise GraphError(
            f"{what} stores {data.size:,} values for {stored:,} indices; they must match."
        )
    _check_indices(np.asarray(indices), other, n_other, stored, what, ptr, line)


def _end(ptr: np.ndarray, k: int) -> str:
    return written(ptr[k]) if ptr.size else "nothing"


def _check_indices(
    index: np.ndarray,
    name: str,
    bound: int,
    stored: int,
    what: str,
    ptr: np.ndarray | None = None,
    line: str = "",
) -> None:
    """``index`` holds ``stored`` integers in ``[0, bound)``; the first culprit named."""
    if index.ndim != 1 or index.dtype.kind not in "iu" or index.size != stored:
        raise GraphError(
            f"{what} has {name} indices of dtype {index.dtype}, shape {index.shape}; they must "
            f"be {stored:,} integers, one per stored entry."
        )
    if not index.size:
        return
    low, high = index.min(), index.max()
    if low >= 0 and high < bound:
        return
    k = int(np.argmin(index) if low < 0 else np.argmax(index))
    where = f"stored entry {k}"
    if ptr is not None:
        where += f", in {line} {int(np.searchsorted(ptr, k, side='right')) - 1}"
    problem = f"the negative {name} index" if low < 0 else f"the {name} index"
    raise GraphError(
        f"{what} has {problem} {written(index[k])} ({where}); indices must be in [0, {bound:,}) "
        "for its shape. Rebuild the matrix from valid indices (or fix its shape)."
    )


def _check_values(data: np.ndarray, what: str) -> None:
    """Real numbers or booleans, finite: whether each is zero decides an edge."""
    if np.iscomplexobj(data):
        raise GraphError(f"{what} is complex; use a real or boolean matrix.")
    if not (data.dtype == bool or np.issubdtype(data.dtype, np.number)):
        raise GraphError(f"{what} has dtype {data.dtype}; use a numeric or boolean matrix.")
    if data.dtype != bool:
        bad = np.flatnonzero(~np.isfinite(data.reshape(-1)))
        if bad.size:
            raise GraphError(
                f"{what} holds a non-finite value ({written(data.reshape(-1)[bad[0]])} at stored "
                f"entry {int(bad[0])}); replace NaN/inf by 0 (no edge) or 1 (edge)."
            )


def as_scipy(matrix: object) -> object:
    """A checked matrix as scipy.sparse: PyData arrays converted, scipy's as they are."""
    if hasattr(matrix, "to_scipy_sparse"):
        return matrix.to_scipy_sparse()
    if str(getattr(matrix, "format", "")) == "dok" and isinstance(
        getattr(matrix, "data", None), dict
    ):
        import sparse  # a PyData DOK: through its COO

        return sparse.COO(matrix).to_scipy_sparse()
    return matrix
