"""Graph files: edge lists, GraphML, GML and adjacency matrices (``.npy``, ``.csv``).

:func:`read_graph` (public as ``spdgraph.read_graph`` and ``spdgraph.io.read_graph``)
is what the command line and the built-in path adapter read graph files with.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.errors import FileError

__all__ = ["read_graph"]


def _parse_token(token: str) -> int | str:
    return int(token) if re.fullmatch(r"[+-]?\d+", token) else token


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _read_edge_list(path: Path, directed: bool = False) -> Any:
    import networkx as nx

    nodes: dict[str, None] = {}
    edges: list[tuple[str, str]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tokens = [t for t in re.split(r"[\s,;]+", line) if t]
            if "\x00" in line:
                raise FileError(f"{path}: line {lineno} is binary, not an edge list.")
            if len(tokens) > 3 or (len(tokens) == 3 and not _is_number(tokens[2])):
                raise FileError(
                    f"{path}: line {lineno} has {len(tokens)} fields ({line!r}); an edge list "
                    "line is 'u v' or 'u v weight' with a numeric weight (ignored), or a "
                    "single node."
                )
            nodes.setdefault(tokens[0])
            if len(tokens) >= 2:
                nodes.setdefault(tokens[1])
                edges.append((tokens[0], tokens[1]))
    if not nodes:
        raise FileError(
            f"{path}: no nodes found; an edge list has one edge 'u v' per line (a line with "
            "a single node adds an isolated node, '#' starts a comment)."
        )
    as_int = all(re.fullmatch(r"[+-]?\d+", t) for t in nodes)
    conv: Callable[[str], Any] = int if as_int else str
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(conv(t) for t in nodes)
    g.add_edges_from((conv(u), conv(v)) for u, v in edges if u != v)
    return g


def _read_csv(path: Path) -> Any:
    import pandas as pd

    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    tokens = [t.strip() for t in first.strip().split(",")]
    numeric = all(re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t) for t in tokens)
    if numeric:
        values = np.loadtxt(path, delimiter=",", ndmin=2)
        rows, cols = values.shape
        if rows == cols + 1 and all(re.fullmatch(r"[+-]?\d+", t) for t in tokens):
            # one more row than columns: a header of integer node labels (as
            # spdgraph's own CSV output writes them), not a row of the matrix
            labels = [int(t) for t in tokens]
            return pd.DataFrame(values[1:], index=labels, columns=labels)
        return values
    if tokens and tokens[0] == "":
        frame = pd.read_csv(path, index_col=0)
    else:  # a header row only: the same labels on the rows
        frame = pd.read_csv(path)
        frame.index = frame.columns
    frame.index = [_parse_token(str(x)) for x in frame.index]
    frame.columns = [_parse_token(str(x)) for x in frame.columns]
    return frame


def _read_directed(path: Path, suffix: str) -> Any:
    """A directed reading of an edge list or adjacency file."""
    import networkx as nx

    from spdgraph.plugins.types import DAG

    if suffix == ".npy":
        return DAG(np.load(path, allow_pickle=False))
    if suffix == ".csv":
        content = _read_csv(path)
        if isinstance(content, np.ndarray):
            return DAG(content)
        return nx.from_pandas_adjacency(content != 0, create_using=nx.DiGraph)
    return _read_edge_list(path, directed=True)


def read_graph(path: str | os.PathLike[str], *, directed: bool = False) -> Any:
    r"""Read a graph file: what ``spdgraph sample GRAPH`` and ``spdgraph.sample(path)`` read.

    By suffix: ``.graphml``; ``.gml``; ``.npy`` (square adjacency array);
    ``.csv`` (square adjacency, optionally with node labels as a header row
    and first column); anything else is an edge list (one ``u v`` pair per
    line, whitespace or comma separated, extra columns ignored, ``#``
    comments, a single token adds an isolated node; labels are integers when
    all are, else strings).

    Parameters
    ----------
    path
        The graph file.
    directed
        Read the file as a directed graph (for the DAG-capable methods, e.g.
        ``method="dag"``): an edge list line ``u v`` is the edge ``u -> v``
        (a ``networkx.DiGraph``), an adjacency array (``.npy``, ``.csv``)
        ``a[i, j] != 0`` the edge ``i -> j`` (``spdgraph.DAG(array)``, or a
        ``DiGraph`` with the labels of a ``.csv``); GraphML and GML files say
        themselves whether they are directed.

    Returns
    -------
    networkx.Graph, numpy.ndarray or pandas.DataFrame
        A graph object every built-in adapter accepts (``spdgraph.adapt_graph``);
        with ``directed=True`` a ``networkx.DiGraph`` or a ``spdgraph.DAG``.

    Raises
    ------
    FileError
        Missing or unreadable file; the message names the path.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import spdgraph
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "graph.txt"
    ...     _ = path.write_text("a b\nb c  # a comment\nd\n")
    ...     g = spdgraph.read_graph(path)
    >>> sorted(g.nodes), sorted(g.edges)
    (['a', 'b', 'c', 'd'], [('a', 'b'), ('b', 'c')])
    """
    import networkx as nx

    path = Path(path)
    if not path.is_file():
        raise FileError(f"cannot read graph file {os.fspath(path)!r}: no such file.")
    suffix = path.suffix.lower()
    try:
        if directed and suffix not in (".graphml", ".gml"):
            return _read_directed(path, suffix)
        if suffix == ".graphml":
            return nx.read_graphml(path)
        if suffix == ".gml":
            try:
                return nx.read_gml(path)
            except nx.NetworkXError as exc:
                if "label" not in str(exc):
                    raise
                return nx.read_gml(path, label="id")
        if suffix == ".npy":
            return np.load(path, allow_pickle=False)
        if suffix == ".csv":
            return _read_csv(path)
        return _read_edge_list(path)
    except FileError:
        raise
    except (OSError, ValueError, SyntaxError, UnicodeDecodeError, nx.NetworkXError) as exc:
        raise FileError(
            f"cannot read graph file {os.fspath(path)!r} as {suffix or 'an edge list'} "
            f"({type(exc).__name__}: {exc})."
        ) from exc
