"""One sampling request, checked whole before any heavy work.

:func:`build_request` turns the arguments of :func:`spdgraph.sample` into a
:class:`SampleRequest`: every option checked (cheap checks first), the graph
adapted, the generator found, the seed root or explicit factors fixed, and
the memory the request needs compared with what the machine has. The eager
and lazy paths then only execute it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph._version import __version__
from spdgraph.errors import FactorError, InvalidOptionError
from spdgraph.parameters import check_sample_arguments
from spdgraph.plugins import find_generator, generators
from spdgraph.plugins.options import check_options
from spdgraph.plugins.types import GeneratorSpec, GraphData
from spdgraph.sampling._adapt import (
    Recognised,
    SparseGraph,
    adapt_graph,
    adapt_graph_sparse,
    count_nodes,
    recognise,
)
from spdgraph.sampling._adapt_dag import adapt_dag, refuse_dag
from spdgraph.sampling._entries import resolve_entries
from spdgraph.sampling._lazy import check_chunks
from spdgraph.sampling._memory import MemoryCheck, MemoryNeed
from spdgraph.sampling._output import json_options
from spdgraph.sampling._progress import show_progress
from spdgraph.sampling._record import SampleCall, SampleRequest
from spdgraph.sampling._sparse import refuse_for_layout, sparse_graph
from spdgraph.seeds import seed_attrs, seed_sequence
from spdgraph.spectrum import check_targets

__all__ = [
    "SampleCall",
    "SampleRequest",
    "adapt_for",
    "build_request",
    "check_need",
    "estimate_need",
]


def build_request(graph: object, call: SampleCall, *, grouped: bool = False) -> SampleRequest:
    """Check every argument of one :func:`spdgraph.sample` call and return the request.

    The one place ``sample()``'s arguments are checked, in one order for every
    layout (dense, stacked, lazy, sparse): the table first
    (:func:`spdgraph.parameters.check_sample_arguments`), then what depends on
    the method, then the layout's own refusals. The layout then chooses the
    memory model and the graph's form (dense or sparse), nothing else.
    ``grouped``: the call is one of a list of related graphs.
    """
    # 1. cheap argument checks, before any heavy work
    arguments = check_sample_arguments(call.arguments)
    layout = "sparse" if arguments["sparse"] else "lazy" if arguments["chunks"] else "dense"
    gen, plugin = find_generator(call.method)
    kind, size, normalize = arguments["kind"], arguments["size"], arguments["normalize"]
    factor, negative_share = arguments["factor"], arguments["negative_share"]
    eps, k0 = check_targets(arguments["min_eigenvalue"], arguments["condition_number"], normalize)
    sampler, entries_label = resolve_entries(arguments["entries"], negative_share)
    options = check_options(call.method_options, gen.options, gen.name, plugin, generators)
    _check_factor_use(gen, factor, negative_share, grouped)
    refuse_for_layout(layout, gen, arguments, grouped)
    chunks = check_chunks(arguments["chunks"])  # dask installed
    # the seed too is checked before any graph is read (a bad seed after a large
    # adaptation would waste seconds and gigabytes)
    root = seed_sequence(arguments["seed"]) if factor is None else None
    if arguments["portable"]:
        _check_portable_use(gen, plugin, eps, k0)
    # 2-3. the graph read once, the layout's memory model checked before any matrix
    n = 1 if size is None else size
    if layout == "sparse":
        graph_data: GraphData | SparseGraph = sparse_graph(graph, gen, arguments["complete"], n)
    else:
        memory = MemoryCheck(gen, size, factor, chunks, normalize, eps or k0)
        graph_data = _dense_graph(graph, gen, kind, arguments["complete"], memory)
    # 4. random streams or factors
    attrs = _provenance(gen.name, options, plugin, kind, normalize, eps, k0)
    attrs["portable"] = int(arguments["portable"])
    attrs["uncertified"] = arguments["uncertified"]
    if gen.intended_kind is not None and gen.intended_kind != kind:
        attrs["kind_note"] = _kind_note(gen, kind)
    factors: np.ndarray | None = None
    if factor is not None:
        assert isinstance(graph_data, GraphData)  # sparse=True refused it
        factors, n, stacked = _check_factor(factor, graph_data.adjacency.shape[0], size)
        attrs["factor"] = "given"
        attrs["seed"] = "none (explicit factor)"
    else:
        stacked = size is not None
        assert root is not None
        attrs["entries"] = entries_label
        if negative_share is not None:
            attrs["negative_share"] = float(negative_share)
        attrs.update(seed_attrs(root))
    return SampleRequest(
        graph=graph_data,
        gen=gen,
        plugin=plugin,
        kind=kind,
        n=n,
        stacked=stacked,
        normalize=normalize,
        entries=sampler,
        options=options,
        min_eigenvalue=eps,
        condition_number=k0,
        chunks=chunks,
        root=root,
        factors=factors,
        attrs=attrs,
        progress=_progress(arguments["progress"], gen, graph_data, n),
        portable=arguments["portable"],
        uncertified=arguments["uncertified"],
        max_redraws=arguments["max_redraws"],
        layout=layout,
        arguments=arguments,
    )


def _dense_graph(
    graph: object, gen: GeneratorSpec, kind: str, complete: bool, memory: MemoryCheck
) -> GraphData:
    """The graph read once (undirected, or directed for a DAG-capable method), the
    dense memory guard run from the node count before any ``p x p`` array exists."""
    found = recognise(graph, gen.name if gen.accepts_dag else None)  # one backend, asked once
    counted = found.count_nodes()
    if counted is not None:
        memory.check(counted)
    graph_data = _read(found, graph, gen, kind, complete)
    p = graph_data.adjacency.shape[0]
    if counted != p:  # no count (a backend without count_nodes), or a plugin
        memory.check(p)  # adapting a type differently: check right after adapting
    return graph_data


def _read(
    found: Recognised, graph: object, gen: GeneratorSpec, kind: str, complete: bool
) -> GraphData:
    if gen.accepts_dag:
        return adapt_dag(found, kind, gen.name)
    refuse_dag(graph, gen.name, sorted(n for n, (g, _) in generators().items() if g.accepts_dag))
    return adapt_graph(found, gen.name, complete=complete)


def adapt_for(
    graph: object,
    method: object = "po",
    *,
    kind: object = "covariance",
    complete: object = False,
    sparse: object = False,
) -> GraphData | SparseGraph:
    """``graph`` read once as ``sample(graph, method, kind=, complete=, sparse=)`` reads it.

    Directed acyclic for a DAG-capable method (its zero pattern that of
    ``kind``), undirected otherwise; sparse (a ``SparseGraph``) with
    ``sparse=True``. ``sample`` takes the result as it is, so a caller that needs
    the node count first (``spdgraph.simulate``) reads the graph once.

    >>> import networkx as nx
    >>> adapt_for(nx.gn_graph(5, seed=1), "dag").directed.sum()
    np.int64(4)
    """
    arguments = check_sample_arguments({"kind": kind, "complete": complete, "sparse": sparse})
    gen, _ = find_generator(method)
    if arguments["sparse"]:
        return adapt_graph_sparse(graph, gen.name, complete=arguments["complete"])
    found = recognise(graph, gen.name if gen.accepts_dag else None)
    return _read(found, graph, gen, arguments["kind"], arguments["complete"])


def _progress(asked: bool | None, gen: GeneratorSpec, graph: object, n: int) -> bool:
    """Whether the eager path shows a bar (never the sparse one)."""
    if not isinstance(graph, GraphData):
        return False
    return show_progress(asked, gen, graph.adjacency.shape[0], _edges(graph), n)


def _edges(graph: GraphData) -> int:
    return int(np.count_nonzero(graph.adjacency)) // 2


def _provenance(
    name: str,
    options: Mapping[str, Any],
    plugin: str,
    kind: str,
    normalize: bool,
    eps: float | None,
    k0: float | None,
) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "method": name,
        "method_options": json_options(options),
        "plugin": plugin,
        "kind": kind,
        "normalize": int(normalize),
        "spdgraph_version": __version__,
    }
    if eps is not None:
        attrs["min_eigenvalue_target"] = eps
    if k0 is not None:
        attrs["condition_number_target"] = k0
    return attrs


def _check_factor_use(
    gen: GeneratorSpec, factor: object, negative_share: object, grouped: bool
) -> None:
    if factor is not None and grouped:
        raise InvalidOptionError(
            "factor= cannot be given with several graphs; sample each graph on its own."
        )
    if factor is not None and not gen.accepts_factor:
        explicit = sorted(n for n, (g, _) in generators().items() if g.accepts_factor)
        raise InvalidOptionError(
            f"method {gen.name!r} does not take an explicit factor; factor is only for "
            f"{', '.join(map(repr, explicit)) or 'no installed method'}."
        )
    if factor is not None and negative_share is not None:
        raise InvalidOptionError(
            "negative_share controls the signs of random entries, but with an explicit "
            "factor nothing is drawn; set the signs in the factor instead."
        )


_KIND_NOTES_SHOWN: set[tuple[str, str]] = set()


def _kind_note(gen: GeneratorSpec, kind: str) -> str:
    """Why the kind asked for is not the one the method's rule is made for; warns once."""
    note = (
        f"method {gen.name!r} applies its rule to a {gen.intended_kind} matrix; this call "
        f"asked for kind={kind!r}, so the rule was applied to the {kind} instead (its "
        f"zeros are the graph's non-edges either way). Pass kind={gen.intended_kind!r} for "
        "the matrix the rule defines (R huge users expect kind='precision')."
    )
    if (gen.name, kind) not in _KIND_NOTES_SHOWN:
        _KIND_NOTES_SHOWN.add((gen.name, kind))
        warnings.warn(note, UserWarning, stacklevel=4)  # sample -> build_request -> here
    return note


