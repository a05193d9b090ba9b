"""Numba kernels of the exact accept-reject G-Wishart sampler (see :mod:`spdgraph_gwishart.exact`).

A proposal fills ``Phi`` (upper triangular, nodes in elimination order) row by
row: ``Phi_ii`` from a scaled chi, the fill-in entries of the row from the
rows above (the completion that makes ``K_ij = 0``), then the edge entries
from their Gaussian law given both; the row's rejection weight
``exp(-r_i / 2)``, ``r_i >= 0``, is zero-cost (``r_i = 0``) on rows without
fill-in. The proposal is accepted when ``sum_i r_i / 2 <= E``, ``E ~ Exp(1)``
(drawn first), so a proposal stops at the first row that exceeds ``E``.

The random numbers come pre-drawn, a block of proposals at a time (see
:func:`spdgraph_gwishart.exact.accept_reject_gwishart`): ``E`` per proposal,
the p chi-squares of its rows and the standard normals of its edges (row
by row, in the order of ``nbr_idx``).

The plan's row laws (:func:`row_laws`) and its acceptance pilot
(:func:`pilot_half_logs`) are compiled too: a new (G, b, D) costs tens of
microseconds on a small graph, not a Python loop of small LAPACK calls.
The kernels use NumPy's error model: a division by zero gives ``inf`` or NaN
(a proposal of weight 0, rejected) instead of a ZeroDivisionError check on
every division, which made a small graph's proposal about three times slower;
the proposal is inlined into its loops.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning
from spdgraph._kernels.streams import chisquare, standard_exponential, standard_normal
from spdgraph_gwishart._mcmc_kernels import cholesky_lower, lower_inverse

__all__ = [
    "accept_reject",
    "accept_reject_streams",
    "pilot_half_logs",
    "proposal_weights",
    "row_laws",
]


@njit(cache=True, inline="always", error_model="numpy")
def _propose(plan, phi, budget, chi2, z):  # pragma: no cover - numba
    """Fill ``phi`` with one proposal; return ``sum r_i / 2`` (stopped once above budget)."""
    (_b, _nu, schur, nbr_ptr, nbr_idx, h, lt_ptr, lt, fill_ptr, fill_idx, g, gm_ptr, gm,
     mff_ptr, mff) = plan  # fmt: skip
    p = schur.shape[0]
    phi[:, :] = 0.0
    total = 0.0
    for i in range(p):
        d = np.sqrt(chi2[i] / schur[i])
        phi[i, i] = d
        f0 = fill_ptr[i]
        nf = fill_ptr[i + 1] - f0
        if nf > 0:
            for a in range(nf):
                j = fill_idx[f0 + a]
                c = 0.0
                for k in range(i):
                    c += phi[k, i] * phi[k, j]
                phi[i, j] = -c / d
            r = 0.0
            base = mff_ptr[i]
            for a in range(nf):
                ea = phi[i, fill_idx[f0 + a]] - d * g[f0 + a]
                for c2 in range(nf):
                    ec = phi[i, fill_idx[f0 + c2]] - d * g[f0 + c2]
                    r += ea * mff[base + a * nf + c2] * ec
            total += 0.5 * r
            if total > budget:
                return total
        n0 = nbr_ptr[i]
        m = nbr_ptr[i + 1] - n0
        if m > 0:
            lbase = lt_ptr[i]
            gbase = gm_ptr[i]
            for a in range(m):
                v = -d * h[n0 + a]
                for c2 in range(nf):
                    v -= gm[gbase + a * nf + c2] * phi[i, fill_idx[f0 + c2]]
                for c2 in range(a, m):  # L^-T is upper triangular
                    v += lt[lbase + a * m + c2] * z[n0 + c2]
                phi[i, nbr_idx[n0 + a]] = v
    return total


@njit(cache=True, error_model="numpy")
def accept_reject(plan, phi, budgets, chi2, z):  # pragma: no cover - numba
    """The first accepted proposal of a block (left in ``phi``): its index, or -1."""
    for t in range(budgets.size):
        if _propose(plan, phi, budgets[t], chi2[t], z[t]) <= budgets[t]:
            return t
    return -1


@njit(cache=True)
def _draw_into(state, df, budgets, e, chi2, z):  # pragma: no cover - numba
    """A block's random numbers from one PCG64 ``state``, in the order and with the bits of
    :func:`spdgraph_gwishart.exact.draw_block` on its Generator (Exp(1) budgets if
    ``budgets``, then the chi-squares row-major, then the normals)."""
    if budgets:
        for t in range(e.size):
            e[t] = standard_exponential(state)
    for t in range(chi2.shape[0]):
        for i in range(chi2.shape[1]):
            chi2[t, i] = chisquare(state, df[i])
    for t in range(z.shape[0]):
        for j in range(z.shape[1]):
            z[t, j] = standard_normal(state)


@njit(cache=True, error_model="numpy")
def accept_reject_streams(
    plan, states, order, adjacency, block, max_proposals, out
):  # pragma: no cover - numba
    """Matrix k of ``out`` from stream ``states[k]``, as :func:`accept_reject` on blocks of
    ``block`` proposals (``block == 0``: no fill-in, one proposal, always accepted).

    Returns the first matrix that accepted none of ``max_proposals`` proposals, or -1.
    """
    p = out.shape[1]
    df = plan[0] + plan[1]
    m = plan[4].size
    phi = np.zeros((p, p))
    n = max(block, 1)
    e = np.full(n, np.inf)
    chi2 = np.empty((n, p))
    z = np.empty((n, m))
    for k in range(states.shape[0]):
        state = states[k]
        if block == 0:
            _draw_into(state, df, False, e, chi2, z)
            _propose(plan, phi, np.inf, chi2[0], z[0])
        else:
            made = 0
            found = -1
            while made < max_proposals:
                _draw_into(state, df, True, e, chi2, z)
                found = accept_reject(plan, phi, e, chi2, z)
                if found >= 0:
                    break
                made += block
            if found < 0:
                return k
        out[k] = gram_on_pattern(phi, order, adjacency)
    return -1


@njit(cache=True, error_model="numpy")
def proposal_weights(plan, phi, chi2, z):  # pragma: no cover - numba
    """``sum_i r_i / 2`` of each full proposal of a block (the pilot's log weights, negated)."""
    n = chi2.shape[0]
    out = np.empty(n)
    for t in range(n):
        out[t] = _propose(plan, phi, np.inf, chi2[t], z[t])
    return out


@njit(cache=True, error_model="numpy")
def pilot_half_logs(plan, state, n):  # pragma: no cover - numba
    """``sum_i r_i / 2`` of ``n`` full proposals drawn from the PCG64 ``state`` (advanced in
    place): :func:`proposal_weights` of the block :func:`spdgraph_gwishart.exact.draw_block`
    (no budgets) draws from that state's Generator, with its bits."""
    p = plan[2].shape[0]
    chi2 = np.empty((n, p))
    z = np.empty((n, plan[4].size))
    _draw_into(state, plan[0] + plan[1], False, np.empty(0), chi2, z)
    return proposal_weights(plan, np.zeros((p, p)), chi2, z)


@njit(cache=True, error_model="numpy")
def _cho_solve(lower, rhs):  # pragma: no cover - numba
    """``(L L^T)^-1 rhs`` for a ``(m, k)`` right-hand side: forward, then back substitution."""
    m, k = rhs.shape
    x = rhs.copy()
    for c in range(k):
        for r in range(m):
            t = x[r, c]
            for q in range(r):
                t -= lower[r, q] * x[q, c]
            x[r, c] = t / lower[r, r]
        for r in range(m - 1, -1, -1):
            t = x[r, c]
            for q in range(r + 1, m):
                t -= lower[q, r] * x[q, c]
            x[r, c] = t / lower[r, r]
    return x


@njit(cache=True, error_model="numpy")
def _row_blocks(dp, i, n, f):  # pragma: no cover - numba
    """Row i's laws: A = D_NN = L L^T; ``h = A^-1 D_Ni``, ``gm = A^-1 D_NF``, the Schur
    blocks ``m00``, ``mf0``, ``mff`` of ``M = D_EE - D_EN A^-1 D_NE`` and ``L^-T``."""
    m, nf = n.size, f.size
    a = np.empty((m, m))
    rhs = np.empty((m, 1 + nf))  # column 0: D_Ni, then D_NF
    for s in range(m):
        rhs[s, 0] = dp[n[s], i]
        for t in range(m):
            a[s, t] = dp[n[s], n[t]]
        for t in range(nf):
            rhs[s, 1 + t] = dp[n[s], f[t]]
    lower, ok = cholesky_lower(a)
    sol = _cho_solve(lower, rhs) if ok else rhs
    m00 = dp[i, i]
    for s in range(m):
        m00 -= dp[i, n[s]] * sol[s, 0]
    mf0 = np.empty(nf)
    mff = np.empty((nf, nf))
    for u in range(nf):
        mf0[u] = dp[f[u], i]
        for s in range(m):
            mf0[u] -= dp[f[u], n[s]] * sol[s, 0]
        for w in range(nf):
            mff[u, w] = dp[f[u], f[w]]
            for s in range(m):
                mff[u, w] -= dp[f[u], n[s]] * sol[s, 1 + w]
    inv_t = np.ascontiguousarray(lower_inverse(lower).T) if ok else a
    return ok, sol, m00, mf0, mff, inv_t


@njit(cache=True, error_model="numpy")
def row_laws(ap, filled, dp, b):  # pragma: no cover - numba
    """The plan tuple :func:`accept_reject` takes, for a graph in elimination order.

    ``ap``: the permuted adjacency, ``filled`` its filled pattern
    (:func:`spdgraph_gwishart._order.fill_pattern`), ``dp`` the permuted scale. Per
    row i (edges N and fill-in F after i, ``A = D_NN``): the Schur complement ``s``,
    ``A^-1 D_Ni``, ``L^-T`` (``A = L L^T``), ``g = -M_FF^-1 M_F0``, ``A^-1 D_NF`` and
    ``M_FF``, flattened row-major with pointers. Returns ``(ok, plan)``: ``ok`` False
    when a block of D was not positive definite to working precision.
    """
    p = ap.shape[0]
    nu = np.zeros(p)
    nbr_ptr = np.zeros(p + 1, dtype=np.int64)
    fill_ptr = np.zeros(p + 1, dtype=np.int64)
    lt_ptr = np.zeros(p + 1, dtype=np.int64)
    gm_ptr = np.zeros(p + 1, dtype=np.int64)
    mff_ptr = np.zeros(p + 1, dtype=np.int64)
    for i in range(p):
        m = nf = 0
        for j in range(i + 1, p):
            if ap[i, j]:
                m += 1
            elif filled[i, j]:
                nf += 1
        nu[i] = m
        nbr_ptr[i + 1] = nbr_ptr[i] + m
        fill_ptr[i + 1] = fill_ptr[i] + nf
        lt_ptr[i + 1] = lt_ptr[i] + m * m
        gm_ptr[i + 1] = gm_ptr[i] + m * nf
        mff_ptr[i + 1] = mff_ptr[i] + nf * nf
    nbr_idx = np.empty(nbr_ptr[p], dtype=np.int64)
    fill_idx = np.empty(fill_ptr[p], dtype=np.int64)
    h, g = np.empty(nbr_ptr[p]), np.empty(fill_ptr[p])
    lt, gm, mff = np.empty(lt_ptr[p]), np.empty(gm_ptr[p]), np.empty(mff_ptr[p])
    schur = np.empty(p)
    ok = True
    for i in range(p):
        n = nbr_idx[nbr_ptr[i] : nbr_ptr[i + 1]]
        f = fill_idx[fill_ptr[i] : fill_ptr[i + 1]]
        a = c = 0
        for j in range(i + 1, p):
            if ap[i, j]:
                n[a] = j
                a += 1
            elif filled[i, j]:
                f[c] = j
                c += 1
        row_ok, sol, m00, mf0, block, inv_t = _row_blocks(dp, i, n, f)
        lower, ff_ok = cholesky_lower(block)
        gi = -_cho_solve(lower, mf0.reshape(-1, 1))[:, 0] if ff_ok else mf0
        s = m00
        for u in range(f.size):
            s += mf0[u] * gi[u]
        ok = ok and row_ok and ff_ok and s > 0.0
        schur[i] = s
        h[nbr_ptr[i] : nbr_ptr[i + 1]] = sol[:, 0]
        g[fill_ptr[i] : fill_ptr[i + 1]] = gi
        lt[lt_ptr[i] : lt_ptr[i + 1]] = inv_t.ravel()
        gm[gm_ptr[i] : gm_ptr[i + 1]] = np.ascontiguousarray(sol[:, 1:]).ravel()
        mff[mff_ptr[i] : mff_ptr[i + 1]] = block.ravel()
    plan = (float(b), nu, schur, nbr_ptr, nbr_idx, h, lt_ptr, lt, fill_ptr, fill_idx, g,
            gm_ptr, gm, mff_ptr, mff)  # fmt: skip
    return ok, plan


@njit(cache=True)
def gram_on_pattern(phi, order, adjacency):  # pragma: no cover - numba
    """``K = Phi^T Phi`` on the diagonal and the edges only, in the node order.

    ``phi`` is in elimination order (node ``order[i]`` is row i); entries off
    the pattern are exactly 0 (in exact arithmetic they are, by the
    completion), and ``K`` is exactly symmetric.
    """
    p = phi.shape[0]
    k = np.zeros((p, p))
    for i in range(p):
        for j in range(i, p):
            if i != j and not adjacency[order[i], order[j]]:
                continue
            v = 0.0
            for r in range(i + 1):
                v += phi[r, i] * phi[r, j]
            k[order[i], order[j]] = v
            k[order[j], order[i]] = v
    return k
