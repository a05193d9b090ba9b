"""Non-edge residuals of PO products: measured, and the non-edges set to exactly 0.

A PO matrix's non-edges come out of its product at rounding level; the
largest relative residual ``|m_ij| / sqrt(m_ii m_jj)`` over them decides
whether the result is kept (against the kernels' limits and the user's
``residual_tolerance``), and then they are set to exactly 0. Compiled loops
without ``p x p`` temporaries (a large matrix would double its memory).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph.errors import NumericalError


@njit(cache=True, nogil=True, error_model="numpy")
def nonedge_residual(m, adjacency):
    """Largest ``|m_ij| / sqrt(m_ii m_jj)`` over non-edges (inf for NaN), without temporaries."""
    p = m.shape[0]
    worst = 0.0
    for i in range(p):
        for j in range(p):
            if i != j and not adjacency[i, j]:
                r = abs(m[i, j]) / np.sqrt(abs(m[i, i]) * abs(m[j, j]))
                if not r <= worst:
                    worst = r if r == r else np.inf
    return worst


@njit(cache=True, nogil=True, error_model="numpy")
def take_nonedge_residual(m, adjacency):
    """:func:`nonedge_residual` of ``m``, its off-diagonal non-edges set to 0 in the same pass.

    One pass instead of two over a large matrix; the residual is
    ``|m_ij| * s_i * s_j`` with ``s = 1 / sqrt(|diag|)`` computed once (equal
    to ``nonedge_residual``'s to rounding; infinite for NaN or a zero diagonal).
    """
    p = m.shape[0]
    scale = np.empty(p)
    for i in range(p):
        scale[i] = 1.0 / np.sqrt(abs(m[i, i]))
    worst = 0.0
    for i in range(p):
        si = scale[i]
        for j in range(p):
            if i != j and not adjacency[i, j]:
                r = abs(m[i, j]) * si * scale[j]
                if not r <= worst:
                    worst = r if r == r else np.inf
                m[i, j] = 0.0
    return worst


@njit(cache=True, nogil=True)
def zero_nonedges(m, adjacency):
    """Set the off-diagonal non-edges of ``m`` to exactly 0 in place."""
    p = m.shape[0]
    for i in range(p):
        for j in range(p):
            if i != j and not adjacency[i, j]:
                m[i, j] = 0.0


def zero_nonedges_checked(m: np.ndarray, adjacency: np.ndarray, tolerance: float) -> np.ndarray:
    """Set non-edges to exactly 0 (in place) after checking their residual is below ``tolerance``.

    Compiled loops, no ``p x p`` temporaries (they would double the memory of a
    large matrix); same rule as :func:`spdgraph._kernels.po.householder.max_nonedge_residual`.
    """
    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    residual = nonedge_residual(m, adjacency) if m.shape[0] > 1 else 0.0
    check_residual(residual, tolerance)
    zero_nonedges(m, adjacency)
    return m


def check_residual(residual: float, tolerance: float) -> None:
    """NumericalError when a PO matrix's non-edge residual is above ``tolerance``."""
    if not residual <= tolerance:
        raise NumericalError(
            f"partial orthogonalization left a relative residual of {residual:.3g} on a "
            f"non-edge, above residual_tolerance={tolerance:g}; the factor is too "
            "ill-conditioned. Use another seed or factor, or raise residual_tolerance "
            "if you accept the loss of accuracy."
        )
