"""The coordinates ``L0`` of a Gaussian factor drawn directly (Bartlett decomposition).

PO uses its random factor ``Q`` (``p x p``, i.i.d. N(0, 1) entries) only
through ``L0`` with ``Q = L0 U^T`` (``U`` orthonormal, ``L0`` lower
triangular, see :mod:`spdgraph._kernels.po.fast`): ``L0 L0^T = Q Q^T`` is
Wishart ``W_p(p, I)``, and the Bartlett decomposition gives the law of its
Cholesky factor: independent entries, ``L0[i, j] ~ N(0, 1)`` below the
diagonal and ``L0[i, i]^2 ~ chi^2(p - i)`` (rows counted from 0). Drawing
``L0`` from that law gives PO matrices with exactly the law of a Gaussian
factor's, without drawing the ``p^2`` entries of ``Q`` and without its QR
(``4/3 p^3`` flops: 2.2 s of 7.4 s at p = 5000 on two cores). The columns'
signs of a QR's ``R^T`` are arbitrary and do not matter: PO commutes with
any orthogonal change of coordinates, and ``L L^T`` is unchanged by it.

The order of the draws is part of the seeded result: the ``p (p - 1) / 2``
normals of the strict lower triangle row by row (``L0[1, 0]``,
``L0[2, 0]``, ``L0[2, 1]``, ...), in pieces of at most :data:`CHUNK` values
(NumPy draws a stream of normals the same way in one call or in pieces),
then the ``p`` chi-square variates of the diagonal in row order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph._kernels.streams import chisquare, standard_normal

#: Most normals drawn in one call (bounds the temporary at 8 MiB whatever p).
CHUNK = 1 << 20


@njit(cache=True, nogil=True)
def _fill_rows(values, out, i0, i1):
    """Rows ``i0:i1`` of ``out``: ``values`` below the diagonal (row by row), zeros elsewhere."""
    p = out.shape[1]
    t = 0
    for i in range(i0, i1):
        for j in range(i):
            out[i, j] = values[t]
            t += 1
        for j in range(i, p):
            out[i, j] = 0.0


@njit(cache=True, nogil=True)
def _set_diagonal(out, chi2):
    """``out[i, i] = sqrt(chi2[i])``."""
    for i in range(out.shape[0]):
        out[i, i] = np.sqrt(chi2[i])


def _row_end(i0: int, p: int) -> int:
    """End (exclusive) of the piece of rows from ``i0``: at most CHUNK normals, >= 1 row."""
    # rows i0..i1-1 hold sum(range(i0, i1)) = (i1 (i1 - 1) - i0 (i0 - 1)) / 2 normals
    start = i0 * (i0 - 1) // 2
    i1 = int((1.0 + np.sqrt(1.0 + 8.0 * (start + CHUNK))) / 2.0)
    while i1 * (i1 - 1) // 2 - start > CHUNK:
        i1 -= 1
    return min(p, max(i1, i0 + 1))


def draw_lower_coordinates(rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` (C-contiguous ``(p, p)`` float64) with a Bartlett draw of ``L0``; return it.

    ``out @ out.T`` is then Wishart ``W_p(p, I)``: the law of ``Q Q^T`` for a
    ``p x p`` factor ``Q`` of i.i.d. standard normals. The strict upper
    triangle is set to 0.

    Examples
    --------
    >>> import numpy as np
    >>> low = draw_lower_coordinates(np.random.default_rng(0), np.empty((3, 3)))
    >>> bool(np.all(np.triu(low, 1) == 0.0)), bool(np.all(np.diag(low) > 0))
    (True, True)
    """
    p = out.shape[0]
    i0 = 0
    while i0 < p:
        i1 = _row_end(i0, p)
        count = i1 * (i1 - 1) // 2 - i0 * (i0 - 1) // 2
        _fill_rows(rng.standard_normal(count), out, i0, i1)
        i0 = i1
    _set_diagonal(out, rng.chisquare(np.arange(p, 0, -1, dtype=np.float64)))
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _draw_packed(state, out, p):
    """The Bartlett draws of one stream into ``out``, its lower triangle packed by rows.

    Row ``i`` is ``out[i (i + 1) / 2 : i (i + 1) / 2 + i + 1]``, its diagonal
    last; the draws in their order (the normals row by row, then the
    chi-square variates of the diagonal), ``state`` not modified.
    """
    s = state.copy()
    for i in range(p):
        row = i * (i + 1) // 2
        for j in range(i):
            out[row + j] = standard_normal(s)
    for i in range(p):
        out[i * (i + 1) // 2 + i] = np.sqrt(chisquare(s, float(p - i)))


@njit(cache=True, nogil=True, error_model="numpy")
def draw_group_coordinates(states, lm, packed):
    """Bartlett ``L0`` of matrix ``g`` into ``lm[:, :, g]`` (the ``(row, column, matrix)`` layout).

    ``states[g]`` is the PCG64 state of matrix ``g``'s stream
    (:func:`spdgraph._kernels.streams.pcg64_states`, not modified): the draws are
    those of :func:`draw_lower_coordinates` from that stream's Generator, bit for
    bit (the normals of the strict lower triangle row by row, then the
    chi-square variates of the diagonal). Each matrix is drawn into a packed
    buffer first, then the group is laid out entry by entry across the
    matrices: written matrix by matrix, every entry was a cache line of its
    own (25% slower at p = 100 in groups of 32). ``packed`` is that buffer,
    ``(G, p (p + 1) / 2)`` (reused by the caller).
    """
    p, ng = lm.shape[0], lm.shape[2]
    for g in range(ng):
        _draw_packed(states[g], packed[g], p)
    for r in range(p):
        row = r * (r + 1) // 2
        for c in range(r + 1):
            for g in range(ng):
                lm[r, c, g] = packed[g, row + c]
        for c in range(r + 1, p):
            for g in range(ng):
                lm[r, c, g] = 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def draw_state_coordinates(state, out):
    """:func:`draw_lower_coordinates` of the stream whose PCG64 state is ``state``, into ``out``.

    ``state`` (one row of :func:`spdgraph._kernels.streams.pcg64_states`) is not
    modified; ``out`` is ``(p, p)`` float64. The same bits as the Generator's
    draw, without its temporaries (one large matrix: p = 5000 draws 12.5
    million normals).
    """
    s = state.copy()
    p = out.shape[0]
    for i in range(p):
        row = out[i]
        for j in range(i):
            row[j] = standard_normal(s)
        for j in range(i, p):
            row[j] = 0.0
    for i in range(p):
        out[i, i] = np.sqrt(chisquare(s, float(p - i)))
    return out


def draw_stack_coordinates(states: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`draw_group_coordinates` into a ``(G, p, p)`` stack ``out`` (matrix first)."""
    n, p = out.shape[0], out.shape[1]
    draw_group_coordinates(states, out.transpose(1, 2, 0), np.empty((n, p * (p + 1) // 2)))
    return out
