"""The graph behind a G-Wishart law: adjacency, labels, free coordinates, cliques.

Everything the transforms and densities need is static (fixed by the graph):
the free entries of the Cholesky-type factor, the rows that need completion,
and, for a decomposable graph, the cliques and separators of a junction tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import networkx as nx
import numpy as np

import spdgraph
from spdgraph.graphs import perfect_elimination_order

__all__ = ["GraphStructure", "graph_structure"]


@dataclass(frozen=True, eq=False)
class GraphStructure:
    """A graph in the form the G-Wishart transform and density use.

    Parameters
    ----------
    adjacency
        Boolean symmetric ``(p, p)`` adjacency with a False diagonal.
    labels
        The p node labels, in the order of the rows of ``adjacency``.

    Notes
    -----
    The free coordinates of a precision matrix ``K = Phi^T Phi`` (``Phi``
    upper triangular, positive diagonal) are, in this order, the p values
    ``log Phi_ii`` and the ``Phi_ij`` on the edges i < j in row-major order
    (:attr:`edges`). Two structures are equal when their adjacencies are.
    """

    adjacency: np.ndarray
    labels: tuple[object, ...]

    def __post_init__(self) -> None:
        a = np.array(self.adjacency, dtype=bool)
        a.setflags(write=False)
        object.__setattr__(self, "adjacency", a)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GraphStructure) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    @cached_property
    def _key(self) -> tuple[int, bytes]:
        return (self.p, np.packbits(self.adjacency).tobytes())

    @property
    def p(self) -> int:
        """Number of nodes."""
        return int(self.adjacency.shape[0])

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows and columns of the edges i < j, row-major (the order of the free entries)."""
        rows, cols = np.nonzero(np.triu(self.adjacency, 1))
        return rows, cols

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return int(self.edges[0].size)

    @property
    def n_free(self) -> int:
        """Number of free coordinates: p diagonal entries plus the edges."""
        return self.p + self.n_edges

    @cached_property
    def nu(self) -> np.ndarray:
        """``nu_i``: the number of neighbours j > i of each node i (node order)."""
        return np.triu(self.adjacency, 1).sum(axis=1).astype(np.int64)

    @cached_property
    def pattern(self) -> np.ndarray:
        """The allowed nonzeros of K: edges and the diagonal (float 0/1 mask)."""
        return (self.adjacency | np.eye(self.p, dtype=bool)).astype(np.float64)

    @cached_property
    def upper_nonedges(self) -> np.ndarray:
        """Boolean ``(p, p)``: the non-edges i < j, whose ``Phi_ij`` is completed."""
        return np.triu(~self.adjacency, 1)

    @cached_property
    def completed_rows(self) -> tuple[int, ...]:
        """Rows i >= 1 with a non-edge i < j whose completion can be nonzero."""
        return tuple(int(i) for i in range(1, self.p) if self.upper_nonedges[i].any())

    @cached_property
    def elimination_order(self) -> np.ndarray | None:
        """A perfect elimination order, or None when the graph is not decomposable."""
        order = perfect_elimination_order(self.adjacency)
        return None if order is None else np.asarray(order)

    @property
    def decomposable(self) -> bool:
        """Whether the graph is decomposable (chordal)."""
        return self.elimination_order is not None

    @cached_property
    def transform_order(self) -> np.ndarray:
        """The node order the graph-Cholesky transform works in.

        The node order itself when its completion has no fill-in; otherwise a
        perfect elimination order (decomposable graphs: no fill-in at all) or a
        greedy minimum fill-in order, whichever has less fill-in. Fill-in
        entries are divisions by the diagonal of Phi that compound row after
        row: in a bad order, moderate coordinates (``|u| <= 2``, NumPyro's
        ``init_to_uniform``) give K entries of 1e7 and a numerically
        indefinite K; without fill-in K is a polynomial in the coordinates.
        """
        identity = np.arange(self.p)
        best, best_fill = identity, _fill_in(self.adjacency, identity)
        if best_fill == 0:
            return identity
        candidates = [_min_fill_order(self.adjacency)]
        if self.elimination_order is not None:
            candidates.insert(0, np.asarray(self.elimination_order, dtype=np.int64))
        for order in candidates:
            fill = _fill_in(self.adjacency, order)
            if fill < best_fill:
                best, best_fill = order, fill
        best = np.asarray(best, dtype=np.int64)
        best.setflags(write=False)
        return best

    @cached_property
    def transform_structure(self) -> GraphStructure:
        """This graph with its nodes in :attr:`transform_order` (itself when that is the
        node order): the structure the transform's coordinates refer to."""
        order = self.transform_order
        if np.array_equal(order, np.arange(self.p)):
            return self
        return GraphStructure(
            self.adjacency[np.ix_(order, order)], tuple(self.labels[i] for i in order)
        )

    @cached_property
    def inverse_order(self) -> np.ndarray:
        """``inverse_order[transform_order] = arange(p)``."""
        inv = np.empty(self.p, dtype=np.int64)
        inv[self.transform_order] = np.arange(self.p)
        return inv

    @property
    def permuted(self) -> bool:
        """Whether the transform works in another order than the node order."""
        return self.transform_structure is not self

    @cached_property
    def cliques_and_separators(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Cliques and separators (with multiplicity) of a junction tree.

        Separators come from a maximum-weight spanning tree of the clique
        graph weighted by intersection sizes; empty separators (between
        connected components) are dropped.

        Raises
        ------
        spdgraph.InvalidOptionError
            The graph is not decomposable.
        """
        if not self.decomposable:
            raise spdgraph.InvalidOptionError(
                "cliques and separators of a junction tree exist only for a decomposable "
                "(chordal) graph."
            )
        g = nx.from_numpy_array(self.adjacency.astype(np.int8))
        g.add_nodes_from(range(self.p))
        cliques = [np.array(sorted(c), dtype=np.int64) for c in nx.chordal_graph_cliques(g)]
        cliques.sort(key=lambda c: tuple(c))
        clique_graph = nx.Graph()
        clique_graph.add_nodes_from(range(len(cliques)))
        sets = [set(c.tolist()) for c in cliques]
        for s in range(len(cliques)):
            for t in range(s + 1, len(cliques)):
                clique_graph.add_edge(s, t, weight=len(sets[s] & sets[t]))
        tree = nx.maximum_spanning_tree(clique_graph, weight="weight")
        separators = [
            np.array(sorted(sets[s] & sets[t]), dtype=np.int64)
            for s, t in sorted(tree.edges())
            if sets[s] & sets[t]
        ]
        return cliques, separators


def _fill_in(adjacency: np.ndarray, order: np.ndarray) -> int:
    """Fill-in entries of completing Phi row by row with the nodes in ``order``."""
    f = np.array(adjacency[np.ix_(order, order)], dtype=bool)
    p = f.shape[0]
    for i in range(p):
        later = np.flatnonzero(f[i, i + 1 :]) + i + 1
        if later.size > 1:
            f[np.ix_(later, later)] = True
    np.fill_diagonal(f, False)
    a = np.asarray(adjacency[np.ix_(order, order)], dtype=bool)
    return int(np.triu(f & ~a, 1).sum())


def _min_fill_order(adjacency: np.ndarray) -> np.ndarray:
    """Greedy minimum fill-in elimination order (ties: fewest neighbours, lowest index)."""
    a = np.array(adjacency, dtype=bool)
    p = a.shape[0]
    alive = np.ones(p, dtype=bool)
    order = []
    for _ in range(p):
        best, best_key = -1, (0, 0)
        for v in np.flatnonzero(alive):
            nbrs = np.flatnonzero(a[v] & alive)
            sub = a[np.ix_(nbrs, nbrs)]
            missing = (nbrs.size * (nbrs.size - 1) - int(sub.sum())) // 2
            key = (missing, nbrs.size)
            if best < 0 or key < best_key:
                best, best_key = int(v), key
        order.append(best)
        nbrs = np.flatnonzero(a[best] & alive)
        a[np.ix_(nbrs, nbrs)] = True
        a[nbrs, nbrs] = False
        alive[best] = False
    return np.asarray(order, dtype=np.int64)


def graph_structure(graph: object) -> GraphStructure:
    """Adapt any graph spdgraph accepts into a :class:`GraphStructure`.

    Parameters
    ----------
    graph
        A networkx/igraph/... graph, an adjacency array or DataFrame, an
        xarray object spdgraph returned, or a :class:`GraphStructure`.

    Returns
    -------
    GraphStructure
        The adjacency and labels, in spdgraph's node order.

    Examples
    --------
    >>> import networkx as nx
    >>> s = graph_structure(nx.path_graph(["a", "b", "c"]))
    >>> s.labels, s.n_free, s.nu.tolist(), s.decomposable
    (('a', 'b', 'c'), 5, [1, 1, 0], True)
    """
    if isinstance(graph, GraphStructure):
        return graph
    data = spdgraph.adapt_graph(graph)
    if data.directed is not None:
        raise spdgraph.GraphError("a G-Wishart law needs an undirected graph; got a directed one.")
    return GraphStructure(np.asarray(data.adjacency, dtype=bool), tuple(data.labels))
