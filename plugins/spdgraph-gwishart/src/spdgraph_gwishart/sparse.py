"""Sparse G-Wishart draws on decomposable graphs: ``sample(g, "gwishart", sparse=True)``.

On a decomposable (chordal) graph with its nodes in a perfect elimination
order, the upper triangular ``Phi`` of ``K = Phi^T Phi`` has exactly the
graph's pattern (no fill-in) and its rows are independent
(:mod:`spdgraph_gwishart.chordal`), so one draw is built clique by clique in
memory proportional to the edges: the order, ``Phi`` and ``K`` are stored
per edge, never as a ``p x p`` array.

The draw is the default dense path's (``algorithm="auto"`` on a chordal graph:
the compiled chordal rows of :func:`spdgraph_gwishart.exact.accept_reject_gwishart`):
the same greedy minimum fill-in order (computed here with a heap on the sparse
adjacency in time linear in the edges,
:func:`spdgraph_gwishart._sparse_kernels.chordal_min_fill_order`),
the same random numbers in the same order (the p chi-squares, then the edge
normals row by row), and ``K`` summed over the rows in the same order. For
``D = I`` (the default) or ``c * I`` the result has the dense path's bits; for
another diagonal ``D`` it agrees to rounding (``1 / sqrt(D_jj)`` is computed
directly, not through LAPACK's inverse).

The work is bounded before it starts: :func:`sparse_plan` (a maximum cardinality
search, linear time) checks that the graph is chordal and gives the draw's cost,
the dense path's cost of the chordal rows (about ``c**3 / 3`` flops for a dense
block of ``c`` nodes); above ``max_flops`` the call raises
:class:`spdgraph.TooLargeError` naming the cost, the largest clique and the fixes.

Only a diagonal ``D`` is supported: a general ``D`` gives every row the
Schur complements and inverse blocks of ``D``'s dense submatrices, which at
this scale cannot be held. A graph that is not chordal is refused (its exact
sampler needs the fill-in of an elimination order, and its accept-reject or
MCMC loops a dense ``Phi``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

import spdgraph
from spdgraph_gwishart.scale import _D_RANGE, MAX_B, MAX_FLOPS, _check_number

__all__ = ["SparsePlan", "check_sparse_cost", "chordal_order", "gwishart_sparse", "sparse_plan"]

#: The sparse draw's working bytes per stored entry of the result, beyond the core's:
#: the heap and the permuted upper triangle (8 + 8), the normals, Phi and K on the
#: upper triangle (3 x 8 per two stored entries) and the COO triplets of the symmetric
#: result (rows, columns, values: 24).
WORK_PER_ENTRY = 64.0


def _diagonal_scale(D: object, p: int) -> np.ndarray:
    """``D``'s diagonal (length p), refusing a scale that is not diagonal."""
    import scipy.sparse

    if D is None:
        return np.ones(p)
    if isinstance(D, numbers.Real) and not isinstance(D, bool):
        lo, hi = _D_RANGE
        c = _check_number(D, "D (a scalar means D * I)", lower=lo, upper=hi, strict=False)
        return np.full(p, c)
    d = None
    given: Any = D
    if scipy.sparse.issparse(given) and given.shape == (p, p) and given.dtype.kind in "fiu":
        coo = scipy.sparse.coo_array(given)
        if not np.any(coo.data[coo.row != coo.col]):
            d = np.asarray(coo.diagonal(), dtype=np.float64)
    elif isinstance(D, np.ndarray) and D.dtype.kind in "fiu" and D.shape == (p, p):
        off_diagonal = D.copy()
        np.fill_diagonal(off_diagonal, 0)
        if not np.any(off_diagonal):
            d = np.diag(D).astype(np.float64)
    if d is None:
        raise spdgraph.InvalidOptionError(
            "gwishart with sparse=True needs a diagonal scale D: None (identity), a positive "
            f"number c (c I) or a diagonal {p} x {p} numpy or scipy.sparse array (for a "
            "large graph: scipy.sparse.diags_array(values)). A general D couples each "
            "row to dense blocks of D (their Schur complements and inverses), which the "
            "sparse path does not hold; pass sparse=False for a general D."
        )
    lo, hi = _D_RANGE
    if not np.all(np.isfinite(d) & (d >= lo) & (d <= hi)):
        raise spdgraph.InvalidOptionError(
            f"gwishart option D must have finite diagonal entries between {lo:g} and {hi:g} "
            "(a draw's entries scale like b / D); rescale D and the draws by the same factor."
        )
    return d


