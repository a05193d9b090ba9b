"""Helpers that turn array-like adjacency matrices into canonical form.

Adapter plugins use :func:`adjacency_from_array` so that every array-like input
(numpy, scipy.sparse, pandas, xarray, third-party) follows the same rules:

* any non-zero entry off the diagonal is an edge (weights are allowed);
* the diagonal is ignored (self-loops never change a graph matrix's pattern);
* the array must be square, 2-D, real, finite and exactly symmetric.
"""

from __future__ import annotations

import numpy as np

from spdgraph.errors import GraphError, written

__all__ = ["adjacency_from_array"]


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
        or is not symmetric.

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
