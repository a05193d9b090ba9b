"""The one private numerics layer: the mathematics every part of spdgraph shares.

The core, the ``da.spd`` accessor, :func:`spdgraph.diagnostics`, the command line
and :mod:`spdgraph.validation` all use these functions, so that link strength,
partial correlations, inverses, Gaussian draws and "is this an SPD matrix with
exactly this zero pattern" are computed one way only. Arrays in, arrays out:
nothing here knows xarray or pluggy. Every function accepts a single ``(p, p)``
matrix or an ``(n, p, p)`` stack unless it says otherwise.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

# the one table of kind spellings and its one lookup; ``canonical_kind`` is the name
# accessor/ still imports it by (vocabulary's ``known_kind``: None for an unknown kind)
from spdgraph.vocabulary import KIND_ALIASES, MATRIX_KIND_ALIASES
from spdgraph.vocabulary import known_kind as canonical_kind

__all__ = [
    "KIND_ALIASES",
    "MATRIX_KIND_ALIASES",
    "MAX_SCALED_CONDITION",
    "Violation",
    "canonical_kind",
    "cholesky_factors",
    "cholesky_inverse",
    "find_violation",
    "gaussian_draws",
    "link_strength",
    "nonedge_mask",
    "partial_correlation",
    "plain",
    "unit_diagonal",
]


#: The largest scaled condition number spdgraph certifies: the 1-norm condition number (estimated
#: from the Cholesky factor, or bounded by a dominance proof) of ``D^-1/2 M D^-1/2``, the
#: scale-free quantity that decides whether a Cholesky factorization succeeds in double
#: precision. A matrix above it is refused as numerically singular even when its factorization
#: happens to succeed: that fails only near 1/eps ~ 4.5e15, so every matrix clearly on one side
#: of this bound gets the same decision on every machine.
MAX_SCALED_CONDITION = 1e12


def plain(value: object) -> object:
    """A numpy scalar as the plain Python number it holds (for messages and attrs).

    >>> plain(np.float64(1.5)), plain("x")
    (1.5, 'x')
    """
    return value.item() if isinstance(value, np.generic) else value


def nonedge_mask(adjacency: np.ndarray) -> np.ndarray:
    """Boolean mask of the off-diagonal non-edges of a boolean adjacency."""
    mask = ~np.asarray(adjacency, dtype=bool)
    np.fill_diagonal(mask, False)
    return mask


def link_strength(m: np.ndarray, adjacency: np.ndarray) -> np.ndarray | float:
    """The paper's R: max over edges ``i < j`` of ``|m_ij| / m_ii``; 0 without edges.

    Returns a float for one ``(p, p)`` matrix and an ``(n,)`` array for a stack.

    >>> m = np.array([[2.0, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    >>> link_strength(m, (m != 0) & ~np.eye(3, dtype=bool))
    0.5
    """
    values = np.asarray(m, dtype=np.float64)
    stack = values if values.ndim == 3 else values[None]
    rows, cols = np.nonzero(np.triu(np.asarray(adjacency, dtype=bool), 1))
    if rows.size == 0:
        out = np.zeros(stack.shape[0])
    else:
        diag = np.diagonal(stack, axis1=-2, axis2=-1)
        out = (np.abs(stack[:, rows, cols]) / diag[:, rows]).max(axis=1)
    return out if values.ndim == 3 else float(out[0])


def unit_diagonal(m: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Rescale an SPD matrix (or stack) to unit diagonal, keeping exact symmetry and zeros.

    ``D^{-1/2} M D^{-1/2}`` computed as ``M * (d_i d_j)`` so that ``[i, j]`` and
    ``[j, i]`` use the same product; the diagonal is then set to exactly 1.
    ``out`` (same shape, float64) receives the result; it may be ``m`` itself.

    >>> unit_diagonal(np.array([[4.0, 2.0], [2.0, 9.0]])).tolist()
    [[1.0, 0.3333333333333333], [0.3333333333333333, 1.0]]
    """
    d = 1.0 / np.sqrt(np.diagonal(m, axis1=-2, axis2=-1))
    out = np.empty(np.shape(m), dtype=np.result_type(m, d)) if out is None else out
    p = m.shape[-1]
    src, dst = np.reshape(m, (-1, p, p)), np.reshape(out, (-1, p, p))
    from spdgraph._kernels.scaling import unit_diagonal_stack  # numba: lazy

    if np.may_share_memory(dst, out) and unit_diagonal_stack(src, dst):  # same bits, compiled
        return out
    scales = np.reshape(d, (-1, p))
    per = max(1, (1 << 20) // max(p * p, 1))
    step = max(1, (1 << 20) // max(p, 1))
    for k in range(0, src.shape[0], per):  # ~1e6 entries at a time: no (n, p, p) temporaries
        ks = slice(k, k + per)
        for r in range(0, p, step):
            rows = slice(r, r + step)
            dst[ks, rows, :] = src[ks, rows, :] * (scales[ks, rows, None] * scales[ks, None, :])
    idx = np.arange(p)
    out[..., idx, idx] = 1.0
    return out


def partial_correlation(omega: np.ndarray) -> np.ndarray:
    """Partial correlations ``-omega_ij / sqrt(omega_ii omega_jj)`` of a precision, unit diagonal.

    Exactly symmetric; exact zeros of ``omega`` stay ``+0.0``.

    >>> partial_correlation(np.array([[4.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0. ],
           [0. , 0. , 1. ]])
    """
    values = 0.0 - unit_diagonal(np.asarray(omega, dtype=np.float64))  # 0.0 - 0.0 is +0.0
    idx = np.arange(values.shape[-1])
    values[..., idx, idx] = 1.0
    return values


def cholesky_factors(
    m: np.ndarray, error: type[Exception] = ValueError, what: str = "matrix"
) -> np.ndarray:
    """Lower Cholesky factors of a matrix or stack; ``error`` names the first one not PD.

    >>> cholesky_factors(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: matrix 0 is not positive definite (Cholesky failed).
    """
    values = np.asarray(m, dtype=np.float64)
    try:
        return np.linalg.cholesky(values)
    except np.linalg.LinAlgError:
        stack = values if values.ndim == 3 else values[None]
        for k in range(stack.shape[0]):
            try:
                np.linalg.cholesky(stack[k])
            except np.linalg.LinAlgError:
                raise error(f"{what} {k} is not positive definite (Cholesky failed).") from None
        raise  # pragma: no cover - the batch failed, so one matrix must fail


def cholesky_inverse(
    m: np.ndarray, error: type[Exception] = ValueError, what: str = "matrix"
) -> np.ndarray:
    """The inverse of an SPD matrix or stack by Cholesky solves, exactly symmetric.

    >>> cholesky_inverse(np.array([[4.0, 0.0], [0.0, 0.25]])).tolist()
    [[0.25, 0.0], [0.0, 4.0]]
    """
    from scipy.linalg import cho_solve

    values = np.asarray(m, dtype=np.float64)
    stack = values if values.ndim == 3 else values[None]
    factors = cholesky_factors(stack, error, what)
    eye = np.eye(stack.shape[-1])
    inv = np.empty_like(stack)
    for k in range(stack.shape[0]):
        inv[k] = cho_solve((factors[k], True), eye, check_finite=False)
    # (a + b) * 0.5 == (b + a) * 0.5 in floating point: exactly symmetric
    inv = (inv + np.swapaxes(inv, -1, -2)) * 0.5
    return inv if values.ndim == 3 else inv[0]


def gaussian_draws(z: np.ndarray, factor: np.ndarray, kind: str) -> np.ndarray:
    """Turn standard normal rows ``z`` (n_obs, p) into N(0, Sigma) rows.

    ``factor`` is the lower Cholesky factor L of the matrix: of Sigma for
    ``kind="covariance"`` (``x = L z``), of the precision Omega for
    ``kind="precision"`` (``x = L^{-T} z`` by a triangular solve, Sigma never
    formed).

    >>> z = np.array([[1.0, 1.0]])
    >>> gaussian_draws(z, np.diag([2.0, 3.0]), "covariance").tolist()
    [[2.0, 3.0]]
    >>> gaussian_draws(z, np.diag([2.0, 4.0]), "precision").tolist()
    [[0.5, 0.25]]
    """
    if kind == "precision":
        from scipy.linalg import solve_triangular

        return solve_triangular(factor, z.T, lower=True, trans="T", check_finite=False).T
    return z @ factor.T


@dataclass(frozen=True)
class Violation:
    """The first way a stack fails to be SPD graph matrices (see :func:`find_violation`).

    ``problem`` is one of ``"nonfinite"``, ``"asymmetric"``, ``"nonzero"``
    (an entry on a non-edge), ``"diagonal"`` (not exactly 1), ``"small_diagonal"``
    (a diagonal entry zero, negative or subnormal), ``"not_pd"`` (Cholesky failed),
    ``"not_proven"`` (Cholesky completed, but its rounding bound leaves positive
    definiteness unproven: :func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`)
    and ``"ill_conditioned"`` (scaled condition number estimate ``value`` above
    :data:`MAX_SCALED_CONDITION`); ``k`` is the matrix, ``i``/``j`` the entry
    where one applies.
    """

    problem: str
    k: int
    i: int = -1
    j: int = -1
    value: float = float("nan")
    other: float = float("nan")

    def describe(self, labels: Sequence[Hashable] | None = None) -> str:
        """One sentence naming the matrix, the entry (and nodes) and the rule broken."""
        where = f"[{self.i}, {self.j}]"
        if labels is not None and self.i >= 0 and self.j >= 0:
            where += f" (nodes {plain(labels[self.i])!r} and {plain(labels[self.j])!r})"
        if self.problem == "nonfinite":
            return f"matrix {self.k} holds non-finite values (NaN or inf)."
        if self.problem == "asymmetric":
            return (
                f"matrix {self.k} is not exactly symmetric: [{self.i}, {self.j}] = "
                f"{plain(self.value)} but [{self.j}, {self.i}] = {plain(self.other)}."
            )
        if self.problem == "nonzero":
            return (
                f"matrix {self.k} has a non-zero entry {plain(self.value)} at {where}, which is "
                "not an edge of the graph; non-edges must be exactly 0."
            )
        if self.problem == "diagonal":
            node = f"node {plain(labels[self.i])!r}" if labels is not None else f"row {self.i}"
            return (
                f"matrix {self.k} has diagonal entry {plain(self.value)} at {node}; it must be "
                "exactly 1."
            )
        if self.problem == "small_diagonal":
            node = f"node {plain(labels[self.i])!r}" if labels is not None else f"row {self.i}"
            what = "not positive" if not self.value > 0 else "subnormal"
            return (
                f"matrix {self.k} is not positive definite in double precision: its diagonal "
                f"entry {plain(self.value)} at {node} is {what} (entries must be at least "
                f"{np.finfo(np.float64).tiny:g})."
            )
        if self.problem == "ill_conditioned":
            return (
                f"matrix {self.k} is numerically singular: its scaled condition number is about "
                f"{self.value:.3g}, above the {MAX_SCALED_CONDITION:g} that spdgraph certifies "
                "(its positive definiteness would depend on rounding)."
            )
        if self.problem == "not_proven":
            return (
                f"matrix {self.k} is not proven positive definite: its Cholesky factorization "
                "completed, but within its rounding (its smallest eigenvalue is below about "
                "p**2 eps of its unit-diagonal form, or not positive at all)."
            )
        return f"matrix {self.k} is not positive definite (Cholesky failed)."


def find_violation(
    m: np.ndarray,
    adjacency: np.ndarray,
    *,
    structural: bool = True,
    unit: bool = False,
    check_pd: bool = True,
    condition_bound: float | None = None,
    proven: np.ndarray | None = None,
) -> Violation | None:
    """The one check of "SPD, exactly symmetric, exactly this zero pattern".

    Checks, in this order, finiteness, exact symmetry, exact zeros on the non-edges of
    ``adjacency`` (when ``structural``), an exactly unit diagonal (when ``unit``), diagonal
    entries positive and of normal size, and positive definiteness (when ``check_pd``: by
    weighted diagonal dominance, :mod:`~spdgraph._kernels.dominance`, else a Cholesky
    factorization with its rounding accounted:
    :func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`); with
    ``condition_bound`` (e.g. :data:`MAX_SCALED_CONDITION`) a matrix whose estimated scaled
    condition number exceeds it fails as ``"ill_conditioned"``, so that the verdict on a
    nearly singular matrix does not depend on rounding. Returns the first
    :class:`Violation`, or None when the matrix (or every matrix of the stack) passes;
    then ``proven`` (``(2, n)`` float64, with ``check_pd``) holds each matrix's proven lower
    bound of its smallest eigenvalue and the proof's code, as
    :func:`~spdgraph._kernels.certify.certifies` fills it.

    >>> adj = np.array([[False, True, False], [True, False, False], [False, False, False]])
    >>> m = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> find_violation(m, adj) is None
    True
    >>> m[0, 2] = m[2, 0] = 0.1
    >>> find_violation(m, adj).describe()
    'matrix 0 has a non-zero entry 0.1 at [0, 2], which is not an edge of the graph; non-edges must be exactly 0.'
    """  # noqa: E501
    values = np.asarray(m)
    stack = values if values.ndim == 3 else values[None]
    # the pattern checks' boolean masks die with the helper, before any Cholesky copy
    found = _pattern_violation(stack, adjacency, structural=structural, unit=unit)
    if found is not None:
        return found
    if check_pd and stack.shape[0]:
        diag = np.diagonal(stack, axis1=-2, axis2=-1)
        small = np.argwhere(~(diag >= np.finfo(np.float64).tiny))
        if small.size:
            k, i = (int(x) for x in small[0])
            return Violation("small_diagonal", k, i, i, float(diag[k, i]))
        from spdgraph._kernels.dominance import proves_pd  # numba: lazy
        from spdgraph._kernels.proofs import PROOF_CHOLESKY, PROOF_DOMINANCE

        proven = np.empty((2, stack.shape[0])) if proven is None else proven
        proven[1] = PROOF_CHOLESKY
        if structural and proves_pd(stack, adjacency, condition_bound, proven[0]):
            proven[1] = PROOF_DOMINANCE  # Gershgorin: weighted diagonal dominance, no Cholesky
            return None
        if stack.shape[-1] >= _LARGE:
            return _large_not_pd(stack, condition_bound, proven)
        try:
            factors = np.linalg.cholesky(stack)
        except np.linalg.LinAlgError:
            for k in range(stack.shape[0]):
                try:
                    np.linalg.cholesky(stack[k])
                except np.linalg.LinAlgError:
                    return Violation("not_pd", k)
            raise  # pragma: no cover - the batch failed, so one matrix must fail
        if condition_bound is not None:
            from spdgraph._kernels.checks import first_ill_conditioned  # numba: lazy

            high = first_ill_conditioned(stack, factors, condition_bound)
            if high is not None:
                return Violation("ill_conditioned", high[0], value=high[1])
        from spdgraph._kernels.cholesky_proof import first_unproven

        unproven = first_unproven(stack, factors, proven[0])  # the rounding accounted
        return None if unproven is None else Violation("not_proven", unproven)
    return None


def _pattern_violation(
    stack: np.ndarray, adjacency: np.ndarray, *, structural: bool, unit: bool
) -> Violation | None:
    """Finiteness, exact symmetry, exact zeros on non-edges, unit diagonal (find_violation)."""
    if (
        stack.shape[-1] >= _LARGE
        and stack.dtype == np.float64
        and stack.flags.c_contiguous
        and adjacency.dtype == np.bool_
    ):
        found = _compiled_pattern_violation(stack, adjacency, structural=structural)
    else:
        found = _masked_pattern_violation(stack, adjacency, structural=structural)
    if found is not None or not unit:
        return found
    diag = np.diagonal(stack, axis1=-2, axis2=-1)
    off = np.argwhere(diag != 1.0)
    if off.size:
        k, i = (int(x) for x in off[0])
        return Violation("diagonal", k, i, i, float(diag[k, i]))
    return None


def _compiled_pattern_violation(
    stack: np.ndarray, adjacency: np.ndarray, *, structural: bool
) -> Violation | None:
    """:func:`_masked_pattern_violation` by compiled passes (large matrices, no masks)."""
    from spdgraph._kernels.checks import first_pattern_violation  # numba: lazy

    problem, k, i, j = first_pattern_violation(stack, adjacency, structural)
    if problem is None:
        return None
    other = float(stack[k, j, i]) if problem == "asymmetric" else float("nan")
    value = float("nan") if problem == "nonfinite" else float(stack[k, i, j])
    return Violation(problem, k, i, j, value, other)


def _masked_pattern_violation(
    stack: np.ndarray, adjacency: np.ndarray, *, structural: bool
) -> Violation | None:
    """The first non-finite matrix, asymmetric pair or non-zero non-edge (NumPy masks)."""
    finite = np.isfinite(stack)
    if not finite.all():
        return Violation("nonfinite", int(np.argwhere(~finite)[0][0]))
    del finite
    asym = stack != np.swapaxes(stack, -1, -2)
    if asym.any():
        k, i, j = (int(x) for x in np.argwhere(asym)[0])
        return Violation("asymmetric", k, i, j, float(stack[k, i, j]), float(stack[k, j, i]))
    del asym
    if structural:
        bad = (stack != 0) & nonedge_mask(adjacency)
        if bad.any():
            k, i, j = (int(x) for x in np.argwhere(bad)[0])
            return Violation("nonzero", k, i, j, float(stack[k, i, j]))
    return None


#: From this size on, :func:`find_violation` checks positive definiteness one
#: matrix at a time with one copy (``np.linalg.cholesky`` makes two).
_LARGE = 2048


def _large_not_pd(
    stack: np.ndarray, condition_bound: float | None, proven: np.ndarray
) -> Violation | None:
    """The first matrix of a stack of large symmetric matrices that is not PD (``dpotrf``)."""
    from spdgraph._kernels.checks import first_large_not_pd  # numba: lazy

    found = first_large_not_pd(stack, condition_bound, lower_bounds=proven[0])
    if found is None:
        return None
    k, problem, estimate = found
    return Violation(problem, k, value=estimate)
