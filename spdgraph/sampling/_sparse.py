"""The sparse path: ``spdgraph.sample(graph, method, sparse=True)``.

For graphs of a million nodes the dense path cannot run (one ``p x p`` matrix at
``p = 10**6`` is 8 TB). A generator that declares a ``sparse_function`` on its
:class:`~spdgraph.GeneratorSpec` (built in: ``dd``, ``huge``) builds its matrix
from a sparse adjacency without any dense intermediate, and the core here does
what the dense engine does, on the stored entries:

1. every argument checked first, by the one ``build_request`` of every layout
   (``sampling/_request.py``); there, :func:`refuse_for_layout` refuses what the
   sparse layout cannot honour (``chunks``, ``factor``, spectrum targets, a
   generator without the capability, naming those that have it);
2. the graph read to its sparse canonical form
   (:func:`spdgraph.sampling._adapt.adapt_graph_sparse`), and the sparse memory
   model run on its non-zeros (:func:`spdgraph.sampling._memory.check_sparse_memory`),
   before any matrix is made (:func:`sparse_graph`, also from ``build_request``);
3. matrix ``k`` drawn from the same stream as the dense path's matrix ``k``, its
   structure checked and its positive definiteness proven
   (:mod:`spdgraph.sampling._sparse_certify`), rescaled to unit diagonal as the
   dense path does (the same products, so the same bits given the same matrix);
   a matrix failing its certificate is redrawn from its own redraw stream;
4. the result the same labelled DataArray as the dense path's, backed by a
   PyData ``sparse.COO`` array, its ``adjacency`` coordinate sparse too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from spdgraph._machine import available_memory
from spdgraph.errors import (
    InvalidOptionError,
    MissingDependencyError,
    NumericalError,
    UncertifiedMatrixError,
)
from spdgraph.plugins import generators
from spdgraph.plugins.types import GeneratorSpec
from spdgraph.sampling._adapt import SparseGraph, adapt_graph_sparse, label_array
from spdgraph.sampling._engine import UNCERTIFIED_RAISE_HINT
from spdgraph.sampling._memory import check_sparse_memory, sparse_need
from spdgraph.sampling._output import LOWER_BOUND_ATTR
from spdgraph.sampling._randomized_certify import LOWER_BOUND_KEY
from spdgraph.sampling._record import SampleRequest
from spdgraph.seeds import MatrixStreams, redraw_stream

__all__ = ["coo_from_csr", "refuse_for_layout", "sample_sparse", "sparse_graph", "sparse_methods"]


def sparse_methods() -> list[str]:
    """The installed methods that can build a sparse result (``sample(..., sparse=True)``)."""
    return sorted(n for n, (g, _) in generators().items() if g.sparse_function is not None)


def refuse_for_layout(
    layout: str, gen: GeneratorSpec, arguments: Mapping[str, Any], grouped: bool
) -> None:
    """What a layout cannot do, refused by ``build_request`` after the table's checks:
    the sparse layout takes one graph, a method with a sparse construction, random
    draws and no spectrum target."""
    if layout != "sparse":
        return
    if grouped:
        raise InvalidOptionError(
            "sparse=True takes one graph; sample each related graph in its own call."
        )
    if gen.sparse_function is None:
        able = sparse_methods()
        raise InvalidOptionError(
            f"method {gen.name!r} cannot build a sparse result (it has no sparse "
            f"construction: its matrix needs a dense p x p array); sparse=True works with "
            f"{', '.join(map(repr, able)) or 'no installed method'}. Pass sparse=False, "
            "or one of those methods."
        )
    refused = ("chunks", "factor", "min_eigenvalue", "condition_number")
    named = [name for name in refused if arguments[name] is not None]
    if named:
        raise InvalidOptionError(
            f"sparse=True cannot be combined with {', '.join(named)}: a sparse result is "
            "built in memory (no dask chunks), from random draws (no explicit factor), "
            "without a spectrum control (it needs the eigenvalues of a dense matrix). "
            "Drop those arguments, or pass sparse=False."
        )


def sparse_graph(graph: object, gen: GeneratorSpec, complete: bool, n: int) -> SparseGraph:
    """The graph read once to its sparse canonical form, then the sparse memory model
    (:func:`spdgraph.sampling._memory.check_sparse_memory`) on its non-zeros."""
    sgraph = adapt_graph_sparse(graph, gen.name, complete=complete)
    check_sparse_memory(gen, sgraph.p, sgraph.edges, n)
    return sgraph


def sample_sparse(request: SampleRequest) -> xr.DataArray:
    """The sparse executor: the matrices of a checked ``layout="sparse"`` request, each
    proven positive definite (see the module docstring)."""
    sgraph, gen, root = request.graph, request.gen, request.root
    assert isinstance(sgraph, SparseGraph) and root is not None
    arguments = dict(request.generator_arguments(), kind=request.kind)
    need = sparse_need(gen, sgraph.p, sgraph.edges, request.n)
    available = available_memory()
    budget = None if available is None else max(0, available - need)
    who = f"generator {gen.name!r} (plugin {request.plugin!r})"
    streams = MatrixStreams(root, 0, request.n)
    matrices, certificates, redraws = [], [], []
    for k in range(request.n):
        matrix, certificate, r = _certified(
            sgraph, gen, who, k, streams[k], root, request.entries, arguments,
            normalize=request.normalize, uncertified=request.uncertified,
            max_redraws=request.max_redraws, budget=budget,
            randomized=request.arguments["certificate"] != "deterministic",
        )  # fmt: skip
        matrices.append(matrix)
        certificates.append(certificate)
        redraws.append(r)
        del matrix  # held by ``matrices`` alone, released there as the COO is built
    attrs = dict(request.attrs)
    attrs.update(_certificate_attrs(certificates, stacked=request.stacked))
    attrs["redraws"] = redraws if request.stacked else redraws[0]
    attrs["sparse"] = 1
    return sparse_dataarray(
        matrices, sgraph, kind=request.kind, stacked=request.stacked, attrs=attrs
    )


def _certified(
    sgraph: SparseGraph,
    gen: GeneratorSpec,
    who: str,
    k: int,
    rng: np.random.Generator,
    root: np.random.SeedSequence,
    sampler: Any,
    arguments: dict[str, Any],
    *,
    normalize: bool,
    uncertified: str,
    max_redraws: int,
    budget: int | None,
    randomized: bool = True,
) -> tuple[Any, dict[str, Any], int]:
    """Matrix ``k``, proven positive definite (redrawn when asked); its certificate."""
    error: Exception | None = None
    for r in range(max_redraws + 1 if uncertified == "redraw" else 1):
        stream = rng if r == 0 else redraw_stream(root, k, r)
        try:
            made = _made(
                sgraph, gen, who, k, stream, sampler, arguments, normalize, budget, randomized
            )
            return (*made, r)
        except (UncertifiedMatrixError, NumericalError) as exc:
            error = exc
    assert error is not None
    if uncertified == "raise":
        raise type(error)(f"{error}{UNCERTIFIED_RAISE_HINT}") from error
    raise type(error)(
        f"matrix {k} failed its certificate {max_redraws + 1} times (its draw and "
        f"max_redraws={max_redraws} redraws): this graph cannot be certified with method "
        f"{gen.name!r}. Last failure: {error}"
    ) from error


def _made(
    sgraph: SparseGraph,
    gen: GeneratorSpec,
    who: str,
    k: int,
    rng: np.random.Generator,
    sampler: Any,
    arguments: dict[str, Any],
    normalize: bool,
    budget: int | None,
    randomized: bool = True,
) -> tuple[Any, dict[str, Any]]:
    from spdgraph.errors import PluginError, SpdgraphError
    from spdgraph.sampling._sparse_certify import check_structure, prove_positive_definite

    assert gen.sparse_function is not None
    adjacency = sgraph.adjacency.copy()  # type: ignore[attr-defined]
    try:
        out = gen.sparse_function(adjacency, rng=rng, entries=sampler, **arguments)
    except (SpdgraphError, MemoryError):
        raise
    except Exception as exc:
        raise PluginError(
            f"{who} raised {type(exc).__name__} in its sparse_function: {exc} (a bug in the "
            "plugin; the original error is chained below)."
        ) from exc
    del adjacency  # the plugin's copy: not held while the matrix is checked
    notes: dict[str, Any] = {}
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
        out, notes = out
    csr = check_structure(out, sgraph.adjacency, who, k)
    del out  # from here ``csr`` alone holds the matrix (its values replaced when rescaled)
    weights: list[np.ndarray] = []
    if normalize:
        diagonal = csr.diagonal()
        csr = unit_diagonal_sparse(csr)
        weights.append(np.sqrt(diagonal))
    else:
        csr.data += 0.0  # -0.0 -> +0.0, as the dense path
    certificate = prove_positive_definite(
        csr, weights=weights, what=f"matrix {k} of {who}", budget_bytes=budget,
        randomized=randomized,
    )  # fmt: skip
    return csr, {**certificate, **{f"note_{key}": value for key, value in notes.items()}}


def unit_diagonal_sparse(csr: Any) -> Any:
    """``D^-1/2 M D^-1/2`` on the stored entries: ``m_ij * (d_i * d_j) + 0.0``, diagonal 1.

    The dense rescaling's operations in the same order, so the same bits for the
    same matrix; ``[i, j]`` and ``[j, i]`` use the same product (exact symmetry).
    """
    import scipy.sparse

    from spdgraph._kernels.sparse import rescale_unit_diagonal  # numba: lazy

    d = 1.0 / np.sqrt(csr.diagonal())
    data = np.empty_like(csr.data)  # a new value array; the index arrays are shared
    rescale_unit_diagonal(csr.indptr, csr.indices, csr.data, d, data)
    out = scipy.sparse.csr_array((data, csr.indices, csr.indptr), shape=csr.shape, copy=False)
    out.has_sorted_indices = csr.has_sorted_indices
    return out


def _certificate_attrs(certificates: list[dict[str, Any]], *, stacked: bool) -> dict[str, Any]:
    names = sorted({c["certificate"] for c in certificates})
    attrs: dict[str, Any] = {"certificate": "; ".join(names)}
    for key in sorted({key for c in certificates for key in c if key.startswith("note_")}):
        values = [c.get(key) for c in certificates]
        attrs[key[len("note_") :]] = values if stacked else values[0]
    if certificates:  # the proven bound: one number, the smallest over a stack
        attrs[LOWER_BOUND_ATTR] = min(float(c[LOWER_BOUND_KEY]) for c in certificates)
    failures = [float(c.get("certificate_failure_probability", 0.0)) for c in certificates]
    if any(failures):  # a randomized proof: its chance of error, per matrix
        attrs["certificate_failure_probability"] = failures if stacked else failures[0]
    bounds = [float(c.get("condition_bound", np.nan)) for c in certificates]
    if not all(np.isnan(bounds)):
        attrs["condition_bound"] = bounds if stacked else bounds[0]
    return attrs


def sparse_dataarray(
    matrices: list[Any], sgraph: SparseGraph, *, kind: str, stacked: bool, attrs: dict[str, Any]
) -> xr.DataArray:
    """The labelled DataArray of sparse matrices (``sparse.COO``), dims as the dense path's."""
    labels = (
        sgraph.labels
        if isinstance(sgraph.labels, np.ndarray) and sgraph.labels.dtype == np.int64
        else label_array(sgraph.labels)
    )
    coords: dict[str, Any] = {
        "node": ("node", labels),
        "node_2": ("node_2", labels),  # its index is its own (pandas copies)
    }
    dims: tuple[str, ...] = ("node", "node_2")
    if stacked:
        dims = ("sample", *dims)
        coords["sample"] = ("sample", np.arange(len(matrices), dtype=np.int64))
    values = coo_from_csr(matrices, stacked=stacked, shape=(sgraph.p, sgraph.p))
    out = xr.DataArray(values, dims=dims, coords=coords, name=kind, attrs=attrs)
    # assigned, not passed to the constructor, which deep-copies every coordinate
    adjacency = coo_from_csr([sgraph.adjacency])
    return out.assign_coords(adjacency=(("node", "node_2"), adjacency))


