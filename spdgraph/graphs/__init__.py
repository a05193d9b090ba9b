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
name; :data:`FAMILIES` is the one table of families (name, R's names of the
family and of its parameters, parameters with defaults, builder) and
:func:`family_graph` the one builder from a family's name, which
:func:`spdgraph.simulate`, the commands and a study's configuration call.
:func:`perfect_elimination_order` tells whether a graph (as a boolean
adjacency) is chordal and gives the order the decomposable-graph samplers need.
"""

from __future__ import annotations

from spdgraph._kernels.chordal import perfect_elimination_order
from spdgraph.graphs._common import check_count as check_count  # for the CLI
from spdgraph.graphs._families import cluster, hub, star
from spdgraph.graphs._growth import scale_free, small_world
from spdgraph.graphs._random import erdos_renyi
from spdgraph.graphs._regular import ar1, ar2, band, circle, lattice
from spdgraph.graphs._related import related_graphs, shared_edges
from spdgraph.graphs._table import FAMILIES, Family, family_graph

__all__ = [
    "FAMILIES",
    "Family",
    "ar1",
    "ar2",
    "band",
    "circle",
    "cluster",
    "erdos_renyi",
    "family_graph",
    "hub",
    "lattice",
    "perfect_elimination_order",
    "related_graphs",
    "scale_free",
    "shared_edges",
    "small_world",
    "star",
]
