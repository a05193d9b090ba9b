"""Helpers that turn array-like adjacency matrices into canonical form.

Adapter plugins use :func:`adjacency_from_array` so that every array-like input
(numpy, scipy.sparse, pandas, xarray, third-party) follows the same rules:

* any non-zero entry off the diagonal is an edge (weights are allowed);
* the diagonal is ignored (self-loops never change a graph matrix's pattern);
* the array must be square, 2-D, real, finite and exactly symmetric;
* a float array with no zero off its diagonal and values other than 1 (a
  covariance or precision matrix, e.g. ``np.cov(X)``) is refused: as a graph it
  is the complete graph, which is rarely what was meant. ``spdgraph.sample(...,
  complete=True)`` takes it as the complete graph (:func:`accepting_complete`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from spdgraph.errors import GraphError, written
from spdgraph.sparse_input import as_scipy, check_sparse_input

__all__ = [
    "accepting_complete",
    "adjacency_from_array",
    "sparse_adjacency_from_matrix",
]

#: Whether a dense weighted array is taken as the complete graph (``complete=True``).
_COMPLETE: ContextVar[bool] = ContextVar("spdgraph_accept_complete", default=False)


@contextmanager
def accepting_complete(accept: bool = True) -> Iterator[None]:
    """Within the block, a dense weighted array is the complete graph it encodes.

    What ``spdgraph.sample(..., complete=True)`` and
    ``spdgraph.adapt_graph(..., complete=True)`` do around the graph backend's
    ``to_graph``, so that every array backend (a plugin's too) honours it
    through :func:`adjacency_from_array`.

    Examples
    --------
    >>> cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> with accepting_complete():
    ...     adjacency_from_array(cov).astype(int).tolist()
    [[0, 1], [1, 0]]
    """
    token = _COMPLETE.set(accept)
    try:
        yield
    finally:
        _COMPLETE.reset(token)


def _refuse_complete(a: np.ndarray, what: str) -> None:
    """A float array without a zero off its diagonal, not 0/1: a matrix, not an adjacency."""
    p = a.shape[0]
    if p < 2 or not np.issubdtype(a.dtype, np.floating) or _COMPLETE.get():
        return
    off = ~np.eye(p, dtype=bool)
    values = a[off]
    if np.all(values != 0) and not np.all(values == 1):
        raise GraphError(
            f"{what} has no zero off its diagonal (entry [0, 1] is {written(a[0, 1])}): as a "
            f"graph this is a complete graph on {p} nodes, and its values look like a "
            "covariance or precision matrix, not an adjacency. Threshold it (e.g. "
            "numpy.abs(A) > t marks the edges) or pass complete=True to sample on the "
            "complete graph."
        )


def adjacency_from_array(array: object, *, what: str = "adjacency array") -> np.ndarray:
    """Validate an adjacency matrix and return it as a boolean edge mask.

    Parameters
    ----------
    array
        A square, symmetric, finite, real 2-D array. Non-zero off-diagonal
        entries are edges; the diagonal is ignored.
    what
        How to call the input in error messages.

    Returns
    -------
    numpy.ndarray
        Boolean ``(p, p)`` array, symmetric, with a False diagonal.

    Raises
    ------
    spdgraph.GraphError
        If the array is not 2-D and square, holds NaN/inf or complex values,
        or is not symmetric; or if it is a float array with no zero off its
        diagonal and values other than 1 (a complete graph that looks like a
        covariance matrix), unless within :func:`accepting_complete`.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.adjacency import adjacency_from_array
    >>> adjacency_from_array(np.array([[1, 2, 0], [2, 1, 0], [0, 0, 1]])).astype(int)
    array([[0, 1, 0],
           [1, 0, 0],
           [0, 0, 0]])
    """
    a = np.asarray(array)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise GraphError(
            f"{what} must be a square 2-D matrix, got shape {a.shape}; pass a p x p "
            "adjacency matrix (or a networkx/igraph graph)."
        )
    if a.shape[0] == 0:
        raise GraphError(f"{what} has no nodes; a graph needs at least one node.")
    if a.dtype == object:
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise GraphError(
                f"{what} holds non-numeric objects; use a numeric or boolean array."
            ) from exc
    if np.iscomplexobj(a):
        raise GraphError(f"{what} is complex; use a real or boolean array.")
    if not (a.dtype == bool or np.issubdtype(a.dtype, np.number)):
        raise GraphError(f"{what} has dtype {a.dtype}; use a numeric or boolean array.")
    if a.dtype != bool and not np.all(np.isfinite(a)):
        i, j = np.argwhere(~np.isfinite(a))[0]
        raise GraphError(
            f"{what} holds a non-finite value ({written(a[i, j])} at [{i}, {j}]); replace NaN/inf "
            "by 0 (no edge) or 1 (edge)."
        )
    _refuse_complete(a, what)
    asym = a != a.T
    if asym.any():
        i, j = np.argwhere(asym)[0]
        raise GraphError(
            f"{what} is not symmetric: entry [{i}, {j}] is {written(a[i, j])} but [{j}, {i}] is "
            f"{written(a[j, i])}. An undirected graph needs A == A.T; symmetrize it first, e.g. "
            "with numpy.logical_or(A, A.T)."
        )
    adjacency = a != 0
    np.fill_diagonal(adjacency, False)
    return adjacency


def sparse_adjacency_from_matrix(
    matrix: object, *, what: str = "the sparse adjacency matrix"
) -> object:
    """Validate a scipy.sparse adjacency and return its canonical sparse form, never densified.

    The same rules as :func:`adjacency_from_array` (a stored non-zero off the
    diagonal is an edge, the diagonal ignored; square, real, finite, exactly
    symmetric), checked on the stored entries in time proportional to them,
    after :func:`check_sparse_input` has checked the raw arrays and the size.

    Returns
    -------
    scipy.sparse.csr_array
        Boolean, symmetric, no diagonal entry, sorted indices, no explicit zero.

    Examples
    --------
    >>> import scipy.sparse
    >>> a = sparse_adjacency_from_matrix(scipy.sparse.csr_array([[1, 2, 0], [2, 0, 0], [0, 0, 5]]))
    >>> a.dtype, a.nnz, a.toarray().astype(int).tolist()
    (dtype('bool'), 2, [[0, 1, 0], [1, 0, 0], [0, 0, 0]])

    A PyData ``sparse`` array is read the same way, checked before it is converted.
    """
    import scipy.sparse

    shape = (check_sparse_input(matrix, what),) * 2
    csr = scipy.sparse.csr_array(as_scipy(matrix))
    from spdgraph._kernels.sparse import (  # numba: lazy
        off_diagonal_nonzeros,
        symmetric_pattern_values,
    )

    csr.sum_duplicates()  # canonical: sorted indices, one entry per position
    indptr, indices = csr.indptr, csr.indices  # any index type: no int64 copy
    values = csr.data  # bool and numeric values compare exactly as they are
    code, i, j = symmetric_pattern_values(indptr, indices, values)
    if code:
        raise GraphError(
            f"{what} is not symmetric: entry [{i}, {j}] is {written(csr[i, j])} but [{j}, {i}] "
            f"is {written(csr[j, i])}. An undirected graph needs A == A.T; symmetrize it "
            "first, e.g. with (A + A.T) != 0."
        )
    index_type = np.int32 if max(shape[0], csr.nnz) < 2**31 else np.int64
    out_ptr = np.empty(shape[0] + 1, dtype=index_type)
    out_idx = np.empty(csr.nnz, dtype=index_type)
    kept = off_diagonal_nonzeros(indptr, indices, values, out_ptr, out_idx)
    if kept < out_idx.size:  # zeros or a diagonal were stored: trim (a smaller copy)
        out_idx = out_idx[:kept].copy()
    adjacency = scipy.sparse.csr_array(
        (np.ones(out_idx.size, dtype=bool), out_idx, out_ptr), shape=shape, copy=False
    )
    adjacency.sort_indices()
    return adjacency
