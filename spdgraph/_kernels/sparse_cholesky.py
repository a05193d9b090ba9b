"""Sparse Cholesky factorization (CHOLMOD through cvxopt): fill predicted first, exact draws.

The sparse path factorizes a symmetric positive definite ``K`` as
``P K P^T = L L^T`` (CHOLMOD's supernodal factorization, the fill-reducing order
``P`` from AMD), after predicting the factor's size:

1. :func:`plan_factor` orders the pattern with AMD and counts the factor's
   entries exactly for that order (the elimination tree and each row's subtree:
   :func:`spdgraph._kernels.sparse.cholesky_fill`), stopping at the budget the
   available memory allows; a factor that would not fit is refused then
   (:class:`~spdgraph.errors.TooLargeError` with the predicted fill), before any
   numeric work. AMD's own time grows with the fill (about a minute for an
   Erdős–Rényi graph of a million nodes), so a large pattern is first contracted
   to a minor of 12,000 nodes (:func:`predict_fill`): the minor's factor
   is a lower estimate of the full one, and one already far beyond the limits
   is refused in a fraction of a second.
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

from spdgraph._kernels.cholmod import lower_spmatrix, require_cholmod
from spdgraph._kernels.fill_prediction import PREDICTION_NODES, FillPrediction, predict_fill
from spdgraph.errors import NumericalError, TooLargeError

_lower_spmatrix = lower_spmatrix  # the name the tests patch (the full AMD's input)

__all__ = [
    "BYTES_PER_FACTOR_ENTRY",
    "FactorPlan",
    "FillPrediction",
    "SparseFactor",
    "plan_factor",
    "predict_fill",
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
#: Above this many nodes, or stored entries, the fill is first predicted on a
#: contracted minor (:func:`predict_fill`): AMD on the full pattern takes 0.23 s at
#: 10**5 nodes of an Erdős–Rényi graph of mean degree 5, 1.8 s at 3 * 10**5 and
#: about a minute at 10**6, where the minor takes under a second.
PREDICT_ABOVE_NODES = 200_000
PREDICT_ABOVE_ENTRIES = 2_000_000
#: A minor is refused only when its factor is beyond a limit this many times over:
#: the contraction bounds the *minimum* fill, and AMD's order of the minor may
#: exceed its minimum (the margin covers that excess, AMD's order of the full
#: pattern being no better than the minimum).
PREDICTION_MARGIN = 2.0


@dataclass(frozen=True)
class FactorPlan:
    """A fill-reducing order and the exact entry count of the factor in it."""

    order: np.ndarray
    factor_entries: int
    bytes: int
    flops: float = 0.0
    widest: int = 0  # the most entries in a column of the factor


def _advice(flops: bool) -> str:
    if flops:
        return (
            "Use a graph with less fill (a band, lattice or tree-like graph factorizes "
            "with little), or, for draws from a diagonally dominant matrix, "
            "method='cg' (iterative, exact up to its stated tolerance)."
        )
    return (
        "Use a graph with less fill (a band, lattice or tree-like graph factorizes "
        "with little), or, for draws, method='cg' (iterative, exact up to its stated "
        "tolerance)."
    )


def _refuse_predicted(
    prediction: FillPrediction, *, p: int, nnz_lower: int, what: str, budget_bytes: int | None
) -> None:
    """TooLargeError when the minor's factor is beyond the limits by PREDICTION_MARGIN."""
    budget = None if budget_bytes is None else max(0, budget_bytes // BYTES_PER_FACTOR_ENTRY)
    over_flops = prediction.flops > PREDICTION_MARGIN * MAX_FACTOR_FLOPS
    over_entries = budget is not None and prediction.factor_entries > PREDICTION_MARGIN * budget
    if not (over_flops or over_entries):
        return
    more = "more than " if prediction.partial else ""
    predicted = (
        f"predicted from a contracted minor of {prediction.nodes:,} nodes, whose factor "
        f"in AMD order holds {more}{prediction.factor_entries:,} entries (counting one per "
        f"node contracted away) and costs {more}{prediction.flops:.2g} floating-point "
        "operations: a lower estimate of the full factor, since no contraction adds fill"
    )
    head = (
        f"the sparse Cholesky factor of {what} (p = {p:,}, {nnz_lower:,} entries in its "
        f"lower triangle) would not fit: "
    )
    if over_flops:
        raise TooLargeError(
            head + f"{predicted}; that is more than {PREDICTION_MARGIN:g} times the "
            f"{MAX_FACTOR_FLOPS:.0e} floating-point operations spdgraph attempts (minutes "
            "to hours), refused before ordering the full pattern. " + _advice(True)
        )
    assert budget is not None and budget_bytes is not None
    raise TooLargeError(
        head + f"{predicted}; that is a fill of at least "
        f"{prediction.factor_entries / max(nnz_lower, 1):,.0f} times its entries, more than "
        f"{PREDICTION_MARGIN:g} times the {budget:,} entries the memory available holds "
        f"({budget_bytes / 2**30:,.1f} GiB), refused before ordering the full pattern. "
        + _advice(False)
    )


def plan_factor(
    matrix: Any,
    *,
    budget_bytes: int | None,
    what: str = "the matrix",
    predict: bool | None = None,
    prediction_nodes: int = 0,
) -> FactorPlan:
    """AMD order of ``matrix``'s pattern and the factor's size, refused above ``budget_bytes``.

    A large pattern (more than ``PREDICT_ABOVE_NODES`` nodes or
    ``PREDICT_ABOVE_ENTRIES`` stored entries, or any when ``predict=True``) is
    first contracted to a minor of at most ``prediction_nodes`` nodes
    (:func:`predict_fill`): a minor whose factor alone is more than
    ``PREDICTION_MARGIN`` times beyond the memory budget or ``MAX_FACTOR_FLOPS``
    is refused at once, in a fraction of the time AMD takes on the full pattern
    (which grows with the fill: about a minute for an Erdős–Rényi graph of a
    million nodes, mean degree 5). Otherwise, and for every smaller pattern, the
    full pattern is ordered and its factor counted exactly, the count stopping
    once the factor passes the budget (about a second for a few hundred million
    entries): the exact count decides.

    Parameters
    ----------
    matrix
        A square symmetric scipy.sparse matrix.
    budget_bytes
        The memory the factor may take (``None``: no limit but the flops).
    what
        How messages name the matrix.
    predict
        Predict on a contracted minor first: ``None`` (default) by the size above.
    prediction_nodes
        The minor's largest size (``PREDICTION_NODES`` when 0).

    Raises
    ------
    TooLargeError
        The factor would not fit: the message gives the predicted fill.
    """
    import scipy.sparse

    from spdgraph._kernels.sparse import cholesky_fill, elimination_tree, permuted_pattern

    _, _, amd = require_cholmod()
    csr = scipy.sparse.csr_array(matrix)
    p = csr.shape[0]
    nnz_lower = (csr.nnz + p) // 2
    if predict is None:
        predict = p > PREDICT_ABOVE_NODES or csr.nnz > PREDICT_ABOVE_ENTRIES
    if predict:
        budget = 2**62 if budget_bytes is None else max(0, budget_bytes // BYTES_PER_FACTOR_ENTRY)
        prediction = predict_fill(
            csr.indptr,
            csr.indices,
            nodes=prediction_nodes or PREDICTION_NODES,
            entry_cap=int(min(2**62, PREDICTION_MARGIN * budget + 1)),
            flop_cap=PREDICTION_MARGIN * MAX_FACTOR_FLOPS,
        )
        _refuse_predicted(
            prediction, p=p, nnz_lower=nnz_lower, what=what, budget_bytes=budget_bytes
        )
    order = np.asarray(amd.order(_lower_spmatrix(csr)), dtype=np.int64).ravel()
    # the pattern of csr[order][:, order], sorted: no permuted copy of the values
    indptr = np.empty(p + 1, dtype=csr.indptr.dtype)
    indices = np.empty(csr.nnz, dtype=csr.indices.dtype)
    permuted_pattern(csr.indptr, csr.indices, order, indptr, indices)
    parent = elimination_tree(indptr, indices)
    budget = 2**62 if budget_bytes is None else max(0, budget_bytes // BYTES_PER_FACTOR_ENTRY)
    found, counts = cholesky_fill(indptr, indices, parent, budget, MAX_FACTOR_FLOPS)
    count = int(found)
    flops = float(np.sum(counts.astype(np.float64) ** 2))
    if flops > MAX_FACTOR_FLOPS:
        partial = count > budget
        held = f"more than {int(counts.sum()):,}" if partial else f"{count:,}"
        raise TooLargeError(
            f"the sparse Cholesky factor of {what} (p = {p:,}, {nnz_lower:,} entries in its "
            f"lower triangle) would hold {held} entries in AMD order and cost "
            f"{'more than ' if partial else 'about '}{flops:.2g} floating-point operations, "
            f"above the {MAX_FACTOR_FLOPS:.0e} spdgraph attempts "
            "(minutes to hours). " + _advice(True)
        )
    if count > budget and budget_bytes is not None:
        raise TooLargeError(
            f"the sparse Cholesky factor of {what} (p = {p:,}, {nnz_lower:,} entries in its "
            f"lower triangle) would hold more than {budget:,} entries in AMD order (a fill "
            f"of more than {budget / max(nnz_lower, 1):,.0f} times its entries: more than "
            f"{budget_bytes / 2**30:,.1f} GiB), beyond the memory available. " + _advice(False)
        )
    widest = int(counts.max()) if counts.size else 0
    return FactorPlan(order, count, count * BYTES_PER_FACTOR_ENTRY, flops, widest)


class SparseFactor:
    """``P K P^T = L L^T`` of a sparse symmetric positive definite matrix (CHOLMOD).

    Raises :class:`~spdgraph.errors.NumericalError` when ``K`` is not positive
    definite (a non-positive pivot).
    """

    def __init__(self, matrix: Any, plan: FactorPlan, *, what: str = "the matrix") -> None:
        cvxopt, cholmod, _ = require_cholmod()
        self.p = int(matrix.shape[0])
        self.plan = plan
        self._matrix, self._what = matrix, what
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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its matrix and plan: factorized again where it is unpickled (a
        dask worker in another process), in the same order, so the same factor."""
        return (SparseFactor, (self._matrix, self.plan), {"what": self._what})

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._what = state["what"]

    def whiten_inverse(self, z: np.ndarray) -> np.ndarray:
        """``P^T L^-T z`` for a ``(p, m)`` array ``z`` (a new Fortran-ordered array)."""
        cvxopt, cholmod, _ = require_cholmod()
        b = cvxopt.matrix(np.asfortranarray(z, dtype=np.float64))
        cholmod.solve(self._factor, b, sys=5)  # L^T y = z
        cholmod.solve(self._factor, b, sys=8)  # x = P^T y
        return np.asarray(b)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``K^-1 b`` for a ``(p,)`` or ``(p, m)`` array ``b`` (a new array of its shape)."""
        cvxopt, cholmod, _ = require_cholmod()
        shape = np.shape(b)
        x = cvxopt.matrix(np.asfortranarray(np.reshape(b, (self.p, -1)), dtype=np.float64))
        cholmod.solve(self._factor, x, sys=0)  # P^T L^-T L^-1 P b
        return np.asarray(x).reshape(shape)
