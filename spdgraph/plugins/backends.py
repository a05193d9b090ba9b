"""Graph backends: one object per graph library, both ways (``spdgraph.GraphBackend``).

A :class:`GraphBackend` teaches spdgraph one graph type: how to recognise an
object, count its nodes cheaply, turn it into :class:`~spdgraph.GraphData`, and
build one back for ``da.spd.graph(name)``. Plugins return them from the
``spdgraph_graph_backends`` hook, the built-in ones (networkx, igraph,
rustworkx, NetworKit, numpy, scipy.sparse, PyData sparse, pandas, xarray,
files) exactly as third-party ones. The table of registered backends is cached
until a plugin is registered or unregistered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from spdgraph.errors import InvalidOptionError, PluginError, SpdgraphError
from spdgraph.plugins._manager import (
    PluginTable,
    broken_plugins,
    get_plugin_manager,
    mark_broken,
    plugin_table,
)
from spdgraph.plugins.types import DAG, GraphData

__all__ = ["GraphBackend", "call_backend", "find_backend", "graph_backend", "graph_backends"]


@dataclass(frozen=True)
class GraphBackend:
    """One graph library (or input kind), both ways: recognise, read, count, build back.

    Returned by a plugin's ``spdgraph_graph_backends`` hook. The core asks the
    registered backends in turn (those registered last first, so a plugin can
    take over a type spdgraph knows) which one ``recognises`` the object, and
    then uses that backend alone: ``count_nodes`` for the memory guard,
    ``to_graph`` for the graph. ``da.spd.graph(name)`` calls ``from_graph`` of
    the backend called ``name``.

    Parameters
    ----------
    name
        Unique name, the value of ``da.spd.graph(name)`` (``"networkx"``).
    recognises
        ``recognises(obj) -> bool``: whether ``obj`` is of this backend's type.
        Cheap, never raising, never importing the library (test
        ``sys.modules.get("lib")`` first: an object of a library exists only
        once the user has imported it).
    to_graph
        ``to_graph(obj) -> GraphData`` for an object it recognises, the node
        labels kept. Undirected: ``adjacency`` boolean, symmetric, False
        diagonal (self-loops ignored). A directed type: ``directed`` set too
        (``directed[i, j]`` for ``i -> j``, self-loops kept for the core to
        refuse) and ``adjacency`` its skeleton; the core refuses it for the
        methods that take an undirected graph and the DAG-capable methods
        take only it. Invalid input raises :class:`spdgraph.GraphError` saying
        how to fix it. The core checks the result.
    from_graph
        Optional ``from_graph(GraphData) -> obj``: the graph built back in the
        library's type, ``labels`` kept and ``attrs`` (``{"kind": ...}``)
        stored where the type has room; a missing library is a
        :class:`spdgraph.MissingDependencyError` naming the extra. None: input
        only.
    count_nodes
        Optional ``count_nodes(obj) -> int | None``: the node count, in time
        and memory far below ``p x p``, so that the memory guard refuses a
        request that cannot fit before any ``p x p`` array exists. None (or
        returning None): the core adapts first and checks right after.
    undirected_hint
        What to tell a user who passes a directed graph of this type to a
        method taking an undirected one (``"Use G.to_undirected()."``).

    Examples
    --------
    >>> import spdgraph
    >>> names = {b.name for b, _ in spdgraph.plugins.graph_backends()}
    >>> {"networkx", "igraph", "numpy", "scipy", "pandas", "xarray", "file"} <= names
    True
    >>> import numpy as np
    >>> backend, plugin = spdgraph.plugins.graph_backend("numpy")
    >>> backend.from_graph(spdgraph.GraphData(np.eye(2, dtype=bool) ^ True, [0, 1])).tolist()
    [[False, True], [True, False]]
    """

    name: str
    recognises: Callable[[Any], bool]
    to_graph: Callable[[Any], GraphData]
    from_graph: Callable[[GraphData], Any] | None = None
    count_nodes: Callable[[Any], int | None] | None = None
    undirected_hint: str = ""


#: (manager id, generation) -> [(backend, plugin name)] in recognition order
_cache: dict[tuple[int, int], list[tuple[GraphBackend, str]]] = {}


def graph_backends() -> list[tuple[GraphBackend, str]]:
    """Every registered backend and its plugin's name, in the order they are asked.

    Backends of plugins registered later come first (third-party before
    built-in). A plugin whose hook raises or returns something other than
    :class:`GraphBackend` objects, or reuses a registered backend name, is
    skipped with one warning naming it (listed by
    :func:`spdgraph.plugins.broken_plugins`). Cached until a plugin is
    registered or unregistered.
    """
    pm = get_plugin_manager()
    key = (id(pm), pm.generation)
    table = _cache.get(key)
    if table is None:
        broken_plugins()  # the generator table judges plugins first (and clears old marks)
        table = _build(pm)
        _cache.clear()
        _cache[key] = table
    return list(table)


def _build(pm: Any) -> list[tuple[GraphBackend, str]]:
    table = plugin_table(pm, "spdgraph_graph_backends", GraphBackend, _check)
    by_plugin: dict[str, list[tuple[GraphBackend, str]]] = {}
    for backend, plugin in table.values():  # registration order
        by_plugin.setdefault(plugin, []).append((backend, plugin))
    # plugins registered later are asked first; a plugin's own in the order it gave
    return [pair for plugin in reversed(by_plugin) for pair in by_plugin[plugin]]


def _check(backend: object, plugin: str, table: PluginTable[GraphBackend]) -> GraphBackend:
    if not isinstance(backend, GraphBackend):
        raise PluginError(
            f"plugin {plugin!r} returned {backend!r} from spdgraph_graph_backends, which is "
            "not a spdgraph.GraphBackend; return a list of GraphBackend objects."
        )
    if not isinstance(backend.name, str) or not backend.name:
        raise PluginError(f"plugin {plugin!r} returned a graph backend without a name.")
    if backend.name in table:
        raise PluginError(
            f"graph backend name {backend.name!r} is registered twice: by plugin "
            f"{table[backend.name][1]!r} and by plugin {plugin!r}; rename the backend in your "
            "plugin (a plugin may still take over a type by recognising it first)."
        )
    return backend


def graph_backend(name: object) -> tuple[GraphBackend, str]:
    """The registered backend called ``name`` and its plugin; an InvalidOptionError otherwise."""
    table = {backend.name: (backend, plugin) for backend, plugin in graph_backends()}
    if not isinstance(name, str) or name not in table:
        raise InvalidOptionError(
            f"graph backend must be one of {', '.join(map(repr, sorted(table)))} (the "
            f"registered graph backends), got {name!r}."
        )
    return table[name]


def _candidates(graph: object) -> Iterator[object]:
    yield graph
    if isinstance(graph, DAG):
        yield graph.graph  # a backend that does not know the DAG wrapper sees its content


def find_backend(graph: object) -> tuple[GraphBackend, str, object] | None:
    """The backend recognising ``graph``, its plugin, and the object it recognised.

    Backends are asked in :func:`graph_backends` order; for a
    :class:`spdgraph.DAG` that no backend recognises as such, the graph it
    wraps is tried next (then that is the object returned). A ``recognises``
    raising an error that is not spdgraph's marks its plugin broken (one
    warning) and is skipped; when no backend recognises the object, that
    plugin's error is raised as a :class:`~spdgraph.errors.PluginError`.
    None when no backend recognises it.
    """
    failure: PluginError | None = None
    broken = broken_plugins()
    for candidate in _candidates(graph):
        for backend, plugin in graph_backends():
            if plugin in broken:
                continue
            try:
                if backend.recognises(candidate):
                    return backend, plugin, candidate
            except SpdgraphError:
                raise
            except Exception as exc:
                failure = failure or _fault(backend, plugin, "recognises", exc)
    if failure is not None:
        raise failure
    return None


def call_backend(backend: GraphBackend, plugin: str, what: str, argument: object) -> Any:
    """``backend.<what>(argument)``; an error that is not spdgraph's is the plugin's fault.

    Such an error marks the plugin broken (one warning) and is raised as a
    :class:`~spdgraph.errors.PluginError` naming the plugin, the original
    chained. spdgraph's own errors (a deliberate refusal) and ``MemoryError``
    pass through.
    """
    try:
        return getattr(backend, what)(argument)
    except (SpdgraphError, MemoryError):
        raise
    except Exception as exc:
        raise _fault(backend, plugin, what, exc) from exc


def _fault(backend: GraphBackend, plugin: str, what: str, exc: Exception) -> PluginError:
    mark_broken(plugin, f"its graph backend {backend.name!r} raised in {what}: {exc!r}")
    error = PluginError(
        f"the graph backend {backend.name!r} of plugin {plugin!r} raised "
        f"{type(exc).__name__} in {what}: {exc}"
    )
    error.__cause__ = exc
    return error
