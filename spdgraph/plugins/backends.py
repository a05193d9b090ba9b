"""Graph backends: one object per graph library, both ways (``spdgraph.GraphBackend``).

A :class:`GraphBackend` teaches spdgraph one graph type: how to recognise an
object, count its nodes cheaply, turn it into :class:`~spdgraph.GraphData`, and
build one back for ``da.spd.graph(name)``. Plugins return them from the
``spdgraph_graph_backends`` hook, the built-in ones (networkx, igraph,
rustworkx, NetworKit, numpy, scipy.sparse, PyData sparse, pandas, xarray,
files) exactly as third-party ones. The table of registered backends is kept in
the plugins' one cache until a plugin is registered or unregistered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from spdgraph.errors import InvalidOptionError, PluginError, SpdgraphError
from spdgraph.plugins._manager import PluginTable, broken_plugins, cached_table, mark_broken
from spdgraph.plugins.types import DAG, GraphBackend

# GraphBackend (spdgraph.plugins.types) is handed on here for its users, documented there
__all__ = ["call_backend", "find_backend", "graph_backend", "graph_backends"]


def graph_backends() -> list[tuple[GraphBackend, str]]:
    """Every registered backend and its plugin's name, in the order they are asked.

    Backends of plugins registered later come first (third-party before
    built-in). A plugin whose hook raises or returns something other than
    :class:`GraphBackend` objects, or reuses a registered backend name, is
    skipped with one warning naming it (listed by
    :func:`spdgraph.plugins.broken_plugins`). Cached until a plugin is
    registered or unregistered (the one cache of
    :func:`spdgraph.plugins.cached_table`).
    """
    table = cached_table("spdgraph_graph_backends", GraphBackend, _check)
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