def coo_from_csr(
    matrices: list[Any], *, stacked: bool = False, shape: tuple[int, int] | None = None
) -> Any:
    """The PyData ``sparse.COO`` of canonical CSR matrices, stacked along a first axis.

    The entries in the order of ``sparse.COO.from_scipy_sparse`` and ``sparse.stack``
    (matrix, row, column), built in one pass with no full-size temporary: the
    coordinates ``(2, nnz)`` (``(3, nnz)`` stacked) in int32 where every index and
    the entry count fit (int64 otherwise), the values of one matrix shared with its
    CSR array, not copied. The CSR arrays are released from ``matrices`` (emptied)
    as they are read, so they and their COO are never all held at once.
    """
    from spdgraph._kernels.sparse import expand_rows  # numba: lazy

    sparse = require_pydata_sparse()
    if not stacked:
        (only,) = matrices
        shape = only.shape
    assert shape is not None
    total = sum(int(m.nnz) for m in matrices)
    index_type = np.int32 if max(*shape, len(matrices), total) < 2**31 else np.int64
    shared = None if stacked else _shared_block(matrices[0], index_type)
    coords = np.empty((3 if stacked else 2, total), dtype=index_type) if shared is None else shared
    # one matrix: its own value array; stacked: one array the values are copied into
    data = matrices[0].data if not stacked else np.empty(total, dtype=np.float64)
    start = 0
    for k in range(len(matrices)):
        csr, matrices[k] = matrices[k], None  # released: from here the COO holds it
        stop = start + int(csr.nnz)
        expand_rows(csr.indptr, coords[-2, start:stop])
        if not np.shares_memory(coords[-1, start:stop], csr.indices):
            coords[-1, start:stop] = csr.indices
        if stacked:
            coords[0, start:stop] = k
            data[start:stop] = csr.data
        start = stop
        del csr
    full_shape = (len(matrices), *shape) if stacked else shape
    matrices.clear()
    return sparse.COO(
        coords, data, shape=full_shape, has_duplicates=False, sorted=True, fill_value=0
    )


def _shared_block(csr: Any, index_type: type) -> np.ndarray | None:
    """The ``(2, nnz)`` block whose second row is ``csr.indices``, if it is one.

    A sparse function may allocate its column indices so (``dd`` does): the
    COO coordinates are then that block, its first row filled with the rows,
    and the indices are not copied.
    """
    block = csr.indices.base
    nnz = int(csr.nnz)
    if (
        isinstance(block, np.ndarray)
        and block.shape == (2, nnz)
        and block.dtype == index_type
        and block.flags.c_contiguous
        and csr.indices.size == nnz
        and csr.indices.ctypes.data == block[1].ctypes.data
    ):
        return block
    return None


def require_pydata_sparse() -> Any:
    """The PyData ``sparse`` module, or a MissingDependencyError naming the extra."""
    try:
        import sparse
    except ImportError as exc:  # pragma: no cover - sparse is in the large extra
        raise MissingDependencyError(
            'sparse results are PyData sparse arrays: pip install "spdgraph[large]"'
        ) from exc
    return sparse
