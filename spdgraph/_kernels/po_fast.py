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

All loops of step 2 are written out here, with no BLAS call: OpenBLAS's
Cholesky (``dpotrf``) rounds differently with a different number of BLAS
threads, and a matrix must come out bit-for-bit the same whatever the batch
size or thread count; the many small BLAS calls were also slower than these
loops, and pathologically slow with several BLAS threads on a busy machine.
The QR of step 1 and the product of step 3 are single large LAPACK/BLAS calls
whose result does not depend on the BLAS thread count (checked in the tests).

This module imports Numba; import it lazily (the generator does) so that
``import spdgraph`` stays light.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FASTMATH = {"reassoc", "contract"}
#: Block size of the blocked Cholesky; sizes up to twice this use the plain loop.
_BLOCK = 32
#: Relative residual (|m_ij| / sqrt(m_ii m_jj)) above which a direct-route row
#: gets one more correction step.
_REFINE_ABOVE = 1e-15


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
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


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _cholesky(a, n):
    """Lower Cholesky factor of ``a[:n, :n]`` in place; False if not positive definite.

    Blocked left-looking: before a block column of ``_BLOCK`` columns is
    factored, the contribution of all earlier columns is subtracted with a
    2 x 2 register-blocked loop (dot products of contiguous rows, which stay in
    cache for the whole block). Plain loops, no BLAS: the rounding is a fixed
    function of the input.
    """
    if n <= 2 * _BLOCK:
        return _chol_columns(a, 0, n, n)
    for k in range(0, n, _BLOCK):
        kb = min(_BLOCK, n - k)
        stop = k + kb
        if k > 0:
            for r in range(k, n, 2):
                r2 = min(r + 1, n - 1)
                for c in range(k, min(stop, r2 + 1), 2):
                    c2 = min(c + 1, stop - 1)
                    t00 = 0.0
                    t01 = 0.0
                    t10 = 0.0
                    t11 = 0.0
                    for q in range(k):
                        x0 = a[r, q]
                        x1 = a[r2, q]
                        y0 = a[c, q]
                        y1 = a[c2, q]
                        t00 += x0 * y0
                        t01 += x0 * y1
                        t10 += x1 * y0
                        t11 += x1 * y1
                    a[r, c] -= t00
                    if c2 != c and c2 <= r:
                        a[r, c2] -= t01
                    if r2 != r:
                        a[r2, c] -= t10
                        if c2 != c:
                            a[r2, c2] -= t11
        if not _chol_columns(a, k, stop, n):
            return False
    return True


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
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


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
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


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
def _row_dots(lmat, i, y, idx, n, out):
    """``out[a] = L[idx[a], :] . y`` (only the first ``idx[a] + 1`` entries are non-zero)."""
    for a in range(n):
        j = idx[a]
        t = 0.0
        for c in range(j + 1):
            t += lmat[j, c] * y[c]
        out[a] = t


@njit(cache=True, nogil=True, fastmath=_FASTMATH, error_model="numpy")
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


def process_coordinates(lmat: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """Run the compiled kernel on ``lmat`` (C-contiguous float64, lower triangular) in place.

    Releases the GIL, so several matrices can be processed from several
    threads. Returns ``lmat``.
    """
    _process(lmat, adjacency)
    return lmat


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
    return process_coordinates(lmat, np.ascontiguousarray(adjacency, dtype=np.bool_))


def gram_matrix(lmat: np.ndarray) -> np.ndarray:
    """``L @ L.T``, made exactly symmetric."""
    m = lmat @ lmat.T
    return (m + m.T) * 0.5


def po_matrix(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Raw PO matrix ``Q' Q'^T`` (before the residual check and zeroing)."""
    return gram_matrix(partial_orthogonalize(adjacency, factor))
