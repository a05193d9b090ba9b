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
     submatrix), then corrections with the measured residual ``L'_J y``
     while it is above rounding level (at most two);
   * complement route, when ``|K| < |J|``: the complement of span(J) in
     ``R^i`` is spanned by the columns ``K`` of ``L'^{-1}``, so
     ``y = L'^{-1} E_K w`` with ``S_KK w = (L'^{-T} x)_K`` where
     ``S = M'^{-1} = L'^{-T} L'^{-1}`` is kept by rank-one updates, then
     corrections of the normal equations with their residual. The new Gram
     row is ``w`` on ``K`` and 0 on ``J``. If ``S_KK`` is not numerically
     positive definite or the corrections do not converge, the row takes
     the direct route.

   Each row costs ``O(i^2 + min(|J|, |K|)^3)``: ``O(p^3)`` in total for
   sparse graphs, about ``p^4 / 96`` flops for ``d = 0.5``.
3. ``M = L L^T``.

All loops of step 2 are written out here, with no BLAS call: OpenBLAS's
Cholesky (``dpotrf``) rounds differently with a different number of BLAS
threads, and a matrix must come out bit-for-bit the same whatever the batch
size or thread count; the many small BLAS calls were also slower than these
loops, and pathologically slow with several BLAS threads on a busy machine.
The QR of step 1 and the product of step 3 are single large LAPACK/BLAS calls,
run with one BLAS thread (:func:`one_blas_thread`): OpenBLAS's QR rounds
differently with more threads (the product does not, checked in the tests).
If the kernel's non-edge residual is above ``FALLBACK_ABOVE`` (only for
factors so ill-conditioned that the Gram subproblems are numerically
singular), :func:`po_matrix_checked` recomputes the matrix with the
Householder version ``po_numpy``.

