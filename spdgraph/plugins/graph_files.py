"""Graph files: edge lists, GraphML, GML and adjacency matrices (``.npy``, ``.npz``, ``.csv``).

:func:`read_graph` (public as ``spdgraph.read_graph`` and ``spdgraph.io.read_graph``)
is what the command line and the built-in path backend read graph files with. It
stands in the plugins room, below the path backend (``plugins._builtin.adapt_path``)
that reads with it; :mod:`spdgraph.io` hands it on.
"""

from __future__ import annotations

import math
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np

from spdgraph._machine import as_path
from spdgraph.errors import FileError, GraphError, TooLargeError

__all__ = ["count_graph_file", "read_graph"]


def _parse_token(token: str) -> int | str:
    return int(token) if re.fullmatch(r"[+-]?\d+", token) else token


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _edge_lines(path: Path) -> Iterator[list[str]]:
    """The tokens of each edge-list line (``u``, ``u v`` or ``u v weight``), comments skipped."""
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tokens = [t for t in re.split(r"[\s,;]+", line) if t]
            if "\x00" in line:
                raise FileError(f"{path}: line {lineno} is binary, not an edge list.")
            if not tokens:  # only separators (",", ";"): as blank as an empty line
                continue
            if len(tokens) > 3 or (len(tokens) == 3 and not _is_number(tokens[2])):
                raise FileError(
                    f"{path}: line {lineno} has {len(tokens)} fields ({line!r}); an edge list "
                    "line is 'u v' or 'u v weight' with a numeric weight (ignored), or a "
                    "single node."
                )
            yield tokens


def _read_edge_list(path: Path, directed: bool = False) -> Any:
    import networkx as nx

    nodes: dict[str, None] = {}
    edges: list[tuple[str, str]] = []
    for tokens in _edge_lines(path):
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


def _check_saved_sparse(archive: Any, what: str) -> None:
    """A ``save_npz`` archive's declared shape, size and raw arrays, before scipy reads them.

    The arrays :func:`~spdgraph.sparse_input.check_sparse_arrays` checks
    (a malformed one is a GraphError naming the file, a shape beyond memory a
    TooLargeError) are read from the archive: their size is the file's.
    """
    from spdgraph.sparse_input import check_sparse_arrays, declared_nodes

    fmt = archive["format"].item()
    fmt = fmt.decode("ascii", "replace") if isinstance(fmt, bytes) else str(fmt)
    p = declared_nodes(archive["shape"].tolist(), what)
    data = archive["data"]
    if fmt in ("csr", "csc", "bsr"):
        blocks = tuple(data.shape[1:]) if fmt == "bsr" else (1, 1)
        check_sparse_arrays(
            "csc" if fmt == "csc" else "csr", (p, p), data, what,
            indptr=archive["indptr"], indices=archive["indices"], blocksize=blocks,
        )  # fmt: skip
    elif fmt == "coo":
        stored = archive.files
        coords = (
            tuple(archive["coords"]) if "coords" in stored else (archive["row"], archive["col"])
        )
        check_sparse_arrays("coo", (p, p), data, what, coords=coords)
    else:  # dia: offsets scipy masks; its data bounded by the file
        check_sparse_arrays("stored", (p, p), data, what)


def _read_npz(path: Path) -> Any:
    """A ``scipy.sparse.save_npz`` file, or an ``np.savez`` of one array (or ``adjacency``)."""
    with np.load(path, allow_pickle=False) as archive:
        names = list(archive.files)
        if {"format", "shape"} <= set(names):
            import scipy.sparse

            _check_saved_sparse(archive, f"the sparse matrix in {path}")
            return scipy.sparse.load_npz(path)
        if len(names) == 1 or "adjacency" in names:
            return archive[names[0] if len(names) == 1 else "adjacency"]
    raise FileError(
        f"{path} holds the arrays {names}; a graph .npz holds one adjacency array (or one "
        "named 'adjacency'), or a scipy.sparse matrix saved with scipy.sparse.save_npz."
    )


def _npy_header(fh: Any) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype an ``.npy`` header announces, read without loading the data."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"npy format version {version}")
    return tuple(int(x) for x in shape), np.dtype(dtype)


def _npy_shape(fh: Any) -> tuple[int, ...]:
    """The shape an ``.npy`` header announces, read without loading the data."""
    return _npy_header(fh)[0]


def refuse_beyond_memory(need: int, claim: str, advice: str) -> None:
    """Raise :class:`TooLargeError` when ``need`` bytes are more than the memory available.

    The one memory guard on what a file claims, before its data is read: the
    message is ``"{claim}: N GiB, but only M GiB of memory is available; {advice}"``.
    Nothing is raised when the available memory is unknown.

    Examples
    --------
    >>> refuse_beyond_memory(8, "'x.npy' claims an array of shape (1,)", "check the file.")
    """
    from spdgraph import _machine

    available = _machine.available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{claim}: {need / 2**30:,.1f} GiB, but only {available / 2**30:,.1f} GiB of "
            f"memory is available; {advice}"
        )


