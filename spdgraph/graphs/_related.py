"""Several related graphs over the same nodes, for joint (group or time-varying) GGM studies."""

from __future__ import annotations

import networkx as nx
import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.graphs._common import check_count, check_graph_memory
from spdgraph.seeds import SeedLike, root_stream, seed_sequence

__all__ = ["related_graphs", "shared_edges"]

_MODES = ("group", "time")


def related_graphs(
    base: nx.Graph,
    n_graphs: int,
    *,
    n_add: int = 0,
    n_remove: int = 0,
    mode: str = "group",
    seed: SeedLike = None,
) -> list[nx.Graph]:
    """K graphs over the nodes of ``base`` that share a part and differ in a controlled part.

    ``mode="group"`` (groups, e.g. conditions): graph ``k`` is ``base`` with
    ``n_remove`` of its edges removed and ``n_add`` of its non-edges added,
    drawn for each graph independently; the edges no graph removes are
    shared by all. ``mode="time"`` (a time-varying graph): graph 0 is
    ``base`` and graph ``k`` is graph ``k-1`` with ``n_remove`` of its edges
    removed and ``n_add`` of its non-edges added, so neighbouring steps
    differ by ``n_add + n_remove`` edges.

    Parameters
    ----------
    base
        The shared graph (a :class:`networkx.Graph`; node order is kept).
    n_graphs
        Number of graphs K (>= 1).
    n_add, n_remove
        Edges added and removed per graph (``group``) or per step (``time``).
    mode
        ``"group"`` or ``"time"``.
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or None: the same seed gives the same graphs.

    Returns
    -------
    list of networkx.Graph
        K graphs with the nodes of ``base`` in its order; ``G.graph["index"]``
        is ``k``. Pass the list to :func:`spdgraph.sample` for one array
        with a ``group`` dimension.

    Raises
    ------
    InvalidOptionError
        Bad counts or mode, or more edges to remove (add) than a graph has
        edges (non-edges).

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import related_graphs, shared_edges
    >>> gs = related_graphs(nx.cycle_graph(8), 3, n_add=2, n_remove=1, seed=0)
    >>> [g.number_of_edges() for g in gs]
    [9, 9, 9]
    >>> len(shared_edges(gs)) >= 8 - 3
    True
    """
    if not isinstance(base, nx.Graph) or base.is_directed() or base.is_multigraph():
        raise InvalidOptionError(
            f"base must be an undirected networkx.Graph, got {type(base).__name__}."
        )
    n_graphs = check_count(n_graphs, "n_graphs")
    n_add, n_remove = check_count(n_add, "n_add", 0), check_count(n_remove, "n_remove", 0)
    if mode not in _MODES:
        raise InvalidOptionError(f"mode must be 'group' or 'time', got {written(mode)}.")
    nodes = list(base.nodes)
    p = len(nodes)
    # K graphs of about base's edges (+ n_add each), then the dense scratch: p^2 floats
    # and booleans, two index arrays and a mask per node pair
    edges = base.number_of_edges() + n_add * (n_graphs if mode == "time" else 1)
    check_graph_memory("related_graphs", p, min(edges, p * (p - 1) / 2), copies=n_graphs)
    check_graph_memory("related_graphs", p, 0, pairs=True)
    adjacency = nx.to_numpy_array(base, nodelist=nodes, weight=None) != 0
    np.fill_diagonal(adjacency, False)
    rng = root_stream(seed_sequence(seed))
    rows, cols = np.triu_indices(p, 1)
    graphs = []
    current = adjacency[rows, cols]
    for k in range(int(n_graphs)):
        if mode == "group" or k > 0:
            start = adjacency[rows, cols] if mode == "group" else current
            current = _edit(start, n_add, n_remove, rng)
        g = nx.Graph(index=k)
        g.add_nodes_from(nodes)
        g.add_edges_from(
            (nodes[i], nodes[j]) for i, j in zip(rows[current], cols[current], strict=True)
        )
        graphs.append(g)
    return graphs


def _edit(edges: np.ndarray, n_add: int, n_remove: int, rng: np.random.Generator) -> np.ndarray:
    present, absent = np.flatnonzero(edges), np.flatnonzero(~edges)
    if n_remove > present.size:
        raise InvalidOptionError(
            f"cannot remove {n_remove} edges from a graph with {present.size}; lower n_remove."
        )
    if n_add > absent.size:
        raise InvalidOptionError(
            f"cannot add {n_add} edges to a graph with {absent.size} non-edges; lower n_add."
        )
    out = edges.copy()
    out[rng.choice(present, size=n_remove, replace=False)] = False
    out[rng.choice(absent, size=n_add, replace=False)] = True
    return out


def shared_edges(graphs: list[nx.Graph]) -> set[frozenset]:
    """The edges every graph has (each as a ``frozenset`` of its two nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import shared_edges
    >>> sorted(tuple(sorted(e)) for e in shared_edges([nx.path_graph(3), nx.cycle_graph(3)]))
    [(0, 1), (1, 2)]
    """
    if not graphs:
        return set()
    common = {frozenset(e) for e in graphs[0].edges}
    for g in graphs[1:]:
        common &= {frozenset(e) for e in g.edges}
    return common
