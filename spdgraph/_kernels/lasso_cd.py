"""Lasso path by cyclic coordinate descent on a Gram matrix (Numba).

The fallback of :func:`spdgraph.validation.lasso_path` when the LARS homotopy
breaks down numerically. For each penalty ``lam`` of a decreasing sequence
(warm-started from the previous solution) it solves

    minimize_w  0.5 * w' G w - c' w + lam * ||w||_1

(``G = Z'Z``, ``c = Z'y`` for centred data; scikit-learn's ``Lasso``
objective times ``n``, so ``lam = alpha * n``) by cyclic coordinate sweeps,
keeping the gradient ``c - G w`` up to date (a coordinate that stays at zero
costs O(1), a change O(q)). A penalty is done when the optimality (KKT)
conditions hold to ``kkt_tol * lam``: ``|g_j - lam sign(w_j)|`` for nonzero
``w_j`` and ``max(|g_j| - lam, 0)`` for zero ones, where ``g = c - G w``.

Arrays in, arrays out: nothing here knows about scikit-learn or xarray.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lasso_path_cd"]


@njit(cache=True, nogil=True)
def lasso_path_cd(
    gram: np.ndarray,
    cross: np.ndarray,
    penalties: np.ndarray,
    kkt_tol: float,
    max_sweeps: int,
) -> tuple[np.ndarray, bool]:
    """Coefficients ``(q, len(penalties))`` and whether every penalty converged.

    Parameters
    ----------
    gram : (q, q) float64, ``Z'Z``
    cross : (q,) float64, ``Z'y``
    penalties : decreasing ``lam`` values (``alpha * n``)
    kkt_tol : relative tolerance on the optimality conditions
    max_sweeps : most sweeps per penalty
    """
    q = gram.shape[0]
    n_pen = penalties.shape[0]
    out = np.zeros((q, n_pen))
    w = np.zeros(q)
    grad = cross.copy()  # c - G w
    converged = True
    for k in range(n_pen):
        lam = penalties[k]
        done = False
        for _sweep in range(max_sweeps):
            for j in range(q):
                gjj = gram[j, j]
                if gjj <= 0.0:
                    continue
                wj = w[j]
                rho = grad[j] + gjj * wj
                if rho > lam:
                    new = (rho - lam) / gjj
                elif rho < -lam:
                    new = (rho + lam) / gjj
                else:
                    new = 0.0
                delta = new - wj
                if delta != 0.0:
                    for i in range(q):
                        grad[i] -= delta * gram[i, j]
                    w[j] = new
            worst = 0.0
            for j in range(q):
                if gram[j, j] <= 0.0:
                    continue
                if w[j] > 0.0:
                    v = abs(grad[j] - lam)
                elif w[j] < 0.0:
                    v = abs(grad[j] + lam)
                else:
                    v = abs(grad[j]) - lam
                if v > worst:
                    worst = v
            if worst <= kkt_tol * lam:
                done = True
                break
        if not done:
            converged = False
        for i in range(q):
            out[i, k] = w[i]
    return out, converged
