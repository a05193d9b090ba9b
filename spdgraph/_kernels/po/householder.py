"""Partial orthogonalization (paper Algorithm 1), clear NumPy implementation.

Rows are processed in node order; row ``i`` is projected onto the orthogonal
complement of the span of the already processed rows ``j < i`` that are not
adjacent to ``i``. The span's orthonormal basis comes from a Householder QR,
and the projection is applied twice ("twice is enough") so that the residual
stays at rounding level even when a row loses most of its norm.
"""

from __future__ import annotations

import numpy as np


def partial_orthogonalize(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Return the processed factor: row i orthogonal to earlier non-neighbour rows.

    Parameters
    ----------
    adjacency : (p, p) bool array, symmetric, False diagonal
    factor : (p, p) float64 array whose rows are the initial vectors

    Returns
    -------
    (p, p) float64 array (a new array; ``factor`` is not modified).
    """
    q = np.array(factor, dtype=np.float64, copy=True)
    p = q.shape[0]
    for i in range(1, p):
        earlier_non_neighbours = np.flatnonzero(~adjacency[i, :i])
        if earlier_non_neighbours.size == 0:
            continue
        basis, _ = np.linalg.qr(q[earlier_non_neighbours].T)  # (p, |J|), orthonormal columns
        row = q[i]
        for _ in range(2):
            row = row - basis @ (basis.T @ row)
        q[i] = row
    return q


def gram_matrix(processed: np.ndarray) -> np.ndarray:
    """``Q @ Q.T``, made exactly symmetric."""
    m = processed @ processed.T
    return (m + m.T) * 0.5


def max_nonedge_residual(m: np.ndarray, adjacency: np.ndarray) -> float:
    """Largest ``|m_ij| / sqrt(m_ii m_jj)`` over non-edges ``i != j`` (0 if none)."""
    p = m.shape[0]
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    if p < 2 or not nonedge.any():
        return 0.0
    d = np.sqrt(np.abs(np.diag(m)))
    scale = np.outer(d, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.abs(m[nonedge]) / scale[nonedge]
    r = np.where(np.isfinite(r), r, np.inf)
    return float(r.max())
