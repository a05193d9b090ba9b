"""Erdős–Rényi random graphs, as used in the paper's experiments."""

from __future__ import annotations

import numbers

import networkx as nx
import numpy as np

from spdgraph._plain import plain
from spdgraph._seeds import SeedLike, seed_sequence
from spdgraph.errors import InvalidOptionError

__all__ = ["erdos_renyi"]


def erdos_renyi(p: int, d: float, seed: SeedLike = None) -> nx.Graph:
    """Erdős–Rényi graph G(p, d): each of the p(p-1)/2 edges independently with probability d.

    Same model as gmat's ``rgraph(p, d)``. Nodes are ``0..p-1``.

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
        raise InvalidOptionError(f"p must be a positive integer, got {plain(p)}.")
    if isinstance(d, bool) or not isinstance(d, numbers.Real) or not 0.0 <= float(d) <= 1.0:
        raise InvalidOptionError(f"d must be a probability in [0, 1], got {plain(d)}.")
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    rows, cols = np.triu_indices(int(p), k=1)
    keep = rng.random(rows.size) < float(d)
    g = nx.Graph()
    g.add_nodes_from(range(int(p)))
    g.add_edges_from(zip(rows[keep].tolist(), cols[keep].tolist(), strict=True))
    return g
