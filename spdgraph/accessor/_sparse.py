"""The accessor on sparse results (``sample(..., sparse=True)``): never densified.

A DataArray backed by a PyData ``sparse`` array gets the sparse counterparts of
``draw`` (exact Gaussian data through a sparse Cholesky factorization, or
conjugate gradients when asked), ``check`` (the structure on the stored
entries and a proof of positive definiteness), ``partial_correlation`` (on the
stored entries of a precision), ``graph`` (from the sparse adjacency) and
``to_numpy`` (refused when the dense array would not fit).
"""

from __future__ import annotations

import numbers
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from spdgraph._machine import available_memory
from spdgraph.accessor._units import (
    CHOLMOD_LOCK,
    CgDrawer,
    CholeskyDrawer,
    UnitDrawer,
    draw_rows,
    unit_rows,
)
from spdgraph.errors import InvalidOptionError, MatrixError, written
from spdgraph.layout import dense_values, is_sparse
from spdgraph.seeds import SeedLike, seed_attrs, seed_sequence

if TYPE_CHECKING:  # pragma: no cover
    from spdgraph.accessor._layout import SpdArrayView

__all__ = [
    "DRAW_METHODS",
    "check_sparse",
    "draw_sparse",
    "is_sparse",
    "sparse_adjacency",
    "sparse_graph",
    "sparse_partial_correlation",
    "sparse_to_numpy",
]

#: ``da.spd.draw(method=...)`` on a sparse matrix: exact (sparse Cholesky) or
#: conjugate gradients (exact up to the recorded tolerance).
DRAW_METHODS = ("cholesky", "cg")


def _matrices(da: xr.DataArray, stacked: bool) -> list[Any]:
    """The matrices as canonical float64 CSR arrays (one per matrix of a stack)."""
    import scipy.sparse

    data = da.data
    parts = [data[k] for k in range(data.shape[0])] if stacked else [data]
    out = []
    for part in parts:
        csr = scipy.sparse.csr_array(part.to_scipy_sparse(), dtype=np.float64)
        csr.sum_duplicates()
        out.append(csr)
    return out


def _checked(csr: Any, k: int, what: str) -> Any:
    """``csr`` after the finite and exact-symmetry checks (a MatrixError naming the entry)."""
    from spdgraph._kernels.sparse import symmetric_pattern_values

    if not np.all(np.isfinite(csr.data)):
        raise MatrixError(f"{what} needs finite values; matrix {k} holds NaN or inf.")
    code, i, j = symmetric_pattern_values(
        csr.indptr.astype(np.int64), csr.indices.astype(np.int64), csr.data
    )
    if code:
        raise MatrixError(
            f"{what} needs symmetric matrices; matrix {k} has [{i}, {j}] = {csr[i, j]!r} but "
            f"[{j}, {i}] = {csr[j, i]!r}."
        )
    return csr


