"""Erdős–Rényi random graphs, as used in the paper's experiments."""

from __future__ import annotations

import numbers

import networkx as nx
import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.graphs._common import check_graph_memory, make_graph, seeded_rng
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
    if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 1:
        raise InvalidOptionError(f"p must be a positive integer, got {written(p)}.")
    if isinstance(d, bool) or not isinstance(d, numbers.Real) or not 0.0 <= float(d) <= 1.0:
        raise InvalidOptionError(f"d must be a probability in [0, 1], got {written(d)}.")
    check_graph_memory("erdos_renyi", int(p), float(d) * p * (p - 1) / 2, pairs=True)
    rng, entropy = seeded_rng(seed)
    rows, cols = np.triu_indices(int(p), k=1)
    keep = rng.random(rows.size) < float(d)
    edges = zip(rows[keep].tolist(), cols[keep].tolist(), strict=True)
    return make_graph(int(p), edges, "erdos_renyi", {"d": float(d)}, entropy)
