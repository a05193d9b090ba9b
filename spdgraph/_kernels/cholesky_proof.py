"""Positive definiteness proven by a sparse Cholesky factorization, rounding accounted.

A floating-point Cholesky factorization that completes proves nothing by itself:
rounding carries it through exactly singular matrices. The factorization of
``A`` that completes gives ``L L^T = A + dA`` with
``|dA| <= gamma_{c+1} |L| |L^T|`` (Demmel 1989; Higham, *Accuracy and Stability
of Numerical Algorithms*, Thm 10.5; ``c`` the most entries in a row of ``L``),
so ``lambda_min(A) > -||dA||_2``, and a factorization of ``A = H - delta I``
with ``delta`` beyond that bound proves ``H`` positive definite:

* :func:`cholesky_shift_lower_bound`: the bound ``gamma_{c+1} ||L||_1 ||L||_inf``
  from CHOLMOD's factor (also huge's proven bound of ``lambda_min(v A)``);
* :func:`proven_lower_bound`: the proof of the sparse path's certificate
  (``docs/large_graphs.md``, "What is checked, and what is proven");
* :func:`dense_lower_bound`: the dense path's (``docs/errors.md``, "What each
  certificate proves in floating point"), the bound shared through
  :mod:`~spdgraph._kernels.condition`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph._kernels.cholmod import require_cholmod
from spdgraph._kernels.sparse_cholesky import FactorPlan, SparseFactor
from spdgraph.errors import NumericalError

__all__ = [
    "FIRST_MARGIN",
    "LAST_MARGIN",
    "binary_exponents",
    "binary_scaling",
    "cholesky_shift_lower_bound",
    "dense_lower_bound",
    "first_unproven",
    "proven_lower_bound",
    "proven_lower_bounds",
    "trace_margin",
]


def cholesky_shift_lower_bound(factor: Any, shift: float) -> float:
    """A proven lower bound on ``lambda_min(K + shift I)`` from a completed factorization of ``K``.

    A floating-point Cholesky factorization that completes gives ``L`` with
    ``L L^T = K + dK`` exactly, ``|dK| <= gamma_{c+1} |L| |L^T|`` entrywise
    (Demmel 1989; Higham, *Accuracy and Stability*, Thm 10.5), ``c`` the most
    entries in a row of ``L`` (the terms of any of its inner products, in any
    order of summation), ``gamma_k = k u / (1 - k u)``. ``K + dK`` is positive
    definite, so ``lambda_min(K) > -||dK||_2 >= -gamma_{c+1} ||L||_1 ||L||_inf``
    (``|| |L| |L|^T ||_2 = ||L||_2^2 <= ||L||_1 ||L||_inf``). The norms are summed
    in floating point and inflated by their own rounding bound; the difference is
    rounded down. ``K`` must hold ``v A - s I`` exactly (its entries ``v`` and
    ``-s`` are exact in floating point). CHOLMOD hands ``L`` over by converting
    the factorization: ``factor`` cannot solve afterwards.
    """
    _, cholmod, _ = require_cholmod()
    lower = cholmod.getfactor(factor._factor)  # P K P^T = L L^T, L in compressed columns
    colptr, rows, values = (np.asarray(part).ravel() for part in lower.CCS)
    magnitudes = np.abs(values)
    p = factor.p
    column_sums = np.add.reduceat(magnitudes, colptr[:-1]) if magnitudes.size else np.zeros(p)
    row_sums = np.bincount(rows, weights=magnitudes, minlength=p)
    terms = int(np.bincount(rows, minlength=p).max()) + 1
    count = max(terms, int(np.diff(colptr).max()))  # the two sums' lengths
    from spdgraph._kernels.condition import factor_rounding_bound  # numba: lazy

    eta = factor_rounding_bound(float(column_sums.max()), float(row_sums.max()), terms, count)
    return float(np.nextafter(shift - eta, -np.inf))


#: The least shift of the proving factorization (:func:`proven_lower_bound`), relative to
#: a diagonal brought into [1/2, 2) by powers of two: about 9.1e-13, the dense
#: certificate's scaled condition bound 1e12.
FIRST_MARGIN = 2.0**-40
#: The largest shift tried: at most 1/4 keeps the shifted diagonal's subtraction exact.
LAST_MARGIN = 2.0**-3
_U = float(np.finfo(np.float64).eps) / 2


def binary_exponents(diagonal: np.ndarray) -> np.ndarray:
    """``e`` with ``2**(2 e_i) d_i`` in [1/2, 2) (0 where ``d_i`` is not positive and finite)."""
    _, power = np.frexp(diagonal)  # diagonal = f 2**power, f in [1/2, 1)
    finite = (diagonal > 0) & np.isfinite(diagonal)
    return np.where(finite, -(power // 2), 0).astype(np.int64)


def binary_scaling(csr: Any) -> tuple[Any, np.ndarray]:
    """``(S M S, e)`` with ``S = diag(2**e)`` bringing the diagonal into [1/2, 2).

    Every entry is multiplied by a power of two, which is exact unless it
    underflows or overflows: then (checked) ``M`` itself and ``e = 0``. A diagonal
    entry that is not a positive finite number keeps ``e_i = 0``.
    """
    e = binary_exponents(csr.diagonal())
    if not e.any():
        return csr, e
    rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    exponents = e[rows] + e[csr.indices]
    data = np.ldexp(csr.data, exponents)
    if not np.array_equal(np.ldexp(data, -exponents), csr.data):
        return csr, np.zeros_like(e)
    scaled = csr.copy()
    scaled.data = data
    return scaled, e


def proven_lower_bound(csr: Any, plan: FactorPlan, *, what: str = "the matrix") -> float:
    """A proven lower bound ``> 0`` on ``lambda_min`` of a symmetric ``csr``, or raise.

    A floating-point Cholesky factorization that completes proves nothing by
    itself (rounding carries it through singular matrices). The proof:

    1. ``H = S M S`` with ``S = diag(2**e)`` bringing the diagonal into [1/2, 2)
       (:func:`binary_scaling`: exact), congruent to ``M``;
    2. ``A = fl(H - delta I)``: its diagonal ``a_ii >= h_ii / 2`` (``delta <= 1/4``),
       so ``h_ii - a_ii`` is computed exactly (Sterbenz) and ``H = A + E``, ``E``
       diagonal with ``E >= e_min I`` (``e_min`` the least of them, rounded down);
    3. CHOLMOD factorizes ``A`` (all of ``A`` in floating point, exactly);
       completed, :func:`cholesky_shift_lower_bound` gives
       ``lambda_min(A) > -eta``, ``eta = gamma_{c+1} ||L||_1 ||L||_inf``
       (Demmel; Higham Thm 10.5), so ``lambda_min(H) > e_min - eta``;
    4. ``lambda_min(M) >= lambda_min(H) min_i 2**(-2 e_i)`` when that is positive.

    First, where it is at most :data:`TRACE_MARGIN`, at the shift of
    :func:`_trace_bound`, whose rounding bound needs no factor (most matrices
    stop there). Otherwise ``delta`` is the larger of :data:`FIRST_MARGIN` and
    ``4 gamma_{c+1} c``
    (``c`` the factor's widest column: an estimate of ``eta``), a power of two;
    when ``eta`` turns out larger, once more at ``2 eta`` (at most
    :data:`LAST_MARGIN`). ``csr`` must be exactly symmetric (only its lower
    triangle is read) and ``plan`` its
    :func:`~spdgraph._kernels.sparse_cholesky.plan_factor`.

    Raises
    ------
    NumericalError
        A shifted factorization met a non-positive pivot (``lambda_min(H)`` is
        below ``delta + eta``: not positive definite, or too close to singular to
        prove), or its rounding bound is beyond :data:`LAST_MARGIN`.
    """
    import scipy.sparse

    scaled, e = binary_scaling(csr)
    identity = scipy.sparse.eye_array(csr.shape[0], format="csr")
    bound = _trace_bound(scaled, identity, plan, what)
    if bound is not None:
        return _unscaled(bound, e)
    terms = max(plan.widest, 1) + 1
    estimate = 4.0 * terms * _U / (1.0 - terms * _U) * terms
    margin = max(FIRST_MARGIN, 2.0 ** np.ceil(np.log2(estimate)))
    eta = np.inf
    while margin <= LAST_MARGIN:
        shifted = scipy.sparse.csr_array(scaled - margin * identity)
        applied = scaled.diagonal() - shifted.diagonal()  # exact: Sterbenz
        least = float(np.nextafter(applied.min() * (1.0 - 2 * _U), -np.inf))
        try:
            factor = SparseFactor(shifted, plan, what=what)
        except NumericalError as exc:
            raise NumericalError(
                f"{what} is not proven positive definite: the sparse Cholesky factorization "
                f"of its rescaled form (diagonal in [1/2, 2)) minus {margin:.3g} I met a "
                f"non-positive pivot, so its smallest eigenvalue is below about {margin:.2g} "
                f"of its diagonal (a scaled condition number above about {1 / margin:.1g}): "
                "not positive definite, or too close to singular to prove."
            ) from exc
        bound = cholesky_shift_lower_bound(factor, least)
        if bound > 0:
            return _unscaled(bound, e)
        eta = least - bound
        margin = max(2.0 * margin, float(2.0 ** np.ceil(np.log2(2.0 * eta))))
    raise NumericalError(
        f"{what} is not proven positive definite: the rounding bound of its sparse "
        f"Cholesky factorization ({eta:.3g} of its rescaled diagonal) is beyond the largest "
        f"margin tried ({LAST_MARGIN:g})."
    )


def _unscaled(bound: float, e: np.ndarray) -> float:
    """``lambda_min(M) >= lambda_min(S M S) min_i 2**(-2 e_i)``, rounded down."""
    scale = float(np.ldexp(1.0, -2 * int(e.max())))
    return max(0.0, float(np.nextafter(bound * scale, -np.inf)))


#: The largest shift the trace bound is tried at (:func:`_trace_bound`).
TRACE_MARGIN = 2.0**-10


def trace_margin(diagonal: np.ndarray) -> tuple[float, float | None]:
    """``(eta, margin)``: the rounding bound of a factorization of a matrix with this
    (positive) diagonal, known before factorizing
    (:func:`~spdgraph._kernels.condition.trace_rounding_bound`), and the shift ``2 eta``
    rounded up to a power of two (None beyond :data:`TRACE_MARGIN`)."""
    from spdgraph._kernels.condition import trace_rounding_bound  # numba: lazy

    eta = float(trace_rounding_bound(float(np.sum(diagonal)), diagonal.shape[0]))
    margin = float(2.0 ** np.ceil(np.log2(2.0 * eta))) if eta > 0 else 0.0
    return eta, (margin if 0 < margin <= TRACE_MARGIN else None)


def _trace_bound(scaled: Any, identity: Any, plan: FactorPlan, what: str) -> float | None:
    """The proof of :func:`proven_lower_bound` without reading the factor, or None.

    ``||dA||_2 <= gamma_{c+1} || |L| |L|^T ||_2 <= gamma_{p+1} ||L||_F^2`` and
    ``||L||_F^2 = tr(A + dA) <= tr(A) / (1 - gamma_{p+1})``: a rounding bound
    ``eta`` known before factorizing (``c <= p``). At the shift ``2 eta`` (a power
    of two, at most :data:`TRACE_MARGIN`: about ``2 p**2 u`` for a diagonal near 1,
    2.2e-4 at p = 10**6) a factorization that completes proves
    ``lambda_min >= 2 eta - eta`` without converting CHOLMOD's factor (a third of
    a factorization's time); one that fails only sends the proof to the smaller
    shifts, whose bound reads the factor.
    """
    import scipy.sparse

    diagonal = scaled.diagonal()
    if not np.all(diagonal > 0):
        return None
    eta, margin = trace_margin(diagonal)
    if margin is None:
        return None
    shifted = scipy.sparse.csr_array(scaled - margin * identity)
    applied = diagonal - shifted.diagonal()  # exact: Sterbenz
    least = float(np.nextafter(applied.min() * (1.0 - 2 * _U), -np.inf))
    try:
        SparseFactor(shifted, plan, what=what)
    except NumericalError:
        return None
    bound = float(np.nextafter(least - eta, -np.inf))
    return bound if bound > 0 else None


def dense_lower_bound(m: np.ndarray, factor: np.ndarray | None = None) -> float:
    """A proven lower bound of ``lambda_min`` of a dense symmetric ``m``, or 0 (not proven).

    The dense path's proof, with the bounds of the sparse one (Demmel; Higham
    Thm 10.5): first from ``factor``, the completed Cholesky factor of ``m``
    already computed by the checks (lower triangle read; pass ``U.T`` for a
    factor stored as ``U = L^T``): :func:`~spdgraph._kernels.certify.factor_lower_bound`,
    ``p^2`` work. When that proves nothing (its majorant of the inverse is loose
    on dense graphs), one more factorization, of ``fl(H - delta I)`` with ``H``
    the exact power-of-two rescaling of ``m`` (diagonal in [1/2, 2)) and
    ``delta`` the power of two at least twice the rounding bound known before
    factorizing (:func:`trace_margin`, about ``2 p**2 u``: 2.2e-12 at
    ``p = 100``, 2.2e-10 at ``p = 1000``): completed, it proves
    ``lambda_min(H) >= delta - eta > 0``. ``m`` must be exactly symmetric with
    a positive finite diagonal.

    >>> m = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> 0.999 < dense_lower_bound(m, np.linalg.cholesky(m)) <= 1.0
    True
    >>> dense_lower_bound(np.array([[1.0, 1.0], [1.0, 1.0]]))  # singular
    0.0
    """
    p = m.shape[0]
    if p == 0:
        return np.inf
    if factor is not None:
        from spdgraph._kernels.certify import factor_lower_bound  # numba: lazy

        bound = float(factor_lower_bound(m, factor, np.empty((3, p))))
        if bound > 0:
            return bound
    return _shifted_dense_bound(m)


def _shifted_dense_bound(m: np.ndarray) -> float:
    """:func:`dense_lower_bound` by the shifted factorization of the rescaled ``m``, or 0
    (:func:`~spdgraph._kernels.condition.shifted_into`: the fast path's proof, with
    LAPACK's factorization, or the blocked one from ``p = 2048`` on)."""
    from spdgraph._kernels.condition import shifted_bound, shifted_into  # numba: lazy

    shifted = np.empty_like(m)
    least, eta, unscale = shifted_into(m, shifted)
    if not least > 0:
        return 0.0
    if m.shape[0] >= 2048:  # one copy more: the blocked factorization
        import numba

        from spdgraph._kernels.cholesky import cholesky_upper

        if cholesky_upper(shifted, int(numba.get_num_threads())) is None:
            return 0.0
    else:
        try:
            np.linalg.cholesky(shifted)
        except np.linalg.LinAlgError:
            return 0.0
    return float(shifted_bound(least, eta, unscale))


def first_unproven(
    stack: np.ndarray, factors: np.ndarray, lower_bounds: np.ndarray | None = None
) -> int | None:
    """The first matrix of a stack whose completed factor (``factors[k]``, lower) and
    :func:`dense_lower_bound` prove nothing, or None; each proven bound in
    ``lower_bounds[k]`` when given."""
    for k in range(stack.shape[0]):
        bound = dense_lower_bound(stack[k], factors[k])
        if not bound > 0:
            return k
        if lower_bounds is not None:
            lower_bounds[k] = bound
    return None


def proven_lower_bounds(m: np.ndarray) -> np.ndarray:
    """A proven lower bound of each matrix's smallest eigenvalue, ``(n,)`` (0: nothing proven).

    For exactly symmetric matrices with a positive diagonal (one ``(p, p)`` or a
    stack): a Cholesky factorization with its rounding accounted
    (:func:`dense_lower_bound`), what ``da.spd.check()`` records as
    ``attrs["certificate_lambda_min_lower_bound"]``.

    >>> bound = float(proven_lower_bounds(np.array([[2.0, 1.0], [1.0, 2.0]]))[0])
    >>> 0.999 < bound <= 1.0
    True
    """
    values = np.asarray(m, dtype=np.float64)
    stack = values if values.ndim == 3 else values[None]
    out = np.zeros(stack.shape[0])
    for k in range(stack.shape[0]):
        try:
            factor = np.linalg.cholesky(stack[k])
        except np.linalg.LinAlgError:
            continue
        out[k] = dense_lower_bound(stack[k], factor)
    return out
