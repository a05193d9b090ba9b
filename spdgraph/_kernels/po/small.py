"""One compiled call per group of small PO matrices: kernel, product, check, zeros.

For ``p < MIN_P`` (the size from which the blocked kernel may be chosen) a
batch's per-matrix cost was mostly outside the row kernel: a NumPy QR, a
BLAS product, two residual passes and their Python calls. Here it runs as
one stacked QR and one Numba function per group of matrices, without the GIL:

1. ``L0`` of the group's matrices, made by the caller: for normal entries
   filled from each matrix's Bartlett draws (:func:`fill_lower_group`), else
   one call of NumPy's stacked QR of the factors (LAPACK ``dgeqrf``,
   :func:`~spdgraph._kernels.po.fast.lower_coordinates`; a Householder LQ
   written in Numba was four times slower at ``p = 100``).
2. The row kernel :func:`spdgraph._kernels.po.fast.process_rows`.
3. ``M = L L^T`` by loops over the lower triangle, mirrored: exactly
   symmetric by construction.
4. The non-edge residual; at or below ``limit`` the non-edges are set to
   exactly 0, else the matrix is left for the caller (the Householder
   fallback and the error message live in Python).

Each matrix goes through exactly the same operations whatever the group,
batch size or thread, so its bits do not depend on them. Run it inside
:func:`spdgraph._kernels.blas.one_blas_thread` (LAPACK's threads).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph._kernels.certify import factor_bound
from spdgraph._kernels.po.fast import FASTMATH, process_rows
from spdgraph._kernels.po.group import process_group
from spdgraph._kernels.po.residual import nonedge_residual, zero_nonedges

#: Largest non-edge residual a matrix of the group-first kernel keeps (it takes no
#: correction steps); above it the caller recomputes the matrix by the row kernel.
GROUP_CERTIFY_ABOVE = 1e-14


def group_first_pays(ptr: np.ndarray) -> bool:
    """Whether the group-first kernel is cheaper than the row kernel for these neighbours.

    Its subproblems cost ``sum_i i |K_i|^2`` besides the ``p^3 / 6`` of ``T``; the
    row kernel's passes ``~ sum_i i^2``: the same rule as the sparse blocked kernel's.
    """
    counts = np.diff(ptr).astype(np.float64)
    rows = np.arange(counts.size, dtype=np.float64)
    return bool(np.sum(rows * counts**2) <= np.sum(rows**2))


@njit(cache=True, nogil=True, fastmath=FASTMATH, error_model="numpy")
def _gram_into(lmat, out):
    """``out <- L L^T`` for lower-triangular ``lmat``, mirrored (exactly symmetric).

    Column ``j`` of the lower triangle, four rows at a time (one load of
    ``L[j, c]`` for four dot products, the last ``(p - j) % 4`` rows one by
    one): how each entry is summed depends only on ``p``, so the bits do.
    """
    p = lmat.shape[0]
    for j in range(p):
        i = j
        while i + 4 <= p:
            t0 = 0.0
            t1 = 0.0
            t2 = 0.0
            t3 = 0.0
            for c in range(j + 1):
                x = lmat[j, c]
                t0 += lmat[i, c] * x
                t1 += lmat[i + 1, c] * x
                t2 += lmat[i + 2, c] * x
                t3 += lmat[i + 3, c] * x
            out[i, j] = out[j, i] = t0
            out[i + 1, j] = out[j, i + 1] = t1
            out[i + 2, j] = out[j, i + 2] = t2
            out[i + 3, j] = out[j, i + 3] = t3
            i += 4
        while i < p:
            t = 0.0
            for c in range(j + 1):
                t += lmat[i, c] * lmat[j, c]
            out[i, j] = out[j, i] = t
            i += 1


@njit(cache=True, nogil=True)
def fill_lower_group(normals, chi2, lmats):
    """``lmats[g]`` = the Bartlett ``L0`` of ``normals[g]`` (row by row) and ``sqrt(chi2[g])``.

    The same layout as :func:`~spdgraph._kernels.po.bartlett.draw_lower_coordinates`
    (one piece: ``p (p - 1) / 2`` normals), for a group drawn by the caller.
    """
    p = lmats.shape[1]
    for g in range(lmats.shape[0]):
        t = 0
        for i in range(p):
            for j in range(i):
                lmats[g, i, j] = normals[g, t]
                t += 1
            lmats[g, i, i] = np.sqrt(chi2[g, i])
            for j in range(i + 1, p):
                lmats[g, i, j] = 0.0


@njit(cache=True, nogil=True)
def small_group(adjacency, lmats, out, k0, limit, residuals, bounds):
    """Matrices ``k0 + g``: ``out[k0 + g]`` is the PO matrix of coordinates ``lmats[g]``.

    ``lmats`` is a stack of ``L0`` (:func:`~spdgraph._kernels.po.fast.lower_coordinates`
    of the factors), processed in place. ``residuals[k0 + g]`` receives the
    non-edge residual; the non-edges are zeroed when it is at most ``limit``,
    otherwise ``out[k0 + g]`` holds the raw product (NaN when the kernel
    failed, with an infinite residual) for the caller to handle. ``bounds[k0 + g]``
    receives the proven condition bound of a zeroed matrix
    (:func:`~spdgraph._kernels.certify.factor_bound`), else infinity.
    """
    p = adjacency.shape[0]
    work = np.empty((2, p))
    for g in range(lmats.shape[0]):
        k = k0 + g
        bounds[k] = np.inf
        if not process_rows(lmats[g], adjacency)[3]:
            out[k, :, :] = np.nan
            residuals[k] = np.inf
            continue
        _gram_into(lmats[g], out[k])
        residual = nonedge_residual(out[k], adjacency) if p > 1 else 0.0
        residuals[k] = residual
        if residual <= limit:
            zero_nonedges(out[k], adjacency)
            bounds[k] = factor_bound(out[k], lmats[g], residual, work)


@njit(cache=True, nogil=True, error_model="numpy")
def group_first(adjacency, ptr, idx, lmats, out, limit, residuals, bounds):
    """:func:`group_first_laid_out` of a ``(G, p, p)`` stack of ``L0`` (matrix first)."""
    ng, p = lmats.shape[0], lmats.shape[1]
    lm = np.empty((p, p, ng))
    for g in range(ng):
        for r in range(p):
            for c in range(p):
                lm[r, c, g] = lmats[g, r, c]
    rows, cols = lower_nonedges(adjacency)
    work = (np.empty((p, p, ng)), rows, cols)
    group_first_laid_out(adjacency, ptr, idx, lm, out, limit, residuals, bounds, work)


@njit(cache=True, nogil=True, error_model="numpy")
def group_first_laid_out(adjacency, ptr, idx, lm, out, limit, residuals, bounds, work):
    """:func:`small_group` with the kernel of :mod:`~spdgraph._kernels.po.group`.

    ``lm`` (``(p, p, G)``, the group's ``L0`` laid out matrix-innermost, e.g. by
    :func:`~spdgraph._kernels.po.bartlett.draw_group_coordinates`) is
    processed for the whole group at once (in place); then matrix by matrix
    ``L L^T``, its non-edge residual and the zeros, as in :func:`small_group`.
    A matrix whose residual is above ``min(limit, GROUP_CERTIFY_ABOVE)``, or
    whose subproblem was not numerically positive definite, gets an infinite
    residual: the caller recomputes it. ``bounds[g]`` receives the proven
    condition bound of a kept matrix (:func:`~spdgraph._kernels.certify.factor_bound`),
    else infinity. ``work`` is ``(lt, rows, cols)``: ``T``'s work array (the
    shape of ``lm``) and :func:`lower_nonedges` of ``adjacency``, both reused
    by the caller from group to group.
    """
    p, ng = lm.shape[0], lm.shape[2]
    bad = np.zeros(ng, dtype=np.bool_)
    lt, rows, cols = work
    process_group(lm, ptr, idx, bad, lt)
    keep = min(limit, GROUP_CERTIFY_ABOVE)
    lmat = np.empty((p, p))
    scale = np.empty(p)
    work = np.empty((2, p))
    for g in range(ng):
        for r in range(p):  # the lower triangle: all that _gram_into reads
            for c in range(r + 1):
                lmat[r, c] = lm[r, c, g]
        _gram_into(lmat, out[g])
        residual = _take_residual(out[g], rows, cols, scale)
        if bad[g] or not residual <= keep:
            out[g, :, :] = np.nan
            residuals[g] = np.inf
            bounds[g] = np.inf
            continue
        residuals[g] = residual
        bounds[g] = factor_bound(out[g], lmat, residual, work)


@njit(cache=True, nogil=True)
def lower_nonedges(adjacency):
    """Rows and columns ``i > j`` of the non-edges (row by row)."""
    p = adjacency.shape[0]
    count = 0
    for i in range(p):
        for j in range(i):
            count += not adjacency[i, j]
    rows = np.empty(count, dtype=np.intp)
    cols = np.empty(count, dtype=np.intp)
    t = 0
    for i in range(p):
        for j in range(i):
            if not adjacency[i, j]:
                rows[t], cols[t] = i, j
                t += 1
    return rows, cols


@njit(cache=True, nogil=True, error_model="numpy")
def _take_residual(m, rows, cols, scale):
    """The non-edge residual of the exactly symmetric ``m``, its non-edges set to 0.

    Over the lower non-edges only (``m`` is mirrored), as
    ``|m_ij| * s_i * s_j`` with ``s = 1 / sqrt(|diag|)`` (equal to
    :func:`~spdgraph._kernels.po.residual.nonedge_residual`'s to rounding; infinite
    for NaN or a zero diagonal).
    """
    p = m.shape[0]
    for i in range(p):
        scale[i] = 1.0 / np.sqrt(abs(m[i, i]))
    worst = 0.0
    for t in range(rows.shape[0]):
        i, j = rows[t], cols[t]
        r = abs(m[i, j]) * scale[i] * scale[j]
        if not r <= worst:
            worst = r if r == r else np.inf
        m[i, j] = 0.0
        m[j, i] = 0.0
    return worst
