"""Numba kernels of the G-Wishart sampler: the iterative completion of Lenkoski (2013)."""

from __future__ import annotations

import numpy as np
from numba import njit

import spdgraph._kernels  # noqa: F401 - an unwritable Numba cache: uncached, one warning


@njit(cache=True)
def complete_covariance(sigma, nbr_ptr, nbr_idx, tol, max_iter):  # pragma: no cover - numba
    """Iterate Lenkoski's step 2 until the largest change is at most ``tol * max(diag)``.

    Parameters
    ----------
    sigma : (p, p) float64, the inverse of the Wishart draw.
    nbr_ptr, nbr_idx : CSR lists of neighbours (node j's neighbours are
        ``nbr_idx[nbr_ptr[j]:nbr_ptr[j + 1]]``, sorted).
    tol : float, relative convergence tolerance.
    max_iter : int, largest number of sweeps over the nodes.

    Returns
    -------
    (W, sweeps, change): the completed matrix, the number of sweeps done
    (``-1`` when not converged within ``max_iter``) and the last largest change
    relative to the largest diagonal entry.
    """
    p = sigma.shape[0]
    w = sigma.copy()
    scale = 0.0
    for i in range(p):
        if sigma[i, i] > scale:
            scale = sigma[i, i]
    change = np.inf
    for sweep in range(max_iter):
        largest = 0.0
        for j in range(p):
            start = nbr_ptr[j]
            m = nbr_ptr[j + 1] - start
            if m == 0:
                for i in range(p):
                    if i != j:
                        d = abs(w[i, j])
                        if d > largest:
                            largest = d
                        w[i, j] = 0.0
                        w[j, i] = 0.0
                continue
            a = np.empty((m, m))
            rhs = np.empty(m)
            for s in range(m):
                ns = nbr_idx[start + s]
                rhs[s] = sigma[ns, j]
                for t in range(m):
                    a[s, t] = w[ns, nbr_idx[start + t]]
            beta = np.linalg.solve(a, rhs)
            for i in range(p):
                if i == j:
                    continue
                v = 0.0
                for s in range(m):
                    v += w[i, nbr_idx[start + s]] * beta[s]
                d = abs(v - w[i, j])
                if d > largest:
                    largest = d
                w[i, j] = v
                w[j, i] = v
        change = largest / scale
        if change <= tol:
            return w, sweep + 1, change
    return w, -1, change
