"""Compiled pattern checks of large matrices: no boolean temporaries, one pass each.

:func:`spdgraph._kernels.numerics.find_violation` checks finiteness, exact
symmetry and exact zeros on the non-edges with NumPy masks; for large
matrices each mask is a ``p x p`` boolean array and the symmetry test reads
the matrix transposed (a cache miss per entry): 2.5 s at p = 10,000. These
loops find the same first violation (in C order, as ``np.argwhere`` does)
without temporaries; :func:`first_large_not_pd` is the positive definiteness
test of large matrices with one copy. Arrays in, tuples out. Imported lazily
(Numba).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Rows and columns of the tiles of the symmetry test.
_TILE = 64


@njit(cache=True, nogil=True)
def first_nonfinite(stack):
    """Index ``k`` of the first matrix with a NaN or an infinity, or -1."""
    for k in range(stack.shape[0]):
        m = stack[k]
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if not np.isfinite(m[i, j]):
                    return k
    return -1


@njit(cache=True, nogil=True)
def _asymmetric_tiles(m):
    """True if some ``m[i, j] != m[j, i]`` (tile by tile: both reads stay in cache)."""
    p = m.shape[0]
    for a in range(0, p, _TILE):
        for b in range(a, p, _TILE):
            for i in range(a, min(a + _TILE, p)):
                for j in range(max(b, i + 1), min(b + _TILE, p)):
                    if m[i, j] != m[j, i]:
                        return True
    return False


@njit(cache=True, nogil=True)
def first_asymmetric(stack):
    """``(k, i, j)`` of the first ``m[i, j] != m[j, i]`` in C order, or ``(-1, -1, -1)``."""
    for k in range(stack.shape[0]):
        m = stack[k]
        if not _asymmetric_tiles(m):
            continue
        for i in range(m.shape[0]):  # only on failure: the first pair in C order
            for j in range(m.shape[1]):
                if m[i, j] != m[j, i]:
                    return k, i, j
    return -1, -1, -1


@njit(cache=True, nogil=True)
def first_nonedge_nonzero(stack, adjacency):
    """``(k, i, j)`` of the first non-zero off-diagonal non-edge (C order), or -1s."""
    for k in range(stack.shape[0]):
        m = stack[k]
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if i != j and not adjacency[i, j] and m[i, j] != 0.0:
                    return k, i, j
    return -1, -1, -1


@njit(cache=True, nogil=True)
def _tiles_clean(m, adjacency, structural):
    """True when ``m`` is finite, exactly symmetric and (``structural``) 0 on the non-edges.

    One tiled pass over the pairs ``(i, j), j >= i`` (both reads stay in cache),
    branch-free inside a row of a tile (``x - x == 0`` is False for NaN and inf;
    ``x == y`` with ``x`` finite makes ``y`` finite).
    """
    p = m.shape[0]
    for a in range(0, p, _TILE):
        for b in range(a, p, _TILE):
            for i in range(a, min(a + _TILE, p)):
                ok = True
                for j in range(max(b, i), min(b + _TILE, p)):
                    x = m[i, j]
                    ok &= (x == m[j, i]) & (x - x == 0.0)
                    if structural:
                        ok &= (i == j) | adjacency[i, j] | (x == 0.0)
                if not ok:
                    return False
    return True


@njit(cache=True, nogil=True)
def _stack_clean(stack, adjacency, structural):
    """:func:`_tiles_clean` of every matrix of the stack."""
    for k in range(stack.shape[0]):
        if not _tiles_clean(stack[k], adjacency, structural):
            return False
    return True


def first_pattern_violation(
    stack: np.ndarray, adjacency: np.ndarray, structural: bool
) -> tuple[str | None, int, int, int]:
    """``(problem, k, i, j)``: the first non-finite matrix, asymmetric pair or non-zero non-edge.

    ``problem`` is ``"nonfinite"`` (``i = j = -1``), ``"asymmetric"``,
    ``"nonzero"`` (only when ``structural``), or None when the stack passes;
    ``stack`` is a C-contiguous float64 ``(n, p, p)`` array. A stack that
    passes is read once (one fused pass); only a failing one is searched for
    its first violation.
    """
    if _stack_clean(stack, adjacency, structural):
        return None, -1, -1, -1
    k = int(first_nonfinite(stack))
    if k >= 0:
        return "nonfinite", k, -1, -1
    k, i, j = (int(x) for x in first_asymmetric(stack))
    if k >= 0:
        return "asymmetric", k, i, j
    if structural:
        k, i, j = (int(x) for x in first_nonedge_nonzero(stack, adjacency))
        if k >= 0:
            return "nonzero", k, i, j
    return None, -1, -1, -1


def first_large_not_pd(
    stack: np.ndarray,
    condition_bound: float | None,
    threads: int | None = None,
    lower_bounds: np.ndarray | None = None,
) -> tuple[int, str, float] | None:
    """``(k, problem, estimate)`` of the first large matrix that is not numerically PD, or None.

    ``problem`` is ``"not_pd"`` (the Cholesky factorization fails; ``estimate``
    NaN), ``"not_proven"`` (it completes, but its rounding leaves positive
    definiteness unproven: :func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`)
    or ``"ill_conditioned"`` (the scaled condition estimate is above
    ``condition_bound``). One copy per matrix: the blocked factorization of
    :mod:`~spdgraph._kernels.cholesky` (on ``threads`` threads, default
    Numba's thread count; the bits do not depend on it) leaves ``U = L^T``
    in it, which the estimator reads in place. ``lower_bounds`` (``(n,)``), when given,
    receives each proven matrix's lower bound of its smallest eigenvalue.
    """
    import numba

    from spdgraph._kernels.cholesky import cholesky_upper
    from spdgraph._kernels.condition import scaled_condition_estimate_upper

    threads = int(numba.get_num_threads()) if threads is None else threads
    for k in range(stack.shape[0]):
        upper = cholesky_upper(stack[k], threads)
        if upper is None:
            return k, "not_pd", float("nan")
        if condition_bound is not None:
            estimate = scaled_condition_estimate_upper(stack[k], upper)
            if not estimate <= condition_bound:
                return k, "ill_conditioned", float(estimate)
        from spdgraph._kernels.cholesky_proof import dense_lower_bound

        bound = dense_lower_bound(stack[k], upper.T)  # the completed factor's rounding
        if not bound > 0:
            return k, "not_proven", float("nan")
        if lower_bounds is not None:
            lower_bounds[k] = bound
        del upper
    return None


def first_ill_conditioned(
    stack: np.ndarray, factors: np.ndarray, bound: float
) -> tuple[int, float] | None:
    """``(k, estimate)`` of the first matrix whose estimated scaled condition number
    exceeds ``bound`` (``factors`` its lower Cholesky factors), or None."""
    from spdgraph._kernels.condition import scaled_condition_estimates

    estimates = scaled_condition_estimates(stack, factors)
    bad = np.flatnonzero(~(estimates <= bound))
    return None if not bad.size else (int(bad[0]), float(estimates[bad[0]]))
