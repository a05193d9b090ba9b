"""An independent exact G-Wishart sampler and the agreement statistics (tests and benchmarks).

Wang and Carvalho (2010) on the Atay-Kayis-Massam (2005) decomposition, in the
``Psi`` coordinates of the paper, written from the paper and not from the
plugin: with ``D^-1 = T^T T`` (T upper triangular), ``Phi = Psi T`` and
``K = Phi^T Phi``. In the *natural node order* (not the plugin's minimum
fill-in order), the free entries of Psi (diagonal, edges i < j) are drawn
independently, ``Psi_ii^2 ~ chi2(b + nu_i)``, ``Psi_ij ~ N(0, 1)``; each
non-free entry (non-edge i < j) is fixed by ``K_ij = 0``:
``Phi_ij = -(1 / Phi_ii) sum_{k<i} Phi_ki Phi_kj`` and
``Psi_ij = (Phi_ij - sum_{i<=l<j} Psi_il T_lj) / T_jj``; the proposal is
accepted with probability ``exp(-sum_nonfree Psi_ij^2 / 2)``, since
``tr(D K) = ||Psi||_F^2``. Vectorized over a batch of proposals.
"""

from __future__ import annotations

import numpy as np


def reference_draws(adjacency, n, b=3.0, D=None, seed=0, batch=20_000):
    """``n`` exact draws of W_G(b, D), shape ``(n, p, p)``, by the method above."""
    rng = np.random.default_rng(seed)
    a = np.asarray(adjacency, dtype=bool)
    p = a.shape[0]
    d = np.eye(p) if D is None else np.asarray(D, dtype=np.float64)
    t = np.linalg.cholesky(np.linalg.inv(d)).T  # D^-1 = T^T T, T upper
    nu = np.triu(a, 1).sum(axis=1)
    out = []
    kept = 0
    while kept < n:
        psi = np.zeros((batch, p, p))
        phi = np.zeros((batch, p, p))
        penalty = np.zeros(batch)
        for i in range(p):
            psi[:, i, i] = np.sqrt(rng.chisquare(b + nu[i], size=batch))
            for j in range(i + 1, p):
                if a[i, j]:
                    psi[:, i, j] = rng.standard_normal(batch)
        for i in range(p):
            for j in range(i, p):
                if i == j or a[i, j]:
                    phi[:, i, j] = np.einsum("nl,l->n", psi[:, i, i : j + 1], t[i : j + 1, j])
                    continue
                target = -np.einsum("nk,nk->n", phi[:, :i, i], phi[:, :i, j]) / phi[:, i, i]
                rest = np.einsum("nl,l->n", psi[:, i, i:j], t[i:j, j])
                psi[:, i, j] = (target - rest) / t[j, j]
                phi[:, i, j] = target
                penalty += psi[:, i, j] ** 2
        accept = rng.uniform(size=batch) < np.exp(-0.5 * penalty)
        k = np.einsum("nki,nkj->nij", phi[accept], phi[accept])
        k[:, ~(a | np.eye(p, dtype=bool))] = 0.0
        out.append(k)
        kept += k.shape[0]
    return np.concatenate(out)[:n]


def free_entries(k, adjacency):
    """The free entries of each draw: the diagonal, then the edges i < j (row-major)."""
    p = adjacency.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    return np.concatenate([k[:, np.arange(p), np.arange(p)], k[:, rows, cols]], axis=1)


def agreement(x, y):
    """Largest |z| of the means and of the variances, and largest |difference| of the
    correlation matrices, between two samples of free entries ``(n, m)``."""
    nx_, ny_ = x.shape[0], y.shape[0]
    z_mean = (x.mean(0) - y.mean(0)) / np.sqrt(x.var(0) / nx_ + y.var(0) / ny_)

    def var_se(s):  # standard error of the sample variance: sqrt((m4 - s^4) / n)
        c = s - s.mean(0)
        return np.sqrt(((c**4).mean(0) - c.var(0) ** 2) / s.shape[0])

    z_var = (x.var(0) - y.var(0)) / np.sqrt(var_se(x) ** 2 + var_se(y) ** 2)
    corr = np.abs(np.corrcoef(x.T) - np.corrcoef(y.T)) if x.shape[1] > 1 else np.zeros(1)
    return float(np.abs(z_mean).max()), float(np.abs(z_var).max()), float(corr.max())
