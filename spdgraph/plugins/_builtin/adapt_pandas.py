"""Built-in graph backend: pandas adjacency DataFrames (labels from the index), both ways."""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.errors import GraphError, written
from spdgraph.plugins._builtin._library import instance_of, offered_backend, require
from spdgraph.plugins.types import GraphData


def recognises(graph: object) -> bool:
    """A ``pandas.DataFrame`` (pandas imported)."""
    return instance_of(graph, "pandas", "DataFrame")


def count_nodes(graph: Any) -> int:
    """Its number of rows."""
    return len(graph.index)


def to_graph(graph: Any) -> GraphData:
    """A square DataFrame whose index and columns hold the same labels (any order)."""
    index, columns = graph.index, graph.columns
    if not index.is_unique:
        raise GraphError(
            "adjacency DataFrame has duplicate index labels "
            f"{list(index[index.duplicated()].unique())[:5]}; node labels must be unique."
        )
    if len(index) != len(columns) or set(index) != set(columns):
        raise GraphError(
            "adjacency DataFrame must have the same labels on its index and columns "
            f"(got {len(index)} index labels and {len(columns)} columns; "
            f"{_difference(index, columns)}); build it as "
            "DataFrame(A, index=labels, columns=labels)."
        )
    if not columns.is_unique:
        raise GraphError("adjacency DataFrame has duplicate column labels; make them unique.")
    ordered = graph.loc[:, list(index)]
    adjacency = adjacency_from_array(ordered.to_numpy(), what="adjacency DataFrame")
    return GraphData(adjacency=adjacency, labels=list(index))


def from_graph(data: GraphData) -> Any:
    """A boolean adjacency DataFrame labelled on both axes; ``attrs`` in ``frame.attrs``."""
    pd = require("pandas", "pandas")
    if data.directed is not None:
        raise GraphError(
            "the pandas backend holds undirected adjacency DataFrames; ask for the graph of "
            "a DAG with backend='networkx' (a DiGraph)."
        )
    labels = pd.Index(list(data.labels), tupleize_cols=False)
    frame = pd.DataFrame(np.array(data.adjacency, dtype=bool), index=labels, columns=labels)
    frame.attrs.update(data.attrs)
    return frame


BACKEND, spdgraph_graph_backends = offered_backend("pandas", globals())


def _difference(index: Any, columns: Any, shown: int = 5) -> str:
    """Which labels are only in the index, and which only in the columns (the first few)."""
    in_columns, in_index = set(columns), set(index)
    parts = []
    for where, labels in (
        ("only in the index", [x for x in index if x not in in_columns]),
        ("only in the columns", [x for x in columns if x not in in_index]),
    ):
        if labels:
            more = f" and {len(labels) - shown} more" if len(labels) > shown else ""
            parts.append(f"{where}: {', '.join(written(x) for x in labels[:shown])}{more}")
    return "; ".join(parts) or "the same labels, but a different count"
