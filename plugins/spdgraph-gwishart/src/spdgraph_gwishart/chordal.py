"""Exact G-Wishart draws on decomposable (chordal) graphs, for any SPD scale D.

For a decomposable graph whose nodes are numbered in a perfect elimination
order (each node's later neighbours form a clique), write ``K = Phi^T Phi``
with ``Phi`` upper triangular and positive diagonal. Then ``Phi`` is zero off
the edges (no fill-in), and the free entries of row i are
``x_i = (Phi_ii, Phi_{i, N_i})`` with ``N_i`` the later neighbours of i,
``nu_i = |N_i|`` (Roverato 2002; Atay-Kayis and Massam 2005).

With ``S_i = {i} + N_i``, ``tr(D K) = sum_i x_i^T D[S_i, S_i] x_i`` and
``det K = prod_i Phi_ii^2``; the Jacobian of the map from the free entries of
Phi to those of K is ``2^p prod_i Phi_ii^(nu_i + 1)``. The density of
``W_G(b, D)`` in these coordinates is therefore a product over rows:

    prod_i Phi_ii^(b + nu_i - 1) exp(-x_i^T D[S_i, S_i] x_i / 2),

so the rows are independent (Carvalho, Massam and West 2007 give the same
sequential construction for the hyper-inverse Wishart). In row i, with
``d = D_ii``, ``c = D[N_i, i]``, ``A = D[N_i, N_i]`` and the Schur complement
``s = d - c^T A^-1 c``:

* ``Phi_ii^2 ~ chi2(b + nu_i) / s``;
* given ``Phi_ii``, ``Phi_{i, N_i} ~ N(-Phi_ii A^-1 c, A^-1)``.

For a diagonal D this is ``K = D^-1/2 K' D^-1/2`` with ``K' ~ W_G(b, I)``
(independent standard normals on the edges, ``Phi_ii^2 ~ chi2(b + nu_i)``),
which is what a diagonal D computes (the same random numbers are used either
way: first the p chi-squares, then the edge normals in row-major order).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

import spdgraph
from spdgraph.graphs import perfect_elimination_order

__all__ = ["chordal_gwishart", "perfect_elimination_order"]


def _elimination_order(adjacency: np.ndarray) -> np.ndarray:
    order = perfect_elimination_order(adjacency)
    if order is None:
        raise spdgraph.InvalidOptionError(
            "gwishart algorithm='chordal' needs a decomposable (chordal) graph, and this "
            "graph has a chordless cycle of length >= 4; use algorithm='lenkoski', or "
            "triangulate the graph."
        )
    return np.asarray(order)


def chordal_gwishart(
    adjacency: np.ndarray, rng: np.random.Generator, b: float, D: np.ndarray
) -> np.ndarray:
    """One exact draw ``K ~ W_G(b, D)`` on a chordal graph.

    Parameters
    ----------
    adjacency
        Boolean ``(p, p)`` symmetric adjacency with a False diagonal.
    rng
        The random number generator.
    b
        Degrees of freedom, > 2.
    D
        The scale: a ``(p, p)`` symmetric positive definite array, or a 1-D
        array of length p holding the diagonal of a diagonal scale.

    Returns
    -------
    numpy.ndarray
        ``(p, p)`` precision matrix with exact zeros on the non-edges.

    Notes
    -----
    Draws, in the perfect elimination order of :func:`perfect_elimination_order`:
    first the p values ``chi2(b + nu_i)``, then the standard normals of the
    edges i < j in row-major order (see the module docstring for the law).

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not chordal.
    """
    order = _elimination_order(adjacency)
    p = adjacency.shape[0]
    d = np.asarray(D, dtype=np.float64)
    diagonal = d.ndim == 1
    if not diagonal and np.all(d[~np.eye(p, dtype=bool)] == 0):
        d, diagonal = np.diag(d).copy(), True
    a = adjacency[np.ix_(order, order)]
    upper = np.triu(a, 1)
    chi2 = rng.chisquare(b + upper.sum(axis=1))
    rows, cols = np.nonzero(upper)
    z = rng.standard_normal(rows.size)
    phi = np.zeros((p, p))
    if diagonal:
        d_perm = d[order]
        phi[np.arange(p), np.arange(p)] = np.sqrt(chi2 / d_perm)
        phi[rows, cols] = z / np.sqrt(d_perm[cols])
    else:
        d_perm = d[np.ix_(order, order)]
        starts = np.searchsorted(rows, np.arange(p + 1))
        for i in range(p):
            nbrs = cols[starts[i] : starts[i + 1]]
            if nbrs.size == 0:
                phi[i, i] = np.sqrt(chi2[i] / d_perm[i, i])
                continue
            factor = scipy.linalg.cho_factor(d_perm[np.ix_(nbrs, nbrs)], lower=True)
            c = d_perm[nbrs, i]
            a_inv_c = scipy.linalg.cho_solve(factor, c)
            schur = d_perm[i, i] - c @ a_inv_c
            phi[i, i] = np.sqrt(chi2[i] / schur)
            # A = L L^T: L^-T z has covariance A^-1
            noise = scipy.linalg.solve_triangular(
                factor[0], z[starts[i] : starts[i + 1]], lower=True, trans="T"
            )
            phi[i, nbrs] = noise - phi[i, i] * a_inv_c
    k_perm = phi.T @ phi  # exact zeros on non-edges: every product has a zero factor
    k_perm = (k_perm + k_perm.T) * 0.5
    k = np.empty_like(k_perm)
    k[np.ix_(order, order)] = k_perm
    return k
