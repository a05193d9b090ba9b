"""Blocked PO kernel for large sparse graphs: matrix-matrix work for the earlier rows.

Same algebra as the complement route of :mod:`spdgraph._kernels.po.fast`, with
the inverse ``T = L^{-1}`` of the processed coordinates kept explicitly (as
``Tt = T^T``, so that a column of ``T`` is a contiguous row of ``Tt``). Row
``i`` with earlier neighbours ``K`` (``x = L0[i, :i]``) becomes

    ``y = T[:, K] w``,  ``(T[:, K]^T T[:, K]) w = T[:, K]^T x``,

which is orthogonal to every earlier non-neighbour row (``L'_J T E_K = 0``):
cost ``O(i |K|^2)`` instead of ``O(i^2)``. Rows are processed in blocks of
``BLOCK`` (``WIDE_BLOCK`` for graphs of small mean degree); inside a block
only the columns of ``T`` that the block's rows need are kept up to date row
by row; after the block its rows of ``T`` are
appended with two matrix-matrix products (``T_blk = -D^{-1} Y T_old``, ``D``
the diagonal block, ``Y`` the block's processed coordinates on the earlier
columns), cut into a fixed set of pieces that run on up to two threads: the
pieces, not the threads, fix the rounding, so the bits do not depend on the
thread count. The product ``L L^T`` is formed in place, tile by tile, the same way.

The result is certified by its non-edge residual (:data:`CERTIFY_ABOVE`); the
caller recomputes with the row-by-row kernel when it is not met or when a
Gram subproblem is not numerically positive definite.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
from numba import njit

from spdgraph._kernels.csr import neighbour_lists
from spdgraph._kernels.po.dense_loops import axpy, chol_solve, dot, small_cholesky
from spdgraph._kernels.po.qr import qr_lower_inplace
from spdgraph._kernels.po.residual import take_nonedge_residual

_FASTMATH = {"reassoc", "contract"}
#: Rows per block (32 measured best from p = 1000 to 5000 at mean degree 35: the
#: in-block work grows with it) ...
BLOCK = 32
#: ... and for graphs of mean degree at most :data:`WIDE_BELOW_DEGREE`, where the
#: products that append the block's rows of ``T`` (one pass over ``T`` per block)
#: dominate: 64 rows, measured 12% faster at p = 10,000, mean degree 5, and 20% slower
#: at mean degree 35 (p = 2500 to 5000). The bits depend only on the graph.
WIDE_BLOCK = 64
WIDE_BELOW_DEGREE = 10.0


def block_rows_for(ptr: np.ndarray) -> int:
    """Rows per block for the graph of these earlier-neighbour lists (CSR pointer)."""
    p = ptr.shape[0] - 1
    mean_degree = 2.0 * float(ptr[-1]) / max(p, 1)
    return WIDE_BLOCK if mean_degree <= WIDE_BELOW_DEGREE else BLOCK


#: Pieces of each block update and tiles of the product (fixed: they fix the rounding).
PIECES = 8
#: Rows and columns of the tiles of the product ``L L^T``.
TILE = 512
#: Largest relative non-edge residual a blocked result may have; above it the
#: row-by-row kernel recomputes the matrix.
CERTIFY_ABOVE = 1e-14
#: Smallest p for the blocked kernels (this one and the inverse-Gram kernel):
#: below it the fused small path of the row-by-row kernel is as fast.
MIN_P = 256


@njit(cache=True, nogil=True)
def earlier_neighbours(adjacency):
    """CSR lists of the earlier neighbours ``j < i`` of every row (ascending)."""
    return neighbour_lists(adjacency, True)


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def block_columns(ptr, idx, i0, i1, colpos):
    """The earlier columns (``< i0``) the rows ``i0:i1`` need; sets ``colpos`` for them."""
    n = 0
    for t in range(ptr[i0], ptr[i1]):
        c = idx[t]
        if c < i0 and colpos[c] < 0:
            colpos[c] = n
            n += 1
    cols = np.empty(n, dtype=np.int64)
    for t in range(ptr[i0], ptr[i1]):
        c = idx[t]
        if c < i0:
            cols[colpos[c]] = c
    return cols


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _block_rows(lmat, tt, ptr, idx, i0, i1, cols, colpos, dinv_t, v, g, y, z):
    """Process rows ``i0:i1`` of ``lmat`` in place; False if a Gram subproblem is not PD.

    ``tt[:i0, :i0]`` holds ``T^T`` of the rows before the block. Fills
    ``dinv_t[:nb, :nb]`` with ``D^{-T}`` (``D`` the block's diagonal block).
    """
    # This kernel reads better whole: the gather, the small solve and the two
    # row updates of T share the same indices and buffers.
    nb = i1 - i0
    ncol = cols.shape[0]
    tbt = np.zeros((max(ncol, 1), nb))  # tbt[colpos[c], r] = T[i0 + r, c]
    for i in range(i0, i1):
        r = i - i0
        nk = ptr[i + 1] - ptr[i]
        lii = lmat[i, i]
        first = i
        if nk == 0:
            for s in range(i):
                lmat[i, s] = 0.0
        elif nk < i:
            first = idx[ptr[i]]
            for a in range(nk):
                k = idx[ptr[i] + a]
                v[a, first:k] = 0.0
                if k < i0:
                    v[a, k:i0] = tt[k, k:i0]
                    v[a, i0:i] = tbt[colpos[k], : i - i0]
                else:
                    v[a, k:i] = dinv_t[k - i0, k - i0 : i - i0]
            for a in range(nk):
                ka = idx[ptr[i] + a]
                va = v[a, ka:i]
                z[a] = dot(va, lmat[i, ka:i])
                for b in range(a + 1):
                    g[a, b] = dot(va, v[b, ka:i])
            if not small_cholesky(g, nk):
                return False
            chol_solve(g, nk, z)
            for s in range(first, i):
                y[s] = 0.0
            for a in range(nk):
                ka = idx[ptr[i] + a]
                axpy(z[a], v[a, ka:i], y[ka:i])
            for s in range(first):
                lmat[i, s] = 0.0
            for s in range(first, i):
                lmat[i, s] = y[s]
        else:
            first = 0  # no earlier non-neighbour: the row stays as it is
        # ---- row r of D^{-1} and of T on the block's columns
        inv = 1.0 / lii
        dinv_t[r, r] = inv
        for kk in range(r):
            lo = max(i0 + kk, first)
            t = dot(lmat[i, lo:i], dinv_t[kk, lo - i0 : i - i0])
            dinv_t[kk, r] = -t * inv
        for cp in range(ncol):
            c = cols[cp]
            lo = max(c, first)
            t = dot(lmat[i, lo:i0], tt[c, lo:i0]) if lo < i0 else 0.0
            lo = max(i0, first)
            t += dot(lmat[i, lo:i], tbt[cp, lo - i0 : i - i0])
            tbt[cp, r] = -t * inv
    return True


@njit(cache=True, nogil=True)
def _zero_upper(lmat):
    """Zero the strict upper triangle (LAPACK's Householder vectors) of a square array."""
    p = lmat.shape[0]
    for i in range(p):
        for j in range(i + 1, p):
            lmat[i, j] = 0.0


def lower_coordinates_into(factor: np.ndarray, buf: np.ndarray, threads: int = 1) -> None:
    """``buf = L0`` (lower triangular) with ``factor = L0 U^T``, the QR done in ``buf`` itself.

    ``buf`` is a C-contiguous ``(p, p)`` float64 array; see
    :mod:`spdgraph._kernels.po.qr` (the bits do not depend on ``threads``).
    """
    buf[...] = factor
    qr_lower_inplace(buf, threads)
    _zero_upper(buf)


def _zeros_small_pages(p: int) -> np.ndarray:
    """A ``(p, p)`` array of zeros whose untouched pages stay unallocated.

    NumPy asks the kernel for huge pages (2 MB) for large arrays; writing the
    upper triangle of ``T^T`` would then make every page resident. Without
    them only the touched half (plus a page per row) is.
    """
    toggle = getattr(getattr(np, "_core", np.core).multiarray, "_set_madvise_hugepage", None)
    previous = toggle(False) if toggle is not None else None
    try:
        return np.zeros((p, p))
    finally:
        if toggle is not None:
            toggle(previous)


def _run(tasks: Sequence[Callable[[], object]], threads: int) -> None:
    """Run independent tasks (each fixes its own rounding) on up to ``threads`` threads."""
    if threads <= 1 or len(tasks) <= 1:
        for task in tasks:
            task()
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(task) for task in tasks]:
            future.result()


def _bounds(n: int, pieces: int) -> list[int]:
    """Cut ``0:n`` into pieces of about equal upper-triangular area (fixed for a given n)."""
    cuts = [round(n * (1.0 - float(np.sqrt(1.0 - j / pieces)))) for j in range(pieces + 1)]
    return sorted(set(cuts))


@njit(cache=True, nogil=True)
def _rows_with_entries(lmat, i0, i1):
    """The rows ``r`` of ``i0:i1`` (as offsets ``r - i0``) with a non-zero in ``lmat[r, :i0]``.

    A scan that stops at a row's first non-zero (no ``nb x i0`` boolean temporary).
    """
    found = np.empty(i1 - i0, dtype=np.int64)
    n = 0
    for r in range(i0, i1):
        row = lmat[r]
        for c in range(i0):
            if row[c] != 0.0:
                found[n] = r - i0
                n += 1
                break
    return found[:n]


def _append_block_of_t(tt, lmat, i0, i1, dinv_t, threads):
    """``Tt[:i0, i0:i1] = -(T_old^T Y^T) D^{-T}`` and ``Tt[i0:i1, i0:i1] = D^{-T}``."""
    nb = i1 - i0
    rows = _rows_with_entries(lmat, i0, i1)
    tt[i0:i1, i0:i1] = np.triu(dinv_t[:nb, :nb])
    if rows.size == 0:
        tt[:i0, i0:i1] = 0.0
        return
    y_t = np.ascontiguousarray(lmat[i0 + rows, :i0]).T  # (i0, n_rows), F order
    h = np.empty((i0, rows.size))
    cuts = _bounds(i0, PIECES)

    def piece(a: int, b: int) -> None:
        np.matmul(tt[a:b, a:i0], y_t[a:i0], out=h[a:b])
        np.negative(h[a:b] @ dinv_t[rows, :nb], out=tt[a:b, i0:i1])

    _run([partial(piece, a, b) for a, b in itertools.pairwise(cuts)], threads)


def gram_inplace(lmat: np.ndarray, threads: int, majorant: np.ndarray | None = None) -> bool:
    """Replace lower-triangular ``L`` by ``L L^T`` in place, tile by tile, exactly symmetric.

    Row blocks are done from the last one up, so that the rows they read are
    still rows of ``L``; each holds one row block of temporaries. The tiles
    below the diagonal are computed once and mirrored.

    With ``majorant`` (a ``(2, p)`` array) the comparison-matrix substitutions
    of :mod:`spdgraph._kernels.certify` run on ``L`` before it is overwritten
    (the forward one first, the backward one block by block beside the
    block's tiles): ``majorant[0]`` then holds ``c``, ``majorant[1]`` the row
    norms of ``L``, for :func:`~spdgraph._kernels.certify.majorant_finish`.
    Returns False when they were not computed (no ``majorant``, or an entry
    right of the diagonal inside a diagonal tile is not 0: the product would
    not be of the lower triangle alone), else True.
    """
    from spdgraph._kernels.certify import majorant_backward, majorant_forward

    p = lmat.shape[0]
    bounded = majorant is not None and majorant_forward(lmat, majorant[1], majorant[0], 0, p, TILE)
    cuts = [*range(0, p, TILE), p]
    for bi in reversed(range(len(cuts) - 1)):
        a, b = cuts[bi], cuts[bi + 1]
        temp = np.empty((b - a, b))
        tasks: list[Callable[[], object]] = []
        if bounded:
            tasks.append(partial(majorant_backward, lmat, majorant[0], a, b))  # type: ignore[index]
        for bj in range(bi + 1):
            c, e = cuts[bj], cuts[bj + 1]

            def tile(
                a: int = a, b: int = b, c: int = c, e: int = e, temp: np.ndarray = temp
            ) -> None:
                t = lmat[a:b, :e] @ lmat[c:e, :e].T
                if c == a:
                    _mirror_lower(t)  # exactly symmetric: the lower triangle, mirrored
                temp[:, c:e] = t

            tasks.append(tile)
        _run(tasks, threads)
        lmat[a:b, :b] = temp
    for bi in range(len(cuts) - 1):
        a, b = cuts[bi], cuts[bi + 1]
        lmat[:a, a:b] = lmat[a:b, :a].T
    return bool(bounded)


@njit(cache=True, nogil=True)
def _mirror_lower(t):
    """Copy the strict lower triangle of square ``t`` onto its upper triangle."""
    n = t.shape[0]
    for i in range(n):
        for j in range(i):
            t[j, i] = t[i, j]


def po_blocked_into(
    adjacency: np.ndarray,
    factor: np.ndarray,
    ptr: np.ndarray,
    idx: np.ndarray,
    out: np.ndarray,
    threads: int = 1,
    coordinates: bool = False,
    bound: np.ndarray | None = None,
) -> float | None:
    """PO matrix ``Q' Q'^T`` of ``factor`` into ``out`` by the blocked kernel, non-edges zeroed.

    With ``coordinates``, ``factor`` is ``out`` and already holds ``L0``
    (lower triangular, e.g. :mod:`~spdgraph._kernels.po.bartlett`): no QR.

    ``ptr``/``idx`` are :func:`earlier_neighbours` of ``adjacency``. Returns
    the non-edge residual measured before the non-edges were set to 0 when
    the result is certified (at most :data:`CERTIFY_ABOVE`), None when the
    caller must recompute it (``out`` then holds garbage). ``out``
    (C-contiguous) is the only ``p x p`` work array besides the inverse ``T``
    (its upper half is touched). Run it inside ``one_blas_thread``. ``bound``
    (a 1-element array) receives the result's proven condition bound
    (:func:`certified`).
    """
    rows = partial(_blocked_rows, ptr=ptr, idx=idx, threads=threads)
    return factor_to_product(adjacency, factor, out, threads, coordinates, bound, rows)


def factor_to_product(
    adjacency: np.ndarray,
    factor: np.ndarray,
    out: np.ndarray,
    threads: int,
    coordinates: bool,
    bound: np.ndarray | None,
    rows: Callable[[np.ndarray], bool],
) -> float | None:
    """The frame of both blocked kernels: ``L0``, the kernel's rows, the product, the residual.

    ``out`` receives the lower coordinates ``L0`` of ``factor`` (its QR), unless
    ``coordinates`` (it holds them already); ``rows(out)`` turns them into ``L`` in
    place (this module's rows, or :mod:`~spdgraph._kernels.po.inverse_gram`'s) and
    returns False when it cannot go on (then None: the caller recomputes). Else
    ``out = L L^T`` (:func:`gram_inplace`) and :func:`certified` gives the residual
    and fills ``bound``.
    """
    lmat = out
    if not coordinates:
        lower_coordinates_into(factor, lmat, threads)
    if not rows(lmat):
        return None
    majorant = None if bound is None else np.empty((2, lmat.shape[0]))
    bounded = gram_inplace(lmat, threads, majorant)
    return certified(out, adjacency, majorant if bounded else None, bound)


def _blocked_rows(lmat: np.ndarray, ptr: np.ndarray, idx: np.ndarray, threads: int) -> bool:
    """``L0`` to ``L`` in place, block of rows by block of rows; False if a row fails."""
    p = lmat.shape[0]
    tt = _zeros_small_pages(p)
    colpos = np.full(p, -1, dtype=np.int64)
    kmax = int(np.diff(ptr).max(initial=0))
    v = np.empty((max(kmax, 1), p))
    g = np.empty((max(kmax, 1), max(kmax, 1)))
    y, z = np.empty(p), np.empty(max(kmax, 1))
    rows = block_rows_for(ptr)
    dinv_t = np.zeros((rows, rows))
    for i0 in range(0, p, rows):
        i1 = min(p, i0 + rows)
        cols = block_columns(ptr, idx, i0, i1, colpos)
        ok = _block_rows(lmat, tt, ptr, idx, i0, i1, cols, colpos, dinv_t, v, g, y, z)
        colpos[cols] = -1
        if not ok:
            return False
        if i1 < p:
            _append_block_of_t(tt, lmat, i0, i1, dinv_t, threads)
    return True


def certified(
    m: np.ndarray,
    adjacency: np.ndarray,
    majorant: np.ndarray | None = None,
    bound: np.ndarray | None = None,
) -> float | None:
    """The non-edge residual of a blocked kernel's result ``m`` if at most :data:`CERTIFY_ABOVE`.

    The non-edges are set to 0 in the same pass
    (:func:`~spdgraph._kernels.po.residual.take_nonedge_residual`); None
    (recompute by rows) above it. ``bound[0]`` (when given) receives the proven
    condition bound of the kept ``m`` from ``majorant``
    (:func:`gram_inplace`; :func:`~spdgraph._kernels.certify.construction_bound`),
    infinity without it.
    """
    from spdgraph._kernels.certify import construction_bound, majorant_finish, scaled_norm

    residual = take_nonedge_residual(m, adjacency)
    if residual > CERTIFY_ABOVE:
        return None
    if bound is not None:
        bound[0] = np.inf
        if majorant is not None:
            inverse = majorant_finish(majorant[0], majorant[1])
            norm = scaled_norm(m, majorant[1])
            bound[0] = construction_bound(norm, inverse, m.shape[0], residual)
    return residual
