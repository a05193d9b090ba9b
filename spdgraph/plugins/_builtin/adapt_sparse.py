"""Built-in adapter plugin: PyData ``sparse`` arrays (COO, GCXS, DOK).

The ``sparse`` package is never imported here: an object is recognised by the
module its type comes from. The node count is the array's shape, so the
memory guard refuses a request that cannot fit before anything is densified.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import dag_from_array, library_of, unwrap
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData

_WHAT = "PyData sparse adjacency array"


def _array(graph: object) -> Any:
    """``graph`` (or the array in a DAG) when it is a PyData ``sparse.SparseArray``."""
    inner = unwrap(graph)
    sparse = library_of(inner, "sparse")
    if sparse is None or not isinstance(inner, sparse.SparseArray):
        return None
    return inner


def _dense(array: Any, what: str) -> np.ndarray:
    """The square 2-D array densified (checked before densifying anything)."""
    shape = tuple(array.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise GraphError(
            f"a {what} must be a square 2-D matrix, got shape {shape}; pass a p x p "
            "adjacency matrix."
        )
    return np.asarray(array.todense())


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a square PyData sparse array; nodes are labelled ``0..p-1``.

    Read as a numpy adjacency is: any non-zero off-diagonal entry is an edge
    (weights allowed, a non-zero ``fill_value`` included), the diagonal is
    ignored, the array must be exactly symmetric.
    """
    array = _array(graph)
    if array is None or isinstance(graph, DAG):
        return None  # not PyData sparse (a DAG wrapper is for the DAG methods only)
    adjacency = adjacency_from_array(_dense(array, _WHAT), what=_WHAT)
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a PyData sparse adjacency (bare or in a DAG): its rows, never densified."""
    array = _array(graph)
    if array is None or len(array.shape) != 2:
        return None
    return int(array.shape[0])


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt ``spdgraph.DAG(array)`` of a PyData sparse array: ``[i, j] != 0`` is ``i -> j``."""
    array = _array(graph)
    if array is None or not isinstance(graph, DAG):
        return None  # a bare array is never read as directed
    return dag_from_array(_dense(array, "DAG " + _WHAT), "DAG " + _WHAT)
