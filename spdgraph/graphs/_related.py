"""Several related graphs over the same nodes, for joint (group or time-varying) GGM studies."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.graphs import _sparse
from spdgraph.graphs._common import check_count, check_graph_memory
from spdgraph.graphs._sparse import DEFAULT_BACKEND, canonical_upper, resolve_backend, unrank_upper
from spdgraph.seeds import SeedLike, root_stream, seed_sequence
from spdgraph.vocabulary import check_choice

__all__ = ["related_graphs", "shared_edges"]

_MODES = ("group", "time")


def related_graphs(
    base: nx.Graph,
    n_graphs: int,
    *,
    n_add: int = 0,
    n_remove: int = 0,
    mode: str = "group",
    seed: SeedLike = None,
    backend: str = DEFAULT_BACKEND,
) -> list[Any]:
    """K graphs over the nodes of ``base`` that share a part and differ in a controlled part.

    ``mode="group"`` (groups, e.g. conditions): graph ``k`` is ``base`` with
    ``n_remove`` of its edges removed and ``n_add`` of its non-edges added,
    drawn for each graph independently; the edges no graph removes are
    shared by all. ``mode="time"`` (a time-varying graph): graph 0 is
    ``base`` and graph ``k`` is graph ``k-1`` with ``n_remove`` of its edges
    removed and ``n_add`` of its non-edges added, so neighbouring steps
    differ by ``n_add + n_remove`` edges.

    Parameters
    ----------
    base
        The shared graph: a :class:`networkx.Graph` (node order is kept) or a
        symmetric ``scipy.sparse`` adjacency (nodes ``0..p-1``; a family's
        ``backend="scipy"`` graph, so large graphs never go through networkx).
    n_graphs
        Number of graphs K (>= 1).
    n_add, n_remove
        Edges added and removed per graph (``group``) or per step (``time``).
    mode
        ``"group"`` or ``"time"``.
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or None: the same seed gives the same graphs.
    backend
        The type of each graph: a registered graph backend's name
        (``"networkx"``, ``"scipy"``, ``"igraph"``, ...), built straight from
        the edges.

    Returns
    -------
    list of networkx.Graph or of the backend's graph type
        K graphs with the nodes of ``base`` in its order; ``G.graph["index"]``
        is ``k``. Pass the list to :func:`spdgraph.sample` for one array
        with a ``group`` dimension.

    Notes
    -----
    Up to 2**20 node pairs the edits are drawn over a dense mask of all
    pairs; beyond, over the sorted edge keys alone (the added non-edges by
    rejection of uniformly drawn pairs), in O(p + edges) memory per graph.

    Raises
    ------
    InvalidOptionError
        Bad counts or mode, or more edges to remove (add) than a graph has
        edges (non-edges).

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import related_graphs, shared_edges
    >>> gs = related_graphs(nx.cycle_graph(8), 3, n_add=2, n_remove=1, seed=0)
    >>> [g.number_of_edges() for g in gs]
    [9, 9, 9]
    >>> len(shared_edges(gs)) >= 8 - 3
    True
    """
    nodes, upper = _base_edges(base)
    n_graphs = check_count(n_graphs, "n_graphs")
    n_add, n_remove = check_count(n_add, "n_add", 0), check_count(n_remove, "n_remove", 0)
    mode = check_choice(mode, "mode", _MODES)
    backend = resolve_backend(backend)
    p = len(nodes)
    # K graphs of about base's edges (+ n_add each), then the dense scratch of small
    # graphs: p^2 floats and booleans, two index arrays and a mask per node pair
    edges = upper.nnz + n_add * (n_graphs if mode == "time" else 1)
    check_graph_memory(
        "related_graphs", p, min(edges, p * (p - 1) / 2), copies=n_graphs, backend=backend
    )
    rng = root_stream(seed_sequence(seed))
    if p * (p - 1) // 2 > _sparse.PAIRWISE_PAIRS:
        return _related_sparse(upper, nodes, int(n_graphs), n_add, n_remove, mode, rng, backend)
    check_graph_memory("related_graphs", p, 0, pairs=True)
    adjacency = upper.toarray() != 0  # the upper triangle: all the pairs i < j read below
    rows, cols = np.triu_indices(p, 1)
    graphs = []
    current = adjacency[rows, cols]
    for k in range(int(n_graphs)):
        if mode == "group" or k > 0:
            start = adjacency[rows, cols] if mode == "group" else current
            current = _edit(start, n_add, n_remove, rng)
        graphs.append(_graph(nodes, k, rows[current], cols[current], backend))
    return graphs


def _base_edges(base: object) -> tuple[list[Any], Any]:
    """The nodes of ``base`` and its edges as the canonical upper-triangle CSR."""
    import scipy.sparse

    if scipy.sparse.issparse(base):  # a family's backend="scipy" graph, or any adjacency
        from spdgraph.sparse_input import check_sparse_input

        check_sparse_input(base, "the sparse base")  # its arrays and size, before scipy's
        matrix = scipy.sparse.csr_array(base)
        p = matrix.shape[0]
        if matrix.ndim != 2 or matrix.shape[1] != p or (matrix != matrix.T).nnz:
            raise InvalidOptionError(
                f"a sparse base must be a square symmetric adjacency, got shape {matrix.shape}"
                f"{'' if matrix.shape[0] != matrix.shape[1] else ' (not symmetric)'}; pass "
                "A + A.T of a one-sided adjacency."
            )
        upper = scipy.sparse.triu(matrix, 1).tocoo()
        nonzero = upper.data != 0
        rows, cols = upper.row[nonzero], upper.col[nonzero]
        return list(range(p)), canonical_upper(p, rows, cols)
    if not isinstance(base, nx.Graph) or base.is_directed() or base.is_multigraph():
        raise InvalidOptionError(
            "base must be an undirected networkx.Graph or a symmetric scipy.sparse adjacency, "
            f"got {type(base).__name__}."
        )
    nodes = list(base.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    pairs = np.array([(index[u], index[v]) for u, v in base.edges()], dtype=np.int64)
    pairs = pairs.reshape(-1, 2)
    return nodes, canonical_upper(len(nodes), pairs[:, 0], pairs[:, 1])


def _graph(nodes: list[object], k: int, rows: np.ndarray, cols: np.ndarray, backend: str) -> Any:
    """Graph ``k`` (edges ``i < j`` in row-major order) in the backend's type."""
    from spdgraph.plugins.backends import call_backend, graph_backend
    from spdgraph.plugins.types import SparseGraphData

    upper = canonical_upper(len(nodes), rows, cols, ordered=True)
    spec, plugin = graph_backend(backend)
    if spec.from_sparse is None:
        raise InvalidOptionError(
            f"graph backend {backend!r} cannot be built from edges; pass backend='networkx', "
            "'scipy', 'igraph', 'networkit', 'rustworkx' or 'numpy'."
        )
    return call_backend(spec, plugin, "from_sparse", SparseGraphData(upper, nodes, {"index": k}))


