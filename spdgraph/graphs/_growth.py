"""Random graphs grown or rewired: ``scale_free`` (huge's Barabási–Albert) and ``small_world``."""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.graphs._common import check_count, check_graph_memory, check_probability, seeded_rng
from spdgraph.graphs._docs import family_doc
from spdgraph.graphs._sparse import DEFAULT_BACKEND, finish, resolve_backend
from spdgraph.seeds import SeedLike

__all__ = ["scale_free", "small_world"]


def sfgen_edges(p: int, u: np.ndarray) -> list[tuple[int, int]]:
    """huge's ``SFGen`` (``d0 = 2``) given its ``p - 2`` uniforms: the edges ``(j, i)``."""
    rows, cols = _sfgen_arrays(p, u)
    return list(zip(rows.tolist(), cols.tolist(), strict=True))


def _sfgen_arrays(p: int, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from spdgraph._kernels.graphs import scale_free_targets

    targets = scale_free_targets(p, np.ascontiguousarray(u, dtype=np.float64))
    targets[1] = 0  # the initial edge (0, 1)
    return targets[1:], np.arange(1, p, dtype=np.int64)


@family_doc
def scale_free(p: int, *, seed: SeedLike = None, backend: str = DEFAULT_BACKEND) -> Any:
    """Scale-free graph by preferential attachment (Barabási–Albert, one edge per new node).

    R ``huge.generator(d = p, graph = "scale-free")`` (its C routine
    ``SFGen`` with ``d0 = 2``), step for step: nodes 0 and 1 start linked,
    each counted with degree 2 (huge's convention for its initial cycle);
    node ``i = 2, ..., p-1`` then draws ``x = total * U`` with U ~ U(0, 1)
    and ``total`` the sum of the counted degrees, and links to the first
    node ``j`` whose cumulative counted degree reaches ``x``; both counts go
    up by one. The result is a tree (``p - 1`` edges) whose degrees follow a
    power law. The uniform draws come from ``seed``, not from R's stream.
    The cumulative degrees are kept in a Fenwick tree (compiled), so the
    graph takes O(p log p) time and O(p) memory, with the same node for the
    same uniform as huge's linear scan.

    Parameters
    ----------
    p
        Number of nodes (>= 2).
    {seed}
    {backend}

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.graphs import scale_free
    >>> g = scale_free(50, seed=1)
    >>> g.number_of_edges(), nx.is_tree(g)
    (49, True)
    """
    p = check_count(p, "p", 2)
    backend = resolve_backend(backend)
    check_graph_memory("scale_free", p, p, backend=backend)
    rng, entropy = seeded_rng(seed)
    rows, cols = _sfgen_arrays(p, rng.random(p - 2))
    return finish(p, rows, cols, "scale_free", {}, entropy, backend)


@family_doc
def small_world(
    p: int,
    neighbors: int = 2,
    rewire: float = 0.05,
    *,
    seed: SeedLike = None,
    backend: str = DEFAULT_BACKEND,
) -> Any:
    """Small-world graph (Watts–Strogatz): a ring lattice with a few edges rewired.

    R ``BDgraph::graph.sim(p, graph = "smallworld", rewire = rewire)``, i.e.
    ``igraph::sample_smallworld(dim = 1, size = p, nei = neighbors, p = rewire)``.
    Each node is first linked to its ``neighbors`` nearest nodes on each side
    of a ring; then each ring edge ``(i, i + k)`` (k = 1..neighbors, i in node
    order) is, with probability ``rewire``, replaced by ``(i, w)`` with ``w``
    drawn uniformly among the nodes not yet linked to i (no self-loops, no
    parallel edges), so the edge count stays ``p * neighbors``. The loop is
    compiled, with the edges in a hash set and ``w`` drawn by rejection, so
    the graph takes O(p * neighbors) time and memory.

    Parameters
    ----------
    p
        Number of nodes (>= 3).
    neighbors
        Ring neighbours on each side (>= 1, with ``2 * neighbors < p``).
    rewire
        Rewiring probability in [0, 1]; 0 keeps the ring lattice.
    {seed}
    {backend}

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
    backend = resolve_backend(backend)
    check_graph_memory("small_world", p, p * neighbors, backend=backend)
    from spdgraph._kernels.graphs import small_world_edges

    rng, entropy = seeded_rng(seed)
    rows, cols = small_world_edges(p, neighbors, rewire, rng)
    params = {"neighbors": neighbors, "rewire": rewire}
    return finish(p, rows, cols, "small_world", params, entropy, backend)
