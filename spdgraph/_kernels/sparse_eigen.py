"""The smallest eigenvalue of a sparse symmetric matrix with a zero diagonal (huge's ``v A``).

Arrays in, a number out: :func:`smallest_adjacency_eigenvalue` gives
``lambda_min(v A)`` for the sparse path of ``huge``
(:mod:`spdgraph.plugins._builtin.gen_huge`), how it was computed and, where a
factorization proved one, a lower bound. Below :data:`DENSE_EIGENVALUE_NODES`
nodes the dense ``eigvalsh`` (the dense path's own bits); above, shift-invert
Lanczos on CHOLMOD factors of ``v A - s I`` to :data:`EIGENVALUE_TOLERANCE`
relative (the Ritz value's error estimate; measured against exact values:
within 7.1e-14 relative on BDgraph-style hubs, 5e-16 on huge-style hubs,
lattices, cycles and paths), the last factorization proving a lower bound
(:func:`cholesky_shift_lower_bound`); LOBPCG alone where the factor would not
fit or cvxopt is missing (an upper bound, said so). See
``docs/large_graphs.md`` ("huge's smallest eigenvalue").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph._kernels.blas import one_blas_thread
from spdgraph._kernels.cholesky_proof import cholesky_shift_lower_bound

#: Below this many nodes the sparse path takes the smallest eigenvalue from the dense
#: eigensolver (the dense path's own bits); from it on, from shift-invert Lanczos.
DENSE_EIGENVALUE_NODES = 500
#: LOBPCG's iterations for the first estimate of ``lambda_min`` (and for the fallback).
EIGENVALUE_ITERATIONS = 100
#: The accuracy shift-invert Lanczos asks of ``lambda_min``, relative to ``|lambda_min|``
#: (of the Ritz value's error estimate: measured errors reach 7.1e-14 on some hubs).
EIGENVALUE_TOLERANCE = 1e-14
#: Shifted factorizations tried at most (successes and failures together).
MAX_SHIFTS = 24
#: Lanczos steps per run (the basis held: this many vectors of ``p`` floats) and in all.
LANCZOS_STEPS = 30
MAX_LANCZOS_STEPS = 3000
#: The proving factorization's shift below the value found, relative to ``|lambda_min|``.
BOUND_MARGIN = 1e-10


@dataclass(frozen=True)
class SmallestEigenvalue:
    """``lambda_min`` of ``v A``, how it was computed and what is proven about it.

    ``lower_bound`` is a proven lower bound (from a completed Cholesky
    factorization of ``v A - s I``, rounding accounted), or None when no solver
    proved one (LOBPCG's value is only an upper bound, and the dense solver's is
    within its backward error, ``p eps ||v A||``, of the true value).
    """

    value: float
    method: str
    lower_bound: float | None = None

    def notes(self) -> dict[str, Any]:
        """The notes recorded in the result's attrs."""
        notes: dict[str, Any] = {"lambda_min": self.value, "lambda_min_method": self.method}
        if self.lower_bound is not None:
            notes["lambda_min_lower_bound"] = self.lower_bound
        return notes


