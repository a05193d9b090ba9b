"""Built-in adapter plugin: a path to a graph file (``str`` or ``os.PathLike``).

``spdgraph.sample("graph.txt")`` reads the file with :func:`spdgraph.read_graph`
(edge list, GraphML, GML, ``.npy`` or ``.csv`` adjacency), exactly as
``spdgraph sample graph.txt`` does, and adapts what it read with the other
adapters. A plain string is no graph type of its own, so a string that names no
existing file is an error naming the path.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from spdgraph.errors import FileError
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt ``str``/``os.PathLike`` paths by reading the graph file they name.

    Raises :class:`spdgraph.FileError` naming the path when it is not an
    existing file or cannot be read as a graph file.
    """
    if not isinstance(graph, str | os.PathLike):
        return None
    from spdgraph.plugins import get_plugin_manager

    content = _read(graph, keep=False)
    result: GraphData | None = get_plugin_manager().hook.spdgraph_adapt_graph(graph=content)
    return result


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a path for the DAG methods: the file read with ``read_graph(path, directed=True)``."""
    inner = graph.graph if isinstance(graph, DAG) else graph
    if not isinstance(inner, str | os.PathLike):
        return None
    path = Path(inner)
    if not path.is_file():
        _read(inner, keep=False)  # raises the FileError naming the path
    from spdgraph.io import read_graph
    from spdgraph.plugins import get_plugin_manager

    content = read_graph(path, directed=True)
    with _lock:
        _last.clear()  # the undirected reading kept by spdgraph_count_nodes is not needed
    result: GraphData | None = get_plugin_manager().hook.spdgraph_adapt_dag(graph=content)
    return result


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of the graph a path names: the file is read (edge lists stay sparse).

    What was read is kept for the adapter that runs next, so the file is read
    once per call.
    """
    if not isinstance(graph, str | os.PathLike) or not Path(graph).is_file():
        return None  # not a file: the adapters report it (or a plugin's adapts it)
    from spdgraph.plugins import get_plugin_manager

    try:
        content = _read(graph, keep=True)
    except FileError:
        return None  # unreadable: the adapter reports it
    count: int | None = get_plugin_manager().hook.spdgraph_count_nodes(graph=content)
    return count


#: The file counted last: (path, size, mtime) -> content, so counting and adapting read once.
_last: dict[tuple[str, int, int], Any] = {}
_lock = threading.Lock()


def _read(graph: str | os.PathLike[str], *, keep: bool) -> Any:
    """The file's content; ``keep`` it for the next read (count, then adapt) or not."""
    path = Path(graph)
    if not path.is_file():
        raise FileError(
            f"graph {os.fspath(path)!r} is a path, but no such file exists; pass the path of "
            "a graph file (edge list, .graphml, .gml, .npy or .csv adjacency) or a graph "
            "object (networkx, igraph, numpy, scipy.sparse, pandas)."
        )
    from spdgraph.io import read_graph

    stat = path.stat()
    key = (os.fspath(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _lock:
        content = _last.pop(key, None) if not keep else _last.get(key)
        if content is not None:
            return content
    content = read_graph(path)
    if keep:
        with _lock:
            _last.clear()
            _last[key] = content
    return content
