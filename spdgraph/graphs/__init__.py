"""Seeded graphs to sample matrices on.

``erdos_renyi`` is the random graph of the paper's experiments (gmat's
``rgraph``). Each family lives in its own private module and is re-exported
here, so ``spdgraph.graphs.<name>`` is the public name.
"""

from __future__ import annotations

from spdgraph.graphs._random import erdos_renyi
from spdgraph.graphs._related import related_graphs, shared_edges

__all__ = ["erdos_renyi", "related_graphs", "shared_edges"]
