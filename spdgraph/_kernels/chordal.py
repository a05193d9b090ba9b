"""Chordal graphs without Numba: maximum cardinality search, elimination orders, covers.

A graph is chordal iff it has a perfect elimination order (PEO): an order in
which the later neighbours of every vertex are pairwise adjacent. Maximum
cardinality search (MCS) visits the vertices so that the reverse of its visit
order is a PEO whenever the graph is chordal (Tarjan and Yannakakis 1984);
checking that the reversed order has no fill-in decides chordality. Used by
``method="uniform"``/``"port_chol"`` and by the G-Wishart plugin (through
:func:`spdgraph.graphs.perfect_elimination_order`). Arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mcs_order", "min_degree_triangulation", "perfect_elimination_order"]


def mcs_order(adjacency: np.ndarray) -> np.ndarray:
    """Maximum cardinality search visit order (ties: the smallest index), as node indices.

    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> mcs_order(a).tolist()
    [0, 1, 2]
    """
    p = adjacency.shape[0]
    weight = np.zeros(p, dtype=np.int64)
    visited = np.zeros(p, dtype=bool)
    order = np.empty(p, dtype=np.int64)
    for t in range(p):
        candidates = np.where(visited, -1, weight)
        v = int(np.argmax(candidates))
        order[t] = v
        visited[v] = True
        weight += adjacency[v]
    return order


def _has_fill_in(adjacency: np.ndarray, order: np.ndarray) -> bool:
    """Whether eliminating the nodes in ``order`` adds an edge (Tarjan-Yannakakis test)."""
    p = adjacency.shape[0]
    position = np.empty(p, dtype=np.int64)
    position[order] = np.arange(p)
    for v in order:
        later = np.flatnonzero(adjacency[v] & (position > position[v]))
        if later.size <= 1:
            continue
        follower = later[np.argmin(position[later])]  # the first later neighbour
        rest = later[later != follower]
        if not adjacency[follower, rest].all():
            return True
    return False


def perfect_elimination_order(adjacency: np.ndarray) -> np.ndarray | None:
    """A perfect elimination order of a chordal graph (node indices), None if not chordal.

    >>> cycle = np.roll(np.eye(4, dtype=bool), 1, axis=1)
    >>> cycle = cycle | cycle.T
    >>> perfect_elimination_order(cycle) is None
    True
    >>> perfect_elimination_order(np.ones((3, 3), dtype=bool) & ~np.eye(3, dtype=bool)).tolist()
    [2, 1, 0]
    """
    order = mcs_order(adjacency)[::-1].copy()
    return None if _has_fill_in(adjacency, order) else order


def min_degree_triangulation(adjacency: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A chordal cover by the elimination game with the minimum-degree heuristic.

    Repeatedly eliminates a node of smallest degree (ties: the smallest
    index) in the current graph, first joining its remaining neighbours
    pairwise. Returns ``(cover, order)``: the adjacency with the fill-in
    edges added, and the elimination order, a perfect elimination order of
    ``cover``. A chordal graph may still get fill-in (the heuristic is not
    optimal); spdgraph only triangulates graphs that are not chordal.

    >>> cycle = np.roll(np.eye(4, dtype=bool), 1, axis=1)
    >>> cover, order = min_degree_triangulation(cycle | cycle.T)
    >>> int(cover.sum() // 2), order.tolist()
    (5, [0, 1, 2, 3])
    """
    p = adjacency.shape[0]
    work = adjacency.copy()
    cover = adjacency.copy()
    degree = work.sum(axis=1).astype(np.int64)
    alive = np.ones(p, dtype=bool)
    order = np.empty(p, dtype=np.int64)
    big = np.iinfo(np.int64).max
    for t in range(p):
        v = int(np.argmin(np.where(alive, degree, big)))
        order[t] = v
        nb = np.flatnonzero(work[v])
        block = np.ix_(nb, nb)
        new = ~work[block]
        np.fill_diagonal(new, False)
        work[block] |= new
        cover[block] |= new
        degree[nb] += new.sum(axis=1) - 1
        work[v, nb] = False
        work[nb, v] = False
        alive[v] = False
    return cover, order
