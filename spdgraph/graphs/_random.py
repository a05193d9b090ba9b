"""Erdős–Rényi random graphs, as used in the paper's experiments."""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.graphs import _sparse
from spdgraph.graphs._common import check_count, check_graph_memory, check_probability, seeded_rng
from spdgraph.graphs._sparse import (
    DEFAULT_BACKEND,
    bernoulli_edges,
    check_pairs,
    finish,
    resolve_backend,
)
from spdgraph.seeds import SeedLike

__all__ = ["erdos_renyi"]


def erdos_renyi(
    p: int, d: float | None = None, seed: SeedLike = None, *, backend: str = DEFAULT_BACKEND
) -> Any:
    """Erdős–Rényi graph G(p, d): each of the p(p-1)/2 edges independently with probability d.

    Same model as gmat's ``rgraph(p, d)``, R ``huge.generator(d = p,
    graph = "random", prob = d)`` (huge's default ``d`` is ``min(1, 3/p)``)
    and ``BDgraph::graph.sim(p, graph = "random", prob = d)``. Nodes are
    ``0..p-1``; ``G.graph`` records ``family``, ``parameters`` and ``seed``
    (the root entropy: for an int or None seed,
    ``erdos_renyi(p, d, seed=int(G.graph["seed"]))``
    rebuilds the graph).

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    d
        Edge probability (density) in [0, 1]. Default: huge's ``min(1, 3/p)``
        (every entry point that names the family takes the same default).
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence` or None.
    backend
        The type returned: the name of a registered graph backend
        (``"networkx"``, ``"scipy"`` for a symmetric ``scipy.sparse.csr_array``,
        ``"igraph"``, ``"networkit"``, ``"rustworkx"``, ``"numpy"``, ...),
        built straight from the edges (see ``docs/graphs.md``, "Graphs at scale").

    Returns
    -------
    networkx.Graph or the backend's graph type

    Notes
    -----
    Time and memory are O(p + edges). Up to 2**20 node pairs (p <= 1448)
    one uniform is drawn per pair ``i < j`` in row-major order and the pair is
    an edge when it is below ``d``; for more pairs the gaps between edges in
    that order are drawn as Geometric(``d``) variables (Batagelj and Brandes,
    2005), the same law without touching the non-edges.

    Examples
    --------
    >>> from spdgraph.graphs import erdos_renyi
    >>> g = erdos_renyi(10, 0.5, seed=0)
    >>> g.number_of_nodes()
    10
    >>> sorted(g.edges) == sorted(erdos_renyi(10, 0.5, seed=0).edges)
    True
    >>> erdos_renyi(60, seed=0).graph["parameters"]["d"]  # huge's default, 3/p
    0.05
    >>> a = erdos_renyi(100_000, 5e-5, seed=1, backend="scipy")  # O(p + edges)
    >>> type(a).__name__, a.shape
    ('csr_array', (100000, 100000))
    """
    p = check_count(p, "p")
    d = min(1.0, 3.0 / p) if d is None else check_probability(d, "d")
    backend = resolve_backend(backend)
    pairs = check_pairs("erdos_renyi", p)
    pairwise = pairs <= _sparse.PAIRWISE_PAIRS
    check_graph_memory("erdos_renyi", p, d * pairs, pairs=pairwise, backend=backend)
    rng, entropy = seeded_rng(seed)
    rows, cols = _draw(rng, p, d, pairwise)
    return finish(p, rows, cols, "erdos_renyi", {"d": d}, entropy, backend, ordered=True)


def _draw(
    rng: np.random.Generator, p: int, d: float, pairwise: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Edges ``i < j`` of G(p, d) in row-major order: per pair, or by skipping."""
    if pairwise:
        rows, cols = np.triu_indices(p, k=1)
        keep = rng.random(rows.size) < d
        return rows[keep], cols[keep]
    return bernoulli_edges(rng, p, d)
