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

from spdgraph._kernels.condition import (
    _estimate_one,
    factor_rounding_bound,
    scaled_one_norm,
    shifted_bound,
    shifted_into,
)

_TINY = float(np.finfo(np.float64).tiny)
_EPS = float(np.finfo(np.float64).eps)


@njit(cache=True, nogil=True, error_model="numpy")
def _pattern_ok(m, adjacency, structural, unit):
    """Finite, exactly symmetric, zeros on the non-edges (and a unit diagonal).

    Two branch-free passes that the compiler vectorizes: every row in order
    (finite, ``x - x == 0`` being False for inf and NaN; 0 off the graph),
    then the strict lower triangle against the upper one (a small matrix
    stays in cache). Three times faster at ``p = 100`` than one pass over the
    pairs, whose strided reads kept it scalar.
    """
    p = m.shape[0]
    ok = True
    for i in range(p):
        row = m[i]
        links = adjacency[i]
        for j in range(p):
            x = row[j]
            ok &= x - x == 0.0
            if structural:
                ok &= links[j] | (x == 0.0) | (i == j)
        if unit:
            ok &= row[i] == 1.0
    for i in range(p):
        for j in range(i):
            ok &= m[i, j] == m[j, i]
    return ok


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
def scaled_norm(m, root):
    """At least ``||S m S||_1`` with ``S = diag(1 / root)`` (``m`` exactly symmetric: rows
    are columns): sums of non-negative terms by the rounded ``1 / root``, inflated by
    ``1 + 4 (p + 10) eps`` for every rounding (a multiplication, not a division, per entry).
    """
    p = m.shape[0]
    inverse = np.empty(p)
    for i in range(p):
        inverse[i] = 1.0 / root[i]
    return scaled_one_norm(m, inverse) * (1.0 + 4.0 * (p + 10) * _EPS)


