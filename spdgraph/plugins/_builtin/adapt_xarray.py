"""Built-in graph backend: xarray DataArrays (e.g. a matrix spdgraph returned), both ways."""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.errors import GraphError
from spdgraph.layout import dense_values
from spdgraph.plugins._builtin._library import instance_of, offered_backend, require
from spdgraph.plugins.types import GraphData


def recognises(graph: object) -> bool:
    """An ``xarray.DataArray`` (xarray imported)."""
    return instance_of(graph, "xarray", "DataArray")


def count_nodes(graph: Any) -> int | None:
    """The size of its ``adjacency`` coordinate or first dim; None when not 2-D."""
    shape = graph.coords["adjacency"].shape if "adjacency" in graph.coords else graph.shape
    return int(shape[0]) if len(shape) == 2 else None


def to_graph(graph: Any) -> GraphData:
    """A DataArray read as a graph.

    An array carrying an ``adjacency`` coordinate (every matrix spdgraph
    returns) gives back that graph with its node labels, so
    ``spdgraph.sample(da)`` samples again on the same graph. Any other square
    2-D DataArray is read as an adjacency matrix labelled by its first
    dimension's coordinate (backed by numpy or by a PyData sparse array).
    """
    if "adjacency" in graph.coords:
        adj = graph.coords["adjacency"]
        if adj.ndim != 2:
            raise GraphError("the 'adjacency' coordinate must be 2-D (node, node_2).")
        dim = adj.dims[0]
        labels = list(adj.coords[dim].values) if dim in adj.coords else list(range(adj.shape[0]))
        adjacency = adjacency_from_array(
            dense_values(adj, "reading the 'adjacency' coordinate as a dense graph"),
            what="'adjacency' coordinate",
        )
        return GraphData(adjacency=adjacency, labels=labels)
    if graph.ndim != 2:
        raise GraphError(
            f"a DataArray graph must be a 2-D adjacency matrix, got dims {graph.dims}."
        )
    dim0, dim1 = graph.dims
    labels = list(graph[dim0].values) if dim0 in graph.coords else list(range(graph.shape[0]))
    if dim1 in graph.coords and dim0 in graph.coords:
        if not np.array_equal(graph[dim0].values, graph[dim1].values):
            raise GraphError(
                f"adjacency DataArray has different labels on {dim0!r} and {dim1!r}; "
                "both dims must list the nodes in the same order."
            )
    adjacency = adjacency_from_array(_values(graph), what="adjacency DataArray")
    return GraphData(adjacency=adjacency, labels=labels)


def _values(graph: Any) -> np.ndarray:
    """The values as numpy; a PyData sparse array densified only when it fits
    (:func:`spdgraph.layout.dense_values`, else a TooLargeError)."""
    return np.asarray(dense_values(graph, "reading a sparse DataArray as a dense graph"))


def from_graph(data: GraphData) -> Any:
    """The boolean ``(node, node_2)`` adjacency DataArray (as ``da.spd.adjacency()``).

    Labels on both dims; ``attrs`` in ``.attrs``.
    """
    xr = require("xarray", "xarray")
    if data.directed is not None:
        raise GraphError(
            "the xarray backend holds undirected adjacency arrays; ask for the graph of a "
            "DAG with backend='networkx' (a DiGraph)."
        )
    labels = np.empty(len(data.labels), dtype=object)
    labels[:] = list(data.labels)  # tuples stay labels (no second dimension)
    if all(isinstance(x, str) for x in labels) or all(type(x) is int for x in labels):
        labels = np.asarray(list(data.labels))
    return xr.DataArray(
        np.array(data.adjacency, dtype=bool),
        dims=("node", "node_2"),
        coords={"node": labels, "node_2": labels},
        name="adjacency",
        attrs=dict(data.attrs),
    )


BACKEND, spdgraph_graph_backends = offered_backend("xarray", globals())
