"""What every graph family shares: argument checks, seeded streams, the labelled graph."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np

from spdgraph.errors import TooLargeError
from spdgraph.seeds import SeedLike, root_stream, seed_attrs, seed_sequence
from spdgraph.vocabulary import MAX_COUNT, check_count, check_probability

__all__ = [
    "MAX_COUNT",
    "check_count",
    "check_graph_memory",
    "check_probability",
    "equal_groups",
    "graph_bytes",
    "make_graph",
    "seeded_rng",
]

#: Bytes of a networkx graph per node and per edge (dicts of dicts; measured with
#: tracemalloc, rounded up: ~540 and ~130, more with dict growth on dense nodes),
#: plus the edge arrays the family builds first.
NETWORKX_BYTES_PER_NODE = 700
NETWORKX_BYTES_PER_EDGE = 350
#: Bytes per node and per edge of the sparse construction every family shares (int64
#: rows and columns, their sort keys, the upper and the symmetric CSR, scratch).
SPARSE_BYTES_PER_NODE = 64
SPARSE_BYTES_PER_EDGE = 112
#: (per node, per edge) bytes of each backend's own graph, beyond the sparse construction;
#: a backend not listed: the sparse figures (``numpy`` adds its ``p * p`` bytes).
BACKEND_BYTES: dict[str, tuple[float, float]] = {
    "networkx": (NETWORKX_BYTES_PER_NODE, NETWORKX_BYTES_PER_EDGE),
    "rustworkx": (120, 200),  # the edge list goes through Python tuples
    "igraph": (64, 64),
    "networkit": (96, 64),
}
#: Scratch bytes per node pair of the families that draw every pair at once
#: (erdos_renyi, cluster on small graphs): two int64 index arrays, the uniforms, the
#: threshold, the mask.
PAIR_SCRATCH_BYTES = 33


def graph_bytes(backend: str) -> tuple[float, float]:
    """Bytes per node and per edge to build a family's graph in ``backend``'s type."""
    node, edge = BACKEND_BYTES.get(backend, (0.0, 0.0))
    return SPARSE_BYTES_PER_NODE + node, SPARSE_BYTES_PER_EDGE + edge


def check_graph_memory(
    family: str,
    p: int,
    edges: float,
    pairs: bool = False,
    copies: int = 1,
    backend: str = "networkx",
) -> None:
    """Refuse, before any allocation, a graph that cannot be built in available memory.

    The estimate is linear in ``p`` and the (expected) edge count ``edges``,
    at the bytes of :func:`graph_bytes` for ``backend`` (``"numpy"`` adds its
    dense ``p * p`` adjacency); ``pairs`` says the family draws all
    ``p (p - 1) / 2`` node pairs at once (small graphs only); ``copies``
    graphs of this size are built (``related_graphs``). Raises
    :class:`TooLargeError` naming the need, what is available and the
    largest ``p`` that fits.
    """
    from spdgraph._machine import available_memory

    per_pair = PAIR_SCRATCH_BYTES if pairs else 0.0
    if backend == "numpy":
        per_pair += 2.0  # the dense boolean adjacency, p * p bytes (two per pair)
    p = min(p, MAX_COUNT)  # floats from here on: never an OverflowError
    node_bytes, edge_bytes = graph_bytes(backend)
    need = copies * (node_bytes * float(p) + edge_bytes * edges)
    need += per_pair * float(p) * (p - 1) / 2
    available = available_memory()
    if available is None or need <= available:
        return
    if copies > 1:
        raise TooLargeError(
            f"{copies:,} graphs of {p:,} nodes need about {need / 2**30:,.1f} GiB to build "
            f"but only {available / 2**30:,.1f} GiB is available; make fewer graphs (at most "
            f"about {max(1, int(copies * available / need)):,} here)."
        )
    # the largest p that fits at this family's edges per node (and pair scratch)
    per_node = node_bytes + edge_bytes * edges / p
    low, high = 1, p
    while low < high:
        mid = (low + high + 1) // 2
        if per_node * mid + per_pair * mid * (mid - 1) / 2 <= available:
            low = mid
        else:
            high = mid - 1
    graph_gib = (need - per_pair * p * (p - 1) / 2) / 2**30
    what = f"a {backend} graph of {p:,} nodes and about {int(edges):,} edges: {graph_gib:,.1f} GiB"
    if backend == "numpy":  # the dense adjacency itself, p * p bytes
        what = f"the dense {p:,} x {p:,} adjacency: {float(p) * p / 2**30:,.1f} GiB, plus {what}"
    if pairs:  # name the real cost: the draw over every node pair, not the graph
        scratch = PAIR_SCRATCH_BYTES
        what = (
            f"the draw over all {p * (p - 1) // 2:,} node pairs at {scratch:.0f} bytes each: "
            f"{scratch * p * (p - 1) / 2 / 2**30:,.1f} GiB, plus {what}"
        )
    raise TooLargeError(
        f"graph family {family!r} with p={p:,} needs about {need / 2**30:,.1f} GiB to build "
        f"({what}) but only {available / 2**30:,.1f} GiB is available; use fewer nodes (at "
        f"most about {low:,} here)."
    )


def seeded_rng(seed: SeedLike) -> tuple[np.random.Generator, str]:
    """The family's random stream and the root entropy that replays it (for ``G.graph``)."""
    root = seed_sequence(seed)
    return root_stream(root), seed_attrs(root)["seed"]


def make_graph(
    p: int,
    edges: Iterable[tuple[int, int]],
    family: str,
    parameters: dict[str, Any],
    seed: str | None = None,
) -> nx.Graph:
    """A graph on nodes ``0..p-1`` recording its family and parameters in ``G.graph``.

    ``G.graph["family"]`` is the family's function name, ``G.graph["parameters"]``
    the parameters with every default resolved (plain JSON values), and, for a
    random family, ``G.graph["seed"]`` the root entropy that replays it.
    """
    g = nx.Graph()
    g.add_nodes_from(range(p))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    g.graph["family"] = family
    g.graph["parameters"] = {"p": p, **parameters}
    if seed is not None:
        g.graph["seed"] = seed
    return g


def equal_groups(p: int, n_groups: int) -> list[int]:
    """Group sizes as R huge and BDgraph make them: ``p % g`` groups get one node more, last."""
    small, n_large = divmod(p, n_groups)
    return [small] * (n_groups - n_large) + [small + 1] * n_large
