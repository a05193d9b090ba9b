"""Exact G-Wishart draws on decomposable (chordal) graphs, for a diagonal scale D.

For a decomposable graph whose nodes are numbered in a perfect elimination
order (each node's later neighbours form a clique) and ``D = I``, the
G-Wishart ``W_G(b, I)`` is ``K = Phi^T Phi`` with ``Phi`` upper triangular,
zero off the edges, independent ``Phi_ij ~ N(0, 1)`` on the edges i < j and
``Phi_ii^2 ~ chi2(b + nu_i)``, ``nu_i`` the number of neighbours j > i
(Roverato 2002; Atay-Kayis and Massam 2005). A diagonal ``D`` is a change of
scale: ``K = D^-1/2 K' D^-1/2`` with ``K' ~ W_G(b, I)``.
"""

from __future__ import annotations

import numpy as np

import spdgraph

__all__ = ["chordal_gwishart", "perfect_elimination_order"]


def perfect_elimination_order(adjacency: np.ndarray) -> np.ndarray | None:
    """A perfect elimination order of a chordal graph, or None if the graph is not chordal.

    Maximum cardinality search (Tarjan and Yannakakis 1984; ties broken by the
    smallest node index), reversed, then verified: every node's neighbours
    later in the order form a clique.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> perfect_elimination_order(path).tolist()
    [2, 1, 0]
    >>> cycle = np.roll(np.eye(4, dtype=bool), 1, axis=1)
    >>> perfect_elimination_order(cycle | cycle.T) is None
    True
    """
    p = adjacency.shape[0]
    weight = np.zeros(p, dtype=np.int64)
    numbered = np.zeros(p, dtype=bool)
    visit = np.empty(p, dtype=np.int64)
    for step in range(p):
        candidates = np.where(numbered, -1, weight)
        v = int(np.argmax(candidates))
        visit[step] = v
        numbered[v] = True
        weight[adjacency[v] & ~numbered] += 1
    order = visit[::-1].copy()
    position = np.empty(p, dtype=np.int64)
    position[order] = np.arange(p)
    for v in order:
        later = np.flatnonzero(adjacency[v] & (position > position[v]))
        sub = adjacency[np.ix_(later, later)]
        if not np.all(sub | np.eye(later.size, dtype=bool)):
            return None
    return order


def chordal_gwishart(
    adjacency: np.ndarray, rng: np.random.Generator, b: float, d_diag: np.ndarray
) -> np.ndarray:
    """One exact draw ``K ~ W_G(b, diag(d_diag))`` on a chordal graph.

    Draws, in the perfect elimination order of :func:`perfect_elimination_order`:
    first the p values ``Phi_ii^2 ~ chi2(b + nu_i)``, then the standard
    normals of the edges i < j in row-major order.

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not chordal.
    """
    order = perfect_elimination_order(adjacency)
    if order is None:
        raise spdgraph.InvalidOptionError(
            "gwishart algorithm='chordal' needs a decomposable (chordal) graph, and this "
            "graph has a chordless cycle of length >= 4; use algorithm='lenkoski', or "
            "triangulate the graph."
        )
    p = adjacency.shape[0]
    a = adjacency[np.ix_(order, order)]
    upper = np.triu(a, 1)
    phi = np.zeros((p, p))
    phi[np.arange(p), np.arange(p)] = np.sqrt(rng.chisquare(b + upper.sum(axis=1)))
    rows, cols = np.nonzero(upper)
    phi[rows, cols] = rng.standard_normal(rows.size)
    k_perm = phi.T @ phi  # exact zeros on non-edges: every product has a zero factor
    k_perm = (k_perm + k_perm.T) * 0.5
    k = np.empty_like(k_perm)
    k[np.ix_(order, order)] = k_perm
    s = 1.0 / np.sqrt(d_diag)
    return k * np.outer(s, s)
