"""Chordality: maximum cardinality search and the perfect elimination order test.

A graph is chordal iff it has a perfect elimination order (PEO): an order in
which the later neighbours of every vertex are pairwise adjacent. Maximum
cardinality search (MCS) visits the vertices so that the reverse of its visit
order is a PEO whenever the graph is chordal (Tarjan and Yannakakis 1984);
checking that the reversed order has no fill-in decides chordality.

Plain NumPy (no Numba), so that :mod:`spdgraph.graphs` can re-export
:func:`perfect_elimination_order` while ``import spdgraph`` stays light.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mcs_order", "perfect_elimination_order"]


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
