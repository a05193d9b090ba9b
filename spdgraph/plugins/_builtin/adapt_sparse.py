"""Built-in graph backend: PyData ``sparse`` arrays (COO, GCXS, DOK), both ways.

The ``sparse`` package is never imported to recognise an array: an object is
recognised by the module its type comes from. The node count is the array's
shape, so the memory guard refuses a request that cannot fit before anything
is densified.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins._builtin._library import (
    dag_from_array,
    instance_of,
    offered_backend,
    require,
    unwrap,
)
from spdgraph.plugins.types import DAG, GraphData
from spdgraph.sparse_input import check_sparse_input

_WHAT = "PyData sparse adjacency array"


def recognises(graph: object) -> bool:
    """A ``sparse.SparseArray``, bare or in a :class:`spdgraph.DAG`."""
    return instance_of(unwrap(graph), "sparse", "SparseArray")


def count_nodes(graph: object) -> int | None:
    """Its rows, never densified."""
    shape = tuple(unwrap(graph).shape)  # type: ignore[attr-defined]
    return int(shape[0]) if len(shape) == 2 else None


def _dense(array: Any, what: str) -> np.ndarray:
    """The square 2-D array densified (its arrays and the dense size checked first)."""
    check_sparse_input(array, f"the {what}", dense=True)
    return np.asarray(array.todense())


def to_graph(graph: object) -> GraphData:
    """A square array read as a numpy adjacency is; nodes are ``0..p-1``.

    Any non-zero off-diagonal entry is an edge (weights allowed, a non-zero
    ``fill_value`` included), the diagonal is ignored, the array must be
    exactly symmetric. ``spdgraph.DAG(array)``: ``[i, j] != 0`` is ``i -> j``.
    """
    if isinstance(graph, DAG):
        return dag_from_array(_dense(graph.graph, "DAG " + _WHAT), "DAG " + _WHAT)
    adjacency = adjacency_from_array(_dense(graph, _WHAT), what=_WHAT)
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


def from_graph(data: GraphData) -> Any:
    """A boolean ``sparse.COO`` in node order; ``spdgraph.DAG(coo)`` for a DAG."""
    sparse = require("sparse", "sparse")
    if data.directed is not None:
        return DAG(sparse.COO.from_numpy(np.asarray(data.directed, dtype=bool)))
    return sparse.COO.from_numpy(np.asarray(data.adjacency, dtype=bool))


BACKEND, spdgraph_graph_backends = offered_backend("sparse", globals())