def load_npy(path: Path, what: str = "graph file") -> np.ndarray:
    """``np.load`` of an ``.npy`` after its header: a claim beyond memory is refused first.

    The header's shape and dtype give the bytes the array needs; more than the
    memory available raises :class:`TooLargeError` naming the file, before a
    byte of data is read (a header claiming 10^14 entries is not allocated).
    """
    with open(path, "rb") as fh:
        shape, dtype = _npy_header(fh)
    refuse_beyond_memory(
        math.prod(shape) * max(1, dtype.itemsize),
        f"the {what} {os.fspath(path)!r} claims an array of shape {shape}",
        "check the file (its header may be damaged) or use a smaller one.",
    )
    return np.load(path, allow_pickle=False)


def _npz_shape(path: Path) -> tuple[int, ...]:
    """The shape of the adjacency in a ``.npz`` (see :func:`_read_npz`), data not loaded."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        if {"format.npy", "shape.npy"} <= set(names):  # scipy.sparse.save_npz
            with archive.open("shape.npy") as fh:
                return tuple(int(x) for x in np.lib.format.read_array(fh, allow_pickle=False))
        name = names[0] if len(names) == 1 else "adjacency.npy"
        with archive.open(name) as fh:
            return _npy_shape(fh)


def _count_edge_list(path: Path) -> int:
    """The distinct names in the first two fields of each line (read_graph checks the rest)."""
    separators = str.maketrans(",;", "  ")
    nodes: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.split("#", 1)[0] if "#" in raw else raw
            nodes.update(line.translate(separators).split()[:2])
    return len(nodes)


def _count_graphml(path: Path) -> int:
    count = 0
    for _, element in ElementTree.iterparse(path, events=("end",)):
        if element.tag.rpartition("}")[2] == "node":
            count += 1
        element.clear()
    return count


def count_graph_file(path: str | os.PathLike[str]) -> int | None:
    """The node count of a graph file, from its header or a streaming pass, no ``p x p`` array.

    ``.npy``/``.npz``: the shape in the header (the data is not read);
    ``.csv``: the fields of the first row; GraphML: its ``node`` elements;
    an edge list: its distinct node names (one pass, memory in the nodes).
    None for GML or a file that cannot be read (:func:`read_graph` says why).
    What the memory guard counts before anything is allocated.

    Examples
    --------
    >>> import io, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "huge.npy"
    ...     with open(path, "wb") as fh:  # a header claiming 10^7 x 10^7, no data
    ...         np.lib.format.write_array_header_1_0(
    ...             fh, {"descr": "|b1", "fortran_order": False, "shape": (10**7, 10**7)})
    ...     count_graph_file(path)
    10000000
    """
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".npy", ".npz"):
            if suffix == ".npy":
                with open(path, "rb") as fh:
                    shape = _npy_shape(fh)
            else:
                shape = _npz_shape(path)
            return shape[0] if len(shape) == 2 else None
        if suffix == ".csv":
            with open(path, encoding="utf-8") as fh:
                tokens = [t.strip() for t in fh.readline().strip().split(",")]
            return len(tokens) - (tokens[0] == "")
        if suffix == ".graphml":
            return _count_graphml(path)
        if suffix == ".gml":
            return None
        return _count_edge_list(path)
    except (OSError, ValueError, KeyError, SyntaxError, zipfile.BadZipFile, FileError):
        return None  # unreadable: read_graph reports it


def _read_directed(path: Path, suffix: str) -> Any:
    """A directed reading of an edge list or adjacency file."""
    import networkx as nx

    from spdgraph.plugins.types import DAG

    if suffix in (".npy", ".npz"):
        return DAG(load_npy(path) if suffix == ".npy" else _read_npz(path))
    if suffix == ".csv":
        content = _read_csv(path)
        if isinstance(content, np.ndarray):
            return DAG(content)
        return nx.from_pandas_adjacency(content != 0, create_using=nx.DiGraph)
    return _read_edge_list(path, directed=True)


def read_graph(path: str | os.PathLike[str], *, directed: bool = False) -> Any:
    r"""Read a graph file: what ``spdgraph sample GRAPH`` and ``spdgraph.sample(path)`` read.

    By suffix: ``.graphml``; ``.gml``; ``.npy`` (square adjacency array);
    ``.npz`` (one adjacency array, or a ``scipy.sparse.save_npz`` matrix);
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
    networkx.Graph, numpy.ndarray, scipy.sparse matrix or pandas.DataFrame
        A graph object a built-in graph backend reads (``spdgraph.adapt_graph``);
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

    path = as_path(path)  # a FileError for what is no path (an int, a NUL byte)
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
            return load_npy(path)
        if suffix == ".npz":
            return _read_npz(path)
        if suffix == ".csv":
            return _read_csv(path)
        return _read_edge_list(path)
    except (FileError, TooLargeError, GraphError):
        raise
    except (OSError, ValueError, SyntaxError, UnicodeDecodeError, nx.NetworkXError) as exc:
        raise FileError(
            f"cannot read graph file {os.fspath(path)!r} as {suffix or 'an edge list'} "
            f"({type(exc).__name__}: {exc})."
        ) from exc
