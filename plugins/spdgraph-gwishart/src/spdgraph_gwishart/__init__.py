"""spdgraph plugin: G-Wishart sampler, ``spdgraph.sample(g, method="gwishart")``.

Exact W_G(b, D) draws on every graph by default (``algorithm="auto"``: the
chordal row sampler on decomposable graphs, accept-reject on the
Atay-Kayis-Massam decomposition otherwise, block Gibbs MCMC with a warning
when the acceptance is tiny); ``algorithm="lenkoski"`` is R BDgraph's
``rgwish`` sampler (warns: its joint law is not W_G).

>>> import networkx as nx, spdgraph
>>> k = spdgraph.sample(nx.cycle_graph(5), "gwishart", kind="precision",
...                     normalize=False, seed=0, b=3.0)
>>> float(k.sel(node=0, node_2=2))
0.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from spdgraph_gwishart.plugin import GWishartLenkoskiWarning, gwishart, scale_matrix

if TYPE_CHECKING:
    from spdgraph_gwishart.choice import (
        AlgorithmChoice,
        GWishartMCMCWarning,
        choose_algorithm,
        plan,
        sample,
    )
    from spdgraph_gwishart.lenkoski import wishart_bartlett

#: Names imported on first use (the samplers load numba, scipy and xarray): loading the
#: plugin, as ``spdgraph --help`` does, stays light.
_LAZY = {
    "AlgorithmChoice": "spdgraph_gwishart.choice",
    "GWishartMCMCWarning": "spdgraph_gwishart.choice",
    "choose_algorithm": "spdgraph_gwishart.choice",
    "plan": "spdgraph_gwishart.choice",
    "sample": "spdgraph_gwishart.choice",
    "wishart_bartlett": "spdgraph_gwishart.lenkoski",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "AlgorithmChoice",
    "GWishartLenkoskiWarning",
    "GWishartMCMCWarning",
    "choose_algorithm",
    "gwishart",
    "plan",
    "sample",
    "scale_matrix",
    "wishart_bartlett",
]
