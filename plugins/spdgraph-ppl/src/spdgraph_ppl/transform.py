"""The unconstraining bijection of graph-constrained precision matrices (pure NumPy).

For a graph G on p nodes (any graph, any node order), every SPD matrix K with
``K_ij = 0`` on the non-edges is ``K = Phi^T Phi`` for exactly one upper
triangular ``Phi`` with positive diagonal, and ``Phi`` is determined by its
free entries: ``Phi_ii`` and ``Phi_ij`` on the edges i < j. The other entries
(non-edges i < j) are completed row by row,

    Phi_ij = -(1 / Phi_ii) sum_{k < i} Phi_ki Phi_kj,

which is exactly ``K_ij = sum_{k <= i} Phi_ki Phi_kj = 0`` solved for
``Phi_ij`` (Roverato 2002; Atay-Kayis and Massam 2005). Row i only uses rows
k < i, so the completion is explicit.

The unconstrained coordinates are ``u = (log Phi_00, ..., log Phi_(p-1)(p-1),
Phi_ij for the edges i < j in row-major order)``, ``m = p + |E|`` numbers.

Log-Jacobian
------------
The law of K is a density with respect to Lebesgue measure on its free
entries ``(K_ii, K_ij for edges i < j)``. Order both sets row by row (row i:
the diagonal first, then the edges i < j). For an entry of row i,

* ``K_ii = Phi_ii^2 + sum_{k<i} Phi_ki^2``,
* ``K_ij = Phi_ii Phi_ij + sum_{k<i} Phi_ki Phi_kj`` (edge, j > i),

and the sums involve only rows k < i of Phi, which (completed entries
included) are functions of the free entries of rows < i. So the Jacobian
matrix is block lower triangular over rows; the block of row i is lower
triangular with diagonal ``2 Phi_ii`` (for ``K_ii``) and ``Phi_ii`` (once per
edge i < j, ``nu_i`` times). Hence

    |d K_free / d Phi_free| = 2^p prod_i Phi_ii^(nu_i + 1),

``nu_i`` the number of neighbours j > i, for every graph (the completed
entries never enter a diagonal block). With ``Phi_ii = exp(u_i)``,
``d Phi_ii / d u_i = Phi_ii`` adds one more power:

    log |d K_free / d u| = p log 2 + sum_i (nu_i + 2) u_i.

For the complete graph (``nu_i = p - 1 - i``) this is the familiar Jacobian of
the Cholesky parametrization of the Wishart.

Node order
----------
All of the above holds in any node order, but the completed entries divide
by ``Phi_ii`` and compound row after row: in a bad order moderate coordinates
give huge, numerically indefinite K. The transform therefore works in
:attr:`GraphStructure.transform_order` (the node order when it has no fill-in,
else a perfect elimination order or a minimum fill-in order): ``Phi``, ``u``
and ``nu`` refer to ``K[order][:, order]``, and K is returned in the node order.
On a decomposable graph there is then no completed entry at all.
"""

from __future__ import annotations

import numpy as np

from spdgraph_ppl._graph import GraphStructure, graph_structure

__all__ = [
    "free_to_phi",
    "free_to_precision",
    "log_jacobian",
    "precision_to_free",
]


def free_to_phi(u: np.ndarray, graph: object) -> np.ndarray:
    """The upper triangular factor ``Phi`` of the free coordinates ``u``.

    Parameters
    ----------
    u
        The ``m = p + |E|`` free coordinates (see the module docstring).
    graph
        The graph (anything :func:`spdgraph_ppl.graph_structure` accepts).

    Returns
    -------
    numpy.ndarray
        ``(p, p)`` upper triangular, positive diagonal, with the non-edge
        entries completed so that ``Phi^T Phi`` is zero on the non-edges; rows
        and columns in :attr:`GraphStructure.transform_order` (``Phi^T Phi`` is
        ``K[order][:, order]``).

    Examples
    --------
    >>> import networkx as nx
    >>> phi = free_to_phi(np.array([0.0, 0.0, 0.0, 1.0, 1.0]), nx.path_graph(3))
    >>> phi.tolist()
    [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    """
    s = graph_structure(graph)
    u = _check_free(u, s)
    s = s.transform_structure
    p = s.p
    phi = np.zeros((p, p))
    phi[np.arange(p), np.arange(p)] = np.exp(u[:p])
    rows, cols = s.edges
    phi[rows, cols] = u[p:]
    for i in s.completed_rows:
        js = np.flatnonzero(s.upper_nonedges[i])
        phi[i, js] = -(phi[:i, i] @ phi[:i, js]) / phi[i, i]
    return phi


def free_to_precision(u: np.ndarray, graph: object) -> np.ndarray:
    """``K = Phi^T Phi`` of the free coordinates, with exact zeros on the non-edges.

    Examples
    --------
    >>> import networkx as nx
    >>> k = free_to_precision(np.array([0.0, 0.0, 0.0, 1.0, 1.0]), nx.path_graph(3))
    >>> k.tolist()
    [[1.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]
    """
    s = graph_structure(graph)
    phi = free_to_phi(u, s)
    k = phi.T @ phi
    if s.permuted:
        k = k[np.ix_(s.inverse_order, s.inverse_order)]
    # zero in exact arithmetic on the non-edges: make it exactly zero
    return (k + k.T) * 0.5 * s.pattern


def precision_to_free(k: np.ndarray, graph: object) -> np.ndarray:
    """The free coordinates of an SPD ``K`` with zeros on the non-edges.

    ``Phi`` is the transposed lower Cholesky factor; the returned vector holds
    ``log Phi_ii`` and ``Phi_ij`` on the edges.

    Raises
    ------
    numpy.linalg.LinAlgError
        K is not positive definite.
    """
    s = graph_structure(graph)
    k = np.asarray(k, dtype=np.float64)
    if k.shape != (s.p, s.p):
        raise ValueError(f"K must be {s.p} x {s.p} for this graph, got shape {k.shape}.")
    if s.permuted:
        k = k[np.ix_(s.transform_order, s.transform_order)]
    s = s.transform_structure
    phi = np.linalg.cholesky(k).T
    rows, cols = s.edges
    return np.concatenate([np.log(np.diag(phi)), phi[rows, cols]])


def log_jacobian(u: np.ndarray, graph: object) -> float:
    """``log |d K_free / d u|`` = ``p log 2 + sum_i (nu_i + 2) u_i`` (see the module;
    ``nu`` in the transform's order).

    Examples
    --------
    >>> import networkx as nx
    >>> float(log_jacobian(np.zeros(5), nx.path_graph(3)))  # 3 log 2
    2.0794415416798357
    """
    s = graph_structure(graph)
    u = _check_free(u, s)
    nu = s.transform_structure.nu
    return float(s.p * np.log(2.0) + np.sum((nu + 2) * u[: s.p]))


def _check_free(u: np.ndarray, s: GraphStructure) -> np.ndarray:
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (s.n_free,):
        raise ValueError(
            f"the free coordinates of this graph are a vector of length {s.n_free} "
            f"(p = {s.p} diagonal entries and {s.n_edges} edges), got shape {u.shape}."
        )
    return u
