"""Sparse Cholesky factorization (CHOLMOD through cvxopt): fill predicted first, exact draws.

The sparse path factorizes a symmetric positive definite ``K`` as
``P K P^T = L L^T`` (CHOLMOD's supernodal factorization, the fill-reducing order
``P`` from AMD), after predicting the factor's size:

1. :func:`plan_factor` orders the pattern with AMD and counts the factor's
   entries exactly for that order (the elimination tree and each row's subtree:
   :func:`spdgraph._kernels.sparse.cholesky_fill`), stopping at the budget the
   available memory allows; a factor that would not fit is refused then
   (:class:`~spdgraph.errors.TooLargeError` with the predicted fill), before any
   numeric work.
2. :class:`SparseFactor` factorizes in that order; a matrix that is not
   positive definite fails there (CHOLMOD stops at a non-positive pivot).
3. ``factor.whiten_inverse(z)`` returns ``P^T L^-T z``: for ``z`` with i.i.d.
   N(0, 1) columns, exactly N(0, K^-1) columns (``Cov = P^T L^-T L^-1 P = K^-1``).

cvxopt is an optional dependency (the ``large`` extra): it ships CHOLMOD and AMD
in its wheels, no system library needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph.errors import MissingDependencyError, NumericalError, TooLargeError

__all__ = [
    "BYTES_PER_FACTOR_ENTRY",
    "FactorPlan",
    "SparseFactor",
    "plan_factor",
    "require_cholmod",
]

#: Bytes per entry of the predicted factor: the value (8), CHOLMOD's supernodal
#: padding and row indices (relaxed amalgamation stores up to about three times the
#: exact count for thin factors: measured 10.5e6 stored for 3e6 exact on a band), and
#: the solve's workspace.
BYTES_PER_FACTOR_ENTRY = 40
#: The largest factorization attempted, in floating-point operations (``sum_j c_j**2``,
#: ``c_j`` the entries of column ``j``): about a minute of CHOLMOD on one core. A
#: factor that fits in memory but costs more is refused too, with its prediction.
MAX_FACTOR_FLOPS = 1e11


def require_cholmod() -> tuple[Any, Any, Any]:
    """``(cvxopt, cvxopt.cholmod, cvxopt.amd)``, or a MissingDependencyError naming the extra."""
    try:
        import cvxopt
        from cvxopt import amd, cholmod
    except ImportError as exc:
        raise MissingDependencyError(
            "a sparse Cholesky factorization (exact draws from a sparse matrix, and the "
            "positive-definiteness proof of a sparse matrix that is not diagonally dominant) "
            'needs cvxopt (CHOLMOD): pip install "spdgraph[large]"'
        ) from exc
    return cvxopt, cholmod, amd


def _lower_spmatrix(matrix: Any) -> Any:
    """The lower triangle of a scipy.sparse matrix as a cvxopt spmatrix (buffers, no loops)."""
    import scipy.sparse

    cvxopt, _, _ = require_cholmod()
    lower = scipy.sparse.tril(matrix, format="coo")
    p = matrix.shape[0]
    return cvxopt.spmatrix(
        cvxopt.matrix(np.ascontiguousarray(lower.data, dtype=np.float64)),
        cvxopt.matrix(np.ascontiguousarray(lower.row, dtype=np.int64)),
        cvxopt.matrix(np.ascontiguousarray(lower.col, dtype=np.int64)),
        (p, p),
    )


@dataclass(frozen=True)
class FactorPlan:
    """A fill-reducing order and the exact entry count of the factor in it."""

    order: np.ndarray
    factor_entries: int
    bytes: int
    flops: float = 0.0


def plan_factor(matrix: Any, *, budget_bytes: int | None, what: str = "the matrix") -> FactorPlan:
    """AMD order of ``matrix``'s pattern and the factor's size, refused above ``budget_bytes``.

    Counting stops once the factor passes the budget, so the refusal costs at most
    the budget's entries (about a second for a few hundred million).

    Raises
    ------
    TooLargeError
        The factor would not fit: the message gives the predicted fill.
    """
    import scipy.sparse

    from spdgraph._kernels.sparse import cholesky_fill, elimination_tree

    _, _, amd = require_cholmod()
    p = matrix.shape[0]
    order = np.asarray(amd.order(_lower_spmatrix(matrix)), dtype=np.int64).ravel()
    permuted = scipy.sparse.csr_array(matrix)[order][:, order]
    permuted.sort_indices()
    indptr = permuted.indptr.astype(np.int64)
    indices = permuted.indices.astype(np.int64)
    parent = elimination_tree(indptr, indices)
    budget = 2**62 if budget_bytes is None else max(0, budget_bytes // BYTES_PER_FACTOR_ENTRY)
    found, counts = cholesky_fill(indptr, indices, parent, budget, MAX_FACTOR_FLOPS)
    count = int(found)
    nnz_lower = (matrix.nnz + p) // 2
    flops = float(np.sum(counts.astype(np.float64) ** 2))
    if flops > MAX_FACTOR_FLOPS:
        partial = count > budget
        held = f"more than {int(counts.sum()):,}" if partial else f"{count:,}"
        raise TooLargeError(
            f"the sparse Cholesky factor of {what} (p = {p:,}, {nnz_lower:,} entries in its "
            f"lower triangle) would hold {held} entries in AMD order and cost "
            f"{'more than ' if partial else 'about '}{flops:.2g} floating-point operations, "
            f"above the {MAX_FACTOR_FLOPS:.0e} spdgraph attempts "
            "(minutes to hours). Use a graph with less fill (a band, lattice or tree-like "
            "graph factorizes with little), or, for draws from a diagonally dominant matrix, "
            "method='cg' (iterative, exact up to its stated tolerance)."
        )
    if count > budget and budget_bytes is not None:
        raise TooLargeError(
            f"the sparse Cholesky factor of {what} (p = {p:,}, {nnz_lower:,} entries in its "
            f"lower triangle) would hold more than {budget:,} entries in AMD order (a fill "
            f"of more than {budget / max(nnz_lower, 1):,.0f} times its entries: more than "
            f"{budget_bytes / 2**30:,.1f} GiB), beyond the memory available. Use a graph "
            "with less fill (a band, lattice or tree-like graph factorizes with little), "
            "or, for draws, method='cg' (iterative, exact up to its stated tolerance)."
        )
    return FactorPlan(order, count, count * BYTES_PER_FACTOR_ENTRY, flops)


class SparseFactor:
    """``P K P^T = L L^T`` of a sparse symmetric positive definite matrix (CHOLMOD).

    Raises :class:`~spdgraph.errors.NumericalError` when ``K`` is not positive
    definite (a non-positive pivot).
    """

    def __init__(self, matrix: Any, plan: FactorPlan, *, what: str = "the matrix") -> None:
        cvxopt, cholmod, _ = require_cholmod()
        self.p = int(matrix.shape[0])
        self.plan = plan
        lower = _lower_spmatrix(matrix)
        saved = dict(cholmod.options)
        cholmod.options["supernodal"] = 2  # L L^T (a simplicial factor would be L D L^T)
        try:
            self._factor = cholmod.symbolic(lower, p=cvxopt.matrix(plan.order))
            cholmod.numeric(lower, self._factor)
        except ArithmeticError as exc:
            raise NumericalError(
                f"{what} is not positive definite: its sparse Cholesky factorization met a "
                f"non-positive pivot ({exc})."
            ) from exc
        finally:
            cholmod.options.clear()
            cholmod.options.update(saved)

    def whiten_inverse(self, z: np.ndarray) -> np.ndarray:
        """``P^T L^-T z`` for a ``(p, m)`` array ``z`` (a new Fortran-ordered array)."""
        cvxopt, cholmod, _ = require_cholmod()
        b = cvxopt.matrix(np.asfortranarray(z, dtype=np.float64))
        cholmod.solve(self._factor, b, sys=5)  # L^T y = z
        cholmod.solve(self._factor, b, sys=8)  # x = P^T y
        return np.asarray(b)