This module imports Numba; import it lazily (the generator does) so that
``import spdgraph`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from spdgraph._kernels.blas import one_blas_thread as one_blas_thread  # the fast path runs in it
from spdgraph._kernels.po.dense_loops import (
    axpy,
    chol_solve,
    dot,
    row_dots,
    small_cholesky,
    solve_upper_t,
)

FASTMATH = {"reassoc", "contract"}
#: Relative residual (|m_ij| / sqrt(m_ii m_jj)) above which a direct-route row
#: gets one more correction step.
_REFINE_ABOVE = 1e-15
#: Largest number of solves per row (the first solve and its corrections).
_MAX_STEPS = 3


@njit(cache=True, nogil=True, fastmath=FASTMATH, error_model="numpy")
def _direct(lmat, i, gram, adjacency, idx, y, r, work):
    """Direct route for row ``i``: ``y <- x - L'_J^T a`` with ``M'_JJ a = L'_J x``.

    ``y`` holds ``x`` on entry. Corrected with the measured residual
    ``L'_J y`` (recomputed from the vectors, not from the Gram matrix) until
    it is at rounding level, at most ``_MAX_STEPS - 1`` times. Returns the
    number of corrections, or -1 if ``M'_JJ`` is not numerically positive
    definite.
    """
    lii = lmat[i, i]
    n = 0
    for j in range(i):
        if not adjacency[i, j]:
            idx[n] = j
            n += 1
    for a in range(n):
        for b in range(a + 1):
            work[a, b] = gram[idx[a], idx[b]]
    if not small_cholesky(work, n):
        return -1
    row_dots(lmat, i, y, idx, n, r)
    for step in range(_MAX_STEPS):
        chol_solve(work, n, r)
        for a in range(n):
            j = idx[a]
            t = r[a]
            for c in range(j + 1):
                y[c] -= t * lmat[j, c]
        row_dots(lmat, i, y, idx, n, r)
        yy = lii * lii
        for c in range(i):
            yy += y[c] * y[c]
        worst = 0.0
        for a in range(n):
            rel = abs(r[a]) / np.sqrt(gram[idx[a], idx[a]] * yy)
            if rel > worst:
                worst = rel
        if not worst > _REFINE_ABOVE:
            return step
    return _MAX_STEPS - 1


@njit(cache=True, nogil=True, fastmath=FASTMATH, error_model="numpy")
def _complement(lmat, i, inv_gram, adjacency, idx, y, r, v, u, w, work):
    """Complement route for row ``i``: ``y = L'^{-1} E_K w``, ``S_KK w = (L'^{-T} x)_K``.

    ``y`` holds ``x`` on entry. ``L'_J y = 0`` holds to rounding by
    construction (forward substitution); the normal equations
    ``Z^T (x - y) = 0`` (``Z = L'^{-1} E_K``) are corrected with their
    residual, computed by substitution from the vectors, since ``S`` is only
    accurate to about ``eps * cond(M')``. On success ``w[:|K|]`` holds the
    total ``w`` (then ``L' y = E_K w``: the new Gram row is ``w`` on ``K`` and
    0 on ``J``, and ``L'^{-T} y = S_{:,K} w``). Returns the number of corrections,
    or -1 if ``S_KK`` is not numerically positive definite or the correction
    does not converge (the caller then takes the direct route).
    """
    lii = lmat[i, i]
    n = 0
    for j in range(i):
        if adjacency[i, j]:
            idx[n] = j
            n += 1
    first = idx[0]
    for a in range(n):
        for b in range(a + 1):
            work[a, b] = inv_gram[idx[a], idx[b]]
    if not small_cholesky(work, n):
        return -1
    xx = lii * lii
    for a in range(n):
        w[a] = 0.0
    for c in range(i):
        xx += y[c] * y[c]
        v[c] = y[c]  # x - y with y = 0
        u[c] = y[c]  # keep x
        y[c] = 0.0
    for step in range(_MAX_STEPS + 1):
        solve_upper_t(lmat, i, v, first)
        worst = 0.0
        for a in range(n):
            r[a] = v[idx[a]]
            rel = abs(r[a]) / np.sqrt(inv_gram[idx[a], idx[a]] * xx)
            if rel > worst:
                worst = rel
        if step > 0 and not worst > _REFINE_ABOVE:
            return step - 1
        if step == _MAX_STEPS:
            break
        chol_solve(work, n, r)
        for a in range(n):
            w[a] += r[a]
        # y += L'^{-1} E_K r (forward substitution from the first neighbour)
        a = 0
        for j in range(first, i):
            t = 0.0
            if a < n and idx[a] == j:
                t = r[a]
                a += 1
            t -= dot(lmat[j, first:j], v[first:j])
            v[j] = t / lmat[j, j]
        axpy(1.0, v[first:i], y[first:i])
        for c in range(i):
            v[c] = u[c] - y[c]
    for c in range(i):
        y[c] = u[c]  # restore x for the direct route
    return -1


@njit(cache=True, nogil=True, fastmath=FASTMATH, error_model="numpy")
def process_rows(lmat, adjacency):
    """Partially orthogonalize the rows of lower-triangular ``lmat`` in place.

    Returns ``(gram, refinements, n_complement, ok)``: the Gram matrix built
    along the way (lower triangle and diagonal; the caller recomputes
    ``L L^T`` for the result), the number of correction steps taken, the
    number of rows done by the complement route, and False if some row could
    be done by neither route (its Gram subproblem is numerically singular:
    only with a factor so ill-conditioned that squaring its condition number
    exceeds 1/eps). Then that row is set to NaN and the work stops; the
    caller falls back to the Householder version.
    """
    # This kernel reads better whole: one pass over the rows that owns the
    # neighbour lists, the Gram matrix and the inverse Gram matrix together;
    # splitting it would pass a dozen work arrays between Numba functions.
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
    u = np.empty(p)
    r = np.empty(p)
    w = np.empty(p)
    work = np.empty((p, p)) if p > 1 else np.empty((1, 1))
    refinements = 0
    n_complement = 0
    for i in range(p):
        lii = lmat[i, i]
        nk = n_nb[i]
        nj = i - nk
        for c in range(i):
            y[c] = lmat[i, c]
        route = 0  # 0: y is x or came from the direct route; 1: y = 0; 2: complement
        if i == 0 or nj == 0:
            pass  # nothing to project out
        elif nk == 0:
            route = 1
            for c in range(i):
                y[c] = 0.0  # orthogonal to every earlier row
        else:
            steps = -1
            if nk < nj:
                steps = _complement(lmat, i, inv_gram, adjacency, idx, y, r, v, u, w, work)
                if steps >= 0:
                    n_complement += 1
                    route = 2
            if steps < 0:
                steps = _direct(lmat, i, gram, adjacency, idx, y, r, work)
            if steps < 0:
                for c in range(i):
                    lmat[i, c] = np.nan
                return gram, refinements, n_complement, False
            refinements += steps
        # ---- store the row and its Gram row L' y
        for c in range(i):
            lmat[i, c] = y[c]
        yy = lii * lii
        for c in range(i):
            yy += y[c] * y[c]
        gram[i, i] = yy
        if route == 0:
            for j in range(i):
                t = 0.0
                for c in range(j + 1):
                    t += lmat[j, c] * y[c]
                gram[i, j] = t
        else:  # L' y = 0 (route 1) or E_K w (route 2)
            for j in range(i):
                gram[i, j] = 0.0
            if route == 2:
                for a in range(nk):
                    gram[i, idx[a]] = w[a]
        # ---- inverse Gram S = L^{-T} L^{-1}, needed by later complement rows
        if i < last_complement:
            inv = 1.0 / lii
            if route != 1:
                # v = L'^{-T} y by substitution (S_{:,K} w would be cheaper after the
                # complement route, but S is only accurate to ~eps cond(M'), and errors
                # would compound)
                for c in range(i):
                    v[c] = y[c]
                solve_upper_t(lmat, i, v, 0)
                for c in range(i):
                    v[c] = -v[c] * inv  # new row of L^{-1}
                for a in range(i):
                    t = v[a]
                    for b in range(a + 1):
                        inv_gram[a, b] += t * v[b]
                for c in range(i):
                    inv_gram[i, c] = v[c] * inv
            else:
                for c in range(i):
                    inv_gram[i, c] = 0.0
            inv_gram[i, i] = inv * inv
    return gram, refinements, n_complement, True


def lower_coordinates(factor: np.ndarray) -> np.ndarray:
    """``L0`` with ``factor = L0 U^T``, ``U`` orthonormal: ``R^T`` of the QR of ``factor^T``.

    A ``(p, p)`` factor or an ``(n, p, p)`` stack (LAPACK ``dgeqrf`` through
    :func:`numpy.linalg.qr`); inside :func:`one_blas_thread` the bits do not
    depend on BLAS's threads.
    """
    f = np.swapaxes(np.asarray(factor, dtype=np.float64), -1, -2)
    r = np.linalg.qr(f, mode="r")
    return np.ascontiguousarray(np.swapaxes(r, -1, -2))


def process_coordinates(lmat: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """The compiled kernel on ``lmat`` (C-contiguous, lower triangular), in place; no GIL."""
    process_rows(lmat, adjacency)
    return lmat


#: Above this relative residual the kernel's result is not kept: the matrix is
#: recomputed by the Householder version (``po_numpy``), which does not square
#: the factor's condition number.
FALLBACK_ABOVE = 1e-12


def po_matrix_checked(adjacency: np.ndarray, lmat: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Kernel on prepared coordinates ``lmat``, with the Householder fallback.

    ``lmat`` is ``lower_coordinates(factor)`` (modified in place). Returns the
    raw Gram matrix with the smaller non-edge residual of the two methods
    (the kernel's when it is at rounding level, which is the rule for random
    factors; see docs/performance.md).
    """
    from spdgraph._kernels.po import householder as po_numpy
    from spdgraph._kernels.po.residual import nonedge_residual

    process_coordinates(lmat, adjacency)
    m = gram_matrix(lmat)
    residual = nonedge_residual(m, np.ascontiguousarray(adjacency, dtype=np.bool_))
    if residual <= FALLBACK_ABOVE:
        return m
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    if po_numpy.max_nonedge_residual(slow, adjacency) < residual:
        return slow
    return m


def processed_coordinates(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Processed coordinates ``L`` (lower triangular) with ``Q' Q'^T = L L^T``.

    The arguments are :func:`~spdgraph._kernels.po.householder.partial_orthogonalize`'s;
    row ``i`` of ``L`` is the processed row ``i`` in the orthonormal basis of
    the QR of ``factor^T``.
    """
    lmat = lower_coordinates(factor)
    return process_coordinates(lmat, np.ascontiguousarray(adjacency, dtype=np.bool_))


def gram_matrix(lmat: np.ndarray) -> np.ndarray:
    """``L @ L.T``, made exactly symmetric."""
    m = lmat @ lmat.T
    return (m + m.T) * 0.5


def po_matrix_into(
    adjacency: np.ndarray,
    factor: np.ndarray,
    out: np.ndarray,
    threads: int = 1,
    redraw: Callable[[], np.ndarray] | None = None,
    coordinates: bool = False,
    bound: np.ndarray | None = None,
) -> float | None:
    """PO matrix of ``factor`` into ``out`` by the kernel ``dispatch.kernel_for`` picks.

    p >= ``MIN_P``: the blocked kernels run on up to ``threads`` threads (same
    bits); a certified result has its non-edges set to 0 and the residual
    measured before is returned; else the matrix is recomputed by rows
    (:func:`po_matrix_checked`, non-edges not zeroed; returns None), with
    ``factor`` from ``redraw()`` if it is ``out`` or a view of it. With
    ``coordinates`` ``out`` holds ``L0`` (no QR). Run in :func:`one_blas_thread`.
    ``bound`` (1 element) gets a blocked kernel's proven condition bound (or infinity:
    :func:`~spdgraph._kernels.po.blocked.certified`); untouched by the other kernels.
    """
    from spdgraph._kernels.po import blocked as _po_blocked
    from spdgraph._kernels.po import dense as _po_dense
    from spdgraph._kernels.po import inverse_gram as _po_inverse_gram
    from spdgraph._kernels.po.dispatch import kernel_for

    in_place = factor is out or np.shares_memory(factor, out)
    if coordinates and not in_place:
        raise ValueError("coordinates=True needs factor to be out (L0 drawn into it)")
    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    touched = adjacency.shape[0] >= _po_blocked.MIN_P  # a blocked kernel may write into out
    if touched:
        ptr, idx = _po_blocked.earlier_neighbours(adjacency)
        kernel = kernel_for(ptr)
        residual = None
        if kernel == "blocked":
            residual = _po_blocked.po_blocked_into(
                adjacency, factor, ptr, idx, out, threads, coordinates, bound
            )
        elif kernel == "inverse_gram":
            residual = _po_inverse_gram.po_inverse_gram_into(
                adjacency, factor, ptr, idx, out, threads, coordinates, bound
            )
        elif kernel == "dense":
            residual = _po_dense.po_dense_into(adjacency, factor, out, threads, coordinates)
        if residual is not None:
            return residual
    if touched and in_place:  # the kernel wrote over the factor: draw it again
        if redraw is None:
            raise ValueError("po_matrix_into: factor is out, so redraw= must give it again")
        factor = redraw()
    lmat = np.array(factor) if coordinates else lower_coordinates(factor)
    out[...] = po_matrix_checked(adjacency, lmat, factor)
    return None
