"""Numba kernel of the clique-block Gibbs sampler of W_G(b, D) (Wang and Li 2012; Piccioni 2000).

For a clique C of G (every entry of ``K_CC`` is free) and R the other nodes,
``|K| = |K_RR| |A|`` with ``A = K_CC - K_CR K_RR^-1 K_RC``, and
``tr(D K) = tr(D_CC A) + (terms fixed given K_CR, K_RR)``. So, given the rest,
``A ~ W(b + |C| - 1, D_CC^-1)`` (Wishart, df and scale) and
``K_CC = A + K_CR K_RR^-1 K_RC``. With ``Sigma = K^-1``, ``A`` before the
update is ``(Sigma_CC)^-1``, so the update adds ``A_new - (Sigma_CC)^-1`` to
``K_CC`` and ``Sigma`` follows by the Woodbury identity; ``Sigma`` is
recomputed from ``K`` after every sweep. Entries outside the cliques (the
non-edges) are never touched: they stay exactly zero. The cliques cover every
node and edge, so the chain is irreducible and ``W_G(b, D)`` is its
stationary law.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["gibbs_sweeps"]


@njit(cache=True)
def _spd_inverse(s):  # pragma: no cover - numba
    """Inverse of a small SPD matrix by Cholesky, in plain loops (no LAPACK call overhead)."""
    m = s.shape[0]
    low = np.zeros((m, m))
    for j in range(m):
        v = s[j, j]
        for t in range(j):
            v -= low[j, t] * low[j, t]
        low[j, j] = np.sqrt(v)
        for i in range(j + 1, m):
            v = s[i, j]
            for t in range(j):
                v -= low[i, t] * low[j, t]
            low[i, j] = v / low[j, j]
    inv_low = np.zeros((m, m))  # L^-1, lower triangular
    for j in range(m):
        inv_low[j, j] = 1.0 / low[j, j]
        for i in range(j + 1, m):
            v = 0.0
            for t in range(j, i):
                v -= low[i, t] * inv_low[t, j]
            inv_low[i, j] = v / low[i, i]
    out = np.empty((m, m))  # L^-T L^-1
    for i in range(m):
        for j in range(i, m):
            v = 0.0
            for t in range(j, m):
                v += inv_low[t, i] * inv_low[t, j]
            out[i, j] = v
            out[j, i] = v
    return out


@njit(cache=True)
def _matmul(a, b):  # pragma: no cover - numba
    """``a @ b`` of small matrices in plain loops (no BLAS threads call overhead)."""
    out = np.empty((a.shape[0], b.shape[1]))
    for r in range(a.shape[0]):
        for c in range(b.shape[1]):
            v = 0.0
            for t in range(a.shape[1]):
                v += a[r, t] * b[t, c]
            out[r, c] = v
    return out


@njit(cache=True)
def _update_clique(rng, k, sigma, idx, chol, df):  # pragma: no cover - numba
    m = idx.size
    p = k.shape[0]
    s = np.empty((m, m))
    for a in range(m):
        for c in range(m):
            s[a, c] = sigma[idx[a], idx[c]]
    a_old = _spd_inverse(s)
    bart = np.zeros((m, m))  # Bartlett: chi-squares first, then the normals below
    for j in range(m):
        bart[j, j] = np.sqrt(rng.chisquare(df - j))
    for j in range(m):
        for i in range(j + 1, m):
            bart[i, j] = rng.standard_normal()
    lb = np.zeros((m, m))  # chol (lower) times bart (lower)
    for i in range(m):
        for j in range(i + 1):
            v = 0.0
            for t in range(j, i + 1):
                v += chol[i, t] * bart[t, j]
            lb[i, j] = v
    a_new = np.empty((m, m))
    for i in range(m):
        for j in range(i, m):
            v = 0.0
            for t in range(min(i, j) + 1):
                v += lb[i, t] * lb[j, t]
            a_new[i, j] = v
            a_new[j, i] = v
    for a in range(m):
        for c in range(a, m):
            new = k[idx[a], idx[c]] + (a_new[a, c] - a_old[a, c])
            k[idx[a], idx[c]] = new
            k[idx[c], idx[a]] = new
    # Woodbury with Delta = A_new - A_old, A_old = S^-1:
    # (I + Delta S)^-1 Delta = A_old - A_old A_new^-1 A_old =: X (symmetric)
    b_inv = _spd_inverse(a_new)
    x = a_old - _matmul(a_old, _matmul(b_inv, a_old))
    sc = np.empty((p, m))
    for r in range(p):
        for a in range(m):
            sc[r, a] = sigma[r, idx[a]]
    y = _matmul(sc, x)  # Sigma_:C X, then Sigma -= y Sigma_C: (plain loops: no BLAS threads)
    for r in range(p):
        for t in range(r, p):
            v = 0.0
            for a in range(m):
                v += y[r, a] * sc[t, a]
            sigma[r, t] -= v
            if t != r:
                sigma[t, r] = sigma[r, t]


@njit(cache=True)
def gibbs_sweeps(
    rng, k, clique_ptr, clique_idx, chol_ptr, chol_flat, b, n_sweeps
):  # pragma: no cover
    """Run ``n_sweeps`` sweeps over the cliques, updating ``k`` in place.

    ``chol_flat[chol_ptr[c]:]`` holds the lower Cholesky factor of
    ``(D_CC)^-1`` of clique c, row-major.
    """
    n_cliques = clique_ptr.size - 1
    sigma = np.linalg.inv(k)
    for _ in range(n_sweeps):
        for c in range(n_cliques):
            idx = clique_idx[clique_ptr[c] : clique_ptr[c + 1]]
            m = idx.size
            chol = chol_flat[chol_ptr[c] : chol_ptr[c] + m * m].reshape((m, m))
            _update_clique(rng, k, sigma, idx, chol, b + m - 1)
        sigma = np.linalg.inv(k)
        sigma = 0.5 * (sigma + sigma.T)
    return k
