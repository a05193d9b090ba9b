"""Built-in graph backend: a path to a graph file (``str`` or ``os.PathLike``).

``spdgraph.sample("graph.txt")`` reads the file with :func:`spdgraph.read_graph`
(edge list, GraphML, GML, ``.npy``/``.npz`` or ``.csv`` adjacency), exactly as
``spdgraph sample graph.txt`` does, and turns what it read into a graph with
the backend that recognises it. ``spdgraph.DAG(path)`` reads the file as
directed (for the DAG-capable methods). A plain string is no graph type of its
own, so a string that names no existing file is an error naming the path. The
node count comes from the file's header or a streaming pass, never from a
``p x p`` array, so the memory guard refuses a file too large to sample before
reading it whole. The files are read by :mod:`spdgraph.plugins.graph_files`,
which stands below this backend (never by :mod:`spdgraph.io`, which stands above
the plugins).
"""

from __future__ import annotations

import os
from pathlib import Path

from spdgraph.errors import FileError, GraphTypeError
from spdgraph.plugins import graph_files
from spdgraph.plugins._builtin._library import unwrap
from spdgraph.plugins.backends import call_backend, find_backend
from spdgraph.plugins.hookspecs import offering
from spdgraph.plugins.types import DAG, GraphBackend, GraphData


def recognises(graph: object) -> bool:
    """A ``str`` or ``os.PathLike``, bare or in a :class:`spdgraph.DAG`."""
    return isinstance(unwrap(graph), str | os.PathLike)


def count_nodes(graph: object) -> int | None:
    """The node count the file announces (``.npy``/``.npz`` header, first ``.csv`` row,
    GraphML nodes, edge-list nodes counted in one pass); None when it cannot tell.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     np.save(f"{tmp}/g.npy", np.zeros((3, 3)))
    ...     count_nodes(f"{tmp}/g.npy")
    3
    """
    path = Path(unwrap(graph))  # type: ignore[arg-type]
    if not path.is_file():
        return None  # to_graph names the path
    return graph_files.count_graph_file(path)


def to_graph(graph: object) -> GraphData:
    """The graph in the file, read as directed when wrapped in :class:`spdgraph.DAG`.

    Raises :class:`spdgraph.FileError` naming the path when it is not an
    existing file or cannot be read as a graph file.
    """
    inner = unwrap(graph)
    path = Path(inner)  # type: ignore[arg-type]
    if not path.is_file():
        raise FileError(
            f"graph {os.fspath(path)!r} is a path, but no such file exists; pass the path of "
            "a graph file (edge list, .graphml, .gml, .npy, .npz or .csv adjacency) or a "
            "graph object (networkx, igraph, numpy, scipy.sparse, pandas)."
        )
    content = graph_files.read_graph(path, directed=isinstance(graph, DAG))
    found = find_backend(content)
    if found is None:
        raise GraphTypeError(f"no graph backend reads what {os.fspath(path)!r} holds.")
    backend, plugin, obj = found
    result: GraphData = call_backend(backend, plugin, "to_graph", obj)
    return result


BACKEND = GraphBackend(
    name="file",
    recognises=recognises,
    to_graph=to_graph,
    count_nodes=count_nodes,
    undirected_hint=(
        "The file says it is directed (GraphML/GML): make it undirected, or use a "
        "DAG-capable method."
    ),
)


spdgraph_graph_backends = offering(BACKEND)
