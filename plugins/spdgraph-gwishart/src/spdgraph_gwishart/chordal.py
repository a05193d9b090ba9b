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
from spdgraph.graphs import perfect_elimination_order

__all__ = ["chordal_gwishart", "perfect_elimination_order"]


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
