"""Graph family names of R huge.generator and BDgraph's bdgraph.sim, for :func:`spdgraph.simulate`.

The family table and its builder are :mod:`spdgraph.graphs`'
(:data:`~spdgraph.graphs.FAMILIES`, :func:`~spdgraph.graphs.family_graph`):
a name is matched case-insensitively with ``-``, ``_``, spaces and
parentheses ignored, so ``"scale-free"``, ``"scale_free"``, ``"AR(1)"`` and
``"AR1"`` all work (:func:`spdgraph.vocabulary.canonical_family`), and the R
arguments that name a family parameter differently are accepted under their
R name too (huge's ``g``, BDgraph's ``class``, the ``prob`` of a random
graph, BDgraph's lattice ``size`` spelled ``shape`` since ``size`` is the
stack size here). Here ``simulate``'s keyword arguments are split between the
family and :func:`spdgraph.sample`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.graphs import FAMILIES
from spdgraph.graphs import family_graph as _family_graph
from spdgraph.vocabulary import FAMILY_ALIASES, canonical_family

__all__ = ["FAMILY_NAMES", "canonical_family", "family_graph", "split_family_options"]

#: Every accepted family name (R's spellings included) -> spdgraph.graphs function.
FAMILY_NAMES: dict[str, str] = {**{name: name for name in FAMILIES}, **FAMILY_ALIASES}


def split_family_options(
    family: str, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(family parameters, the rest)``: the family's (R names too), the rest for ``sample``."""
    spec = FAMILIES[family]
    takes = {*spec.parameters, *spec.r_arguments}
    graph_options = {k: v for k, v in options.items() if k in takes}
    rest = {k: v for k, v in options.items() if k not in takes}
    return graph_options, rest


def family_graph(
    family: str,
    p: object,
    options: Mapping[str, Any],
    seed: np.random.SeedSequence,
    *,
    backend: str = "networkx",
) -> Any:
    """The graph of ``family`` on ``p`` nodes (:func:`spdgraph.graphs.family_graph`).

    ``seed`` is used by random families only; ``backend`` is the family's
    ``backend=`` (``"scipy"`` for a sparse adjacency built in O(p + edges)).
    """
    if p is None:
        raise InvalidOptionError(
            f"a family name ({family!r}) needs the number of nodes: pass p=..., e.g. "
            f"simulate({family!r}, n=100, p=50)."
        )
    return _family_graph(family, p, seed=seed, backend=backend, **options)