def smallest_adjacency_eigenvalue(
    weighted: Any, *, budget_bytes: int | None = None
) -> SmallestEigenvalue:
    """``lambda_min`` of a sparse symmetric matrix with a zero diagonal (``v A``), and how.

    - Below :data:`DENSE_EIGENVALUE_NODES` nodes: the dense ``eigvalsh`` (the
      dense path's value, bit for bit).
    - Otherwise shift-invert Lanczos (:func:`shift_invert_smallest`): a first
      estimate ``theta`` from LOBPCG, then shifts ``s`` below it, each ``v A - s I``
      factorized by CHOLMOD (the factorization fails when ``s`` is above
      ``lambda_min``: the shift is lowered) and the largest eigenvalue ``mu`` of
      ``(v A - s I)^-1`` found by Lanczos, ``lambda_min = s + 1 / mu``; the shift
      moves up towards ``lambda_min`` until the value is within
      :data:`EIGENVALUE_TOLERANCE` relative (the error estimate's target: the
      value measured within 7.1e-14 relative of the exact one on
      ``hub(1800, 9, mode="bdgraph")``, 5e-16 on lattices, cycles and huge's
      hubs; ``docs/large_graphs.md``). The last completed factorization
      proves ``lambda_min > s - eta`` (``eta`` its rounding bound): returned as
      ``lower_bound``.
    - Where cvxopt is not installed (the ``large`` extra), or the factor of
      ``v A - s I`` would not fit in ``budget_bytes`` or cost more than
      :func:`~spdgraph._kernels.sparse_cholesky.plan_factor` allows (an
      Erdős–Rényi graph of mean degree 5 from about 30,000 nodes), LOBPCG alone,
      from a fixed start, for at most :data:`EIGENVALUE_ITERATIONS` iterations: a
      Ritz value, above ``lambda_min`` by about 1e-4 relative where the bottom of
      the spectrum is clustered (a band, a lattice), said so in ``method``.

    Positive definiteness of huge's matrix is proven afterwards by the core,
    never taken from this value.

    Examples
    --------
    >>> import scipy.sparse
    >>> cycle = scipy.sparse.csr_array(scipy.sparse.eye(600, k=1) + scipy.sparse.eye(600, k=599))
    >>> found = smallest_adjacency_eigenvalue(0.3 * (cycle + cycle.T))
    >>> abs(found.value + 0.6) < 1e-14  # lambda_min(A) = -2 on an even cycle
    True
    >>> found.lower_bound < -0.6 < found.lower_bound + 1e-6
    True
    """
    import scipy.sparse.linalg

    from spdgraph.errors import MissingDependencyError, TooLargeError

    p = weighted.shape[0]
    if weighted.nnz == 0 or p == 0:
        return SmallestEigenvalue(0.0, "exact (no edge)", 0.0)
    with one_blas_thread():
        if p < DENSE_EIGENVALUE_NODES:
            value = float(np.linalg.eigvalsh(weighted.toarray())[0])
            return SmallestEigenvalue(value, "dense eigvalsh")
        theta, vector = _lobpcg_smallest(weighted, scipy.sparse.linalg)
        lobpcg = f"LOBPCG, at most {EIGENVALUE_ITERATIONS} iterations (an upper bound)"
        try:
            return shift_invert_smallest(weighted, theta, vector, budget_bytes=budget_bytes)
        except MissingDependencyError:
            return SmallestEigenvalue(
                theta, f'{lobpcg}; shift-invert needs cvxopt: pip install "spdgraph[large]"'
            )
        except TooLargeError:
            return SmallestEigenvalue(
                theta, f"{lobpcg}; the factor of v A - s I for shift-invert would be too large"
            )


def _lobpcg_smallest(weighted: Any, linalg: Any) -> tuple[float, np.ndarray]:
    import warnings

    start = np.random.default_rng(0).standard_normal((weighted.shape[0], 1))
    with warnings.catch_warnings():  # not converged: an upper bound all the same
        warnings.simplefilter("ignore")
        values, vectors = linalg.lobpcg(
            weighted, start, largest=False, tol=1e-10, maxiter=EIGENVALUE_ITERATIONS
        )
    return float(values[0]), np.asarray(vectors[:, 0])


