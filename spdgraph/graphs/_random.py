"""Erdős–Rényi random graphs, as used in the paper's experiments."""

from __future__ import annotations

import networkx as nx
import numpy as np

from spdgraph.graphs._common import (
    check_count,
    check_graph_memory,
    check_probability,
    make_graph,
    seeded_rng,
)
from spdgraph.seeds import SeedLike

__all__ = ["erdos_renyi"]


def erdos_renyi(p: int, d: float, seed: SeedLike = None) -> nx.Graph:
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
        Edge probability (density) in [0, 1].
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence` or None.

    Examples
    --------
    >>> from spdgraph.graphs import erdos_renyi
    >>> g = erdos_renyi(10, 0.5, seed=0)
    >>> g.number_of_nodes()
    10
    >>> sorted(g.edges) == sorted(erdos_renyi(10, 0.5, seed=0).edges)
    True
    """
    p = check_count(p, "p")
    d = check_probability(d, "d")
    check_graph_memory("erdos_renyi", p, d * float(p) * (p - 1) / 2, pairs=True)
    rng, entropy = seeded_rng(seed)
    rows, cols = np.triu_indices(int(p), k=1)
    keep = rng.random(rows.size) < float(d)
    edges = zip(rows[keep].tolist(), cols[keep].tolist(), strict=True)
    return make_graph(int(p), edges, "erdos_renyi", {"d": float(d)}, entropy)
