"""Seeded graphs to sample matrices on: the families of R huge and BDgraph.

``erdos_renyi`` is the random graph of the paper's experiments (gmat's
``rgraph``); ``hub``, ``cluster`` (stochastic block model), ``band``,
``scale_free``, ``small_world``, ``lattice``, ``star``, ``circle``, ``ar1``
and ``ar2`` are the graph types of R ``huge.generator`` and
``BDgraph::bdgraph.sim`` (see ``docs/graphs.md`` for the table of R
equivalents). Every family returns a :class:`networkx.Graph` on nodes
``0..p-1`` whose ``G.graph`` records ``family``, ``parameters`` (defaults
resolved) and, for a random family, ``seed``; or, with ``backend=``, any
registered graph backend's type (``"scipy"``, ``"igraph"``, ``"networkit"``,
...) built straight from a sparse adjacency, in O(p + edges) time and memory
(``docs/graphs.md``, "Graphs at scale"). Each family lives in a private
module and is re-exported here, so ``spdgraph.graphs.<name>`` is the public
name; :data:`FAMILIES` maps the names to the functions.
:func:`perfect_elimination_order` tells whether a graph (as a boolean
adjacency) is chordal and gives the order the decomposable-graph samplers need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spdgraph._kernels.chordal import perfect_elimination_order
from spdgraph.graphs._common import check_count as check_count  # for the CLI
from spdgraph.graphs._families import cluster, hub, star
from spdgraph.graphs._growth import scale_free, small_world
from spdgraph.graphs._random import erdos_renyi
from spdgraph.graphs._regular import ar1, ar2, band, circle, lattice
from spdgraph.graphs._related import related_graphs, shared_edges

__all__ = [
    "FAMILIES",
    "ar1",
    "ar2",
    "band",
    "circle",
    "cluster",
    "erdos_renyi",
    "hub",
    "lattice",
    "perfect_elimination_order",
    "related_graphs",
    "scale_free",
    "shared_edges",
    "small_world",
    "star",
]

#: Every graph family by name (what ``spdgraph graph FAMILY`` makes).
FAMILIES: dict[str, Callable[..., Any]] = {
    "ar1": ar1,
    "ar2": ar2,
    "band": band,
    "circle": circle,
    "cluster": cluster,
    "erdos_renyi": erdos_renyi,
    "hub": hub,
    "lattice": lattice,
    "scale_free": scale_free,
    "small_world": small_world,
    "star": star,
}
