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
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning
from spdgraph._kernels.streams import chisquare, standard_exponential, standard_normal

__all__ = ["accept_reject", "accept_reject_streams", "proposal_weights"]


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def proposal_weights(plan, phi, chi2, z):  # pragma: no cover - numba
    """``sum_i r_i / 2`` of each full proposal of a block (the pilot's log weights, negated)."""
    n = chi2.shape[0]
    out = np.empty(n)
    for t in range(n):
        out[t] = _propose(plan, phi, np.inf, chi2[t], z[t])
    return out


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
