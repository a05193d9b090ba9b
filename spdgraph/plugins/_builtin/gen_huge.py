"""Built-in generator plugin: R huge's rule (``method="huge"``), deterministic given the graph.

``huge.generator`` (R package huge) makes its precision matrix from the
adjacency A of its graph as ``Omega = v * A`` with the diagonal set to
``|lambda_min(v * A)| + 0.1 + u``; its covariance is the correlation matrix
of ``Omega^-1`` and the precision it returns is the inverse of that
correlation matrix. Given the graph nothing is random, so every matrix of a
stack is the same and ``seed``, ``entries`` and ``negative_share`` change
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph._kernels.blas import one_blas_thread
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.options import OptionSpec
from spdgraph.plugins.types import EntrySampler, GeneratorSpec, WarmupStep

#: huge.generator's defaults (its arguments ``v`` and ``u``) and its fixed margin.
DEFAULT_V = 0.3
DEFAULT_U = 0.1
MARGIN = 0.1


def _nonzero(value: float) -> str | None:
    return "v = 0 would put no weight on the edges; pass a non-zero number" if value == 0 else None


def huge_precision(
    adjacency: np.ndarray, v: float, u: float, unit_variance: bool, portable: bool = False
) -> np.ndarray:
    """huge.generator's precision matrix for the boolean adjacency.

    ``unit_variance=False``: ``Omega = v A + (|lambda_min(v A)| + 0.1 + u) I``
    (exact zeros, a constant diagonal). ``unit_variance=True``: huge's
    returned ``omega``, the inverse of ``cov2cor(Omega^-1)``, computed as
    ``D Omega D`` with ``D = diag(Omega^-1)^(1/2)`` (equal in exact
    arithmetic; this form keeps the zeros exact), whose inverse has unit
    diagonal. ``portable``: the eigenvalue, the Cholesky factor and the inverse's
    diagonal from :mod:`spdgraph._kernels.portable` (the same bits on every CPU).
    """
    p = adjacency.shape[0]
    omega = np.where(adjacency, float(v), 0.0)
    if portable:
        return _huge_portable(omega, u, unit_variance)
    with one_blas_thread():  # the same bits whatever the BLAS threads
        lmin = float(np.linalg.eigvalsh(omega)[0]) if p else 0.0
        np.fill_diagonal(omega, abs(lmin) + MARGIN + float(u))
        if unit_variance and p:
            factor = np.linalg.cholesky(omega)
            inverse_factor = np.linalg.solve(factor, np.eye(p))  # L^-1: Omega^-1 = L^-T L^-1
            d = np.sqrt(np.einsum("ij,ij->j", inverse_factor, inverse_factor))
            omega = omega * np.outer(d, d)  # d_i d_j == d_j d_i: exactly symmetric
    return omega


def _huge_portable(omega: np.ndarray, u: float, unit_variance: bool) -> np.ndarray:
    from spdgraph._kernels import portable  # imports numba: lazy

    lmin = portable.smallest_eigenvalue(omega)
    np.fill_diagonal(omega, abs(lmin) + MARGIN + float(u))
    if unit_variance and omega.shape[0]:
        d = portable.inverse_diagonal_sqrt(omega)
        assert d is not None  # diagonally shifted past |lambda_min|: positive definite
        omega = omega * (d[:, None] * d[None, :])
    return omega


def generate_huge(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler,
    v: float = DEFAULT_V,
    u: float = DEFAULT_U,
    unit_variance: bool = True,
    portable: bool = False,
) -> np.ndarray:
    """One matrix by huge.generator's rule (``rng`` and ``entries`` are not used).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> m = generate_huge(a, rng=None, entries=None, unit_variance=False)
    >>> np.round(m, 4).tolist()  # lambda_min(0.3 A) = -0.3 sqrt(2)
    [[0.6243, 0.3, 0.0], [0.3, 0.6243, 0.3], [0.0, 0.3, 0.6243]]
    >>> bool(np.allclose(np.diag(np.linalg.inv(generate_huge(a, rng=None, entries=None))), 1))
    True
    """
    return huge_precision(adjacency, v, u, unit_variance, portable)


def generate_huge_batch(
    adjacency: np.ndarray,
    *,
    rngs: list[np.random.Generator],
    entries: EntrySampler,
    **options: Any,
) -> np.ndarray:
    """A stack of ``len(rngs)`` copies of the one huge matrix (computed once)."""
    one = huge_precision(adjacency, **options)
    return np.repeat(one[np.newaxis], len(rngs), axis=0)


#: Below this many nodes the sparse path takes the smallest eigenvalue from the dense
#: eigensolver (the dense path's own bits); from it on, from shift-invert Lanczos.
DENSE_EIGENVALUE_NODES = 500
#: LOBPCG's iterations for the first estimate of ``lambda_min`` (and for the fallback).
EIGENVALUE_ITERATIONS = 100
#: The accuracy shift-invert Lanczos asks of ``lambda_min``, relative to ``|lambda_min|``.
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
      :data:`EIGENVALUE_TOLERANCE` relative. The last completed factorization
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
    from spdgraph._kernels.sparse_cholesky import require_cholmod

    _, cholmod, _ = require_cholmod()
    lower = cholmod.getfactor(factor._factor)  # P K P^T = L L^T, L in compressed columns
    colptr, rows, values = (np.asarray(part).ravel() for part in lower.CCS)
    magnitudes = np.abs(values)
    p = factor.p
    column_sums = np.add.reduceat(magnitudes, colptr[:-1]) if magnitudes.size else np.zeros(p)
    row_sums = np.bincount(rows, weights=magnitudes, minlength=p)
    terms = int(np.bincount(rows, minlength=p).max()) + 1
    u = float(np.finfo(np.float64).eps) / 2
    gamma = terms * u / (1.0 - terms * u)
    # the two sums (at most `terms` ... p entries each), the products: inflated
    count = max(terms, int(np.diff(colptr).max()))
    inflate = (1.0 + 2 * (count + 4) * u / (1.0 - 2 * (count + 4) * u)) ** 2
    eta = gamma * float(column_sums.max()) * float(row_sums.max()) * inflate
    return float(np.nextafter(shift - eta, -np.inf))


def generate_huge_sparse(
    adjacency: Any,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler,
    kind: str = "precision",
    v: float = DEFAULT_V,
    u: float = DEFAULT_U,
    unit_variance: bool = True,
    portable: bool = False,
) -> Any:
    """huge's ``Omega = v A + (|lambda_min(v A)| + 0.1 + u) I`` as a scipy.sparse CSR array.

    Only ``unit_variance=False``: the rescaling of ``unit_variance=True`` needs the
    diagonal of ``Omega^-1``, which a sparse construction does not have (refused).
    ``lambda_min`` from :func:`smallest_adjacency_eigenvalue`; returns the matrix and
    the notes the core records (``attrs["lambda_min"]``, how it was computed,
    ``attrs["lambda_min_method"]``, and its proven lower bound where there is one,
    ``attrs["lambda_min_lower_bound"]``).
    """
    import scipy.sparse

    from spdgraph.errors import InvalidOptionError

    if unit_variance:
        raise InvalidOptionError(
            "huge with sparse=True needs unit_variance=False: huge's unit_variance=True "
            "rescales by the diagonal of Omega^-1, a dense inverse. Pass "
            "unit_variance=False (with normalize=True, the default, the result still has "
            "a unit diagonal: Omega's diagonal is constant)."
        )
    if portable:
        raise InvalidOptionError(
            "huge with sparse=True takes its eigenvalue from LAPACK, CHOLMOD and Lanczos, "
            "whose bits depend on the CPU: pass portable=False."
        )
    p = adjacency.shape[0]
    omega = scipy.sparse.csr_array(adjacency, dtype=np.float64) * float(v)
    found = smallest_adjacency_eigenvalue(omega, budget_bytes=_factor_budget())
    shift = abs(found.value) + MARGIN + float(u)
    diagonal = scipy.sparse.dia_array((np.full(p, shift), 0), shape=(p, p))
    out = scipy.sparse.csr_array(omega + diagonal)
    out.sort_indices()
    return out, found.notes()


def _factor_budget() -> int | None:
    """Bytes for the shift-invert factor: half of what is available (None: no limit known)."""
    from spdgraph._machine import available_memory

    available = available_memory()
    return None if available is None else available // 2


#: The warmup steps' graph: a path on 4 nodes.
_PATH_4 = np.eye(4, k=1, dtype=bool) | np.eye(4, k=-1, dtype=bool)


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``huge``."""
    return [
        GeneratorSpec(
            name="huge",
            function=generate_huge,
            batch_function=generate_huge_batch,
            description=(
                "R huge.generator's precision (v A + (|lambda_min| + 0.1 + u) I): "
                "deterministic given the graph; use kind='precision'"
            ),
            options={
                "v": OptionSpec(
                    DEFAULT_V, float, check=_nonzero, doc="value on the edges (huge v)"
                ),
                "u": OptionSpec(DEFAULT_U, float, low=0.0, doc="added to the diagonal (huge u)"),
                "unit_variance": OptionSpec(
                    True,
                    bool,
                    doc="rescale so the inverse has unit diagonal (huge's returned omega)",
                ),
            },
            # the matrix, its Cholesky factor, the inverse factor and the product
            # (fitted to the measured peak: benchmarks/bench_memory_guard.py)
            work_per_call=4.5,
            portable=True,
            sparse_function=generate_huge_sparse,
            intended_kind="precision",
            seconds=lambda p, edges: 0.05 * (p / 1000.0) ** 3,
            warmup=(
                WarmupStep(
                    "huge", lambda sample: sample(_PATH_4, "huge", kind="precision", seed=1)
                ),
                WarmupStep(
                    "huge, portable kernels",
                    lambda sample: sample(
                        _PATH_4, "huge", kind="precision", seed=1, portable=True
                    ),
                    portable=True,
                ),
            ),
        )
    ]