@dataclass(frozen=True)
class SparsePlan:
    """What a sparse draw on one graph will cost, known before any heavy work.

    Attributes
    ----------
    indptr, indices
        The adjacency as sorted ``int64`` CSR arrays.
    peo, later
        A perfect elimination order (the reverse of a maximum cardinality search)
        and the number of later neighbours of each of its nodes (None when the
        graph is not chordal).
    flops
        The estimated work of one draw: the dense path's cost of the chordal rows
        (:func:`spdgraph_gwishart.exact.rows_flops`; the Gram matrix's products,
        ``sum_i nu_i**2``, dominate), the same for every perfect elimination order.
    largest_clique
        The number of nodes of the graph's largest clique.
    """

    indptr: np.ndarray
    indices: np.ndarray
    peo: np.ndarray | None
    later: np.ndarray | None
    flops: float
    largest_clique: int


def sparse_plan(adjacency: Any) -> SparsePlan:
    """The cost of a sparse draw and a perfect elimination order, in linear time.

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not chordal.

    Examples
    --------
    >>> import scipy.sparse
    >>> triangle = scipy.sparse.csr_array(np.ones((3, 3)) - np.eye(3))
    >>> plan = sparse_plan(triangle)
    >>> plan.largest_clique, plan.flops
    (3, 125.0)
    """
    import scipy.sparse

    from spdgraph_gwishart._sparse_kernels import max_cardinality_order
    from spdgraph_gwishart.exact import rows_flops

    a = scipy.sparse.csr_array(adjacency)
    a.sort_indices()
    indptr, indices = a.indptr.astype(np.int64), a.indices.astype(np.int64)
    peo, chordal, later = max_cardinality_order(indptr, indices)
    if not chordal:
        raise spdgraph.InvalidOptionError(
            "gwishart with sparse=True needs a decomposable (chordal) graph: this graph has "
            "a chordless cycle of length >= 4 (maximum cardinality search finds no perfect "
            "elimination order), so its exact draw needs fill-in and a dense Phi. "
            "Triangulate the graph (a chordal supergraph), pass sparse=False (exact "
            "accept-reject, dense), or use method='dd' or 'huge', which build sparse results "
            "on any graph."
        )
    largest = int(later.max()) + 1 if later.size else 0
    return SparsePlan(indptr, indices, peo, later, rows_flops(later), largest)


def check_sparse_cost(plan: SparsePlan, max_flops: float) -> None:
    """Refuse a draw whose estimated work exceeds ``max_flops``: a ``TooLargeError``."""
    max_flops = _check_number(max_flops, "max_flops", lower=0.0)
    if plan.flops > max_flops:
        c = plan.largest_clique
        raise spdgraph.TooLargeError(
            f"gwishart with sparse=True: one matrix on this graph would take an estimated "
            f"{plan.flops:.3g} flops, above max_flops={max_flops:.3g} (about 1e9 flops a "
            f"second). Its largest clique has {c:,} nodes, a dense block whose rows alone "
            f"cost about {c:,}**3 / 3 = {c**3 / 3:.3g} flops. Raise max_flops if you mean "
            "it, pass sparse=False (the dense path, for a graph that fits as a p x p array), "
            "or make the dense block smaller (split the clique or remove edges from it)."
        )


def chordal_order(adjacency: Any, plan: SparsePlan | None = None) -> np.ndarray:
    """The greedy minimum fill-in order of a chordal scipy.sparse adjacency (int64).

    The order :func:`spdgraph_gwishart._order.min_fill_order` finds on the dense
    adjacency, in time proportional to the edges (times a logarithm). ``plan``:
    the graph's :func:`sparse_plan`, if already made.

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not chordal.

    Examples
    --------
    >>> import scipy.sparse
    >>> path = scipy.sparse.csr_array(
    ...     scipy.sparse.diags([1, 1], [-1, 1], shape=(4, 4), dtype="int8"))
    >>> chordal_order(path).tolist()
    [0, 1, 2, 3]
    """
    from spdgraph_gwishart._sparse_kernels import chordal_min_fill_order

    plan = sparse_plan(adjacency) if plan is None else plan
    order, done = chordal_min_fill_order(plan.indptr, plan.indices, plan.peo, plan.later)
    if done < order.size:
        raise AssertionError(f"the minimum fill-in order stopped at {done} of {order.size}")
    return order


