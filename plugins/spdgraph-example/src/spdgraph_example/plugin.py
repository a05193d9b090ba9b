"""The plugin module named by the ``spdgraph`` entry point.

It implements two hooks, exactly as spdgraph's built-in plugins do:

* ``spdgraph_register_generators``: adds ``"example-scaled-identity"``;
* ``spdgraph_graph_backends``: teaches spdgraph the :class:`EdgeList` type, both
  ways (``spdgraph.sample(edge_list)`` and ``da.spd.graph("example-edgelist")``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

import spdgraph


@dataclass(frozen=True)
class EdgeList:
    """A minimal graph container: node labels and undirected edges between them."""

    nodes: Sequence[Hashable]
    edges: Sequence[tuple[Hashable, Hashable]]


def scaled_identity(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator,
    entries: spdgraph.EntrySampler,
    offset: float = 1.0,
) -> np.ndarray:
    """``c * I`` with ``c = offset + |entry|``: SPD and zero off the diagonal."""
    p = adjacency.shape[0]
    c = offset + abs(float(entries(rng, (1,))[0]))
    return c * np.eye(p)


@spdgraph.hookimpl
def spdgraph_register_generators() -> list[spdgraph.Generator]:
    """Register the example generator."""
    return [
        spdgraph.Generator(
            name="example-scaled-identity",
            function=scaled_identity,
            description="EXAMPLE plugin: c * I, a toy showing how plugins register",
            # a declared option: spdgraph checks every value before any work
            options={
                "offset": spdgraph.OptionSpec(
                    1.0, float, low=0.0, doc="c = offset + |entry| (>= 0 keeps c * I SPD)"
                )
            },
        )
    ]


def edge_list_to_graph(graph: EdgeList) -> spdgraph.GraphData:
    """Read an :class:`EdgeList`: labels in node order, self-loops skipped."""
    labels = list(graph.nodes)
    index = {node: i for i, node in enumerate(labels)}
    adjacency = np.zeros((len(labels), len(labels)), dtype=bool)
    for u, v in graph.edges:
        if u not in index or v not in index:
            raise spdgraph.GraphError(
                f"EdgeList edge ({u!r}, {v!r}) names a node that is not in nodes; "
                "list every node first."
            )
        if u != v:
            adjacency[index[u], index[v]] = adjacency[index[v], index[u]] = True
    return spdgraph.GraphData(adjacency=adjacency, labels=labels)


def edge_list_from_graph(data: spdgraph.GraphData) -> EdgeList:
    """Build an :class:`EdgeList` back: each edge once, in row order."""
    labels = list(data.labels)
    rows, cols = np.nonzero(np.triu(data.adjacency, 1))
    return EdgeList(
        nodes=labels, edges=[(labels[i], labels[j]) for i, j in zip(rows, cols, strict=True)]
    )


@spdgraph.hookimpl
def spdgraph_graph_backends() -> list[spdgraph.GraphBackend]:
    """Register the EdgeList backend."""
    return [
        spdgraph.GraphBackend(
            name="example-edgelist",
            recognises=lambda obj: isinstance(obj, EdgeList),
            to_graph=edge_list_to_graph,
            from_graph=edge_list_from_graph,
            # the node count without building the p x p adjacency (memory guard)
            count_nodes=lambda graph: len(graph.nodes),
        )
    ]
