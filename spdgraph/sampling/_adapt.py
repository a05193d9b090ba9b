"""Graph adaptation: any graph object to canonical adjacency plus node labels.

The ``spdgraph_adapt_graph`` hook finds the adapter; this module validates
what it returns and turns labels into a coordinate array.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from spdgraph.errors import GraphError, GraphTypeError, PluginError, SpdgraphError
from spdgraph.plugins import broken_plugins as broken_plugins_now
from spdgraph.plugins import get_plugin_manager, mark_broken
from spdgraph.plugins.types import GraphData

__all__ = [
    "adapt_graph",
    "call_adapters",
    "check_adapted_matrix",
    "check_unique_labels",
    "count_nodes",
    "label_array",
]


def call_adapters(hook: str, graph: object) -> Any:
    """The first non-None answer of ``hook``'s implementations (pluggy's order), each alone.

    An implementation raising an error that is not spdgraph's (a bug in an
    adapter plugin) marks its plugin broken with one warning and is skipped, so
    the other adapters still see the graph; when none of them takes it, the
    faulty plugin's error is raised as a :class:`~spdgraph.errors.PluginError`
    naming it, the original chained.
    """
    impls = getattr(get_plugin_manager().hook, hook).get_hookimpls()
    failure: PluginError | None = None
    for impl in reversed(impls):  # pluggy calls the last registered first
        if impl.plugin_name in broken_plugins_now():
            continue
        try:
            result = impl.function(graph=graph)
        except SpdgraphError:
            raise  # a deliberate refusal (a directed graph, a bad array, ...)
        except Exception as exc:
            mark_broken(impl.plugin_name, f"its {hook} raised {type(exc).__name__}: {exc}")
            failure = failure or PluginError(
                f"the graph adapter of plugin {impl.plugin_name!r} raised "
                f"{type(exc).__name__}: {exc}"
            )
            failure.__cause__ = failure.__cause__ or exc
            continue
        if result is not None:
            return result
    if failure is not None:
        raise failure
    return None


def adapt_graph(graph: object) -> GraphData:
    """Turn any supported graph object into canonical adjacency plus labels.

    Dispatches to the ``spdgraph_adapt_graph`` hook (built-in adapters handle
    networkx, igraph, rustworkx, NetworKit, numpy, scipy.sparse, PyData sparse,
    pandas and xarray inputs) and
    validates the result.

    Parameters
    ----------
    graph
        A graph object some registered adapter recognises.

    Returns
    -------
    GraphData
        Boolean symmetric adjacency with a False diagonal, and the node labels.

    Raises
    ------
    GraphTypeError
        No adapter recognises the object.
    GraphError
        The object is recognised but invalid (directed, parallel edges, ...).

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> g = spdgraph.adapt_graph(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.adjacency.sum()
    (['a', 'b', 'c'], np.int64(4))
    """
    result = call_adapters("spdgraph_adapt_graph", graph)
    if result is None:
        raise GraphTypeError(
            f"no adapter recognises a graph of type {type(graph).__module__}."
            f"{type(graph).__qualname__}; pass a networkx, igraph, rustworkx or NetworKit "
            "graph, a square numpy/scipy.sparse/PyData sparse adjacency matrix, an adjacency "
            "pandas.DataFrame, or install/register an adapter plugin for this type."
        )
    if not isinstance(result, GraphData):
        raise GraphTypeError(
            f"a graph adapter returned {type(result).__name__} instead of spdgraph.GraphData."
        )
    adjacency = np.asarray(result.adjacency)
    p = check_adapted_matrix(adjacency, "a graph adapter returned an adjacency")
    if adjacency.diagonal().any() or not np.array_equal(adjacency, adjacency.T):
        raise GraphError("a graph adapter returned a non-symmetric adjacency or self-loops.")
    labels = list(result.labels)
    if len(labels) != p:
        raise GraphError(f"a graph adapter returned {len(labels)} labels for {p} nodes.")
    check_unique_labels(labels)
    return GraphData(adjacency=adjacency, labels=labels)


def count_nodes(graph: object) -> int | None:
    """The number of nodes of ``graph``, counted without building its adjacency.

    Asks the ``spdgraph_count_nodes`` hook (every built-in adapter implements
    it); None when no implementation recognises the object (a third-party
    adapter without it), and then the graph must be adapted to know.

    Examples
    --------
    >>> import scipy.sparse
    >>> count_nodes(scipy.sparse.eye(200_000, format="csr"))
    200000
    """
    count = get_plugin_manager().hook.spdgraph_count_nodes(graph=graph)
    if count is None:
        return None
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
        raise GraphTypeError(
            f"a spdgraph_count_nodes implementation returned {count!r}, not a node count; "
            "it must return a non-negative int or None."
        )
    return int(count)


def check_adapted_matrix(matrix: np.ndarray, what: str) -> int:
    """The node count of an adapter's matrix, after checking it is square, boolean, non-empty.

    ``what`` starts the message (``"a graph adapter returned an adjacency"``).
    """
    if matrix.dtype != bool or matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise GraphError(
            f"{what} that is not a square boolean matrix "
            f"(dtype {matrix.dtype}, shape {matrix.shape})."
        )
    if matrix.shape[0] == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    return int(matrix.shape[0])


def check_unique_labels(labels: Sequence[Hashable]) -> None:
    seen: set[Hashable] = set()
    for label in labels:
        try:
            if label in seen:
                raise GraphError(
                    f"node label {label!r} appears twice; node labels must be unique."
                )
            seen.add(label)
        except TypeError as exc:
            raise GraphError(f"node label {label!r} is not hashable.") from exc


def label_array(labels: Sequence[Hashable]) -> np.ndarray:
    """Labels as a 1-D coordinate array: int64, str, or object as a last resort."""
    if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in labels):
        return np.asarray(labels, dtype=np.int64)
    if all(isinstance(x, str) for x in labels):
        return np.asarray(labels, dtype=str)
    out = np.empty(len(labels), dtype=object)
    for i, x in enumerate(labels):
        out[i] = x
    return out