def _check_portable_use(gen: GeneratorSpec, plugin: str, eps: object, k0: object) -> None:
    if not gen.portable:
        able = sorted(n for n, (g, _) in generators().items() if g.portable)
        raise InvalidOptionError(
            f"method {gen.name!r} (plugin {plugin!r}) does not declare portable results, so "
            f"portable=True cannot promise the same bits on every machine. Methods that "
            f"do: {', '.join(map(repr, able))}; or pass portable=False."
        )
    if eps is not None or k0 is not None:
        raise InvalidOptionError(
            "min_eigenvalue and condition_number need eigenvalues from LAPACK, whose bits "
            "depend on the CPU: they cannot be combined with portable=True. Pass "
            "portable=False, or no spectrum target."
        )


def _check_factor(factor: object, p: int, size: int | None) -> tuple[np.ndarray, int, bool]:
    """Validate ``factor``; return it as (n, p, p) float64, n and whether a stack."""
    try:
        f = np.asarray(factor)
        if f.dtype.kind not in "biuf":  # complex parts would be dropped, strings parsed
            raise TypeError(f"dtype {f.dtype}")
        f = f.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise FactorError(f"factor must be a real numeric array, got {exc}.") from exc
    if f.ndim == 2:
        if size is not None:
            raise FactorError(
                f"a 2-D factor gives one matrix but size={size}; pass size=None, or a "
                f"({size}, {p}, {p}) stack of factors."
            )
        stacked, f = False, f[None]
    elif f.ndim == 3:
        if size is not None and f.shape[0] != size:
            raise FactorError(
                f"factor holds {f.shape[0]} matrices but size={size}; make them agree "
                "(or pass size=None)."
            )
        stacked = True
    else:
        raise FactorError(f"factor must be (p, p) or (size, p, p), got shape {f.shape}.")
    if f.shape[1:] != (p, p):
        raise FactorError(
            f"factor rows are the node vectors: it must be {p} x {p} for this {p}-node "
            f"graph, got {f.shape[1]} x {f.shape[2]}."
        )
    if not np.all(np.isfinite(f)):
        raise FactorError("factor holds NaN or inf; every entry must be finite.")
    zero_rows = np.argwhere(~f.any(axis=2))
    if zero_rows.size:
        k, i = zero_rows[0]
        raise FactorError(
            f"factor {k} has an all-zero row {i}: it is rank deficient and Q Q^T cannot be "
            "positive definite. Every row must be a non-zero vector, and the rows linearly "
            "independent."
        )
    ranks = np.linalg.matrix_rank(f)
    deficient = np.flatnonzero(np.atleast_1d(ranks) < p)
    if deficient.size:
        k = int(deficient[0])
        raise FactorError(
            f"factor {k} has rank {int(np.atleast_1d(ranks)[k])} < {p}: its rows are linearly "
            "dependent, so Q Q^T cannot be positive definite. Use linearly independent rows."
        )
    return f, f.shape[0], stacked


