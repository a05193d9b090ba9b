"""A fast certificate for stacks of small matrices: one compiled pass, no temporaries.

The output checks (:func:`spdgraph._kernels.numerics.find_violation`) name the
first problem of a stack: NumPy masks for the pattern, LAPACK's Cholesky and a
condition estimate for positive definiteness. For a stack of small matrices
most of that time is temporaries and per-call overhead, and nearly every stack
passes. :func:`certifies` is the fast path: ``True`` only when every matrix
passes every check of ``find_violation`` (finite, exactly symmetric, exact
zeros on the non-edges, optionally an exactly unit diagonal; with ``check_pd``
diagonals of normal size, a Cholesky factorization and a scaled condition
estimate at most the bound), ``False`` otherwise, and then the caller runs the
detailed checks, which decide and name the problem.

The verdict ``True`` is sound whatever the rounding of this Cholesky (its dot
products are reassociated for speed): a matrix whose factorization succeeds
with a scaled condition estimate at most ``bound`` (1e12, far below
``1 / eps``) is positive definite. A matrix at the bound may be accepted here
and refused by LAPACK's rounding (or the reverse): the verdict on such a matrix
already depends on the machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spdgraph._kernels.condition import _estimate_one

_TINY = float(np.finfo(np.float64).tiny)


@njit(cache=True, nogil=True, error_model="numpy")
def _pattern_ok(m, adjacency, structural, unit):
    """Finite, exactly symmetric, zeros on the non-edges (and a unit diagonal): one pass
    over the upper triangle, branch-free per row (``x - x == 0`` is False for inf and NaN)."""
    p = m.shape[0]
    for i in range(p):
        d = m[i, i]
        ok = d - d == 0.0 and (not unit or d == 1.0)
        for j in range(i + 1, p):
            x = m[i, j]
            ok &= (x == m[j, i]) & (x - x == 0.0)
            if structural:
                ok &= adjacency[i, j] | (x == 0.0)
        if not ok:
            return False
    return True


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"}, error_model="numpy")
def _cholesky_into(m, lower):
    """``m = L L^T`` into ``lower`` (strict upper set to 0); False when a pivot is not > 0."""
    p = m.shape[0]
    for i in range(p):
        for j in range(i + 1):
            t = m[i, j]
            for q in range(j):
                t -= lower[i, q] * lower[j, q]
            if i == j:
                if not t > 0.0:
                    return False
                lower[i, i] = np.sqrt(t)
            else:
                lower[i, j] = t / lower[j, j]
        for j in range(i + 1, p):
            lower[i, j] = 0.0
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def _patterns_pass(stack, adjacency, structural, unit, diagonals):
    """The pattern checks of every matrix; with ``diagonals`` also diagonal >= tiny."""
    p = stack.shape[1]
    for k in range(stack.shape[0]):
        m = stack[k]
        if not _pattern_ok(m, adjacency, structural, unit):
            return False
        if diagonals:
            for i in range(p):
                if not m[i, i] >= _TINY:
                    return False
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def _majorant_condition(m, lower, buffers):
    """An upper bound of the scaled 1-norm condition number of ``L L^T`` (``L = lower``).

    With ``S = diag(1 / sqrt(m_ii))`` and ``H = S L L^T S``: ``|L^-1| <= C^-1``
    entrywise for the comparison matrix ``C`` of ``L`` (``|l_ii|`` on the
    diagonal, ``-|l_ij|`` below), so ``|H^-1| <= B = S^-1 C^-T C^-1 S^-1``, a
    non-negative symmetric matrix, and ``||H^-1||_1 <= max(B e)``: two
    substitutions in non-negative numbers (``p^2`` multiply-adds, a third of
    the estimator's solves). Times ``||H||_1``, and by ``1 + 4 (p + 10) eps``
    for the roundings of sums of non-negative terms. Tight for sparse and
    moderately dense graphs (within 10x of the estimate at p = 100, d = 0.1),
    loose for dense ones, where the caller runs the estimator.
    """
    p = m.shape[0]
    work, root = buffers[0], buffers[1]
    for i in range(p):
        root[i] = np.sqrt(m[i, i])
    norm = 0.0
    for j in range(p):  # ||H||_1 (m is exactly symmetric: row j is column j)
        col = 0.0
        row = m[j]
        for i in range(p):
            col += abs(row[i]) / root[i]
        norm = max(norm, col / root[j])
    for i in range(p):  # C b = S^-1 e, by rows of L
        row = lower[i]
        t = root[i]
        for j in range(i):
            t += abs(row[j]) * work[j]
        work[i] = t / abs(row[i])
    for i in range(p - 1, -1, -1):  # C^T c = b, by rows of L (column-oriented)
        row = lower[i]
        work[i] = work[i] / abs(row[i])
        ci = work[i]
        for j in range(i):
            work[j] += abs(row[j]) * ci
    largest = 0.0
    for i in range(p):
        largest = max(largest, work[i] * root[i])
    return norm * largest * (1.0 + 4.0 * (p + 10) * 2.220446049250313e-16)


@njit(cache=True, nogil=True, error_model="numpy")
def _factors_pass(stack, bound):
    """Every matrix factors, with a scaled condition estimate at most ``bound`` (if > 0).

    The cheap upper bound :func:`_majorant_condition` first; above ``bound`` (or
    NaN) the estimator decides.
    """
    p = stack.shape[1]
    lower = np.empty((p, p))
    upper = np.empty((p, p))
    work = np.empty((2, p))
    for k in range(stack.shape[0]):
        if not _cholesky_into(stack[k], lower):
            return False
        if bound > 0.0 and not _majorant_condition(stack[k], lower, work) <= bound:
            for i in range(p):  # U = L^T: the estimator's row-wise substitutions
                for j in range(p):
                    upper[i, j] = lower[j, i]
            if not _estimate_one(stack[k], upper, True) <= bound:
                return False
    return True


#: Largest matrix size of the fast path (above it the detailed checks are the fast ones).
MAX_P = 512


def certifies(
    stack: np.ndarray,
    adjacency: np.ndarray,
    *,
    structural: bool = True,
    unit: bool = False,
    diagonals: bool = False,
    check_pd: bool = False,
    condition_bound: float | None = None,
    pattern_known: bool = False,
) -> bool:
    """True when every matrix of the ``(n, p, p)`` stack passes the checks (see the module).

    ``diagonals`` also requires every diagonal entry to be at least the smallest
    normal double; ``check_pd`` implies it and adds the Cholesky factorization
    and, with ``condition_bound``, the scaled condition estimate. False means
    "not certified here" (or not a stack this path takes: not C-contiguous
    float64, ``p > MAX_P``): run the detailed checks. ``pattern_known`` (with
    ``check_pd``) skips the pattern pass for a stack known to be exactly
    symmetric, 0 on the non-edges and of unit diagonal (the core's rescaling of
    checked matrices); the factorization fails on a non-finite entry.

    >>> m = np.array([[[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]])
    >>> adjacency = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)
    >>> certifies(m, adjacency, check_pd=True, condition_bound=1e12)
    True
    >>> m[0, 0, 2] = m[0, 2, 0] = 0.5  # not an edge
    >>> certifies(m, adjacency)
    False
    """
    if not (
        stack.ndim == 3
        and stack.dtype == np.float64
        and stack.flags.c_contiguous
        and 0 < stack.shape[-1] <= MAX_P
        and adjacency.dtype == np.bool_
        and adjacency.shape == stack.shape[1:]
    ):
        return False
    adjacency = np.ascontiguousarray(adjacency)
    known = pattern_known and check_pd
    if not known and not _patterns_pass(stack, adjacency, structural, unit, diagonals or check_pd):
        return False
    if not check_pd:
        return True
    from spdgraph._kernels.dominance import proves_pd

    if structural and proves_pd(stack, adjacency, condition_bound):
        return True  # Gershgorin: weighted diagonal dominance, no factorization
    bound = -1.0 if condition_bound is None else float(condition_bound)
    return bool(_factors_pass(stack, bound))
