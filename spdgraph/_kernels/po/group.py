"""PO of a group of matrices on one graph, the matrix index innermost (``(row, column, matrix)``).

A stack shares its graph, so every matrix of a group meets the same
subproblem shapes at every row. Here the ``G`` matrices of a group are laid
out as ``lt[c, r, g]`` (the inverse ``T = L'^-1`` of the processed
coordinates, stored transposed: column ``c`` of ``T`` is ``lt[c, :, :]``) and
``lm[r, c, g]`` (the coordinates ``L``), and each row's work runs for the whole
group in loops whose innermost index is the matrix: contiguous, no reduction
across lanes, vectorised by LLVM without fastmath (the order of operations of
every matrix is the one written here, so its bits do not depend on the group
or on the lane it sits in).

Row ``i`` (coordinates ``x``, earlier neighbours ``K``) becomes, as in the
sparse blocked kernel (docs/performance.md), ``y = T[:, K] w`` with
``(T[:, K]^T T[:, K]) w = T[:, K]^T x``: orthogonal to every earlier
non-neighbour row by construction (``L'_J T E_K = 0``), without correction
steps; rows without an earlier non-neighbour keep ``x``, rows without an
earlier neighbour become 0. Then the new row of ``T``:
``T[i, :i] = -(y^T T) / L[i, i]``, ``T[i, i] = 1 / L[i, i]``. The caller
measures each matrix's non-edge residual and recomputes a matrix whose
residual is above its limit (or whose subproblem was not numerically
positive definite: ``bad[g]``) with the row kernel.

Cost per matrix: ``p^3 / 6`` for ``T`` plus ``sum_i i |K_i|^2`` for the
subproblems (small for sparse graphs; dense graphs go to the row kernel).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _lane_dots(xs, ys, r0, r1, acc):
    """``acc[g] += sum_{r0 <= r < r1} xs[r, g] * ys[r, g]`` for every lane ``g``, in ``r`` order.

    Four terms of ``r`` per pass over the lanes, added one after the other
    (``((acc + t0) + t1) + ...``): the same operations in the same order as the
    plain loop, so the same bits, with a quarter of the passes (each pass of a
    short lane loop pays the vectorizer's alias checks and a load and store of
    ``acc``).
    """
    ng = acc.shape[0]
    r = r0
    while r + 4 <= r1:
        x0, x1, x2, x3 = xs[r], xs[r + 1], xs[r + 2], xs[r + 3]
        y0, y1, y2, y3 = ys[r], ys[r + 1], ys[r + 2], ys[r + 3]
        for g in range(ng):
            acc[g] = (((acc[g] + x0[g] * y0[g]) + x1[g] * y1[g]) + x2[g] * y2[g]) + x3[g] * y3[g]
        r += 4
    while r < r1:
        x0, y0 = xs[r], ys[r]
        for g in range(ng):
            acc[g] += x0[g] * y0[g]
        r += 1


@njit(cache=True, nogil=True, error_model="numpy")
def _subproblem(lt, x, ks, nk, i, a, z, w, bad):
    """``a = T_K^T T_K``, ``z = T_K^T x``, then ``w = a^-1 z`` by Cholesky, for every lane."""
    ng = x.shape[1]
    for u in range(nk):
        cu = ks[u]
        for v in range(u + 1):
            cv = ks[v]
            for g in range(ng):
                a[u, v, g] = 0.0
            _lane_dots(lt[cu], lt[cv], cu, i, a[u, v])  # T[r, c] = 0 for r < c; cu >= cv
        for g in range(ng):
            z[u, g] = 0.0
        _lane_dots(lt[cu], x, cu, i, z[u])
    # Cholesky a = C C^T in place (lower), per lane
    for u in range(nk):
        for v in range(u + 1):
            for g in range(ng):
                t = a[u, v, g]
                for q in range(v):
                    t -= a[u, q, g] * a[v, q, g]
                if u == v:
                    if not t > 0.0:
                        bad[g] = True
                        t = 1.0
                    a[u, u, g] = np.sqrt(t)
                else:
                    a[u, v, g] = t / a[v, v, g]
    for u in range(nk):
        for g in range(ng):
            t = z[u, g]
            for q in range(u):
                t -= a[u, q, g] * w[q, g]
            w[u, g] = t / a[u, u, g]
    for u in range(nk - 1, -1, -1):
        for g in range(ng):
            t = w[u, g]
            for q in range(u + 1, nk):
                t -= a[q, u, g] * w[q, g]
            w[u, g] = t / a[u, u, g]


@njit(cache=True, nogil=True, error_model="numpy")
def process_group(lm, ptr, idx, bad, lt):
    """Partially orthogonalize the coordinates ``lm[r, c, g]`` of every matrix ``g`` in place.

    ``ptr``/``idx``: the earlier neighbours of every row (CSR, increasing).
    ``bad[g]`` is set when a subproblem of matrix ``g`` is not numerically
    positive definite (its result is then meaningless: recompute it). ``lt``
    (the shape of ``lm``) is the work array of ``T``, set to 0 here: the caller
    reuses it from group to group (a fresh one per group paid its page faults
    every time).
    """
    p, ng = lm.shape[0], lm.shape[2]
    lt[:, :, :] = 0.0
    kmax = 1
    for i in range(p):
        kmax = max(kmax, ptr[i + 1] - ptr[i])
    a = np.empty((kmax, kmax, ng))
    z = np.empty((kmax, ng))
    w = np.empty((kmax, ng))
    x = np.empty((p, ng))
    acc = np.empty(ng)
    for i in range(p):
        nk = ptr[i + 1] - ptr[i]
        ks = idx[ptr[i] : ptr[i + 1]]
        if i > 0 and nk < i:  # some earlier non-neighbour: project
            if nk == 0:
                for c in range(i):
                    for g in range(ng):
                        lm[i, c, g] = 0.0
            else:
                for c in range(i):
                    for g in range(ng):
                        x[c, g] = lm[i, c, g]
                _subproblem(lt, x, ks, nk, i, a, z, w, bad)
                for c in range(i):
                    for g in range(ng):
                        lm[i, c, g] = 0.0
                for u in range(nk):
                    cu = ks[u]
                    for r in range(cu, i):
                        for g in range(ng):
                            lm[i, r, g] += lt[cu, r, g] * w[u, g]
        # new row of T: T[i, c] = -(sum_{r=c}^{i-1} y_r T[r, c]) / l_ii
        for c in range(i):
            for g in range(ng):
                acc[g] = 0.0
            _lane_dots(lm[i], lt[c], c, i, acc)
            for g in range(ng):
                lt[c, i, g] = -acc[g] / lm[i, i, g]
        for g in range(ng):
            lt[i, i, g] = 1.0 / lm[i, i, g]