def estimate_need(
    graph: object,
    method: object = "po",
    *,
    size: object = None,
    chunks: object = None,
    normalize: object = True,
    min_eigenvalue: object = None,
    condition_number: object = None,
    kind: object = "covariance",
) -> MemoryNeed:
    """The memory guard's estimate for ``spdgraph.sample(graph, method, ...)``.

    What the guard compares with :func:`available_memory` before any ``p x p``
    array exists (``benchmarks/bench_memory_guard.py`` prints it against the
    measured peak). ``kind`` is accepted for symmetry with ``sample`` and
    changes nothing.

    >>> import networkx as nx
    >>> need = estimate_need(nx.path_graph(1000), "dd")
    >>> need.p, need.matrices, need.bytes > 1000 * 1000 * 8
    (1000, 1, True)
    """
    memory = _memory_check_for(
        method,
        size=size,
        chunks=chunks,
        normalize=normalize,
        min_eigenvalue=min_eigenvalue,
        condition_number=condition_number,
        kind=kind,
    )
    p = count_nodes(graph)
    if p is None:
        p = adapt_graph(graph).adjacency.shape[0]
    return memory.need(p)


def check_need(p: int, method: object = "po", **arguments: Any) -> None:
    """The memory guard of ``spdgraph.sample`` for a graph of ``p`` nodes not built yet.

    ``arguments``: those of :func:`estimate_need` but ``kind``. The command line
    runs it before it makes a ``--graph-family`` graph, so a request that cannot
    fit is refused before the graph costs anything. Raises
    :class:`~spdgraph.errors.TooLargeError` as ``sample`` would.
    """
    _memory_check_for(method, **arguments).check(p)


def _memory_check_for(method: object, **given: object) -> MemoryCheck:
    """The dense memory guard of a call: its arguments checked by the table, then its
    targets and method (the cheap checks the guard needs)."""
    arguments = check_sample_arguments(given)
    normalize = arguments["normalize"]
    eps, k0 = check_targets(arguments["min_eigenvalue"], arguments["condition_number"], normalize)
    gen, _ = find_generator(method)
    chunks = check_chunks(arguments["chunks"])
    return MemoryCheck(gen, arguments["size"], None, chunks, normalize, eps or k0)
