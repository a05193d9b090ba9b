"""Built-in adapter plugin: a path to a graph file (``str`` or ``os.PathLike``).

``spdgraph.sample("graph.txt")`` reads the file with :func:`spdgraph.read_graph`
(edge list, GraphML, GML, ``.npy`` or ``.csv`` adjacency), exactly as
``spdgraph sample graph.txt`` does, and adapts what it read with the other
adapters. A plain string is no graph type of its own, so a string that names no
existing file is an error naming the path.
"""

from __future__ import annotations

import os
from pathlib import Path

from spdgraph._types import GraphData
from spdgraph.errors import FileError
from spdgraph.hookspecs import hookimpl


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt ``str``/``os.PathLike`` paths by reading the graph file they name.

    Raises :class:`spdgraph.FileError` naming the path when it is not an
    existing file or cannot be read as a graph file.
    """
    if not isinstance(graph, str | os.PathLike):
        return None
    path = Path(graph)
    if not path.is_file():
        raise FileError(
            f"graph {os.fspath(path)!r} is a path, but no such file exists; pass the path of "
            "a graph file (edge list, .graphml, .gml, .npy or .csv adjacency) or a graph "
            "object (networkx, igraph, numpy, scipy.sparse, pandas)."
        )
    from spdgraph._graph_files import read_graph
    from spdgraph.plugins import get_plugin_manager

    content = read_graph(path)
    result: GraphData | None = get_plugin_manager().hook.spdgraph_adapt_graph(graph=content)
    return result
