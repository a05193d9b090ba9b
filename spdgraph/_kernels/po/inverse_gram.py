"""Blocked PO kernel with the inverse Gram matrix, for graphs of medium density.

Same algebra as the complement route of :mod:`spdgraph._kernels.po.fast`:
with ``T = L'^{-1}`` (the inverse of the processed coordinates) and
``S = T^T T = M'^{-1}`` (the inverse of their Gram matrix), row ``i`` with
earlier neighbours ``K`` and coordinates ``x = L0[i, :i]`` becomes

    ``y = T[:, K] w``,  ``S_KK w = (T^T x)_K``,

orthogonal to every earlier non-neighbour row (``L'_J T E_K = 0``). The
row-by-row kernel reads ``L'`` (or ``S``) a handful of times per row, about
``2.5 i^2`` doubles: memory-bound once ``p x p`` leaves the cache. Here rows
are processed in blocks of ``BLOCK``; what a block needs from the rows before
it comes from matrix products (BLAS, one call each) and gathers, and only
the coupling inside the block is done row by row, on short vectors:

* before the block: ``Z = X0 T_old`` (``X0`` the block's coordinates on the
  earlier columns), so ``(T^T x)`` needs only the block's own rows;
* inside the block, with ``X`` the block's rows of ``T`` on the earlier
  columns and ``T_in`` its diagonal block (``T_i = [[T_old, 0], [X, T_in]]``):
  ``S_i[K, K] = S_old[K, K] + sum_q c_q c_q^T`` over the block's earlier
  rows (``c_q`` their columns ``K`` of ``T``), a correction of rank
  ``< BLOCK``; ``y = T_i[:, K] w`` from ``|K|`` rows of ``T^T``, then the
  normal equations are corrected with their residual ``T_i[:, K]^T (x - y)``
  computed from the vectors (``S`` is only accurate to ``eps cond(M')``);
  the row's ``T`` entries are computed exactly (from ``y``) only on the
  earlier columns later rows of the block need;
* after the block: its rows of ``T`` whole, ``X = -T_in (Y T_old)``, and
  ``S_old += X^T X`` (BLAS ``dsyrk``, lower triangle, with the new border and
  corner).

Costs per row ``O(|K| i + |K|^3 / 3 + BLOCK |K|^2)`` plus ``O(i^2)``
multiply-adds in matrix products (compute-bound) and one pass over the
needed columns of ``T^T``. The result is certified by its non-edge residual
(``_po_blocked.CERTIFY_ABOVE``); the caller recomputes with the row-by-row
kernel when it is not met, when a Gram subproblem is not numerically
positive definite or when a row's corrections stagnate above
``_ACCEPT_ABOVE``.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numba import njit

from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po.blocked import block_columns as _needed_columns
from spdgraph._kernels.po.dense_loops import axpy, chol_solve, dot, small_cholesky
from spdgraph._kernels.raw_blas import add_gram_of_rows_lower, triangular_times

_FASTMATH = {"reassoc", "contract"}
#: Rows per block (16 to 32 measured alike at p = 1000; 24 among the best at p = 400).
BLOCK = 24
#: Relative residual of a row's normal equations above which it is corrected
#: again, and the largest number of corrections (as in the row kernel).
_REFINE_ABOVE = 1e-15
_MAX_STEPS = 3
#: A row whose corrections stagnate is kept if the relative residual of its
#: normal equations is at most this (the rounding level of sums over ~p terms);
#: else the whole matrix goes to the row-by-row kernel.
_ACCEPT_ABOVE = 1e-13


@njit(cache=True, nogil=True)
def _block_columns(ptr, idx, i0, i1, colpos):
    """The earlier columns (``< i0``) rows ``i0:i1`` need, and the last block row needing each."""
    cols = _needed_columns(ptr, idx, i0, i1, colpos)  # sets colpos for them
    n = cols.shape[0]
    last_use = np.zeros(n, dtype=np.int64)
    for i in range(i0, i1):
        for t in range(ptr[i], ptr[i + 1]):
            c = idx[t]
            if c < i0:
                last_use[colpos[c]] = i - i0
    for cp in range(n):
        colpos[cols[cp]] = -1
    order = np.argsort(cols)  # rows of T^T in memory order
    return cols[order], last_use[order]


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _dual_rows_times(tt, i0, w, idx, base, n_old, out):
    """``out[:i0] = T_old[:, K_old] w`` (``out[s] = sum_a w_a Tt[k_a, s]``, ``s >= k_a``)."""
    out[:i0] = 0.0
    for a in range(n_old):
        k = idx[base + a]
        axpy(w[a], tt[k, k:i0], out[k:i0])


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _block_rows(
    lmat, tt, s_old, zblk, ptr, idx, i0, i1, cols, last_use, xt, tin, keep, ct, g, gdiag, z, w,
    rho, xin, y,
):  # fmt: skip
    """Process rows ``i0:i1`` of ``lmat`` in place (see :func:`po_inverse_gram_into`).

    ``tt[:i0, :i0]`` is ``T_old^T``, ``s_old[:i0, :i0]`` is ``S`` of the rows
    before the block (its lower triangle: only that is kept), ``zblk[r, :i0]``
    is ``(T_old^T x)`` of row ``i0 + r``. ``cols`` are the earlier columns the block's rows need,
    ``last_use[cp]`` the last block row that needs ``cols[cp]``. Fills
    ``xt[cols, r]`` (the block's rows of ``T`` on those columns, where a
    later row of the block needs them; by column, so that a column is
    contiguous), ``tin`` (``T_in``, lower) and ``keep[r]`` (True: the row has
    no earlier non-neighbour and keeps its coordinates). Returns the number
    of correction steps, or -1 if a Gram subproblem is not numerically
    positive definite or its corrections do not converge.
    """
    # This kernel reads better whole: one pass per row owns the gathers, the small
    # solve, its corrections and the row of T, which share indices and buffers.
    ncol = cols.shape[0]
    refinements = 0
    for i in range(i0, i1):
        r = i - i0
        lii = lmat[i, i]
        inv = 1.0 / lii
        nk = ptr[i + 1] - ptr[i]
        base = ptr[i]
        keep[r] = False
        for q in range(r):
            xin[q] = lmat[i, i0 + q]
        if nk == 0:
            # orthogonal to every earlier row: y = 0, the row of T is 0 off the diagonal
            for s in range(i):
                lmat[i, s] = 0.0
            for cp in range(ncol):
                xt[cols[cp], r] = 0.0
            for q in range(r):
                tin[r, q] = 0.0
            tin[r, r] = inv
            continue
        if nk == i:
            # no earlier non-neighbour: y = x, its row of T is -(x^T T_i) / l_ii
            keep[r] = True
            for cp in range(ncol):
                if last_use[cp] > r:
                    c = cols[cp]
                    t = zblk[r, c]
                    for q in range(r):
                        t += xin[q] * xt[c, q]
                    xt[c, r] = -t * inv
            for q in range(r):
                t = 0.0
                for q2 in range(q, r):
                    t += xin[q2] * tin[q2, q]
                tin[r, q] = -t * inv
            tin[r, r] = inv
            continue
        # ---- c_a: column k_a of T_i on the block rows before i (length r)
        n_old = 0
        while n_old < nk and idx[base + n_old] < i0:
            n_old += 1
        for a in range(nk):
            k = idx[base + a]
            if k < i0:
                for q in range(r):
                    ct[q, a] = xt[k, q]
            else:
                for q in range(r):
                    ct[q, a] = tin[q, k - i0]
        # ---- z = (T_i^T x)_K and G = S_i[K, K] = S_old[K, K] + (c_a . c_b)
        xx = lii * lii
        for s in range(i):
            xx += lmat[i, s] * lmat[i, s]
        for a in range(nk):
            k = idx[base + a]
            z[a] = zblk[r, k] if k < i0 else 0.0
        for q in range(r):
            axpy(xin[q], ct[q, :nk], z[:nk])
        for a in range(nk):
            if a < n_old:
                ka = idx[base + a]
                for b in range(a + 1):
                    g[a, b] = s_old[ka, idx[base + b]]
            else:
                for b in range(a + 1):
                    g[a, b] = 0.0
        for a in range(nk):  # rank-r correction, rows of g updated four columns of ct at a time
            row = g[a, : a + 1]
            q = 0
            while q + 4 <= r:
                t0, t1, t2, t3 = ct[q, a], ct[q + 1, a], ct[q + 2, a], ct[q + 3, a]
                c0, c1 = ct[q, : a + 1], ct[q + 1, : a + 1]
                c2, c3 = ct[q + 2, : a + 1], ct[q + 3, : a + 1]
                for b in range(a + 1):
                    row[b] += (t0 * c0[b] + t1 * c1[b]) + (t2 * c2[b] + t3 * c3[b])
                q += 4
            while q < r:
                axpy(ct[q, a], ct[q, : a + 1], row)
                q += 1
            gdiag[a] = g[a, a]  # S_i[k_a, k_a]: the scale of the residual below
        if not small_cholesky(g, nk):
            return -1
        for a in range(nk):
            w[a] = z[a]
        chol_solve(g, nk, w)
        # ---- y = T_i[:, K] w, then corrections of the normal equations with their
        # residual T_i[:, K]^T (x - y), computed from the vectors (S is only
        # accurate to about eps cond(M'))
        converged = False
        previous = np.inf
        for step in range(_MAX_STEPS + 1):
            _dual_rows_times(tt, i0, w, idx, base, n_old, y)
            for q in range(r):
                y[i0 + q] = dot(ct[q, :nk], w[:nk])
            for s in range(i):
                y[s] = lmat[i, s] - y[s]  # x - y
            for a in range(nk):
                rho[a] = 0.0
            for q in range(r):
                axpy(y[i0 + q], ct[q, :nk], rho[:nk])
            worst = 0.0
            for a in range(nk):
                k = idx[base + a]
                if k < i0:
                    rho[a] += dot(tt[k, k:i0], y[k:i0])
                rel = abs(rho[a]) / np.sqrt(gdiag[a] * xx)
                if rel > worst:
                    worst = rel
            if not worst > _REFINE_ABOVE:
                converged = True
                break
            if not worst < 0.5 * previous or step == _MAX_STEPS:
                # stagnated at the rounding level of this row's sums, or too many steps
                converged = worst <= _ACCEPT_ABOVE
                break
            previous = worst
            chol_solve(g, nk, rho)
            for a in range(nk):
                w[a] += rho[a]
            refinements += 1
        if not converged:
            return -1
        for s in range(i):
            y[s] = lmat[i, s] - y[s]  # back to y
        # ---- row of T: -(y_old^T T_old + y_in^T X) / l_ii on the earlier columns the
        # later rows of the block need (the whole row is recomputed after the
        # block by a matrix product); -(y_in^T T_in) / l_ii
        for cp in range(ncol):
            if last_use[cp] > r:
                c = cols[cp]
                t = dot(tt[c, c:i0], y[c:i0]) + dot(y[i0 : i0 + r], xt[c, :r])
                xt[c, r] = -t * inv
        for q in range(r):
            t = 0.0
            for q2 in range(q, r):
                t += y[i0 + q2] * tin[q2, q]
            tin[r, q] = -t * inv
        tin[r, r] = inv
        for s in range(i):
            lmat[i, s] = y[s]
    return refinements


def po_inverse_gram_into(
    adjacency: np.ndarray,
    factor: np.ndarray,
    ptr: np.ndarray,
    idx: np.ndarray,
    out: np.ndarray,
    threads: int = 1,
    coordinates: bool = False,
    bound: np.ndarray | None = None,
) -> float | None:
    """PO matrix ``Q' Q'^T`` of ``factor`` into ``out`` by this kernel, non-edges zeroed.

    With ``coordinates``, ``factor`` is ``out`` and already holds ``L0``: no QR.
    ``bound`` (a 1-element array) receives the proven condition bound
    (:func:`~spdgraph._kernels.po.blocked.certified`).

    ``ptr``/``idx`` are the earlier neighbours
    (:func:`~spdgraph._kernels.po.blocked.earlier_neighbours`). Returns the
    non-edge residual measured before the non-edges were set to 0 when the
    result is certified (at most
    :data:`~spdgraph._kernels.po.blocked.CERTIFY_ABOVE`), None when the
    caller must recompute it (``out`` then holds garbage). Work arrays: ``T^T``
    and ``S`` (``p x p`` each). ``threads`` (up to 2) is used by the QR and
    the final product (fixed pieces: the bits do not depend on it); the
    block products are one BLAS call each (splitting them measured no faster
    at p = 1000 and slower at p = 400). Run it inside ``one_blas_thread``.
    """
    rows = partial(_process_blocks, ptr=ptr, idx=idx)
    return _po_blocked.factor_to_product(adjacency, factor, out, threads, coordinates, bound, rows)


def _process_blocks(lmat: np.ndarray, ptr: np.ndarray, idx: np.ndarray) -> bool:
    """Rows of ``lmat`` (coordinates ``L0`` on entry, ``L`` on success) block by block."""
    p = lmat.shape[0]
    tt = np.zeros((p, p))  # T^T, upper triangular
    s = np.zeros((p, p))  # S = T^T T, lower triangle
    kmax = max(int(np.diff(ptr).max(initial=0)), 1)
    xr = np.zeros((BLOCK, p))
    xt = np.zeros((p, BLOCK))  # the block's rows of T, by column (in the block)
    tin = np.zeros((BLOCK, BLOCK))
    keep = np.zeros(BLOCK, dtype=np.bool_)
    ct = np.empty((BLOCK, kmax))  # ct[q, a]: column k_a of T on block row q
    g = np.empty((kmax, kmax))
    z, w, rho, gdiag = np.empty(kmax), np.empty(kmax), np.empty(kmax), np.empty(kmax)
    xin, y = np.empty(BLOCK), np.empty(p)
    zblk = np.zeros((BLOCK, p))
    colpos = np.full(p, -1, dtype=np.int64)
    for i0 in range(0, p, BLOCK):
        i1 = min(p, i0 + BLOCK)
        nb = i1 - i0
        if i0 > 0:
            zblk[:nb, :i0] = lmat[i0:i1, :i0]
            triangular_times(tt[:i0, :i0], zblk[:nb, :i0], transpose=True)  # X0 T_old
        cols, last_use = _block_columns(ptr, idx, i0, i1, colpos)
        steps = _block_rows(
            lmat, tt, s, zblk, ptr, idx, i0, i1, cols, last_use, xt, tin, keep, ct, g, gdiag, z, w,
            rho, xin, y,
        )  # fmt: skip
        if steps < 0:
            return False
        x = xr[:nb, :i0]
        t_in = tin[:nb, :nb]
        if i0 > 0:
            # the block's rows of T from its final rows: X = -T_in (Y T_old)
            x[...] = lmat[i0:i1, :i0]
            triangular_times(tt[:i0, :i0], x, transpose=True)
            np.matmul(t_in, x, out=zblk[:nb, :i0])
            np.negative(zblk[:nb, :i0], out=x)
            add_gram_of_rows_lower(s[:i0, :i0], x)
        _append_block(s, tt, x, t_in, i0, i1)
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _append_block(s, tt, x, t_in, i0, i1):
    """Border ``T_in^T X`` and corner ``T_in^T T_in`` of ``S`` (lower); the block's ``T^T``."""
    nb = i1 - i0
    row = np.empty(nb)
    for c in range(i0):
        row[:] = 0.0
        for r in range(nb):
            tt[c, i0 + r] = x[r, c]
            axpy(x[r, c], t_in[r, :nb], row)
        for q in range(nb):
            s[i0 + q, c] = row[q]
    for a in range(nb):
        for b in range(a + 1):
            t = 0.0
            for r in range(a, nb):
                t += t_in[r, a] * t_in[r, b]
            s[i0 + a, i0 + b] = t
        for b in range(a, nb):
            tt[i0 + a, i0 + b] = t_in[b, a]