def draw_sparse(
    view: SpdArrayView,
    n_obs: int,
    seed: SeedLike,
    *,
    method: str = "cholesky",
    tolerance: float = 1e-10,
    layout: Any = None,
    check_memory: Any = None,
    chunks: int | None = None,
) -> xr.DataArray:
    """Gaussian data from a sparse precision or covariance, exactly (see ``da.spd.draw``).

    ``layout(da, stacked, n_obs) -> (coords, dims)`` and ``check_memory(n, n_obs,
    p)`` are those of the dense draws (:mod:`spdgraph.accessor._draw` passes them).
    The data are drawn unit by unit (:mod:`spdgraph.accessor._units`): in memory the
    peak is the factor, the output and a few units, never a copy of the data;
    with ``chunks`` a dask array whose blocks all read the one factor task.

    ``method="cholesky"``: ``P K P^T = L L^T`` (CHOLMOD, AMD order; the factor's
    size predicted first and refused when it would not fit) and ``x = P^T L^-T z``
    for a precision ``K``; for a covariance ``S``, ``y`` drawn so from ``S`` as if
    a precision, then ``x = S y`` (``Cov = S S^-1 S = S``). ``method="cg"``:
    ``x = K^-1 B w`` with ``W K W = B B^T`` split edge by edge from a proven
    weighted diagonal dominance (``B`` sparse, ``w`` i.i.d. N(0, 1)), each
    system solved by conjugate gradients to the relative residual
    ``tolerance`` (recorded in the attrs): the law is N(0, K^-1) up to that
    tolerance. Data of matrix ``k`` come from the same stream as the dense
    path's (``z`` the same normal draws for ``"cholesky"``).
    """
    from spdgraph.sampling import ACHIEVED_SPECTRUM

    if method not in DRAW_METHODS:
        raise InvalidOptionError(
            f"method must be 'cholesky' (exact) or 'cg' (conjugate gradients, exact up to "
            f"tolerance), got {written(method)}."
        )
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, numbers.Real)
        or not 0 < float(tolerance) < 1
    ):
        raise InvalidOptionError(
            f"tolerance must be a number in (0, 1) (the conjugate gradients' relative "
            f"residual), got {written(tolerance)}."
        )
    kind = view._require_scale("draw()")
    stacked = view._stacked()
    root = seed_sequence(seed)
    matrices = _matrices(view._da, stacked)
    n, p = len(matrices), int(view._da.shape[-1])
    check_memory(n, n_obs, p)
    streams = view._stream_indices(stacked, n)
    adjacency = _adjacency_csr(view._da) if view._structural() else None
    makers, entries = [], []
    for k, csr in enumerate(matrices):
        _checked(csr, k, "draw()")
        if adjacency is not None:
            _check_structure(csr, adjacency, k, "draw()")
        plan = (
            _plan(csr, k, 8 * p * (n_obs if chunks is None else chunks))
            if method == "cholesky"
            else None
        )
        entries.append(0 if plan is None else plan.factor_entries)
        recipe = (kind, method, float(tolerance), plan)
        makers.append(partial(sparse_drawer, csr, k, recipe, root, streams[k], n_obs))
    del adjacency, matrices  # checked: only the makers' matrices stay while drawing
    out = draw_rows(makers, n_obs, p, chunks)
    da = view._da
    coords, dims = layout(da, stacked, n_obs)
    attrs: dict[str, Any] = {
        f"matrix_{key}": v for key, v in da.attrs.items() if key not in ACHIEVED_SPECTRUM
    }
    attrs.update({"source_kind": kind, "n_obs": n_obs, **seed_attrs(root)})
    attrs["draw_unit_rows"] = unit_rows(p)
    if method == "cholesky":
        attrs["draw_method"] = "sparse Cholesky (CHOLMOD, AMD order): exact"
        attrs["factor_entries"] = entries if stacked else entries[0]
    else:
        attrs["draw_method"] = (
            "conjugate gradients on a dominance splitting: exact up to the tolerance"
        )
        attrs["draw_tolerance"] = float(tolerance)
    return xr.DataArray(
        out if stacked else out[0], dims=dims, coords=coords, name="data", attrs=attrs
    )


def _plan(csr: Any, k: int, data_bytes: int) -> Any:
    """Matrix ``k``'s factor planned (AMD, its size counted) and refused, before any work,
    when it would not fit beside ``data_bytes`` of data and a few draw units."""
    from spdgraph._kernels.sparse_cholesky import plan_factor

    available = available_memory()
    held = data_bytes + 8 * 4 * unit_rows(csr.shape[0]) * csr.shape[0]
    budget = None if available is None else max(0, available - held)
    return plan_factor(csr, budget_bytes=budget, what=f"matrix {k}")


def sparse_drawer(
    csr: Any,
    k: int,
    recipe: tuple[str, str, float, Any],
    root: np.random.SeedSequence,
    stream: int,
    n_obs: int,
) -> UnitDrawer:
    """Matrix ``k``'s drawer (:mod:`spdgraph.accessor._units`): its sparse Cholesky factor
    (in the planned order) or, for ``method="cg"``, its dominance splitting."""
    from spdgraph._kernels.sparse_cholesky import SparseFactor
    from spdgraph.errors import NumericalError

    kind, method, tolerance, plan = recipe
    if method == "cg":
        split = dominance_split(csr, k)
        return CgDrawer(root, stream, n_obs, csr, split, (k, tolerance, kind == "precision"))
    try:
        with CHOLMOD_LOCK:
            factor = SparseFactor(csr, plan, what=f"matrix {k}")
    except NumericalError as exc:
        raise MatrixError(f"draw() needs positive definite matrices: {exc}") from exc
    return CholeskyDrawer(root, stream, n_obs, factor, None if kind == "precision" else csr)


