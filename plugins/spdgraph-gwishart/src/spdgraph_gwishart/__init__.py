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

from spdgraph_gwishart.choice import (
    AlgorithmChoice,
    GWishartMCMCWarning,
    choose_algorithm,
    plan,
    sample,
)
from spdgraph_gwishart.plugin import (
    GWishartLenkoskiWarning,
    gwishart,
    scale_matrix,
    wishart_bartlett,
)

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
