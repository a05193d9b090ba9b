"""Fast exact partial orthogonalization: Numba kernels, arrays in, arrays out.

The algorithm (see docs/performance.md for the derivation and costs):

1. ``Q^T = U R`` (Householder QR, LAPACK through NumPy). With ``L0 = R^T``
   (lower triangular) ``Q = L0 U^T``; ``U`` is orthonormal, so the rows of
   ``L0`` are the coordinates of the rows of ``Q`` in an orthonormal basis in
   which row ``i`` only uses the first ``i + 1`` coordinates. Every processed
   row stays a combination of the earlier rows, so it keeps that shape: the
   processed factor is ``L U^T`` with ``L`` lower triangular and
   ``Q' Q'^T = L L^T``. All work happens on ``L`` (vectors of length ``i``,
   not ``p``).
2. Row ``i`` (coordinates ``x = L[i, :i]``; ``L[i, i]`` never changes) is
   replaced by its projection onto the orthogonal complement of the span of
   the earlier non-neighbour rows ``J``; ``K`` are the earlier neighbours,
   ``|J| + |K| = i``. With ``L'`` the ``i x i`` block of processed rows and
   ``M' = L' L'^T`` (their Gram matrix, kept as it is built):

   * direct route, when ``|J| <= |K|``: ``y = x - L'_J^T a`` with
     ``M'_JJ a = L'_J x`` (a Cholesky of the ``|J| x |J|`` principal
     submatrix), then one more correction with the measured residual
     ``L'_J y`` whenever it is above rounding level;
   * complement route, when ``|K| < |J|``: the complement of span(J) in
     ``R^i`` is spanned by the columns ``K`` of ``L'^{-1}``, so
     ``y = L'^{-1} E_K w`` with ``S_KK w = (L'^{-T} x)_K`` where
     ``S = M'^{-1} = L'^{-T} L'^{-1}`` is kept by rank-one updates. The new
     Gram row is then exactly ``w`` on ``K`` and 0 on ``J``.

   Each row costs ``O(i^2 + min(|J|, |K|)^3)``: ``O(p^3)`` in total for
   sparse graphs, about ``p^4 / 96`` flops for ``d = 0.5``.
3. ``M = L L^T``.

All loops are written out here; the only BLAS call is the matrix product
inside the blocked Cholesky. OpenBLAS's own Cholesky (``dpotrf``) is not
used on purpose: its rounding depends on the number of BLAS threads, and a
matrix must come out bit-for-bit the same whatever the batch size or thread
count. The matrix product (``dgemm``) and the QR (``dgeqrf``) do not have that
problem (checked in the tests).

This module imports Numba; import it lazily (the generator does) so that
``import spdgraph`` stays light.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_FASTMATH = {"reassoc", "contract"}
#: Block size of the blocked Cholesky; sizes up to twice this use the plain loop.
_BLOCK = 48
#: Relative residual (|m_ij| / sqrt(m_ii m_jj)) above which a direct-route row
#: gets one more correction step.
_REFINE_ABOVE = 1e-15


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _chol_columns(a, k0, k1, n):
    """Left-looking Cholesky of columns ``k0:k1`` of ``a[:n, :n]`` (lower, in place).

    Assumes columns ``< k0`` are already factored and their contribution already
    subtracted from columns ``k0:k1``. Returns False if a pivot is not positive.
    """
    for j in range(k0, k1):
        s = a[j, j]
        for c in range(k0, j):
            s -= a[j, c] * a[j, c]
        if not s > 0.0:
            return False
        d = np.sqrt(s)
        a[j, j] = d
        for r in range(j + 1, n):
            t = a[r, j]
            for c in range(k0, j):
                t -= a[r, c] * a[j, c]
            a[r, j] = t / d
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _cholesky(a, n):
    """Lower Cholesky factor of ``a[:n, :n]`` in place; False if not positive definite.

    Blocked left-looking: the update of each block column is one matrix
    product (BLAS ``dgemm`` through ``np.dot``), the rest plain loops.
    """
    if n <= 2 * _BLOCK:
        return _chol_columns(a, 0, n, n)
    for k in range(0, n, _BLOCK):
        kb = min(_BLOCK, n - k)
        if k > 0:
            left = np.ascontiguousarray(a[k:n, :k])
            upd = np.dot(left, np.ascontiguousarray(left[:kb].T))
            for r in range(n - k):
                for c in range(min(kb, r + 1)):
                    a[k + r, k + c] -= upd[r, c]
        if not _chol_columns(a, k, k + kb, n):
            return False
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _chol_solve(c, n, b):
    """Solve ``(C C^T) z = b`` in place for the lower factor ``c[:n, :n]``."""
    for r in range(n):
        t = b[r]
        for k in range(r):
            t -= c[r, k] * b[k]
        b[r] = t / c[r, r]
    for r in range(n - 1, -1, -1):
        b[r] /= c[r, r]
        t = b[r]
        for k in range(r):
            b[k] -= c[r, k] * t


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _solve_upper_t(lmat, i, v, stop):
    """``v[:i] <- L'^{-T} v[:i]`` for ``L' = lmat[:i, :i]``, computed for rows >= ``stop``.

    Backward substitution by columns of ``L'^T`` (rows of ``lmat``, contiguous).
    Entries below ``stop`` are left partially updated (callers do not use them).
    """
    for j in range(i - 1, stop - 1, -1):
        v[j] /= lmat[j, j]
        t = v[j]
        for c in range(j):
            v[c] -= t * lmat[j, c]


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _row_dots(lmat, i, y, idx, n, out):
    """``out[a] = L[idx[a], :] . y`` (only the first ``idx[a] + 1`` entries are non-zero)."""
    for a in range(n):
        j = idx[a]
        t = 0.0
        for c in range(j + 1):
            t += lmat[j, c] * y[c]
        out[a] = t


@njit(cache=True, nogil=True, fastmath=_FASTMATH)
def _process(lmat, adjacency):
    """Partially orthogonalize the rows of lower-triangular ``lmat`` in place.

    Returns ``(gram, refinements, max_direct)`` where ``gram`` is the Gram
    matrix built along the way (lower triangle and diagonal only; the caller
    recomputes ``L L^T`` for the final result), ``refinements`` the number of
    extra correction steps taken and ``max_direct`` the largest direct-route
    size ``|J|`` used. Raises nothing; a non positive definite subproblem
    (only possible with a numerically singular factor) gives NaN rows.
    """
    p = lmat.shape[0]
    n_nb = np.zeros(p, dtype=np.int64)
    for i in range(p):
        c = 0
        for j in range(i):
            if adjacency[i, j]:
                c += 1
        n_nb[i] = c
    last_complement = -1
    for i in range(p):
        k = n_nb[i]
        if 0 < k < i - k:
            last_complement = i
    gram = np.zeros((p, p))
    inv_gram = np.zeros((p, p)) if last_complement >= 0 else np.zeros((1, 1))
    idx = np.empty(p, dtype=np.int64)
    y = np.empty(p)
    v = np.empty(p)
    r = np.empty(p)
    work = np.empty((p, p)) if p > 1 else np.empty((1, 1))
    refinements = 0
    max_direct = 0
    for i in range(p):
        lii = lmat[i, i]
        nk = n_nb[i]
        nj = i - nk
        for c in range(i):
            y[c] = lmat[i, c]
        if i == 0 or nj == 0:
            pass  # nothing to project out
        elif nk == 0:
            for c in range(i):
                y[c] = 0.0  # orthogonal to every earlier row
        elif nj <= nk:
            # ---- direct route: project out span(L'_J)
            n = 0
            for j in range(i):
                if not adjacency[i, j]:
                    idx[n] = j
                    n += 1
            max_direct = max(max_direct, n)
            for a in range(n):
                for b in range(a + 1):
                    work[a, b] = gram[idx[a], idx[b]]
            if not _cholesky(work, n):
                for c in range(i):
                    y[c] = np.nan
            else:
                _row_dots(lmat, i, y, idx, n, r)
                for step in range(3):
                    _chol_solve(work, n, r)
                    for a in range(n):
                        j = idx[a]
                        t = r[a]
                        for c in range(j + 1):
                            y[c] -= t * lmat[j, c]
                    if step == 2:
                        break
                    # measured residual of the constraint L'_J y = 0
                    _row_dots(lmat, i, y, idx, n, r)
                    yy = lii * lii
                    for c in range(i):
                        yy += y[c] * y[c]
                    worst = 0.0
                    for a in range(n):
                        rel = abs(r[a]) / np.sqrt(gram[idx[a], idx[a]] * yy)
                        if rel > worst:
                            worst = rel
                    if not worst > _REFINE_ABOVE:
                        break
                    refinements += 1
        else:
            # ---- complement route: y in span of columns K of L'^{-1}
            n = 0
            for j in range(i):
                if adjacency[i, j]:
                    idx[n] = j
                    n += 1
            first = idx[0]
            for c in range(i):
                v[c] = y[c]
            _solve_upper_t(lmat, i, v, first)
            for a in range(n):
                r[a] = v[idx[a]]
                for b in range(a + 1):
                    work[a, b] = inv_gram[idx[a], idx[b]]
            if not _cholesky(work, n):
                for c in range(i):
                    y[c] = np.nan
            else:
                _chol_solve(work, n, r)  # r = w, the new Gram row on K
                for c in range(first):
                    y[c] = 0.0
                a = 0
                for j in range(first, i):
                    t = 0.0
                    if a < n and idx[a] == j:
                        t = r[a]
                        a += 1
                    for c in range(first, j):
                        t -= lmat[j, c] * y[c]
                    y[j] = t / lmat[j, j]
        # ---- store the row and its Gram row
        for c in range(i):
            lmat[i, c] = y[c]
        yy = lii * lii
        for c in range(i):
            yy += y[c] * y[c]
        gram[i, i] = yy
        for j in range(i):
            t = 0.0
            for c in range(j + 1):
                t += lmat[j, c] * y[c]
            gram[i, j] = t
        # ---- inverse Gram S = L^{-T} L^{-1}, needed by later complement rows
        if i < last_complement:
            for c in range(i):
                v[c] = y[c]
            _solve_upper_t(lmat, i, v, 0)
            inv = 1.0 / lii
            for c in range(i):
                v[c] = -v[c] * inv  # new row of L^{-1}
            for a in range(i):
                t = v[a]
                for b in range(a + 1):
                    inv_gram[a, b] += t * v[b]
            for c in range(i):
                inv_gram[i, c] = v[c] * inv
            inv_gram[i, i] = inv * inv
    return gram, refinements, max_direct


def lower_coordinates(factor: np.ndarray) -> np.ndarray:
    """``L0`` with ``factor = L0 U^T``, ``U`` orthonormal: ``R^T`` of the QR of ``factor^T``.

    Works on a ``(p, p)`` factor or an ``(n, p, p)`` stack (LAPACK ``dgeqrf``
    through :func:`numpy.linalg.qr`, one matrix at a time).
    """
    r = np.linalg.qr(np.swapaxes(np.asarray(factor, dtype=np.float64), -1, -2), mode="r")
    return np.ascontiguousarray(np.swapaxes(r, -1, -2))


def partial_orthogonalize(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Processed coordinates ``L`` (lower triangular) with ``Q' Q'^T = L L^T``.

    Parameters
    ----------
    adjacency : (p, p) bool array, symmetric, False diagonal
    factor : (p, p) float64 array whose rows are the initial vectors

    Returns
    -------
    (p, p) float64 lower-triangular array ``L``: row ``i`` holds the processed
    row ``i`` in the orthonormal basis of the QR of ``factor^T``.
    """
    lmat = lower_coordinates(factor)
    _process(lmat, np.ascontiguousarray(adjacency, dtype=np.bool_))
    return lmat


def gram_matrix(lmat: np.ndarray) -> np.ndarray:
    """``L @ L.T``, made exactly symmetric."""
    m = lmat @ lmat.T
    return (m + m.T) * 0.5


def po_matrix(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Raw PO matrix ``Q' Q'^T`` (before the residual check and zeroing)."""
    return gram_matrix(partial_orthogonalize(adjacency, factor))


@njit(cache=True, nogil=True, parallel=True)
def _process_stack(lstack, adjacency):
    """Run :func:`_process` on every matrix of an ``(n, p, p)`` stack, in parallel."""
    for k in prange(lstack.shape[0]):
        _process(lstack[k], adjacency)