def shift_invert_smallest(
    weighted: Any,
    estimate: float,
    start: np.ndarray | None = None,
    *,
    budget_bytes: int | None = None,
) -> SmallestEigenvalue:
    """``lambda_min(weighted)`` by shift-invert Lanczos from an upper ``estimate``, proven below.

    Keeps a bracket ``lo < lambda_min <= hi``: ``lo`` the highest shift whose
    Cholesky factorization of ``weighted - lo I`` completed, ``hi`` the least
    upper estimate (``estimate``, then Ritz values). On each completed
    factorization, :data:`LANCZOS_STEPS` steps of Lanczos on
    ``(weighted - s I)^-1`` (restarted from the top Ritz vector) give its largest
    Ritz value ``theta <= mu_max``, so ``s + 1 / theta >= lambda_min``, and its
    residual ``r`` (an eigenvalue of ``(weighted - s I)^-1`` lies within ``r``, so
    one of ``weighted`` within ``e = 1 / theta - 1 / (theta + r)`` of the value).
    While ``e`` is a small share of the bracket the shift moves up to four times
    it below ``hi`` (the factorization failing there: halfway to ``lo``), which
    makes ``(weighted - s I)^-1``'s top eigenvalue stand out, so few steps suffice
    even on a clustered spectrum (a band or lattice, gaps of order ``1 / p**2``).
    Once ``e`` is below :data:`EIGENVALUE_TOLERANCE` ``|lambda_min|``, a
    factorization at :data:`BOUND_MARGIN` ``|lambda_min|`` below the value checks
    it: completed, it proves ``lambda_min`` that close (its rounding bounded by
    :func:`cholesky_shift_lower_bound`: the returned ``lower_bound``); failed (the
    Ritz value was near another eigenvalue, above ``lambda_min``), the search goes
    on below it.

    Raises
    ------
    MissingDependencyError
        cvxopt (the ``large`` extra) is not installed.
    TooLargeError
        The factor of ``weighted - s I`` would not fit in ``budget_bytes``.
    """
    import scipy.sparse

    from spdgraph._kernels.sparse_cholesky import SparseFactor, plan_factor
    from spdgraph.errors import NumericalError

    p = weighted.shape[0]
    identity = scipy.sparse.eye_array(p, format="csr")
    scale = abs(estimate)  # > 0: lambda_min(v A) <= -|v| on a graph with an edge
    target = EIGENVALUE_TOLERANCE * scale
    hi, lo = float(estimate), -np.inf
    shift = hi - 1e-3 * scale
    vector = np.random.default_rng(0).standard_normal(p) if start is None else start
    plan = factor = None
    shifts = failures = steps = 0
    converged = False
    checking = False  # the shift is the check just below a converged value
    while shifts < MAX_SHIFTS and steps < MAX_LANCZOS_STEPS:
        if factor is None or shift != lo:
            shifted = scipy.sparse.csr_array(weighted - shift * identity)
            if plan is None:  # the pattern is the same for every shift
                plan = plan_factor(shifted, budget_bytes=budget_bytes, what="v A - s I")
            shifts += 1
            factor = None  # one factor held at a time: the memory of the largest graphs
            try:
                factor = SparseFactor(shifted, plan, what="v A - s I")
            except NumericalError:  # lambda_min <= shift, up to rounding
                failures += 1
                hi, checking = min(hi, shift), False
                shift = hi - 8.0 * (hi - shift + 1e-3 * scale) if lo == -np.inf else (lo + hi) / 2
                continue
            lo = shift
            if checking:  # proven within BOUND_MARGIN below the value
                converged = True
                break
        theta, error, vector, taken = _lanczos_largest(factor.solve, vector, LANCZOS_STEPS)
        steps += taken
        hi = min(hi, lo + 1.0 / theta)
        spread = error / (theta * (theta + error))  # 1 / theta - 1 / (theta + error)
        if spread <= target:
            checking, shift = True, hi - BOUND_MARGIN * scale
            if not shift > lo:  # the last factorization is that close already
                converged = True
                break
        elif 4.0 * spread <= 0.1 * (hi - lo):
            shift = hi - 4.0 * spread  # else: more steps on the same factorization
    if lo == -np.inf or plan is None:
        raise NumericalError(
            f"no shift below the estimate {estimate!r} of lambda_min gave a positive definite "
            f"v A - s I in {MAX_SHIFTS} factorizations (a bug: please report it)."
        )
    if factor is None:  # the last one failed: the highest that completed again, for its bound
        factor = SparseFactor(scipy.sparse.csr_array(weighted - lo * identity), plan)
    bound = cholesky_shift_lower_bound(factor, lo)
    method = (
        f"shift-invert Lanczos (CHOLMOD factorizations of v A - s I; {shifts} shifts, "
        f"{failures} not positive definite; {steps} solves), "
        + (f"to {EIGENVALUE_TOLERANCE:.0e} relative" if converged else "not converged")
    )
    return SmallestEigenvalue(float(hi), method, bound)


def _lanczos_largest(
    apply: Any, start: np.ndarray, steps: int
) -> tuple[float, float, np.ndarray, int]:
    """Lanczos with full reorthogonalization for the largest eigenvalue of a symmetric operator.

    Returns the largest Ritz value ``theta`` (at most the largest eigenvalue), its
    residual norm ``r`` (an eigenvalue lies within ``r`` of ``theta``; 0 when the
    Krylov space is invariant), its Ritz vector and the steps taken.
    """
    import scipy.linalg

    p = start.shape[0]
    steps = min(steps, p)
    basis = np.empty((steps, p))
    alpha = np.empty(steps)
    beta = np.empty(steps)
    q = start / np.linalg.norm(start)
    taken = 0
    for j in range(steps):
        basis[j] = q
        w = apply(q)
        alpha[j] = q @ w
        taken = j + 1
        for _ in range(2):  # twice is enough (Kahan-Parlett)
            w -= basis[: j + 1].T @ (basis[: j + 1] @ w)
        beta[j] = np.linalg.norm(w)
        if not beta[j] > 1e-300 or j + 1 == steps:
            break
        q = w / beta[j]
    values, vectors = scipy.linalg.eigh_tridiagonal(alpha[:taken], beta[: taken - 1])
    top = vectors[:, -1]
    residual = abs(beta[taken - 1] * top[-1]) if beta[taken - 1] > 1e-300 else 0.0
    return float(values[-1]), float(residual), basis[:taken].T @ top, taken