@njit(cache=True, nogil=True, error_model="numpy")
def majorant_forward(lower, root, work, i0, i1, tile):
    """Rows ``i0 .. i1 - 1`` of ``C b = S^-1 e`` into ``work`` (see :func:`_majorant_condition`).

    With ``tile > 0`` also ``root[i] = sqrt(sum_j l_ij^2)`` (the row's norm,
    from ``lower`` itself), and False when an entry of ``lower`` right of the
    diagonal within the row's ``tile`` block is not exactly 0 (the entries a
    tiled product of the lower triangle reads: the bound would not be of the
    matrix multiplied). True otherwise.
    """
    p = lower.shape[0]
    for i in range(i0, i1):
        row = lower[i]
        if tile > 0:
            for j in range(i + 1, min(p, (i // tile + 1) * tile)):
                if row[j] != 0.0:
                    return False
            s = 0.0
            for j in range(i + 1):
                s += row[j] * row[j]
            root[i] = np.sqrt(s)
        t = root[i]
        for j in range(i):
            t += abs(row[j]) * work[j]
        work[i] = t / abs(row[i])
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def majorant_backward(lower, work, i0, i1):
    """Rows ``i1 - 1`` down to ``i0`` of ``C^T c = b`` in ``work`` (column-oriented)."""
    for i in range(i1 - 1, i0 - 1, -1):
        row = lower[i]
        work[i] = work[i] / abs(row[i])
        ci = work[i]
        for j in range(i):
            work[j] += abs(row[j]) * ci


@njit(cache=True, nogil=True, error_model="numpy")
def majorant_finish(work, root):
    """``max_i root_i c_i`` inflated for the roundings: at least ``||(S L L^T S)^-1||_1``."""
    p = work.shape[0]
    largest = 0.0
    for i in range(p):
        largest = max(largest, work[i] * root[i])
    return largest * (1.0 + 4.0 * (p + 10) * _EPS)


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
    norm = scaled_norm(m, root)
    majorant_forward(lower, root, work, 0, p, 0)
    majorant_backward(lower, work, 0, p)
    return norm * majorant_finish(work, root)


@njit(cache=True, nogil=True, error_model="numpy")
def factor_lower_bound(m, lower, work):
    """A proven lower bound of ``lambda_min(m)`` from its completed Cholesky factor, or 0.

    ``lower`` (only its lower triangle read) is the computed factor of ``m``:
    ``L L^T = m + dm`` with ``|dm| <= gamma_(p+1) |L| |L|^T`` (Higham Thm 10.5).
    With ``S = diag(1 / r)``, ``r_i = fl(sqrt(m_ii))`` and ``G = S |L|``:
    ``lambda_min(S L L^T S) >= 1 / w`` for the majorant ``w`` of
    ``||(S L L^T S)^-1||_1`` (:func:`majorant_finish`), and
    ``||S dm S||_2 <= gamma_(p+1) ||G||_1 ||G||_inf``
    (:func:`~spdgraph._kernels.condition.factor_rounding_bound`, the sparse
    proof's bound), so ``lambda_min(S m S) >= 1 / w - that`` and
    ``lambda_min(m) >= min_i r_i^2`` times it; every step rounded down. 0 when
    that is not positive (the majorant is loose for dense graphs: then the
    shifted factorization decides). ``work`` is ``(3, p)``.
    """
    p = m.shape[0]
    w, root, columns = work[0], work[1], work[2]
    smallest = np.inf
    for i in range(p):
        root[i] = np.sqrt(m[i, i])
        smallest = min(smallest, root[i])
        columns[i] = 0.0
    majorant_forward(lower, root, w, 0, p, 0)
    majorant_backward(lower, w, 0, p)
    inverse = majorant_finish(w, root)
    rows = 0.0
    for i in range(p):
        row = lower[i]
        s = 0.0
        for j in range(i + 1):
            g = abs(row[j]) / root[i]
            s += g
            columns[j] += g
        rows = max(rows, s)
    eta = factor_rounding_bound(columns.max(), rows, p + 1, p + 1)
    bound = (1.0 / inverse) * (1.0 - 2.0 * _EPS) - eta * (1.0 + 2.0 * _EPS)
    if not bound > 0.0:  # also NaN
        return 0.0
    return bound * (smallest * smallest) * (1.0 - 4.0 * _EPS)


@njit(cache=True, nogil=True, error_model="numpy")
def _shifted_proves(m, shifted, lower):
    """The shifted proof with this module's factorization: the proven lower bound of
    ``lambda_min(m)`` it gives, or 0."""
    least, eta, unscale = shifted_into(m, shifted)
    if not least > 0.0 or not _cholesky_into(shifted, lower):
        return 0.0
    bound = shifted_bound(least, eta, unscale)
    return bound if bound > 0.0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def construction_bound(norm, inverse, p, residual):
    """A proven bound of the scaled 1-norm condition number of a PO matrix, from its factor.

    The matrix ``A`` is ``fl(L L^T)`` for a lower-triangular ``L`` whose
    ``i``-th row has norm ``n_i``, with its non-edges (relative residual at
    most ``residual``) then set to 0; ``S = diag(1 / r)`` with ``r_i`` the
    rounded ``n_i`` (within ``gamma_(p+2)``). ``inverse`` is at least
    ``||H^-1||_1`` for ``H = S L L^T S`` (:func:`majorant_finish`), ``norm``
    is ``||S A S||_1`` (:func:`scaled_norm`). Every entry of ``E = S (A - L L^T) S``
    is at most ``e = 2 ((p + 2) eps + residual)`` in absolute value (a rounded
    dot product of ``p`` terms is within ``gamma_p n_i n_j`` of the exact one,
    in any order of summation and with fused multiply-adds; a zeroed non-edge
    adds its own value), so ``||E||_2 <= ||E||_1 <= p e``. When
    ``inverse * p * e <= 1/2``: ``S A S = H + E`` is positive definite
    (``lambda_min(H) >= 1 / inverse > ||E||_2``) and
    ``||(S A S)^-1||_1 <= inverse / (1 - inverse p e)`` (Neumann series); the
    bound returned is that times ``norm`` (inflated for its roundings).
    Infinite when nothing is proved.
    """
    e = 2.0 * ((p + 2) * _EPS + residual)
    off = inverse * p * e
    if not off <= 0.5:  # also NaN
        return np.inf
    bound = norm * inverse / (1.0 - off) * (1.0 + 4.0 * (p + 10) * _EPS)
    return bound if bound == bound else np.inf


@njit(cache=True, nogil=True, error_model="numpy")
def factor_bound(m, lower, residual, work):
    """:func:`construction_bound` of ``m = fl(L L^T)`` (non-edges zeroed) from its ``lower``.

    ``r_i = sqrt(m_ii)`` (the rounded squared row norm, computed by the
    product itself); reads only the lower triangle of ``lower``; ``work`` is
    ``(2, p)``. Infinite when a diagonal entry is not positive and finite.
    """
    p = m.shape[0]
    w, root = work[0], work[1]
    for i in range(p):
        d = m[i, i]
        if not (d > 0.0 and d - d == 0.0):
            return np.inf
        root[i] = np.sqrt(d)
    norm = scaled_norm(m, root)
    majorant_forward(lower, root, w, 0, p, 0)
    majorant_backward(lower, w, 0, p)
    return construction_bound(norm, majorant_finish(w, root), p, residual)


@njit(cache=True, nogil=True, error_model="numpy")
def _factors_pass(stack, bound, lower_bounds):
    """Every matrix factors, with a scaled condition estimate at most ``bound`` (if > 0),
    and is proven positive definite from its factor (:func:`factor_lower_bound`); the
    proven lower bound of matrix ``k``'s smallest eigenvalue in ``lower_bounds[k]``.

    The cheap upper bound :func:`_majorant_condition` first; above ``bound`` (or
    NaN) the estimator decides.
    """
    p = stack.shape[1]
    lower = np.empty((p, p))
    upper = np.empty((p, p))
    work = np.empty((3, p))
    for k in range(stack.shape[0]):
        if not _cholesky_into(stack[k], lower):
            return False
        if bound > 0.0 and not _majorant_condition(stack[k], lower, work) <= bound:
            for i in range(p):  # U = L^T: the estimator's row-wise substitutions
                for j in range(p):
                    upper[i, j] = lower[j, i]
            if not _estimate_one(stack[k], upper, True) <= bound:
                return False
        proven = factor_lower_bound(stack[k], lower, work)
        if not proven > 0.0:
            # not proven from this factor (a loose majorant): one shifted factorization
            proven = _shifted_proves(stack[k], upper, lower)
            if not proven > 0.0:
                return False  # the detailed checks decide and name the problem
        lower_bounds[k] = proven
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
    proven: np.ndarray | None = None,
) -> bool:
    """True when every matrix of the ``(n, p, p)`` stack passes the checks (see the module).

    ``diagonals`` also requires every diagonal entry to be at least the smallest
    normal double; ``check_pd`` implies it and adds the Cholesky factorization
    and, with ``condition_bound``, the scaled condition estimate. False means
    "not certified here" (or not a stack this path takes: not C-contiguous
    float64, ``p > MAX_P``): run the detailed checks. ``pattern_known`` (with
    ``check_pd``) skips the pattern pass for a stack known to be exactly
    symmetric, 0 on the non-edges and of unit diagonal (the core's rescaling of
    checked matrices); the factorization fails on a non-finite entry. With
    ``check_pd`` and ``proven`` (a ``(2, n)`` float64 array) a True verdict fills it:
    row 0 each matrix's proven lower bound of its smallest eigenvalue, row 1 the
    proof's code (:data:`~spdgraph._kernels.proofs.PROOF_NAMES`).

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
    from spdgraph._kernels.proofs import PROOF_CHOLESKY, PROOF_DOMINANCE

    bounds = np.empty(stack.shape[0])
    if structural and proves_pd(stack, adjacency, condition_bound, bounds):
        code = PROOF_DOMINANCE  # Gershgorin: weighted diagonal dominance, no factorization
    elif _factors_pass(stack, -1.0 if condition_bound is None else float(condition_bound), bounds):
        code = PROOF_CHOLESKY
    else:
        return False
    if proven is not None:
        proven[0], proven[1] = bounds, code
    return True
