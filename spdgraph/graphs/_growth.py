"""Random graphs grown or rewired: ``scale_free`` (huge's Barabási–Albert) and ``small_world``."""

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

__all__ = ["scale_free", "small_world"]


def sfgen_edges(p: int, u: np.ndarray) -> list[tuple[int, int]]:
    """huge's ``SFGen`` (``d0 = 2``) given its ``p - 2`` uniforms: the edges ``(j, i)``."""
    degree = np.zeros(p, dtype=np.int64)
    degree[:2] = 2  # huge counts its initial 2-cycle as degree 2 per node
    total = 4
    edges = [(0, 1)]
    for i in range(2, p):
        x = total * u[i - 2]
        cumulative = np.cumsum(degree[:i])
        j = min(int(np.searchsorted(cumulative, x, side="left")), i - 1)  # first cumsum >= x
        edges.append((j, i))
        degree[j] += 1
        degree[i] += 1
        total += 2
    return edges


def scale_free(p: int, *, seed: SeedLike = None) -> nx.Graph:
    """Scale-free graph by preferential attachment (Barabási–Albert, one edge per new node).

    R ``huge.generator(d = p, graph = "scale-free")`` (its C routine
    ``SFGen`` with ``d0 = 2``), step for step: nodes 0 and 1 start linked,
    each counted with degree 2 (huge's convention for its initial cycle);
    node ``i = 2, ..., p-1`` then draws ``x = total * U`` with U ~ U(0, 1)
    and ``total`` the sum of the counted degrees, and links to the first
    node ``j`` whose cumulative counted degree reaches ``x``; both counts go
    up by one. The result is a tree (``p - 1`` edges) whose degrees follow a
    power law. The uniform draws come from ``seed``, not from R's stream.

    Parameters
    ----------
    p
        Number of nodes (>= 2).
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or None: the same seed gives the same graph.

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import scale_free
    >>> g = scale_free(50, seed=1)
    >>> g.number_of_edges(), nx.is_tree(g)
    (49, True)
    """
    p = check_count(p, "p", 2)
    check_graph_memory("scale_free", p, p)
    rng, entropy = seeded_rng(seed)
    edges = sfgen_edges(p, rng.random(p - 2))
    return make_graph(p, edges, "scale_free", {}, entropy)


def small_world(
    p: int, neighbors: int = 2, rewire: float = 0.05, *, seed: SeedLike = None
) -> nx.Graph:
    """Small-world graph (Watts–Strogatz): a ring lattice with a few edges rewired.

    R ``BDgraph::graph.sim(p, graph = "smallworld", rewire = rewire)``, i.e.
    ``igraph::sample_smallworld(dim = 1, size = p, nei = neighbors, p = rewire)``.
    Each node is first linked to its ``neighbors`` nearest nodes on each side
    of a ring; then each ring edge ``(i, i + k)`` (k = 1..neighbors, i in node
    order) is, with probability ``rewire``, replaced by ``(i, w)`` with ``w``
    drawn uniformly among the nodes not yet linked to i (no self-loops, no
    parallel edges), so the edge count stays ``p * neighbors``.

    Parameters
    ----------
    p
        Number of nodes (>= 3).
    neighbors
        Ring neighbours on each side (>= 1, with ``2 * neighbors < p``).
    rewire
        Rewiring probability in [0, 1]; 0 keeps the ring lattice.
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or None: the same seed gives the same graph.

    Examples
    --------
    >>> from spdgraph.graphs import small_world
    >>> g = small_world(20, neighbors=2, rewire=0.0)
    >>> sorted(set(dict(g.degree).values())), g.number_of_edges()
    ([4], 40)
    >>> small_world(20, 2, 0.3, seed=1).number_of_edges()
    40
    """
    p = check_count(p, "p", 3)
    neighbors = check_count(neighbors, "neighbors", 1, (p - 1) // 2)
    rewire = check_probability(rewire, "rewire")
    check_graph_memory("small_world", p, p * neighbors)
    rng, entropy = seeded_rng(seed)
    adjacent = [set() for _ in range(p)]  # type: list[set[int]]
    for i in range(p):
        for k in range(1, neighbors + 1):
            adjacent[i].add((i + k) % p)
            adjacent[(i + k) % p].add(i)
    for k in range(1, neighbors + 1):
        for i in range(p):
            v = (i + k) % p
            if v not in adjacent[i] or rng.random() >= rewire:
                continue
            free = np.setdiff1d(np.arange(p), [i, *adjacent[i]], assume_unique=False)
            if free.size == 0:
                continue
            w = int(free[rng.integers(free.size)])
            adjacent[i].discard(v)
            adjacent[v].discard(i)
            adjacent[i].add(w)
            adjacent[w].add(i)
    edges = [(i, j) for i in range(p) for j in adjacent[i] if i < j]
    params = {"neighbors": neighbors, "rewire": rewire}
    return make_graph(p, edges, "small_world", params, entropy)