def _related_sparse(
    upper: Any,
    nodes: list[object],
    n_graphs: int,
    n_add: int,
    n_remove: int,
    mode: str,
    rng: np.random.Generator,
    backend: str,
) -> list[Any]:
    """``related_graphs`` on sorted edge keys ``i * p + j`` (i < j): no p x p scratch."""
    p = len(nodes)
    base_keys = _keys(p, upper)
    graphs = []
    current = base_keys
    for k in range(n_graphs):
        if mode == "group" or k > 0:
            start = base_keys if mode == "group" else current
            current = _edit_keys(start, p, n_add, n_remove, rng)
        graphs.append(_graph(nodes, k, current // p, current % p, backend))
    return graphs


def _keys(p: int, upper: object) -> np.ndarray:
    counts = np.diff(upper.indptr)  # type: ignore[attr-defined]
    rows = np.repeat(np.arange(p, dtype=np.int64), counts)
    return rows * p + np.asarray(upper.indices, dtype=np.int64)  # type: ignore[attr-defined]


def _edit_keys(
    keys: np.ndarray, p: int, n_add: int, n_remove: int, rng: np.random.Generator
) -> np.ndarray:
    """``keys`` (sorted) with ``n_remove`` of them dropped and ``n_add`` non-edges added."""
    n_pairs = p * (p - 1) // 2
    if n_remove > keys.size:
        raise InvalidOptionError(
            f"cannot remove {n_remove} edges from a graph with {keys.size}; lower n_remove."
        )
    if n_add > n_pairs - keys.size:
        raise InvalidOptionError(
            f"cannot add {n_add} edges to a graph with {n_pairs - keys.size} non-edges; "
            "lower n_add."
        )
    kept = np.delete(keys, rng.choice(keys.size, size=n_remove, replace=False))
    added = _non_edges(keys, p, n_add, rng)
    return np.sort(np.concatenate([kept, added]))


def _non_edges(keys: np.ndarray, p: int, n_add: int, rng: np.random.Generator) -> np.ndarray:
    """``n_add`` distinct pairs uniformly among the non-edges (sorted ``keys``), as keys."""
    n_pairs = p * (p - 1) // 2
    if n_add == 0:
        return np.zeros(0, dtype=np.int64)
    if 2 * keys.size > n_pairs:  # mostly edges: list the few non-edges
        i, j = unrank_upper(np.arange(n_pairs, dtype=np.int64), p)
        every = i * p + j
        absent = every[~np.isin(every, keys, assume_unique=True)]
        return rng.choice(absent, size=n_add, replace=False)
    chosen = np.zeros(0, dtype=np.int64)
    while chosen.size < n_add:  # rejection: uniform pairs, the edges and repeats dropped
        i, j = unrank_upper(rng.integers(0, n_pairs, size=2 * (n_add - chosen.size) + 8), p)
        draw = i * p + j
        spot = np.minimum(np.searchsorted(keys, draw), max(keys.size - 1, 0))
        fresh = draw[keys[spot] != draw] if keys.size else draw
        both = np.concatenate([chosen, fresh])
        _, first = np.unique(both, return_index=True)
        chosen = both[np.sort(first)]  # first occurrences, in the order drawn
    return chosen[:n_add]


def _edit(edges: np.ndarray, n_add: int, n_remove: int, rng: np.random.Generator) -> np.ndarray:
    present, absent = np.flatnonzero(edges), np.flatnonzero(~edges)
    if n_remove > present.size:
        raise InvalidOptionError(
            f"cannot remove {n_remove} edges from a graph with {present.size}; lower n_remove."
        )
    if n_add > absent.size:
        raise InvalidOptionError(
            f"cannot add {n_add} edges to a graph with {absent.size} non-edges; lower n_add."
        )
    out = edges.copy()
    out[rng.choice(present, size=n_remove, replace=False)] = False
    out[rng.choice(absent, size=n_add, replace=False)] = True
    return out


def shared_edges(graphs: list[nx.Graph]) -> set[frozenset]:
    """The edges every graph has (each as a ``frozenset`` of its two nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import shared_edges
    >>> sorted(tuple(sorted(e)) for e in shared_edges([nx.path_graph(3), nx.cycle_graph(3)]))
    [(0, 1), (1, 2)]
    """
    if not graphs:
        return set()
    common = {frozenset(e) for e in graphs[0].edges}
    for g in graphs[1:]:
        common &= {frozenset(e) for e in g.edges}
    return common
