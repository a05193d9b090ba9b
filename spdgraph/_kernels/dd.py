"""Diagonal dominance (paper Algorithm 2), gmat's exact rule."""

from __future__ import annotations

import numpy as np


def diagonal_dominance(
    adjacency: np.ndarray,
    edge_values: np.ndarray,
    perturbation: np.ndarray,
    *,
    portable: bool = False,
) -> np.ndarray:
    """Build a diagonally dominant matrix on the graph.

    Parameters
    ----------
    adjacency : (p, p) bool array, symmetric, False diagonal
    edge_values : one value per edge, in row-major order of the upper triangle
    perturbation : (p,) values; ``|perturbation_i|`` enters the diagonal twice

    Returns
    -------
    (p, p) float64 array with ``m_ij = m_ji = edge value`` on edges, 0 on
    non-edges and ``m_ii = sum_{j != i} |m_ij| + 2 |perturbation_i|`` (gmat's
    ``diagdom``: it adds ``|eps_i|`` to a row sum that already holds it).
    With ``portable`` the row sums run left to right in compiled loops
    (:func:`spdgraph._kernels.portable.row_abs_sums`): the same bits on every CPU.
    """
    p = adjacency.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    m = np.zeros((p, p), dtype=np.float64)
    m[rows, cols] = edge_values
    m[cols, rows] = edge_values
    eps = np.abs(perturbation)
    if portable:
        from spdgraph._kernels.portable import row_abs_sums  # imports numba: lazy

        sums = row_abs_sums(m)
    else:
        sums = np.abs(m).sum(axis=1)
    m[np.arange(p), np.arange(p)] = sums + 2.0 * eps
    return m
