"""PO kernel for dense graphs: the direct route with its factorizations on two cores.

Row ``i`` (coordinates ``x = L0[i, :i]``, earlier non-neighbours ``J``)
becomes ``y = x - L'_J^T a`` with ``M'_JJ a = L'_J x`` (``M' = L' L'^T`` the
Gram matrix of the processed rows, kept as they are produced), the direct
route of :mod:`spdgraph._kernels.po.fast`. On dense graphs its cost is the
Cholesky factorization of ``M'_JJ`` for every row, about
``min(d, 1 - d)^3 p^4 / 12`` flops in all, which the row kernel does on one
core between the rows' other work.

Here the rows go by blocks of :data:`BLOCK`. Before row ``i`` of block ``b``
is finished, the factorization of its subproblem restricted to the rows
before block ``b - 1`` (``J ∩ [0, h)``, ``h = i0 - BLOCK``) is done, one task
per row (gather and LAPACK ``dpotrf``, one compiled call): those rows are
final once block ``b - 2`` is, so the tasks run a block ahead on one core
while the other finishes rows in order and takes a task whenever the row it
needs next is not factored yet (:class:`~spdgraph._kernels.po.dense_schedule.RowPipeline`:
no thread waits at block boundaries). Finishing row ``i`` extends its factor by the fewer than
``2 BLOCK`` non-neighbours in ``[h, i)`` (bordering: ``O(|J|^2)`` each),
solves, corrects with the residual ``L'_J y`` measured from the vectors (at
most :data:`_MAX_STEPS` solves, as the row kernel), and stores the row and
its Gram row ``L' y``. Each task is the same compiled code on the same data
whichever thread runs it, so the bits do not depend on the thread count.
The kept Gram matrix is the result ``L L^T`` (its rows are the processed
rows' dot products): no final product. The result is certified by its
non-edge residual like the other blocked kernels
(:data:`~spdgraph._kernels.po.blocked.CERTIFY_ABOVE`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po.dense_loops import axpy, dot
from spdgraph._kernels.po.dense_schedule import RowPipeline
from spdgraph._kernels.raw_blas import DPOTRF_POINTERS, times_lower_transposed

_FASTMATH = {"reassoc", "contract"}
#: Rows per block (the look-ahead of the factorizations).
BLOCK = 8
#: Relative residual of a row above which it is corrected, and the most solves per row.
_REFINE_ABOVE = 1e-15
_MAX_STEPS = 3


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _gather_row(gram, jptr, jidx, i, h, zrow, c, r):
    """``M'[J0, J0]`` into the upper triangle of ``c``, ``r = (L' x)_J0``, ``J0 = J ∩ [0, h)``.

    ``zrow[:h]`` is ``L'[:h] x``. Reads only rows ``< h`` of ``gram``. Returns
    ``|J0|`` (0 for a row with no earlier neighbour, which needs no solve).
    """
    base = jptr[i]
    nj = jptr[i + 1] - base
    if nj == i:
        return 0
    n0 = 0
    while n0 < nj and jidx[base + n0] < h:
        n0 += 1
    idx = jidx[base : base + n0]
    for a in range(n0):  # slices: the loop then compiles to 1.4 instead of 3.7 ns per entry
        ja = idx[a]
        row = gram[ja]
        ca = c[a, a:n0]
        ia = idx[a:n0]
        for b in range(ia.shape[0]):
            ca[b] = row[ia[b]]
        r[a] = zrow[ja]
    return n0


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _extend(lmat, gram, jptr, jidx, i, n0, c, r, wt, sm):
    """Border the factor ``R0 = c[:n0, :n0]`` (``R0^T R0 = M'[J0, J0]``) with the rest of ``J``.

    ``R = [[R0, W], [0, R1]]`` with ``R0^T W = M'[J0, new]`` (one pass over
    the rows of ``R0`` for all the new columns) and ``R1^T R1 = M'[new, new] -
    W^T W``. Appends ``(L' x)_new`` to ``r`` and runs the first ``n0`` steps
    of the forward substitution ``R^T z = r`` (:func:`_solve_upper` from
    ``n0`` completes it with the same operations in the same order), so that
    each row of ``R0`` is read once for ``W`` and ``z``. False if the
    subproblem is not numerically positive definite.
    """
    base = jptr[i]
    nj = jptr[i + 1] - base
    m = nj - n0
    for s in range(m):
        js = jidx[base + n0 + s]
        row = gram[js]
        ws = wt[s]
        for a in range(n0):
            ws[a] = row[jidx[base + a]]
        r[n0 + s] = dot(lmat[js, : js + 1], lmat[i, : js + 1])
    for a in range(n0):
        inv = 1.0 / c[a, a]
        ra = c[a, a + 1 : n0]
        for s in range(m):
            t = wt[s, a] * inv
            wt[s, a] = t
            axpy(-t, ra, wt[s, a + 1 : n0])
        t = r[a] / c[a, a]  # the forward substitution's step a (W[a] is final now)
        r[a] = t
        axpy(-t, ra, r[a + 1 : n0])
        for s in range(m):
            r[n0 + s] += -t * wt[s, a]
    for s in range(m):
        row = gram[jidx[base + n0 + s]]
        for u in range(s + 1):
            sm[s, u] = row[jidx[base + n0 + u]] - dot(wt[s, :n0], wt[u, :n0])
    for s in range(m):  # R1^T = the lower Cholesky factor of sm
        for u in range(s):
            sm[s, u] = (sm[s, u] - dot(sm[s, :u], sm[u, :u])) / sm[u, u]
        d = sm[s, s] - dot(sm[s, :s], sm[s, :s])
        if not d > 0.0:
            return False
        sm[s, s] = np.sqrt(d)
    for a in range(n0):
        for s in range(m):
            c[a, n0 + s] = wt[s, a]
    for s in range(m):
        for u in range(s + 1):
            c[n0 + u, n0 + s] = sm[s, u]
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _solve_upper(c, n, b, start):
    """Solve ``R^T R a = b`` in place, ``R = c[:n, :n]`` upper triangular.

    The forward substitution starts at step ``start`` (the steps before it
    done by :func:`_extend`).
    """
    for a in range(start, n):
        t = b[a] / c[a, a]
        b[a] = t
        axpy(-t, c[a, a + 1 : n], b[a + 1 : n])
    for a in range(n - 1, -1, -1):
        b[a] = (b[a] - dot(c[a, a + 1 : n], b[a + 1 : n])) / c[a, a]


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _gram_row(lmat, gram, i, y):
    """``gram[i, :i] = L' y``, ``gram[i, i] = |y|^2 + l_ii^2``; returns the latter."""
    for j in range(i):
        gram[i, j] = dot(lmat[j, : j + 1], y[: j + 1])
    lii = lmat[i, i]
    yy = lii * lii + dot(y[:i], y[:i])
    gram[i, i] = yy
    return yy


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _finish_row(lmat, gram, jptr, jidx, i, n0, c, r, y, wt, sm):
    """Row ``i`` from its factored old part ``c[:n0, :n0]``: store it and its Gram row.

    Returns the number of correction steps, or -1 if a subproblem is not
    numerically positive definite.
    """
    base = jptr[i]
    nj = jptr[i + 1] - base
    for s in range(i):
        y[s] = lmat[i, s]
    if nj > 0 and nj == i:  # no earlier neighbour: orthogonal to every earlier row
        y[:i] = 0.0
    elif nj > 0:
        if n0 < 0 or not _extend(lmat, gram, jptr, jidx, i, n0, c, r, wt, sm):
            return -1
        steps = 0
        while True:
            _solve_upper(c, nj, r, n0 if steps == 0 else 0)
            for a in range(nj):
                ja = jidx[base + a]
                axpy(-r[a], lmat[ja, : ja + 1], y[: ja + 1])
            yy = _gram_row(lmat, gram, i, y)
            worst = 0.0
            for a in range(nj):
                ja = jidx[base + a]
                r[a] = gram[i, ja]
                rel = abs(r[a]) / np.sqrt(gram[ja, ja] * yy)
                if rel > worst:
                    worst = rel
            if not worst > _REFINE_ABOVE or steps == _MAX_STEPS - 1:
                break
            steps += 1
        for s in range(i):
            lmat[i, s] = y[s]
        return steps
    _gram_row(lmat, gram, i, y)
    for s in range(i):
        lmat[i, s] = y[s]
    return 0


@njit(cache=True, nogil=True)
def _factor_view(flat, nj):
    """The ``(nj, nj)`` factor of a row with ``|J| = nj`` in its flat buffer.

    Packed (leading dimension ``nj``, not ``max |J|``): less memory traffic.
    """
    return flat[: nj * nj].reshape((nj, nj))


@njit(cache=True, nogil=True)
def _factor_row(potrf, gram, jptr, jidx, i, h, zrow, flat, r, ints, uplo):
    """Gather row ``i``'s old subproblem (``_gather_row``) into ``flat`` and factor it.

    ``potrf`` is :data:`~spdgraph._kernels.raw_blas.DPOTRF_POINTERS` (LAPACK
    ``dpotrf`` with ``uplo="L"`` on the upper triangle read by rows: to Fortran
    the lower triangle of the same matrix), ``ints`` this task's
    three int32 scratch entries, ``uplo`` the byte ``L``. Returns ``|J0|``
    (0: nothing to factor), or -1 if it is not numerically positive definite.
    """
    nj = jptr[i + 1] - jptr[i]
    c = _factor_view(flat, nj)
    n0 = _gather_row(gram, jptr, jidx, i, h, zrow, c, r)
    if n0 == 0:
        return 0
    ints[0] = n0
    ints[1] = nj
    ints[2] = 0
    potrf(uplo.ctypes, ints[0:1].ctypes, c.ctypes, ints[1:2].ctypes, ints[2:3].ctypes)
    return n0 if ints[2] == 0 else -1


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _finish_rows(lmat, gram, jptr, jidx, b0, i0, i1, n0s, bufs, slot, r, y, wt, sm):
    """Finish rows ``i0:i1`` of the block starting at ``b0``; -1 on failure.

    Row ``i``'s factored old part is in ``bufs[slot + i - b0]`` (``n0s[i - b0]``
    its size). Returns the number of correction steps.
    """
    steps = 0
    for i in range(i0, i1):
        t = i - b0
        c = _factor_view(bufs[slot + t], jptr[i + 1] - jptr[i])
        s = _finish_row(lmat, gram, jptr, jidx, i, n0s[t], c, r[slot + t], y, wt, sm)
        if s < 0:
            return -1
        steps += s
    return steps


@njit(cache=True, nogil=True)
def _mirror_block(gram, i0, i1):
    """Copy the Gram rows of block ``i0:i1`` onto its columns (the gathers read rows)."""
    for j in range(i1):
        for i in range(max(i0, j + 1), i1):
            gram[j, i] = gram[i, j]


@njit(cache=True, nogil=True)
def _mirror_into(gram, out):
    """``out`` = the symmetric matrix whose lower triangle is ``gram``'s."""
    p = gram.shape[0]
    for i in range(p):
        for j in range(i + 1):
            v = gram[i, j]
            out[i, j] = v
            out[j, i] = v


def non_neighbours(adjacency: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR lists of the earlier non-neighbours ``j < i`` of every row (ascending)."""
    complement = ~adjacency
    np.fill_diagonal(complement, False)
    return _po_blocked.earlier_neighbours(complement)


def _process(
    lmat: np.ndarray, jptr: np.ndarray, jidx: np.ndarray, threads: int
) -> np.ndarray | None:
    """Rows of ``lmat`` (``L0`` on entry, ``L`` after) block by block; the Gram matrix or None."""
    p = lmat.shape[0]
    gram = np.zeros((p, p))
    jmax = max(int(np.diff(jptr).max(initial=0)), 1)
    bufs = np.empty((2 * BLOCK, jmax * jmax))
    r = np.empty((2 * BLOCK, jmax))
    zs = np.empty((2, BLOCK, p))
    y, wt, sm = np.empty(p), np.empty((2 * BLOCK, jmax)), np.empty((2 * BLOCK, 2 * BLOCK))
    n0s = np.full((2, BLOCK), -1, dtype=np.int64)
    ints, uplo = np.zeros((2 * BLOCK, 3), dtype=np.int32), np.array([ord("L")], dtype=np.uint8)

    def products(b: int) -> None:
        """``zs[b % 2, t, :h] = L'[:h] x`` for the rows of block ``b``: one BLAS call."""
        i0, i1 = b * BLOCK, min(p, (b + 1) * BLOCK)
        h = max(i0 - BLOCK, 0)
        block = zs[b % 2, : i1 - i0, :h]
        block[...] = lmat[i0:i1, :h]
        times_lower_transposed(lmat[:h, :h], block)

    def factor(i: int) -> None:
        b, t = divmod(i, BLOCK)
        slot = (b % 2) * BLOCK
        h = max(b * BLOCK - BLOCK, 0)
        n0s[b % 2, t] = _factor_row(
            DPOTRF_POINTERS, gram, jptr, jidx, i, h, zs[b % 2, t],
            bufs[slot + t], r[slot + t], ints[slot + t], uplo,
        )  # fmt: skip

    def finish(b0: int, i0: int, i1: int) -> bool:
        b = b0 // BLOCK
        slot = (b % 2) * BLOCK
        return _finish_rows(
            lmat, gram, jptr, jidx, b0, i0, i1, n0s[b % 2], bufs, slot, r, y, wt, sm
        ) >= 0  # fmt: skip

    def end_block(b: int) -> None:
        _mirror_block(gram, b * BLOCK, min(p, (b + 1) * BLOCK))

    pipeline = RowPipeline(p, BLOCK, products, factor, finish, end_block)
    return gram if pipeline.run(threads) else None


def po_dense_into(
    adjacency: np.ndarray,
    factor: np.ndarray,
    out: np.ndarray,
    threads: int = 1,
    coordinates: bool = False,
) -> float | None:
    """PO matrix ``Q' Q'^T`` of ``factor`` into ``out`` by this kernel, non-edges zeroed.

    With ``coordinates``, ``factor`` is ``out`` and already holds ``L0``: no QR.
    Returns the non-edge residual measured before the non-edges were set to 0
    when the result is certified (at most
    :data:`~spdgraph._kernels.po.blocked.CERTIFY_ABOVE`), None when the caller
    must recompute it (``out`` then holds garbage). ``threads`` (up to 2) run
    the factorizations and the QR (the bits do not depend on it). Work arrays:
    the Gram matrix (``p x p``) and ``2 BLOCK`` factors of at most
    ``max |J| x max |J|``. Run it inside ``one_blas_thread``.
    """
    lmat = out
    if not coordinates:
        _po_blocked.lower_coordinates_into(factor, lmat, threads)
    jptr, jidx = non_neighbours(adjacency)
    gram = _process(lmat, jptr, jidx, threads)
    if gram is None:
        return None
    _mirror_into(gram, out)
    del gram
    return _po_blocked.certified(out, adjacency)
