"""The sparse path: ``spdgraph.sample(graph, method, sparse=True)``.

For graphs of a million nodes the dense path cannot run (one ``p x p`` matrix at
``p = 10**6`` is 8 TB). A generator that declares a ``sparse_function`` on its
:class:`~spdgraph.GeneratorSpec` (built in: ``dd``, ``huge``) builds its matrix
from a sparse adjacency without any dense intermediate, and the core here does
what the dense engine does, on the stored entries:

1. every argument checked first; options the sparse path cannot honour (``chunks``,
   ``factor``, spectrum targets) refused, a generator without the capability
   refused naming those that have it;
2. the graph read to its sparse canonical form
   (:func:`spdgraph.sampling._adapt.adapt_graph_sparse`), and the memory guard
   run on its non-zeros (:func:`sparse_need`), before any matrix is made;
3. matrix ``k`` drawn from the same stream as the dense path's matrix ``k``, its
   structure checked and its positive definiteness proven
   (:mod:`spdgraph.sampling._sparse_certify`), rescaled to unit diagonal as the
   dense path does (the same products, so the same bits given the same matrix);
   a matrix failing its certificate is redrawn from its own redraw stream;
4. the result the same labelled DataArray as the dense path's, backed by a
   PyData ``sparse.COO`` array, its ``adjacency`` coordinate sparse too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from spdgraph._machine import available_memory
from spdgraph.errors import (
    InvalidOptionError,
    MissingDependencyError,
    NumericalError,
    TooLargeError,
    UncertifiedMatrixError,
    written,
)
from spdgraph.plugins import find_generator, generators
from spdgraph.plugins.options import check_options
from spdgraph.plugins.types import GeneratorSpec
from spdgraph.sampling._adapt import SparseGraph, adapt_graph_sparse, label_array
from spdgraph.sampling._record import SampleCall
from spdgraph.seeds import MatrixStreams, redraw_stream, seed_attrs, seed_sequence

__all__ = ["BYTES_PER_ENTRY", "BYTES_PER_NODE", "sample_sparse", "sparse_methods", "sparse_need"]

#: The core's bytes per stored entry of one matrix: the generator's CSR (value and
#: index), the structure checks' boolean copies and transpose, the rescaling, the
#: output COO (value and two int64 coordinates) and the certificate's int64 copies
#: of the index arrays.
BYTES_PER_ENTRY = 96
#: Bytes per node: diagonal, weights, row sums and the certificate's margins.
BYTES_PER_NODE = 96


def sparse_methods() -> list[str]:
    """The installed methods that can build a sparse result (``sample(..., sparse=True)``)."""
    return sorted(n for n, (g, _) in generators().items() if g.sparse_function is not None)


def sparse_need(gen: GeneratorSpec, p: int, edges: int, matrices: int) -> int:
    """Bytes of ``matrices`` sparse matrices on ``p`` nodes and ``edges`` edges in flight."""
    entries = 2 * edges + p
    per_matrix = entries * (BYTES_PER_ENTRY + gen.sparse_work_per_entry) + p * BYTES_PER_NODE
    graph = 2 * edges * 24  # the adjacency (CSR) and its COO coordinates
    return int(graph + matrices * per_matrix)


def _refuse_unsupported(call: SampleCall, gen: GeneratorSpec) -> None:
    if gen.sparse_function is None:
        able = sparse_methods()
        raise InvalidOptionError(
            f"method {gen.name!r} cannot build a sparse result (it has no sparse "
            f"construction: its matrix needs a dense p x p array); sparse=True works with "
            f"{', '.join(map(repr, able)) or 'no installed method'}. Pass sparse=False, "
            "or one of those methods."
        )
    refused = {
        "chunks": call.chunks is not None,
        "factor": call.factor is not None,
        "min_eigenvalue": call.min_eigenvalue is not None,
        "condition_number": call.condition_number is not None,
    }
    named = [name for name, given in refused.items() if given]
    if named:
        raise InvalidOptionError(
            f"sparse=True cannot be combined with {', '.join(named)}: a sparse result is "
            "built in memory (no dask chunks), from random draws (no explicit factor), "
            "without a spectrum control (it needs the eigenvalues of a dense matrix). "
            "Drop those arguments, or pass sparse=False."
        )


def sample_sparse(graph: object, call: SampleCall) -> xr.DataArray:
    """The sparse path of :func:`spdgraph.sample` (see the module docstring)."""
    from spdgraph.sampling._entries import resolve_entries
    from spdgraph.sampling._request import (
        check_kind,
        check_normalize,
        check_portable,
        check_portable_use,
        check_size,
        check_uncertified,
        kind_note,
        provenance,
    )

    # 1. cheap checks, before the graph is read
    kind = check_kind(call.kind)
    size = check_size(call.size)
    normalize = check_normalize(call.normalize)
    portable = check_portable(call.portable)
    uncertified, max_redraws = check_uncertified(call.uncertified, call.max_redraws)
    if call.progress is not None and not isinstance(call.progress, bool | np.bool_):
        raise InvalidOptionError(
            f"progress must be True, False or None (automatic), got {written(call.progress)}."
        )
    gen, plugin = find_generator(call.method)
    if gen.accepts_dag:
        raise InvalidOptionError(
            f"method {gen.name!r} takes a DAG; sparse=True works with "
            f"{', '.join(map(repr, sparse_methods()))}."
        )
    _refuse_unsupported(call, gen)
    options = check_options(call.method_options, gen.options, gen.name, plugin)
    if portable:
        check_portable_use(gen, plugin, None, None)
    sampler, entries_label = resolve_entries(call.entries, call.negative_share)
    root = seed_sequence(call.seed)
    n = 1 if size is None else size
    # 2. the graph, sparse, and the memory guard on its non-zeros
    sgraph = adapt_graph_sparse(graph, gen.name, complete=call.complete)
    need = sparse_need(gen, sgraph.p, sgraph.edges, n)
    available = available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{n} sparse matri{'x' if n == 1 else 'ces'} on {sgraph.p:,} nodes and "
            f"{sgraph.edges:,} edges need about {need / 2**30:,.1f} GiB "
            f"({BYTES_PER_ENTRY + gen.sparse_work_per_entry:.0f} bytes per stored entry) "
            f"but only {available / 2**30:,.1f} GiB is available; ask for fewer matrices "
            "(a smaller size) or use a graph with fewer edges."
        )
    attrs = provenance(gen.name, options, plugin, kind, normalize, None, None)
    attrs.update(portable=int(portable), uncertified=uncertified, entries=entries_label)
    if call.negative_share is not None:
        attrs["negative_share"] = float(call.negative_share)  # type: ignore[arg-type]
    if gen.intended_kind is not None and gen.intended_kind != kind:
        attrs["kind_note"] = kind_note(gen, kind)
    attrs.update(seed_attrs(root))
    arguments = dict(options, kind=kind)
    if portable:
        arguments["portable"] = True
    # 3. the matrices, each proven positive definite
    who = f"generator {gen.name!r} (plugin {plugin!r})"
    streams = MatrixStreams(root, 0, n)
    matrices, certificates, redraws = [], [], []
    budget = None if available is None else max(0, available - need)
    for k in range(n):
        matrix, certificate, r = _certified(
            sgraph, gen, who, k, streams[k], root, sampler, arguments,
            normalize=normalize, uncertified=uncertified, max_redraws=max_redraws,
            budget=budget, randomized=call.certificate != "deterministic",
        )  # fmt: skip
        matrices.append(matrix)
        certificates.append(certificate)
        redraws.append(r)
    attrs.update(_certificate_attrs(certificates, stacked=size is not None))
    attrs["redraws"] = redraws if size is not None else redraws[0]
    attrs["sparse"] = 1
    return sparse_dataarray(matrices, sgraph, kind=kind, stacked=size is not None, attrs=attrs)


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
        raise error
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
    notes: dict[str, Any] = {}
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
        out, notes = out
    csr = check_structure(out, sgraph.adjacency, who, k)
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
    from spdgraph._kernels.sparse import rescale_unit_diagonal  # numba: lazy

    d = 1.0 / np.sqrt(csr.diagonal())
    out = csr.copy()
    out.data = rescale_unit_diagonal(csr.indptr, csr.indices, csr.data, d)
    return out


def _certificate_attrs(certificates: list[dict[str, Any]], *, stacked: bool) -> dict[str, Any]:
    names = sorted({c["certificate"] for c in certificates})
    attrs: dict[str, Any] = {"certificate": "; ".join(names)}
    for key in sorted({key for c in certificates for key in c if key.startswith("note_")}):
        values = [c.get(key) for c in certificates]
        attrs[key[len("note_") :]] = values if stacked else values[0]
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
    sparse = require_pydata_sparse()
    labels = (
        sgraph.labels
        if isinstance(sgraph.labels, np.ndarray) and sgraph.labels.dtype == np.int64
        else label_array(sgraph.labels)
    )
    coords: dict[str, Any] = {
        "node": ("node", labels),
        "node_2": ("node_2", labels.copy()),
        "adjacency": (("node", "node_2"), sparse.COO.from_scipy_sparse(sgraph.adjacency)),
    }
    parts = [sparse.COO.from_scipy_sparse(m) for m in matrices]
    dims: tuple[str, ...] = ("node", "node_2")
    if stacked:
        values = sparse.stack(parts) if parts else sparse.zeros((0, sgraph.p, sgraph.p))
        dims = ("sample", *dims)
        coords["sample"] = ("sample", np.arange(len(parts), dtype=np.int64))
    else:
        values = parts[0]
    return xr.DataArray(values, dims=dims, coords=coords, name=kind, attrs=attrs)


def require_pydata_sparse() -> Any:
    """The PyData ``sparse`` module, or a MissingDependencyError naming the extra."""
    try:
        import sparse
    except ImportError as exc:  # pragma: no cover - sparse is in the large extra
        raise MissingDependencyError(
            'sparse results are PyData sparse arrays: pip install "spdgraph[large]"'
        ) from exc
    return sparse
