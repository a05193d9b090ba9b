"""Linear Gaussian structural equation models on a DAG: arrays in, arrays out.

``X = B X + e`` with ``B[j, i]`` the weight of the edge ``i -> j`` and
``e ~ N(0, diag(d))``. Then the precision is ``(I - B)^T D^-1 (I - B)``,
whose zero pattern is the moral graph (parents of a common child married),
and the covariance ``A D A^T`` with ``A = (I - B)^-1``, non-zero exactly on
the pairs with a common ancestor (a node being its own ancestor), for
generic weights. Directed adjacency: ``dag[i, j]`` True for ``i -> j``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from spdgraph._kernels.blas import one_blas_thread

__all__ = [
    "ancestral_pairs",
    "moral_graph",
    "sem_covariance",
    "sem_precision",
    "topological_order",
]


def topological_order(dag: np.ndarray) -> np.ndarray | None:
    """A topological order (Kahn, smallest index first), or None when ``dag`` has a cycle.

    >>> dag = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 0]], dtype=bool)  # 1 -> 0, 1 -> 2, 2 -> 0
    >>> topological_order(dag).tolist()
    [1, 2, 0]
    """
    p = dag.shape[0]
    indegree = dag.sum(axis=0).astype(np.int64)
    done = np.zeros(p, dtype=bool)
    order = np.empty(p, dtype=np.int64)
    for t in range(p):
        ready = np.flatnonzero((indegree == 0) & ~done)
        if ready.size == 0:
            return None
        v = ready[0]
        order[t] = v
        done[v] = True
        indegree -= dag[v]
    return order


def moral_graph(dag: np.ndarray) -> np.ndarray:
    """The moral graph: the skeleton plus an edge between every two parents of a child."""
    d = dag.astype(np.float64)  # BLAS: counts of common children, exact in float64
    with one_blas_thread():
        married = (d @ d.T) > 0
    moral = (dag | dag.T) | married
    np.fill_diagonal(moral, False)
    return moral


def ancestral_pairs(dag: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Pairs ``i != j`` with a common ancestor (``i`` or ``j`` itself): the covariance pattern."""
    p = dag.shape[0]
    reach = np.eye(p, dtype=bool)  # reach[k, i]: k is i or an ancestor of i
    for j in order:
        parents = np.flatnonzero(dag[:, j])
        if parents.size:
            reach[:, j] |= reach[:, parents].any(axis=1)
    r = reach.astype(np.float64)  # BLAS: counts of common ancestors, exact in float64
    with one_blas_thread():
        pairs = (r.T @ r) > 0
    np.fill_diagonal(pairs, False)
    return pairs


def _weights_matrix(dag: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``B`` with ``B[j, i] = weights[e]`` for the ``e``-th edge ``i -> j`` (row-major order)."""
    rows, cols = np.nonzero(dag)
    b = np.zeros(dag.shape)
    b[cols, rows] = weights
    return b


def sem_precision(
    dag: np.ndarray, weights: np.ndarray, variances: np.ndarray, portable: bool = False
) -> np.ndarray:
    """``(I - B)^T D^-1 (I - B)``, exactly symmetric (``portable``: fixed-order product).

    >>> dag = np.array([[0, 1], [0, 0]], dtype=bool)  # X1 = 0.5 X0 + e1
    >>> sem_precision(dag, np.array([0.5]), np.array([1.0, 1.0])).tolist()
    [[1.25, -0.5], [-0.5, 1.0]]
    """
    p = dag.shape[0]
    m = np.eye(p) - _weights_matrix(dag, weights)
    if portable:
        from spdgraph._kernels.portable import matmul_at_b  # imports numba: lazy

        omega = matmul_at_b(m / variances[:, None], m)
        return (omega + omega.T) / 2.0
    with one_blas_thread():
        omega = (m.T / variances) @ m
    return (omega + omega.T) / 2.0


def sem_covariance(
    dag: np.ndarray,
    weights: np.ndarray,
    variances: np.ndarray,
    order: np.ndarray,
    portable: bool = False,
) -> np.ndarray:
    """``A D A^T`` with ``A = (I - B)^-1`` (a triangular solve in topological ``order``).

    ``portable``: the inverse and the product in fixed-order loops.

    >>> dag = np.array([[0, 1], [0, 0]], dtype=bool)
    >>> sem_covariance(dag, np.array([0.5]), np.array([1.0, 1.0]), np.array([0, 1])).tolist()
    [[1.0, 0.5], [0.5, 1.25]]
    """
    p = dag.shape[0]
    m = (np.eye(p) - _weights_matrix(dag, weights))[np.ix_(order, order)]  # unit lower
    if portable:
        from spdgraph._kernels.portable import matmul_at_b, unit_lower_inverse

        a = unit_lower_inverse(m)
        sigma_sorted = matmul_at_b((a * variances[order]).T, a.T)
    else:
        with one_blas_thread():
            a = scipy.linalg.solve_triangular(m, np.eye(p), lower=True, unit_diagonal=True)
            sigma_sorted = (a * variances[order]) @ a.T
    sigma = np.empty_like(sigma_sorted)
    sigma[np.ix_(order, order)] = sigma_sorted
    return (sigma + sigma.T) / 2.0
