"""Built-in adapter plugin: pandas adjacency DataFrames (labels from the index)."""

from __future__ import annotations

import sys
from typing import Any

from spdgraph.adjacency import adjacency_from_array
from spdgraph.errors import GraphError, written
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import GraphData


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a square DataFrame whose index and columns hold the same labels."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(graph, pd.DataFrame):
        return None
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


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of an adjacency DataFrame: its number of rows."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(graph, pd.DataFrame):
        return None
    return len(graph.index)


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
