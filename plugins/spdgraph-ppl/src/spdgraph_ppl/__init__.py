"""spdgraph-ppl: a G-Wishart prior on graph-constrained precision matrices for PPLs.

The core (this module) imports no probabilistic-programming library:

* :func:`graph_structure`: any graph spdgraph accepts, in the form the law needs;
* :mod:`spdgraph_ppl.transform`: the bijection between unconstrained
  coordinates and SPD matrices with exact zeros on a graph's non-edges, and
  its log-Jacobian (pure NumPy reference);
* :mod:`spdgraph_ppl.density`: the G-Wishart log density, normalized for
  decomposable graphs;
* :func:`exact_posterior`: exact draws of the conjugate posterior of a
  Gaussian graphical model on a decomposable graph;
* :func:`compare_to_exact`: MCMC draws against exact draws within Monte Carlo error;
* :func:`sbc`: simulation-based calibration of any model builder.

The PPL front ends are :mod:`spdgraph_ppl.pymc` (extra ``[pymc]``) and
:mod:`spdgraph_ppl.numpyro` (extra ``[numpyro]``).

>>> import networkx as nx, numpy as np
>>> from spdgraph_ppl import free_to_precision
>>> k = free_to_precision(np.zeros(3 + 2), nx.path_graph(3))
>>> float(k[0, 2])
0.0
"""

from spdgraph_ppl._data import data_matrix
from spdgraph_ppl._exact import exact_posterior, prior_draws
from spdgraph_ppl._graph import GraphStructure, graph_structure
from spdgraph_ppl.compare import compare_to_exact
from spdgraph_ppl.density import gwishart_logp, log_normalizer
from spdgraph_ppl.sbc import (
    SBCModel,
    SBCResult,
    free_entries,
    from_free_entries,
    rank_uniformity,
    sbc,
)
from spdgraph_ppl.transform import (
    free_to_phi,
    free_to_precision,
    log_jacobian,
    precision_to_free,
)

__all__ = [
    "GraphStructure",
    "SBCModel",
    "SBCResult",
    "compare_to_exact",
    "data_matrix",
    "exact_posterior",
    "free_entries",
    "free_to_phi",
    "free_to_precision",
    "from_free_entries",
    "graph_structure",
    "gwishart_logp",
    "log_jacobian",
    "log_normalizer",
    "precision_to_free",
    "prior_draws",
    "rank_uniformity",
    "sbc",
]
