"""spdgraph plugin: G-Wishart sampler, ``spdgraph.sample(g, method="gwishart")``.

Lenkoski (2013) as in BDgraph by default; ``algorithm="chordal"`` is exact on
decomposable graphs.

>>> import networkx as nx, spdgraph
>>> k = spdgraph.sample(nx.cycle_graph(5), "gwishart", kind="precision",
...                     normalize=False, seed=0, b=3.0)
>>> float(k.sel(node=0, node_2=2))
0.0
"""

from spdgraph_gwishart.plugin import gwishart, scale_matrix, wishart_bartlett

__all__ = ["gwishart", "scale_matrix", "wishart_bartlett"]
