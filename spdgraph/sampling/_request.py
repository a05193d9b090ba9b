"""One sampling request, checked whole before any heavy work.

:func:`build_request` turns the arguments of :func:`spdgraph.sample` into a
:class:`SampleRequest`: every option checked (cheap checks first), the graph
adapted, the generator found, the seed root or explicit factors fixed, and
the memory the request needs compared with what the machine has. The eager
and lazy paths then only execute it.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph._version import __version__
from spdgraph.errors import FactorError, InvalidOptionError, TooLargeError, written
from spdgraph.plugins import find_generator, generators
from spdgraph.plugins.options import check_options
from spdgraph.plugins.types import GeneratorSpec, GraphData
from spdgraph.sampling._adapt import adapt_graph, count_nodes, recognise
from spdgraph.sampling._adapt_dag import adapt_dag, refuse_dag
from spdgraph.sampling._engine import UNCERTIFIED_MODES
from spdgraph.sampling._entries import resolve_entries
from spdgraph.sampling._lazy import check_chunks
from spdgraph.sampling._memory import MemoryCheck, MemoryNeed
from spdgraph.sampling._output import json_options
from spdgraph.sampling._progress import show_progress
from spdgraph.sampling._record import SampleCall, SampleRequest
from spdgraph.seeds import seed_attrs, seed_sequence
from spdgraph.spectrum import check_targets
from spdgraph.vocabulary import canonical_kind

__all__ = ["SampleCall", "SampleRequest", "build_request", "check_need", "estimate_need"]


def build_request(graph: object, call: SampleCall) -> SampleRequest:
    """Check every argument of one :func:`spdgraph.sample` call and return the request."""
    # 1. cheap argument checks, before any heavy work
    portable = _check_portable(call.portable)
    progress = call.progress
    if progress is not None and not isinstance(progress, bool | np.bool_):
        raise InvalidOptionError(
            f"progress must be True, False or None (automatic), got {written(progress)}."
        )
    kind = _check_kind(call.kind)
    size = _check_size(call.size)
    uncertified, max_redraws = _check_uncertified(call.uncertified, call.max_redraws)
    factor, negative_share = call.factor, call.negative_share
    memory = _memory_check_for(call)
    normalize, gen = memory.normalize, memory.gen
    eps, k0 = check_targets(call.min_eigenvalue, call.condition_number, normalize)
    sampler, entries_label = resolve_entries(call.entries, negative_share)
    plugin = find_generator(call.method)[1]
    options = check_options(call.method_options, gen.options, gen.name, plugin, generators)
    _check_factor_use(gen, factor, negative_share)
    # the seed too is checked before any graph is read (a bad seed after a large
    # adaptation would waste seconds and gigabytes)
    root: np.random.SeedSequence | None = seed_sequence(call.seed) if factor is None else None
    if portable:
        _check_portable_use(gen, plugin, eps, k0)
    # 2. the memory the request needs, from the node count, before any p x p array
    found = recognise(graph, gen.name if gen.accepts_dag else None)  # one backend, asked once
    counted = found.count_nodes()
    if counted is not None:
        memory.check(counted)
    # 3. the graph (directed acyclic for the DAG-capable methods only)
    if gen.accepts_dag:
        graph_data = adapt_dag(found, kind, gen.name)
    else:
        refuse_dag(
            graph, gen.name, sorted(n for n, (g, _) in generators().items() if g.accepts_dag)
        )
        graph_data = adapt_graph(found, gen.name, complete=call.complete)
    p = graph_data.adjacency.shape[0]
    if counted != p:  # no count (a backend without count_nodes), or a plugin
        memory.check(p)  # adapting a type differently: check right after adapting
    # 4. random streams or factors
    attrs = _provenance(gen.name, options, plugin, kind, normalize, eps, k0)
    attrs["portable"] = int(portable)
    attrs["uncertified"] = uncertified
    if gen.intended_kind is not None and gen.intended_kind != kind:
        attrs["kind_note"] = _kind_note(gen, kind)
    factors: np.ndarray | None = None
    if factor is not None:
        factors, n, stacked = _check_factor(factor, p, size)
        attrs["factor"] = "given"
        attrs["seed"] = "none (explicit factor)"
    else:
        n, stacked = (1 if size is None else size), size is not None
        assert root is not None
        attrs["entries"] = entries_label
        if negative_share is not None:
            attrs["negative_share"] = float(negative_share)  # type: ignore[arg-type]
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
        chunks=memory.chunks,
        root=root,
        factors=factors,
        attrs=attrs,
        progress=show_progress(
            None if progress is None else bool(progress), gen, p, _edges(graph_data), n
        ),
        portable=portable,
        uncertified=uncertified,
        max_redraws=max_redraws,
    )


def _check_uncertified(uncertified: object, max_redraws: object) -> tuple[str, int]:
    if uncertified not in UNCERTIFIED_MODES:
        raise InvalidOptionError(
            f"uncertified must be 'redraw' (draw a matrix that fails its certificate again "
            f"from its own stream) or 'raise', got {written(uncertified)}."
        )
    if (
        isinstance(max_redraws, bool)
        or not isinstance(max_redraws, numbers.Integral)
        or not 0 <= int(max_redraws) <= 10**6
    ):
        raise InvalidOptionError(
            "max_redraws must be an integer from 0 to 1,000,000 (redraws of one matrix "
            f"before the graph is declared uncertifiable), got {written(max_redraws)}."
        )
    return str(uncertified), int(max_redraws)


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


def _check_factor_use(gen: GeneratorSpec, factor: object, negative_share: object) -> None:
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


def _check_portable(portable: object) -> bool:
    if not isinstance(portable, bool | np.bool_):
        raise InvalidOptionError(f"portable must be True or False, got {written(portable)}.")
    return bool(portable)


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


def _check_kind(kind: object) -> str:
    return canonical_kind(kind)


def _check_size(size: object) -> int | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise InvalidOptionError(
            "size must be None (one matrix) or a non-negative integer (a stack), "
            f"got {written(size)}."
        )
    if size < 0:
        raise InvalidOptionError(f"size must be non-negative, got {written(size)}.")
    if int(size) > 2**53:  # decided on the integer: 10**400 never reaches float arithmetic
        raise TooLargeError(
            f"size = {written(size)} matrices is beyond any machine's memory; use a smaller "
            "size (the memory guard says how many fit)."
        )
    return int(size)


def _check_normalize(normalize: object) -> bool:
    if not isinstance(normalize, bool | np.bool_):
        raise InvalidOptionError(f"normalize must be True or False, got {written(normalize)}.")
    return bool(normalize)


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
    _check_kind(kind)
    memory = _memory_check_for(
        SampleCall(
            method,
            size=size,
            chunks=chunks,
            normalize=normalize,
            min_eigenvalue=min_eigenvalue,
            condition_number=condition_number,
        )
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
    _memory_check_for(SampleCall(method, **arguments)).check(p)


def _memory_check_for(call: SampleCall) -> MemoryCheck:
    """The memory guard of ``call`` (its size, chunks, normalize, targets and method
    checked: the cheap checks the guard needs)."""
    normalize = _check_normalize(call.normalize)
    eps, k0 = check_targets(call.min_eigenvalue, call.condition_number, normalize)
    gen, _ = find_generator(call.method)
    size, chunks = _check_size(call.size), check_chunks(call.chunks)
    return MemoryCheck(gen, size, call.factor, chunks, normalize, eps or k0)


#: The checks and records ``sample(..., sparse=True)`` shares with this module
#: (:mod:`spdgraph.sampling._sparse`), under public names.
check_kind = _check_kind
check_size = _check_size
check_normalize = _check_normalize
check_portable = _check_portable
check_portable_use = _check_portable_use
check_uncertified = _check_uncertified
kind_note = _kind_note
provenance = _provenance