def gwishart_sparse(
    adjacency: Any,
    *,
    rng: np.random.Generator,
    entries: spdgraph.EntrySampler,
    kind: str = "precision",
    b: float = 3.0,
    algorithm: str = "auto",
    D: Any = None,
    max_flops: float = MAX_FLOPS,
    **_unused: Any,
) -> Any:
    """One ``K ~ W_G(b, D)`` on a chordal graph as a scipy.sparse CSR array, no fill.

    The same draw as :func:`spdgraph_gwishart.gwishart` with ``algorithm="auto"``
    for the same stream (see the module docstring); ``algorithm="exact"`` is the
    same sampler on a chordal graph. ``algorithm="chordal"`` (dense: a maximum
    cardinality search order, so other draws), ``"mcmc"`` and ``"lenkoski"`` are
    refused, as are a non-diagonal ``D`` and a graph that is not chordal.
    ``max_flops`` bounds the estimated work of the draw as on the dense path
    (:func:`sparse_plan`: linear time, before the order and the draw).
    ``entries``, ``kind`` and the options of the other samplers are not used.

    Raises
    ------
    spdgraph.TooLargeError
        The estimated work exceeds ``max_flops`` (a large dense block: its size is named).
    spdgraph.InvalidOptionError
        A bad option, a non-diagonal ``D``, a graph that is not chordal.

    Examples
    --------
    >>> import numpy as np, scipy.sparse
    >>> from spdgraph_gwishart import gwishart
    >>> band = scipy.sparse.csr_array(scipy.sparse.diags([1, 1, 1, 1], [-2, -1, 1, 2],
    ...                                                  shape=(6, 6), dtype="int8"))
    >>> k = gwishart_sparse(band, rng=np.random.default_rng(3), entries=None)
    >>> dense = gwishart(band.toarray().astype(bool), rng=np.random.default_rng(3),
    ...                  entries=None)
    >>> bool(np.array_equal(k.toarray(), dense))
    True
    """
    import scipy.sparse

    from spdgraph_gwishart._sparse_kernels import gram_upper, later_neighbours

    if algorithm not in ("auto", "exact"):
        raise spdgraph.InvalidOptionError(
            f"gwishart with sparse=True draws the chordal rows of algorithm='auto' (the exact "
            f"sampler's minimum fill-in order); algorithm={algorithm!r} is not available "
            "sparse. Pass algorithm='auto' (exact on a chordal graph), or sparse=False."
        )
    b = _check_number(b, "b (degrees of freedom)", lower=2.0, upper=MAX_B)
    a = scipy.sparse.csr_array(adjacency)
    p = a.shape[0]
    d = _diagonal_scale(D, p)
    plan = sparse_plan(a)
    check_sparse_cost(plan, max_flops)
    order = chordal_order(a, plan)
    ptr, idx = later_neighbours(plan.indptr, plan.indices, order)
    nu = np.diff(ptr).astype(np.float64)
    # the dense path's draws (exact.draw_block with no budget): a block of one proposal
    chi2 = rng.chisquare(b + nu, size=(1, p))[0]
    z = rng.standard_normal((1, idx.size))[0]
    d_perm = d[order]
    diag = np.sqrt(chi2 / d_perm)
    off = (1.0 / np.sqrt(d_perm))[idx] * z
    kdiag, koff = gram_upper(ptr, idx, diag, off)
    rows = np.repeat(np.arange(p, dtype=np.int64), np.diff(ptr))
    node_rows, node_cols = order[rows], order[idx]
    values = np.concatenate([kdiag, koff, koff])
    r = np.concatenate([order, node_rows, node_cols])
    c = np.concatenate([order, node_cols, node_rows])
    k = scipy.sparse.coo_array((values, (r, c)), shape=(p, p)).tocsr()
    k.sort_indices()
    return k