def dominance_split(csr: Any, k: int) -> tuple[Any, np.ndarray]:
    """``(B, w)`` with ``W K W = B B^T``: one column per edge and per node, from a proven
    weighted diagonal dominance (``W = diag(w)``); a MatrixError when none is found."""
    import scipy.sparse

    from spdgraph._kernels.sparse import UNIT_ROUNDOFF, dominance_margins
    from spdgraph.sampling import comparison_weights

    indptr, indices = csr.indptr.astype(np.int64), csr.indices.astype(np.int64)
    diagonal = csr.diagonal()
    if not np.all(diagonal > 0):
        raise MatrixError(
            f"draw() needs positive definite matrices; matrix {k} has a "
            "non-positive diagonal entry."
        )
    for w in (np.sqrt(diagonal), np.ones(csr.shape[0]), comparison_weights(csr)):
        if w is None or not np.all(w > 0):
            continue
        _, _, passes = dominance_margins(indptr, indices, csr.data, w, UNIT_ROUNDOFF)
        if passes.all():
            break
    else:
        raise MatrixError(
            f"draw(method='cg') splits the matrix by its diagonal dominance, and matrix {k} "
            "is not (generalized) diagonally dominant; use method='cholesky'."
        )
    weights = scipy.sparse.diags_array(w)
    scaled = scipy.sparse.csr_array(weights @ csr @ weights)
    upper = scipy.sparse.triu(scaled, k=1, format="coo")
    m = upper.data
    edges = m.size
    root = np.sqrt(np.abs(m))
    columns = np.arange(edges)
    # column e: sqrt|m_ij| (e_i + sign(m_ij) e_j); its outer product puts |m_ij| on i and j
    b_edges = scipy.sparse.csc_array(
        (np.concatenate([root, np.sign(m) * root]),
         (np.concatenate([upper.row, upper.col]), np.concatenate([columns, columns]))),
        shape=(csr.shape[0], edges),
    )  # fmt: skip
    off_sums = np.asarray(abs(scaled).sum(axis=1)).ravel() - np.abs(scaled.diagonal())
    residual = np.maximum(scaled.diagonal() - off_sums, 0.0)
    b = scipy.sparse.hstack([b_edges, scipy.sparse.diags_array(np.sqrt(residual))], format="csr")
    return b, w


def check_sparse(view: SpdArrayView) -> xr.DataArray:
    """``da.spd.check()`` on a sparse result: structure on the stored entries, PD proven.

    The proven lower bound of the smallest eigenvalue (what the proofs give, the
    smallest over a stack) is shown in ``attrs["certificate_lambda_min_lower_bound"]``.
    """
    from spdgraph.sampling import prove_positive_definite

    da = view._da
    adjacency = _adjacency_csr(da)
    structural = view._structural()
    bounds: list[float] = []
    for k, csr in enumerate(_matrices(da, view._stacked())):
        _checked(csr, k, "check()")
        if structural:
            _check_structure(csr, adjacency, k, "check()")
        try:
            proof = prove_positive_definite(
                csr, what=f"matrix {k}", budget_bytes=available_memory()
            )
        except (ArithmeticError, ValueError) as exc:
            raise MatrixError(f"matrix {k} is not proven positive definite: {exc}") from exc
        bounds.append(float(proof["note_certificate_lambda_min_lower_bound"]))
    if bounds:  # what the proof gives, the smallest over a stack (as the sampler records it)
        da.attrs["certificate_lambda_min_lower_bound"] = min(bounds)
    return da


def _check_structure(csr: Any, adjacency: Any, k: int, what: str) -> None:
    """A MatrixError when matrix ``k`` stores a non-zero on a non-edge of ``adjacency``
    (its structural zeros), as the dense accessor refuses such a matrix."""
    from spdgraph._kernels.sparse import first_structure_violation

    code, i, j = first_structure_violation(
        csr.indptr.astype(np.int64), csr.indices.astype(np.int64), csr.data,
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int64),
    )  # fmt: skip
    if code == 2:
        raise MatrixError(
            f"{what}: matrix {k} is non-zero at [{i}, {j}], a non-edge of its adjacency "
            "coordinate: the zeros must be exactly the non-edges. Fix the values or the "
            "coordinate, or set attrs['structural_zeros'] = 0 if its zeros are not the graph."
        )


