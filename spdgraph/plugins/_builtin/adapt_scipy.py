"""Built-in graph backend: scipy.sparse matrices and arrays, both ways.

A bare matrix is read as an undirected adjacency; ``spdgraph.DAG(matrix)``
reads ``matrix[i, j] != 0`` as the edge ``i -> j``. The node count is the
shape, so the memory guard refuses before anything is densified.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins._builtin._library import (
    dag_from_array,
    offered_backend,
    require,
    unwrap,
    upper_edges,
)
from spdgraph.plugins.types import DAG, GraphData, SparseGraphData
from spdgraph.sparse_input import check_sparse_input


def recognises(graph: object) -> bool:
    """A scipy.sparse matrix or array, bare or in a DAG (scipy.sparse imported)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(unwrap(graph)))


def count_nodes(graph: object) -> int | None:
    """Its rows, never densified."""
    shape: Any = getattr(unwrap(graph), "shape", ())
    return int(shape[0]) if len(shape) == 2 else None


def to_graph(graph: object) -> GraphData:
    """The adjacency (nodes ``0..p-1``); a DAG-wrapped matrix gives ``directed``.

    The raw arrays and the size of the dense read are checked first
    (:func:`~spdgraph.sparse_input.check_sparse_input`).
    """
    if isinstance(graph, DAG):
        matrix: Any = graph.graph
        check_sparse_input(matrix, "the DAG sparse adjacency matrix", dense=True)
        return dag_from_array(np.asarray(matrix.toarray()), "DAG sparse adjacency matrix")
    check_sparse_input(graph, "the sparse adjacency matrix", dense=True)
    dense = np.asarray(graph.toarray())  # type: ignore[attr-defined]
    adjacency = adjacency_from_array(dense, what="sparse adjacency matrix")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


def from_graph(data: GraphData) -> Any:
    """A ``csr_array`` (int64 0/1) in node order; ``spdgraph.DAG(csr)`` for a DAG."""
    sparse = require("scipy.sparse", "scipy")
    p = len(data.labels)
    rows, cols = upper_edges(data)
    if data.directed is None:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    out = sparse.csr_array((np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(p, p))
    return DAG(out) if data.directed is not None else out


def from_sparse(data: SparseGraphData) -> Any:
    """The symmetric ``csr_array`` (int8 0/1, sorted indices) of the upper-triangle edges."""
    upper = data.upper
    out = (upper + upper.T).tocsr()
    out.sort_indices()
    return out


BACKEND, spdgraph_graph_backends = offered_backend("scipy", globals())
