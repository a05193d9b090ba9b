"""Checks and proofs of a sparse matrix, on its stored entries (never densified).

:func:`check_structure` is the sparse counterpart of the dense output checks:
float64, finite, exactly symmetric (the stored entries against the transpose's),
exact zeros off the graph (no stored non-zero outside the adjacency and the
diagonal), positive normal diagonal. :func:`prove_positive_definite` proves
positive definiteness, never assumes it:

1. generalized diagonal dominance: for a positive weight vector ``w`` with
   ``m_ii w_i > sum_{j != i} |m_ij| w_j`` in every row (roundings accounted:
   :func:`spdgraph._kernels.sparse.dominance_margins`), the Gershgorin discs of
   ``W^-1 M W`` (similar to ``M``) lie right of zero, which proves ``M``
   positive definite and bounds its 2-norm condition number by
   ``max_i (m_ii + r_i) / min_i (m_ii - r_i)``, ``r_i`` the weighted radius. The
   weights tried: all ones (plain dominance, ``dd``'s rule), the ones given by
   the caller (the square roots of the diagonal before a unit-diagonal
   rescaling: the rescaled matrix is then dominant exactly when the original
   was), and the solution of the comparison system ``<M> w = 1`` by conjugate
   gradients (``M`` is an H-matrix exactly when that ``w`` is positive), tried
   only when ``1^T <M> 1 > 0`` (otherwise ``M`` is not an H-matrix);
2. otherwise a sparse Cholesky factorization with a proven margin
   (:func:`spdgraph._kernels.cholesky_proof.proven_lower_bound`): CHOLMOD
   factorizes ``S M S - delta I`` (``S`` powers of two bringing the diagonal into
   [1/2, 2), exact; the shift exact by Sterbenz) and the factor's rounding is
   bounded (``gamma_{c+1} ||L||_1 ||L||_inf``, Demmel; Higham Thm 10.5): a
   completed factorization alone proves nothing, the margin ``delta`` beyond the
   rounding bound does. Its fill is predicted first and refused when it would
   not fit;
3. otherwise (the factor would not fit, or cvxopt is missing), unless the caller
   asks for a deterministic proof: the randomized power bound of
   :mod:`spdgraph.sampling._randomized_certify`, a Monte Carlo proof whose chance
   of passing a matrix that is not positive definite is at most 1e-12 (recorded
   as such).

The condition bound of step 1 must be at most
:data:`~spdgraph._kernels.numerics.MAX_SCALED_CONDITION` (1e12), as the dense
certificate's condition estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph._kernels.numerics import MAX_SCALED_CONDITION
from spdgraph.errors import GeneratorOutputError, NumericalError, UncertifiedMatrixError
from spdgraph.sampling._randomized_certify import LOWER_BOUND_KEY, symmetric_finite

__all__ = ["check_structure", "comparison_weights", "prove_positive_definite"]

_TINY = float(np.finfo(np.float64).tiny)


def check_structure(m: Any, adjacency: Any, who: str, k: int) -> Any:
    """Matrix ``k`` as a canonical float64 CSR array after every structural check.

    Raises :class:`~spdgraph.errors.GeneratorOutputError` naming the generator
    (``who``) and the first problem found.
    """
    import scipy.sparse

    p = adjacency.shape[0]
    if not scipy.sparse.issparse(m):
        raise GeneratorOutputError(
            f"{who} returned {type(m).__name__} from its sparse_function for matrix {k}, "
            "not a scipy.sparse matrix."
        )
    if m.shape != (p, p):
        raise GeneratorOutputError(
            f"{who} returned shape {m.shape} for matrix {k}, expected ({p}, {p})."
        )
    if m.dtype != np.float64:
        raise GeneratorOutputError(f"{who} returned dtype {m.dtype}, expected float64.")
    from spdgraph._kernels.sparse import first_structure_violation  # numba: lazy

    csr = scipy.sparse.csr_array(m)
    csr.sum_duplicates()  # canonical: sorted indices, one entry per position
    code, i, j = first_structure_violation(
        csr.indptr, csr.indices, csr.data,
        adjacency.indptr, adjacency.indices,
    )  # fmt: skip
    if code == 1:
        raise GeneratorOutputError(
            f"{who}: matrix {k} holds a non-finite value ({csr[i, j]!r} at [{i}, {j}])."
        )
    if code == 2:
        raise GeneratorOutputError(
            f"{who}: matrix {k} is non-zero ({csr[i, j]!r}) at [{i}, {j}], which is not an "
            "edge of the graph: the zeros must be exactly the non-edges."
        )
    if code == 3:
        raise GeneratorOutputError(
            f"{who}: matrix {k} is not exactly symmetric: [{i}, {j}] is {csr[i, j]!r} but "
            f"[{j}, {i}] is {csr[j, i]!r}. Symmetrize with (M + M.T) / 2."
        )
    diagonal = csr.diagonal()
    small = np.flatnonzero(~(diagonal >= _TINY))
    if small.size:
        i = int(small[0])
        raise UncertifiedMatrixError(
            f"{who}: matrix {k} has diagonal entry [{i}, {i}] = {diagonal[i]!r}, not a "
            "positive normal number: it cannot be positive definite (or rescaled)."
        )
    return csr


def _gershgorin(csr: Any, w: np.ndarray) -> tuple[float, float] | None:
    """The proven ``(2-norm condition bound, lower bound of lambda_min)`` with weights ``w``.

    None when a row fails.
    """
    from spdgraph._kernels.sparse import UNIT_ROUNDOFF, dominance_margins

    if not (w.size == csr.shape[0] and np.all(w > 0) and np.all(np.isfinite(w))):
        return None
    indptr = csr.indptr
    indices = csr.indices
    diag, off, passes = dominance_margins(indptr, indices, csr.data, w, UNIT_ROUNDOFF)
    if not passes.all():
        return None
    del passes
    u = UNIT_ROUNDOFF
    # slack = 1 + 2 c u / (1 - c u), c = the row's entries + 8: the same operations
    # as the expression, in place (vectors of p are most of this proof's memory)
    slack = np.diff(indptr).astype(np.float64)
    slack += 8.0
    scratch = slack * u
    np.subtract(1.0, scratch, out=scratch)
    slack *= 2.0
    slack *= u
    slack /= scratch
    slack += 1.0
    off *= slack  # the weighted radius, rounded up: r_i = off_i slack_i / w_i
    del slack
    # eigenvalues of W^-1 M W lie in [m_ii - r_i, m_ii + r_i], r_i = off_i / w_i
    lower = diag * (1.0 - 4 * u)
    lower -= off
    lower /= np.multiply(w, 1.0 + 4 * u, out=scratch)
    low = float(lower.min())
    del lower
    if not low > 0:
        return None
    upper = np.multiply(diag, 1.0 + 4 * u, out=diag)
    upper += off
    upper /= np.multiply(w, 1.0 - 4 * u, out=scratch)
    proven_low = float(np.nextafter(low * (1.0 - 4 * u), -np.inf))
    return float(upper.max()) / low * (1.0 + 8 * UNIT_ROUNDOFF), proven_low


def comparison_weights(csr: Any) -> np.ndarray | None:
    """``w`` solving ``<M> w = 1`` approximately (conjugate gradients), or None."""
    import scipy.sparse
    import scipy.sparse.linalg

    comparison = -abs(csr)
    comparison.setdiag(np.abs(csr.diagonal()))
    comparison = scipy.sparse.csr_array(comparison)
    ones = np.ones(csr.shape[0])
    try:
        with np.errstate(all="ignore"):  # a singular comparison matrix: checked below
            w, info = scipy.sparse.linalg.cg(comparison, ones, rtol=1e-10, maxiter=300)
    except (ArithmeticError, ValueError):
        return None
    if info < 0 or not np.all(np.isfinite(w)):
        return None
    return np.asarray(w)


#: Power steps toward the Perron vector of ``|M|``'s off-diagonal part in the shortcut.
COMPARISON_STEPS = 8


def _comparison_form_positive(csr: Any) -> bool:
    """``x^T <M> x > 0`` at ``x = 1`` and at a few power iterates of ``|M|``'s off-diagonal part.

    A necessary condition for ``M`` to be an H-matrix (then ``<M>`` is positive
    definite, so every such quotient is positive): when one quotient is at or
    below 0 no weights can prove dominance, and the conjugate gradients of
    :func:`comparison_weights` (hundreds of products with ``M``, most of the
    time of a G-Wishart draw at p = 10**6, seconds on huge's matrix of an
    Erdős–Rényi graph) are skipped. The iterates approach the Perron vector of
    the off-diagonal part, where the quotient is ``sum d_i x_i^2 - rho x^T x``:
    it catches matrices whose diagonal is below the Perron root on average,
    which ``x = 1`` alone misses. Only a shortcut: the certificate is proven
    either way.
    """
    from spdgraph._kernels.sparse import abs_off_diagonal_product  # numba: lazy

    diagonal = np.abs(csr.diagonal())
    x = np.ones(csr.shape[0])
    product = np.empty_like(x)
    for _ in range(COMPARISON_STEPS + 1):
        # |M|'s off-diagonal part times x, without a copy of |M|
        abs_off_diagonal_product(csr.indptr, csr.indices, csr.data, x, product)
        if not float(diagonal @ (x * x)) - float(x @ product) > 0:
            return False
        norm = float(np.linalg.norm(product))
        if not (norm > 0 and np.isfinite(norm)):
            return True  # no off-diagonal weight left: diagonal, an H-matrix
        x = product / norm
    return True


def prove_positive_definite(
    csr: Any,
    *,
    weights: Sequence[np.ndarray] = (),
    what: str,
    budget_bytes: int | None,
    randomized: bool = True,
) -> dict[str, Any]:
    """Prove ``csr`` positive definite; the certificate's attrs, or raise.

    Returns ``{"certificate": ..., "condition_bound": ...,
    LOWER_BOUND_KEY: ...}`` (a proven 2-norm condition bound and a proven lower
    bound of the smallest eigenvalue: what the proof gives; the randomized
    proof adds ``certificate_failure_probability``, the chance that its bounds
    fail). The matrix must be finite and exactly symmetric.
    ``randomized=False`` refuses the randomized proof (step 3): the errors of
    step 2 are raised instead. Raises
    :class:`~spdgraph.errors.UncertifiedMatrixError` when the matrix is not
    finite and exactly symmetric, when the shifted sparse Cholesky factorization
    fails (not positive definite, or too close to singular to prove) or the
    dominance condition bound is above 1e12,
    :class:`~spdgraph.errors.TooLargeError` when no dominance certificate holds
    and the factor would not fit, and
    :class:`~spdgraph.errors.MissingDependencyError` when it would need the
    factorization and cvxopt is missing.
    """
    csr = symmetric_finite(csr, what)
    candidates = [*weights, np.ones(csr.shape[0])]
    for w in candidates:
        proven = _gershgorin(csr, np.asarray(w, dtype=np.float64))
        if proven is not None:
            return _dominance(*proven, what)
    solved = comparison_weights(csr) if _comparison_form_positive(csr) else None
    if solved is not None:
        proven = _gershgorin(csr, solved)
        if proven is not None:
            return _dominance(*proven, what)
    from spdgraph._kernels.sparse_cholesky import plan_factor
    from spdgraph.errors import MissingDependencyError, TooLargeError

    try:
        plan = plan_factor(csr, budget_bytes=budget_bytes, what=what)
    except (TooLargeError, MissingDependencyError) as exc:
        if not randomized:
            raise type(exc)(
                f"{exc} (no deterministic proof of positive definiteness is within reach: "
                "without certificate='deterministic' a randomized proof is used, whose "
                "chance of error is at most 1e-12)"
            ) from exc
        plan = None  # the randomized proof, outside this block: the error's traceback
        # holds the planner's frames (a permuted copy of the matrix) until it ends
    if plan is None:
        from spdgraph.sampling._randomized_certify import randomized_certificate

        return randomized_certificate(csr, what=what)
    return _cholesky_certificate(csr, plan, what)


def _cholesky_certificate(csr: Any, plan: Any, what: str) -> dict[str, Any]:
    """The proven-margin sparse Cholesky certificate (:func:`proven_lower_bound`), or raise."""
    from spdgraph._kernels.cholesky_proof import proven_lower_bound
    from spdgraph._kernels.sparse import row_abs_sums

    try:
        lower = proven_lower_bound(csr, plan, what=what)
    except NumericalError as exc:
        raise UncertifiedMatrixError(str(exc)) from exc
    indptr = csr.indptr
    radius = row_abs_sums(indptr, csr.indices, csr.data)
    widest = int(np.diff(indptr).max()) + 2
    upper = float(np.max(csr.diagonal() + radius * (1.0 + 2 * widest * 2.0**-53)))
    return {
        "certificate": "sparse Cholesky factorization with a proven margin (CHOLMOD, AMD order)",
        "factor_entries": plan.factor_entries,
        "condition_bound": upper * (1.0 + 2.0**-48) / lower if lower > 0 else np.inf,
        LOWER_BOUND_KEY: lower,
    }


def _dominance(bound: float, lower: float, what: str) -> dict[str, Any]:
    if bound > MAX_SCALED_CONDITION:
        raise UncertifiedMatrixError(
            f"{what} is proven positive definite by diagonal dominance, but its proven "
            f"condition bound {bound:.3g} is above {MAX_SCALED_CONDITION:.0e}."
        )
    return {
        "certificate": "diagonal dominance (weighted Gershgorin)",
        "condition_bound": bound,
        LOWER_BOUND_KEY: lower,
    }
