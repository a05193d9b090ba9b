"""Numba kernel of the clique-block Gibbs sampler of W_G(b, D) (Wang and Li 2012; Piccioni 2000).

For a clique C of G (every entry of ``K_CC`` is free) and R the other nodes,
``|K| = |K_RR| |A|`` with ``A = K_CC - K_CR K_RR^-1 K_RC``, and
``tr(D K) = tr(D_CC A) + (terms fixed given K_CR, K_RR)``. So, given the rest,
``A ~ W(b + |C| - 1, D_CC^-1)`` (Wishart, df and scale) and
``K_CC = A + K_CR K_RR^-1 K_RC``. Entries outside the cliques (the non-edges)
are never touched: they stay exactly zero. The cliques cover every node and
edge, so the chain is irreducible and ``W_G(b, D)`` is its stationary law.

Two ways to get ``F = K_CR K_RR^-1 K_RC`` (the caller picks the cheaper per graph):

* *direct*: a Cholesky factorization of ``K_RR`` (``|R|^3 / 3`` flops per
  clique), accurate to ``cond(K_RR) eps`` and positive semi-definite by
  construction, so the new K is positive definite whenever ``A_new`` is;
  cheap when the cliques are large (dense graphs);
* *Woodbury*: with ``Sigma = K^-1``, ``A`` before the update is
  ``(Sigma_CC)^-1``, so the update adds ``A_new - (Sigma_CC)^-1`` to ``K_CC``
  and ``Sigma`` follows by the Woodbury identity (``p^2 |C|`` flops per
  clique); ``Sigma`` is recomputed from ``K`` after every sweep, and also
  whenever ``Sigma_CC`` has lost positive definiteness to rounding (an
  ill-conditioned K: the drift of the Woodbury updates grows with its
  condition number). A K that is no longer positive definite stops the chain
  with a failure flag instead of NaN entries.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning

__all__ = ["cholesky_lower", "gibbs_sweeps", "lower_inverse"]


@njit(cache=True)
def cholesky_lower(s):  # pragma: no cover - numba
    """Lower Cholesky factor of a small symmetric matrix in plain loops, and whether it
    is positive definite (a non-positive or non-finite pivot stops it: False)."""
    m = s.shape[0]
    low = np.zeros((m, m))
    for j in range(m):
        v = s[j, j]
        for t in range(j):
            v -= low[j, t] * low[j, t]
        if not v > 0.0 or not np.isfinite(v):
            return low, False
        low[j, j] = np.sqrt(v)
        for i in range(j + 1, m):
            v = s[i, j]
            for t in range(j):
                v -= low[i, t] * low[j, t]
            low[i, j] = v / low[j, j]
    return low, True


@njit(cache=True)
def lower_inverse(low):  # pragma: no cover - numba
    """``L^-1`` (lower triangular) of a lower triangular ``L`` with a positive diagonal,
    column by column by forward substitution in plain loops."""
    m = low.shape[0]
    inv_low = np.zeros((m, m))
    for j in range(m):
        inv_low[j, j] = 1.0 / low[j, j]
        for i in range(j + 1, m):
            v = 0.0
            for t in range(j, i):
                v -= low[i, t] * inv_low[t, j]
            inv_low[i, j] = v / low[i, i]
    return inv_low


@njit(cache=True)
def _spd_inverse(s):  # pragma: no cover - numba
    """Inverse of a small SPD matrix by Cholesky, in plain loops (no LAPACK call overhead),
    and whether ``s`` was positive definite (if not, the inverse is not computed)."""
    m = s.shape[0]
    low, ok = cholesky_lower(s)
    out = np.empty((m, m))
    if not ok:
        return out, False
    inv_low = lower_inverse(low)
    for i in range(m):  # L^-T L^-1
        for j in range(i, m):
            v = 0.0
            for t in range(j, m):
                v += inv_low[t, i] * inv_low[t, j]
            out[i, j] = v
            out[j, i] = v
    return out, True


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
def _wishart_draw(rng, chol, df):  # pragma: no cover - numba
    """``A_new ~ W(df, chol chol^T)`` by Bartlett: chi-squares first, then the normals."""
    m = chol.shape[0]
    bart = np.zeros((m, m))
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
    return a_new


@njit(cache=True)
def _update_clique_direct(rng, k, idx, rest, chol, df):  # pragma: no cover - numba
    """``K_CC = A_new + K_CR K_RR^-1 K_RC`` with a Cholesky factor of ``K_RR``; False when
    ``K_RR`` is not positive definite (K is left unchanged then)."""
    m = idx.size
    r = rest.size
    a_new = _wishart_draw(rng, chol, df)
    f = np.zeros((m, m))
    if r > 0:
        krr = np.empty((r, r))
        for s in range(r):
            for t in range(r):
                krr[s, t] = k[rest[s], rest[t]]
        low, ok = cholesky_lower(krr)
        if not ok:
            return False
        w = np.empty((r, m))  # L^-1 K_RC by forward substitution
        for a in range(m):
            for s in range(r):
                v = k[rest[s], idx[a]]
                for t in range(s):
                    v -= low[s, t] * w[t, a]
                w[s, a] = v / low[s, s]
        for a in range(m):
            for c in range(a, m):
                v = 0.0
                for s in range(r):
                    v += w[s, a] * w[s, c]
                f[a, c] = v
                f[c, a] = v
    for a in range(m):
        for c in range(a, m):
            new = a_new[a, c] + f[a, c]
            k[idx[a], idx[c]] = new
            k[idx[c], idx[a]] = new
    return True


@njit(cache=True)
def _sigma_block(sigma, idx):  # pragma: no cover - numba
    m = idx.size
    s = np.empty((m, m))
    for a in range(m):
        for c in range(m):
            s[a, c] = sigma[idx[a], idx[c]]
    return s


@njit(cache=True)
def _update_clique(rng, k, sigma, idx, chol, df):  # pragma: no cover - numba
    """The Woodbury update; False when K has lost positive definiteness."""
    m = idx.size
    p = k.shape[0]
    a_old, ok = _spd_inverse(_sigma_block(sigma, idx))
    if not ok:  # Sigma drifted (K ill-conditioned): recompute it from K, once
        ok = cholesky_lower(k)[1]
        if not ok:
            return False
        sigma[:, :] = np.linalg.inv(k)
        a_old, ok = _spd_inverse(_sigma_block(sigma, idx))
        if not ok:
            return False
    a_new = _wishart_draw(rng, chol, df)
    for a in range(m):
        for c in range(a, m):
            new = k[idx[a], idx[c]] + (a_new[a, c] - a_old[a, c])
            k[idx[a], idx[c]] = new
            k[idx[c], idx[a]] = new
    # Woodbury with Delta = A_new - A_old, A_old = S^-1:
    # (I + Delta S)^-1 Delta = A_old - A_old A_new^-1 A_old =: X (symmetric)
    b_inv, ok = _spd_inverse(a_new)
    if not ok:  # pragma: no cover - a Wishart draw with df >= m is SPD
        return False
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
    return True


@njit(cache=True)
def gibbs_sweeps(
    rng, k, clique_ptr, clique_idx, chol_ptr, chol_flat, b, n_sweeps, rest_ptr, rest_idx, direct
):  # pragma: no cover
    """Run ``n_sweeps`` sweeps over the cliques, updating ``k`` in place.

    ``chol_flat[chol_ptr[c]:]`` holds the lower Cholesky factor of
    ``(D_CC)^-1`` of clique c, row-major; ``rest_idx[rest_ptr[c]:rest_ptr[c + 1]]``
    the other nodes (used when ``direct``). Returns False, with K as it was
    after the last good clique update, when K stopped being positive definite
    (rounding on a numerically singular K): the caller raises.
    """
    n_cliques = clique_ptr.size - 1
    if direct:
        for _ in range(n_sweeps):
            for c in range(n_cliques):
                idx = clique_idx[clique_ptr[c] : clique_ptr[c + 1]]
                rest = rest_idx[rest_ptr[c] : rest_ptr[c + 1]]
                m = idx.size
                chol = chol_flat[chol_ptr[c] : chol_ptr[c] + m * m].reshape((m, m))
                if not _update_clique_direct(rng, k, idx, rest, chol, b + m - 1):
                    return False
        return True
    sigma = np.linalg.inv(k)
    for _ in range(n_sweeps):
        for c in range(n_cliques):
            idx = clique_idx[clique_ptr[c] : clique_ptr[c + 1]]
            m = idx.size
            chol = chol_flat[chol_ptr[c] : chol_ptr[c] + m * m].reshape((m, m))
            if not _update_clique(rng, k, sigma, idx, chol, b + m - 1):
                return False
        if not np.all(np.isfinite(k)):
            return False
        sigma = np.linalg.inv(k)
        sigma = 0.5 * (sigma + sigma.T)
    return cholesky_lower(k)[1]
