"""A randomized proof that a sparse symmetric matrix is positive definite.

The last resort of :func:`spdgraph.sampling.prove_positive_definite`, for a
matrix that is not diagonally dominant (in any weighting) and whose Cholesky
factor would not fit (or when cvxopt, the ``large`` extra, is missing): huge's
precision on an Erdős–Rényi graph of a million nodes is the case in point.

The argument
------------
Let ``B = sigma I - M`` for a number ``sigma`` chosen from estimates of
``M``'s extreme eigenvalues, and ``rho = rho(B)`` its spectral radius, attained
by an eigenvector ``q``. For a start ``x0`` with independent N(0, 1) entries,
``a = q^T x0`` is N(0, 1), so ``P(|a| < t) <= t sqrt(2 / pi)``. Outside that
event, ``||B^k x0|| >= rho^k |a| >= rho^k t`` for every ``k``.

The power method computes ``w_{i+1} = B w_i + F_i`` in floating point, each
iterate scaled by a power of two (exact). The rounding ``F_i`` of one product is
at most ``g ||w_i||`` with ``g = gamma_{k+2} (|sigma| + || |M| ||_inf)``
(``k`` the largest row count; Higham's ``gamma``), and unrolling gives
``B^k x0 = w_k - sum_i B^(k-1-i) F_i``. Hence, outside the event,

    t <= ||w_k|| / rho^k + g sum_{i<k} ||w_i|| / rho^(i+1),

whose right side decreases in ``rho``. If it is below ``t`` at ``rho = R``,
then ``rho(B) < R``: every eigenvalue of ``M`` lies in
``(sigma - R, sigma + R)``, and ``sigma - R > 0`` proves ``M`` positive
definite. The test holds at every step for the same event, so the iteration
stops at the first step that passes.

The rounding term grows with ``||x0||`` (about ``sqrt(p)``): at p = 10**6 it
is near 1e-11, so one start cannot reach a chance of error of 1e-12. The
certificate runs :data:`STARTS` independent starts together (three products
with the matrix per step), each with ``t sqrt(2 / pi) =
1e-4``, and passes only when every start passes: a matrix that is not
positive definite passes only when all of them fail, with chance at most
``1e-4 ** 3 = 1e-12`` (:data:`FAILURE_PROBABILITY`), over the draw of the
starts. They are drawn from a seed that is a digest of the matrix (the same
verdict every run, and starts independent of how the matrix was made). Norms
are rounded up, and the test asks for ``t / 2``.

This is a Monte Carlo proof, not a deterministic one: the result records it
(``attrs["certificate"]`` and ``attrs["certificate_failure_probability"]``),
and ``sample(..., sparse=True, certificate="deterministic")`` refuses it.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from spdgraph._kernels.numerics import MAX_SCALED_CONDITION
from spdgraph.errors import UncertifiedMatrixError

__all__ = [
    "FAILURE_PROBABILITY",
    "LOWER_BOUND_KEY",
    "MAX_STEPS",
    "randomized_certificate",
    "symmetric_finite",
]

#: The key of a certificate's proven lower bound on the smallest eigenvalue: the
#: sparse result's attrs hold it as ``certificate_lambda_min_lower_bound`` (a
#: ``note_`` key of a certificate is recorded under its name without the prefix).
LOWER_BOUND_KEY = "note_certificate_lambda_min_lower_bound"

#: Independent starts run together; the proof needs every one of them to pass.
STARTS = 3
#: The chance that one start passes a matrix which is not positive definite.
START_FAILURE_PROBABILITY = 1e-4
#: The chance that a matrix which is not positive definite passes the test.
FAILURE_PROBABILITY = 1e-12  # START_FAILURE_PROBABILITY**STARTS
#: ``t``: ``P(|N(0, 1)| < t) <= t sqrt(2 / pi) = START_FAILURE_PROBABILITY``.
_THRESHOLD = START_FAILURE_PROBABILITY * math.sqrt(math.pi / 2.0)
#: The most products with the matrix one certificate computes (then it refuses).
MAX_STEPS = 5000
_U = 2.0**-53
_LN2 = math.log(2.0)


def _gamma(n: int) -> float:
    return n * _U / (1.0 - n * _U)


#: Index entries converted to int64 at a time for the start digest (bounded memory).
_DIGEST_BLOCK = 2**20


def _start(csr: Any) -> np.ndarray:
    """``x0``: ``(STARTS, p)`` N(0, 1) entries from a seed that digests the matrix."""
    digest = hashlib.blake2b(digest_size=16)
    for array in (csr.indptr, csr.indices):  # as int64, whatever the index type
        for start in range(0, array.size, _DIGEST_BLOCK):  # no full-size int64 copy
            digest.update(array[start : start + _DIGEST_BLOCK].astype(np.int64).tobytes())
    digest.update(np.ascontiguousarray(csr.data).tobytes())
    seed = int.from_bytes(digest.digest(), "little")
    return np.random.default_rng(seed).standard_normal((STARTS, csr.shape[0]))


#: Lanczos steps of the eigenvalue estimates that choose ``sigma``.
LANCZOS_STEPS = 40


def _estimates(csr: Any, upper: float) -> tuple[float, float]:
    """Rough ``(lambda_min, lambda_max)``: the extreme Ritz values of a short Lanczos run.

    Only ``sigma`` depends on them, never the verdict: any ``sigma`` above
    ``lambda_max / 2`` lets the proof pass for a positive definite matrix,
    closer to ``(lambda_min + lambda_max) / 2`` in fewer steps. In exact
    arithmetic every Ritz value lies in ``[lambda_min, lambda_max]``, so a
    smallest one at or below 0 says the matrix is not positive definite.
    """
    import scipy.linalg

    p = csr.shape[0]
    steps = min(LANCZOS_STEPS, p)
    vector = np.random.default_rng(1).standard_normal(p)
    vector /= np.linalg.norm(vector)
    previous = np.zeros(p)
    alphas, betas = [], []
    beta = 0.0
    for _ in range(steps):
        w = csr @ vector - beta * previous
        alpha = float(vector @ w)
        w -= alpha * vector
        alphas.append(alpha)
        beta = float(np.linalg.norm(w))
        if not beta > 1e-12 * max(abs(alpha), 1e-300) or len(alphas) == steps:
            break
        betas.append(beta)
        previous, vector = vector, w / beta
    ritz = scipy.linalg.eigvalsh_tridiagonal(np.asarray(alphas), np.asarray(betas))
    return float(ritz[0]), min(upper, float(ritz[-1]) * (1.0 + 1e-2) + 1e-300)


def _log_bound(lognorms: np.ndarray, log_g: float, log_r: float) -> float:
    """``log(||w_k|| / R^k + g sum_{i<k} ||w_i|| / R^(i+1))`` from the logged norms."""
    k = lognorms.size - 1
    head = lognorms[k] - k * log_r
    if k == 0:
        return float(head)
    tail = log_g + lognorms[:k] - (np.arange(k) + 1.0) * log_r
    return float(np.logaddexp(head, np.logaddexp.reduce(tail)))


def randomized_certificate(csr: Any, *, what: str) -> dict[str, Any]:
    """Prove ``csr`` positive definite by the randomized power bound, or raise.

    Returns the certificate's attrs: ``certificate`` (its name),
    ``certificate_failure_probability``, ``condition_bound`` (the 2-norm
    condition number bound the proof gives, at most 1e12) and
    ``certificate_steps`` (the products with the matrix) and
    :data:`LOWER_BOUND_KEY`: ``sigma - R``, a lower bound on the smallest
    eigenvalue that holds except with probability ``certificate_failure_probability``.

    Raises
    ------
    UncertifiedMatrixError
        The matrix is not positive definite (an estimate of its smallest
        eigenvalue is a Rayleigh quotient at or below 0), or the bound did not
        pass within :data:`MAX_STEPS` products (its smallest eigenvalue too
        close to 0 against its spread).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> path = sp.diags_array([np.ones(99), np.ones(99)], offsets=[-1, 1])
    >>> m = sp.csr_array(path * 0.45 + sp.eye_array(100))  # eigenvalues in (0.1, 1.9)
    >>> out = randomized_certificate(m, what="the example")
    >>> float(out["certificate_failure_probability"]), out["condition_bound"] >= 18
    (1e-12, True)
    """
    if csr.shape[0] == 0:
        raise UncertifiedMatrixError(f"{what} is empty: there is nothing to certify.")
    csr = symmetric_finite(csr, what)
    upper, norm_abs, widest = _row_bounds(csr, what)
    lowest, highest = _estimates(csr, upper)
    if not lowest > 0:
        raise UncertifiedMatrixError(
            f"{what} is not positive definite (or too close to it to prove): a Lanczos "
            f"estimate of its smallest eigenvalue is {lowest:.6g}."
        )
    sigma = 0.5 * (0.9 * lowest + highest)
    target = sigma - upper / MAX_SCALED_CONDITION  # lambda_min above it: condition <= 1e12
    log_g = math.log(_gamma(widest + 2) * (abs(sigma) + norm_abs) + 1e-300)
    history, passed = _power_iteration(csr, sigma, math.log(target), log_g, what)
    steps = history.shape[0] - 1
    if not passed:
        raise UncertifiedMatrixError(
            f"{what} is not proven positive definite: the randomized bound did not pass "
            f"within {steps} products with the matrix (its smallest eigenvalue, about "
            f"{lowest:.3g}, is too close to 0 against its largest, about {highest:.3g})."
        )
    radius_bound = _radius_bound(history, log_g, math.log(target))
    smallest = (sigma - radius_bound) * (1.0 - 4 * _U)
    largest_bound = min(upper, (sigma + radius_bound) * (1.0 + 4 * _U))
    name = f"randomized power iteration (failure probability {FAILURE_PROBABILITY:.0e})"
    return {
        "certificate": name,
        "certificate_failure_probability": FAILURE_PROBABILITY,
        "condition_bound": largest_bound / smallest * (1.0 + 8 * _U),
        "certificate_steps": steps,
        LOWER_BOUND_KEY: float(np.nextafter(smallest, -np.inf)),
    }


def _row_bounds(csr: Any, what: str) -> tuple[float, float, int]:
    """``(Gershgorin's upper end, || |M| ||_inf, the most entries in a row)``, rounded up."""
    from spdgraph._kernels.sparse import row_abs_sums

    indptr = csr.indptr
    diagonal = csr.diagonal()
    radius = row_abs_sums(indptr, csr.indices, csr.data)  # left to right
    widest = int(np.diff(indptr).max())
    sums = 1.0 + _gamma(widest + 2)  # a sum of non-negative terms, rounded
    upper = float(np.max(diagonal + radius * sums)) * (1.0 + 4 * _U)
    norm_abs = float(np.max(np.abs(diagonal) + radius * sums)) * (1.0 + 4 * _U)
    if not (math.isfinite(upper) and math.isfinite(norm_abs)):
        raise UncertifiedMatrixError(f"{what} has non-finite row sums: it cannot be certified.")
    return upper, norm_abs, widest


def _power_iteration(
    csr: Any, sigma: float, log_target: float, log_g: float, what: str
) -> tuple[np.ndarray, bool]:
    """Each start's ``log ||w_i||`` per step (rounded up), and whether every start passed.

    Stops when every start has passed the test at ``R = exp(log_target)``, when
    the iterates grow as fast as ``R`` (an eigenvalue at or near 0: refused),
    or when the steps still needed would pass :data:`MAX_STEPS`.
    """
    from spdgraph._kernels.power_certificate import scale_and_norm, shifted_product

    indptr = csr.indptr
    indices = csr.indices
    data = np.ascontiguousarray(csr.data, dtype=np.float64)
    log_threshold = math.log(_THRESHOLD / 2.0)
    norm_slack = math.log1p(_gamma(csr.shape[0] + 2))
    x = _start(csr)
    y = np.empty_like(x)
    lognorms = [np.log(np.sqrt(np.sum(x * x, axis=1))) + norm_slack]
    exponent_total = np.zeros(STARTS, dtype=np.int64)
    tail = np.full(STARTS, -math.inf)  # logsumexp of the rounding terms so far
    passed = np.zeros(STARTS, dtype=bool)
    steps = 0
    while steps < MAX_STEPS and not passed.all():
        largest = shifted_product(indptr, indices, data, sigma, x, y)
        steps += 1
        if not np.all(np.isfinite(largest)):
            raise UncertifiedMatrixError(f"{what}: the power iteration overflowed.")
        tail = np.logaddexp(tail, log_g + lognorms[-1] - steps * log_target)
        exponents = np.array([math.frexp(v)[1] for v in largest], dtype=np.int64)
        norms = scale_and_norm(y, exponents, x)
        exponent_total += exponents
        with np.errstate(divide="ignore"):  # an exactly zero product: log 0 = -inf
            lognorms.append(np.log(norms) + norm_slack + exponent_total * _LN2)
        bound = np.logaddexp(lognorms[-1] - steps * log_target, tail)
        passed |= bound < log_threshold
        if steps >= 100 and steps % 25 == 0 and not passed.all():
            rate = float(np.max((lognorms[-1] - lognorms[-26]) / 25.0))  # log growth per step
            if rate >= log_target:
                raise UncertifiedMatrixError(
                    f"{what} is not proven positive definite: its power iteration grows by "
                    f"{math.exp(rate):.6g} per step, at least the {math.exp(log_target):.6g} "
                    "a proof needs (an eigenvalue at or near 0)."
                )
            needed = float(np.max(bound - log_threshold)) / (log_target - rate)
            if steps + needed > MAX_STEPS:
                break
    return np.asarray(lognorms), bool(passed.all())


def _radius_bound(history: np.ndarray, log_g: float, log_target: float) -> float:
    """The least ``R`` at which every start's test passes: ``rho(B) < R`` unless all failed."""
    log_threshold = math.log(_THRESHOLD / 2.0)
    radius_bound = 0.0
    for c in range(STARTS):
        low, high = log_target - 20.0, log_target  # the bound passes at ``high``
        for _ in range(80):
            middle = 0.5 * (low + high)
            if _log_bound(history[:, c], log_g, middle) < log_threshold:
                high = middle
            else:
                low = middle
        radius_bound = max(radius_bound, math.exp(high) * (1.0 + 1e-12))
    return radius_bound


def symmetric_finite(csr: Any, what: str) -> Any:
    """``csr`` canonical, after checking it finite and exactly symmetric (else refused)."""
    import scipy.sparse

    from spdgraph._kernels.sparse import first_structure_violation  # numba: lazy

    csr = scipy.sparse.csr_array(csr)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    indptr, indices = csr.indptr, csr.indices
    code, i, j = first_structure_violation(indptr, indices, csr.data, indptr, indices)
    if code == 1:
        raise UncertifiedMatrixError(f"{what} holds a non-finite value at [{i}, {j}].")
    if code:
        raise UncertifiedMatrixError(
            f"{what} is not exactly symmetric ([{i}, {j}] is {csr[i, j]!r}, [{j}, {i}] is "
            f"{csr[j, i]!r}): only a symmetric matrix is positive definite."
        )
    return csr
