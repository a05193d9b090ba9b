"""Marginals for :meth:`da.spd.draw <spdgraph.accessor.SpdAccessor.draw>`: beyond Gaussian data.

``draw(n, marginals=...)`` accepts, per node or for all nodes, ``"gaussian"``
(the latent values), ``"standardized"`` (the latent values at unit variance),
``"binary"``, a frozen :mod:`scipy.stats` distribution (Gaussian copula with
that marginal; discrete distributions give counts) or an :class:`Ordinal`.

>>> import networkx as nx, numpy as np, spdgraph
>>> from spdgraph.marginals import Ordinal
>>> cov = spdgraph.sample(nx.path_graph(4), seed=0)
>>> x = cov.spd.draw(1000, seed=1, marginals=Ordinal(n_categories=3), missing=0.1)
>>> sorted(set(x.values[~np.isnan(x.values)].tolist()))
[0.0, 1.0, 2.0]
"""

from spdgraph.accessor._marginal_draws import MAX_CATEGORIES, MAX_SPEC_CHARS, SHORTCUTS, Ordinal

__all__ = ["MAX_CATEGORIES", "MAX_SPEC_CHARS", "SHORTCUTS", "Ordinal"]
