"""Graphical lasso by block coordinate descent (Friedman, Hastie and Tibshirani 2008), Numba.

The kernel of :mod:`spdgraph.validation._glasso`. It works on the covariance
estimate ``W`` (the inverse of the precision ``Theta`` at the solution) and
the matrix ``B`` of lasso coefficients, column ``j`` holding the coefficients
of node ``j`` on the others. For each column ``j`` in turn it solves the
lasso subproblem

    minimize_b  0.5 * b' W11 b - s12' b + rho * ||b||_1

(``W11``: ``W`` without row and column ``j``; ``s12``: column ``j`` of ``S``
without entry ``j``) by cyclic coordinate descent with an active set, warm
started from the previous ``b``, keeping the residual ``r = s12 - W11 b`` up
to date, then sets ``w12 = W11 b``. The diagonal of ``W`` is never changed
(it is ``S_ii``, or ``S_ii + rho`` when the diagonal is penalized; the caller
sets it). Sweeps over the columns stop when no entry of ``W`` moved by more
than ``tol_w`` in a sweep, or after ``max_sweeps`` sweeps.

Arrays in, arrays out (``W`` and ``B`` updated in place): nothing here knows
about xarray or scikit-learn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["glasso_sweeps", "precision_from_blocks"]


@njit(cache=True, nogil=True)
def _soft(z: float, t: float) -> float:
    if z > t:
        return z - t
    if z < -t:
        return z + t
    return 0.0


@njit(cache=True, nogil=True)
def _cd_pass(w, b, r, j, rho, active_only):
    """One cyclic pass over the coordinates ``k != j``; the largest scaled change."""
    p = w.shape[0]
    biggest = 0.0
    for k in range(p):
        if k == j:
            continue
        old = b[k]
        if active_only and old == 0.0:
            continue
        wkk = w[k, k]
        new = _soft(r[k] + wkk * old, rho) / wkk
        if new != old:
            d = new - old
            for i in range(p):
                r[i] -= d * w[i, k]
            b[k] = new
            step = abs(d) * wkk
            if step > biggest:
                biggest = step
    return biggest


@njit(cache=True, nogil=True)
def _kkt_lasso(b, r, j, rho, active_only):
    """Largest violation of the lasso optimality conditions ``r in rho * d|b|``."""
    worst = 0.0
    for k in range(b.shape[0]):
        if k == j:
            continue
        if b[k] > 0.0:
            v = abs(r[k] - rho)
        elif b[k] < 0.0:
            v = abs(r[k] + rho)
        elif active_only:
            continue
        else:
            v = abs(r[k]) - rho
        if v > worst:
            worst = v
    return worst


@njit(cache=True, nogil=True)
def _active_solve(w, s, b, r, j, rho):
    """Newton step on the active set: solve ``W_AA b_A = s_A - rho sign(b_A)``.

    Moves ``b`` toward that solution as far as its signs are kept (the whole
    way when none flips; a coordinate that reaches zero is dropped). Along the
    segment the objective is the smooth quadratic of the current orthant, so
    the step never increases it. Returns whether the full step was taken.
    """
    p = w.shape[0]
    m = 0
    for k in range(p):
        if k != j and b[k] != 0.0:
            m += 1
    if m == 0:
        return False
    idx = np.empty(m, dtype=np.int64)
    m = 0
    for k in range(p):
        if k != j and b[k] != 0.0:
            idx[m] = k
            m += 1
    a = np.empty((m, m))
    rhs = np.empty(m)
    for u in range(m):
        rhs[u] = s[idx[u], j] - rho * np.sign(b[idx[u]])
        for v in range(m):
            a[u, v] = w[idx[u], idx[v]]
    sol = np.linalg.solve(a, rhs)
    t = 1.0
    for u in range(m):
        old = b[idx[u]]
        if sol[u] * old <= 0.0:
            frac = old / (old - sol[u])
            if frac < t:
                t = frac
    full = t >= 1.0
    for u in range(m):
        old = b[idx[u]]
        new = sol[u] if full else old + t * (sol[u] - old)
        if not full and (new * old <= 0.0 or abs(new) <= 1e-15 * abs(old)):
            new = 0.0
        b[idx[u]] = new
    for k in range(p):
        acc = s[k, j]
        for u in range(m):
            acc -= w[k, idx[u]] * b[idx[u]]
        r[k] = acc
    return full


@njit(cache=True, nogil=True)
def _lasso_column(w, s, b, r, j, rho, tol, max_inner):
    """Solve the subproblem of column ``j`` to ``tol``.

    Coordinate descent passes (a full pass, then a few over the active set)
    alternate with Newton steps on the active set, which finish the job
    exactly once the active set and signs are right; bounded by ``max_inner``
    rounds.
    """
    for _round in range(max_inner):
        _cd_pass(w, b, r, j, rho, False)
        if _kkt_lasso(b, r, j, rho, False) <= tol:
            return True
        for _inner in range(3):
            _cd_pass(w, b, r, j, rho, True)
        if _active_solve(w, s, b, r, j, rho) and _kkt_lasso(b, r, j, rho, False) <= tol:
            return True
    return _kkt_lasso(b, r, j, rho, False) <= tol


@njit(cache=True, nogil=True)
def glasso_sweeps(
    s: np.ndarray,
    w: np.ndarray,
    bmat: np.ndarray,
    rho: float,
    tol_w: float,
    tol_inner: float,
    max_sweeps: int,
    max_inner: int,
) -> tuple[int, int, bool]:
    """Block coordinate descent sweeps: ``(sweeps done, status, every lasso converged)``.

    ``status`` is 0 when ``W`` converged, 1 when ``max_sweeps`` ran out, 2 when
    ``W`` diverged (an entry with ``w_kj^2 >= 1e12 w_kk w_jj``, far from
    positive definite, or a non-finite one): it then stops at once. (An
    unpenalized diagonal can leave ``W`` indefinite for a while and still
    converge, so the test is loose.)

    Parameters
    ----------
    s : (p, p) float64, the sample covariance
    w : (p, p) float64, current covariance estimate (updated in place; diagonal fixed)
    bmat : (p, p) float64, lasso coefficients by column (updated in place; diagonal 0)
    rho : the penalty
    tol_w : stop when no entry of ``w`` moved by more than this in a sweep
    tol_inner : tolerance of each lasso subproblem's optimality conditions
    max_sweeps, max_inner : bounds on sweeps and on active-set cycles per column
    """
    p = s.shape[0]
    r = np.empty(p)
    b = np.empty(p)
    lasso_ok = True
    for sweep in range(max_sweeps):
        moved = 0.0
        for j in range(p):
            for k in range(p):
                r[k] = s[k, j]
                b[k] = bmat[k, j]
            b[j] = 0.0
            for m in range(p):
                bm = b[m]
                if bm != 0.0:
                    for k in range(p):
                        r[k] -= w[k, m] * bm
            if not _lasso_column(w, s, b, r, j, rho, tol_inner, max_inner):
                lasso_ok = False
            for k in range(p):
                bmat[k, j] = b[k]
                if k == j:
                    continue
                new = s[k, j] - r[k]
                if not new * new < 1e12 * w[k, k] * w[j, j]:
                    return sweep + 1, 2, lasso_ok
                d = abs(new - w[k, j])
                if d > moved:
                    moved = d
                w[k, j] = new
                w[j, k] = new
        if moved <= tol_w:
            return sweep + 1, 0, lasso_ok
    return max_sweeps, 1, lasso_ok


@njit(cache=True, nogil=True)
def precision_from_blocks(w: np.ndarray, bmat: np.ndarray) -> np.ndarray:
    """The precision of a glasso state.

    ``theta_jj = 1 / (w_jj - w12' b)`` and ``theta_12 = -b theta_jj``.

    Columns are assembled one by one, then symmetrized by averaging the two
    triangles (an entry is an exact zero when both of its coefficients are).
    """
    p = w.shape[0]
    theta = np.zeros((p, p))
    for j in range(p):
        acc = 0.0
        for k in range(p):
            if k != j:
                acc += w[k, j] * bmat[k, j]
        tjj = 1.0 / (w[j, j] - acc)
        theta[j, j] = tjj
        for k in range(p):
            if k != j and bmat[k, j] != 0.0:
                theta[k, j] = -bmat[k, j] * tjj
    for j in range(p):
        for k in range(j + 1, p):
            v = 0.5 * (theta[k, j] + theta[j, k])
            theta[k, j] = v
            theta[j, k] = v
    return theta