def _adjacency_csr(da: xr.DataArray) -> Any:
    import scipy.sparse

    if "adjacency" not in da.coords:
        raise MatrixError("this array has no 'adjacency' coordinate, so its graph is unknown.")
    adj = da.coords["adjacency"].data
    matrix = adj.to_scipy_sparse() if hasattr(adj, "to_scipy_sparse") else np.asarray(adj)
    csr = scipy.sparse.csr_array(matrix, dtype=bool)
    csr.sum_duplicates()
    return csr


def sparse_partial_correlation(view: SpdArrayView) -> xr.DataArray:
    """``-omega_ij / sqrt(omega_ii omega_jj)`` on the stored entries of a sparse precision."""
    import sparse

    kind = view._require_scale("partial_correlation()")
    if kind != "precision":
        raise MatrixError(
            "partial_correlation() of a sparse covariance needs its inverse, which is dense; "
            "sample kind='precision' with sparse=True for sparse partial correlations."
        )
    stacked = view._stacked()
    parts = []
    for csr in _matrices(view._da, stacked):
        d = 1.0 / np.sqrt(csr.diagonal())
        coo = csr.tocoo()
        values = -coo.data * (d[coo.row] * d[coo.col]) + 0.0
        values[coo.row == coo.col] = 1.0
        coo.data = values
        parts.append(sparse.COO.from_scipy_sparse(coo))
    return view._derived(sparse.stack(parts), "partial_correlation", structural=True)


def sparse_graph(view: SpdArrayView, backend: str) -> Any:
    """The graph from the sparse adjacency coordinate, in ``backend``'s type.

    Built by the backend's ``from_sparse`` from the upper-triangle edges (no
    ``p x p`` array); a backend without ``from_sparse`` gets the dense
    adjacency through ``from_graph`` when it fits (else a TooLargeError).
    """
    import scipy.sparse

    from spdgraph.accessor._graph_out import graph_out, sparse_graph_out

    adjacency = _adjacency_csr(view._da)
    kind = view._graph_kind(view._kind_or_none() or "covariance")
    upper = scipy.sparse.csr_array(scipy.sparse.triu(adjacency, k=1), dtype=np.int8)
    upper.sort_indices()
    built = sparse_graph_out(upper, view._labels(), kind, backend)
    if built is not None:
        return built
    dense = np.asarray(dense_values(view._da.coords["adjacency"], f"graph({backend!r})"))
    return graph_out(dense, view._labels(), kind, backend)


def sparse_adjacency(da: xr.DataArray) -> Any:
    """The graph as a symmetric boolean PyData ``sparse.COO`` (never densified)."""
    import sparse

    return sparse.COO.from_scipy_sparse(_adjacency_csr(da).tocoo()).astype(bool)


def sparse_to_numpy(view: SpdArrayView) -> np.ndarray:
    """The dense values, refused before allocation when they would not fit."""
    return np.asarray(dense_values(view._da, "to_numpy()"), dtype=np.float64)


def sparse_plot(view: SpdArrayView, sample: int | None = None) -> Any:
    """``da.spd.plot()`` of a sparse result: degree and off-diagonal value histograms.

    A heatmap of ``p x p`` pixels means nothing at ``p = 10**6``: the figure shows
    the graph's degree distribution and the distribution of the off-diagonal
    stored values (partial correlations for a precision, the values of a
    covariance), computed on the stored entries.
    """
    import matplotlib.pyplot as plt

    da = view._da
    stacked = view._stacked()
    k = 0 if sample is None else int(sample)
    csr = _matrices(da.isel(sample=[k]) if stacked else da, stacked)[0]
    adjacency = _adjacency_csr(da)
    degrees = np.diff(adjacency.indptr)
    kind = view._kind()
    coo = csr.tocoo()
    off = coo.row != coo.col
    values = coo.data[off]
    title = kind
    if kind == "precision":
        d = 1.0 / np.sqrt(csr.diagonal())
        values = -values * (d[coo.row[off]] * d[coo.col[off]])
        title = "partial correlations"
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.hist(degrees, bins=min(50, max(1, int(degrees.max()) + 1)))
    left.set_title(f"degrees ({adjacency.shape[0]:,} nodes)")
    left.set_xlabel("degree")
    right.hist(values, bins=60)
    right.set_title(f"{title}, off the diagonal ({values.size:,} entries)")
    return fig
