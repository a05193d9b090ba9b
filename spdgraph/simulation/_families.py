"""Graph family names of R huge.generator and BDgraph's bdgraph.sim, mapped onto spdgraph.graphs.

A name is matched case-insensitively with ``-``, ``_``, spaces and
parentheses ignored, so ``"scale-free"``, ``"scale_free"``, ``"AR(1)"`` and
``"AR1"`` all work (:func:`spdgraph.vocabulary.canonical_family`). The R
arguments that name a family parameter differently are accepted under their
R name too (huge's ``g``, BDgraph's ``class``, the ``prob`` of a random
graph, BDgraph's lattice ``size`` spelled ``shape`` since ``size`` is the stack size here).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import networkx as nx
import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.vocabulary import FAMILY_ALIASES, canonical_family
from spdgraph.vocabulary import FAMILY_NAMES as _FAMILIES

__all__ = ["FAMILY_NAMES", "canonical_family", "family_graph", "split_family_options"]

#: Every accepted family name (R's spellings included) -> spdgraph.graphs function
#: (built from :mod:`spdgraph.vocabulary`, the one table of families and aliases).
FAMILY_NAMES: dict[str, str] = {**dict(zip(_FAMILIES, _FAMILIES, strict=True)), **FAMILY_ALIASES}

#: R argument -> spdgraph.graphs parameter, per family (huge's g, BDgraph's class, ...).
_R_ARGUMENTS: dict[str, dict[str, str]] = {
    "erdos_renyi": {"prob": "d"},
    "hub": {"g": "n_hubs"},
    "cluster": {"g": "n_groups", "class": "n_groups"},
    "band": {"g": "bandwidth"},
    "small_world": {"nei": "neighbors"},
}


def _parameters(family: str) -> list[str]:
    from spdgraph.graphs import FAMILIES

    params = inspect.signature(FAMILIES[family]).parameters
    return [k for k in params if k not in ("p", "seed", "backend")]  # backend: the caller's


def split_family_options(
    family: str, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(family parameters, the rest)``: R names translated, the rest for :func:`sample`."""
    takes = _parameters(family)
    aliases = _R_ARGUMENTS.get(family, {})
    graph_options: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in options.items():
        name = aliases.get(key, key)
        if name in takes:
            if name in graph_options:
                raise InvalidOptionError(
                    f"{family}'s {name!r} is given twice (once as R's {key!r}); give it once."
                )
            graph_options[name] = value
        else:
            rest[key] = value
    return graph_options, rest


def family_graph(
    family: str,
    p: object,
    options: Mapping[str, Any],
    seed: np.random.SeedSequence,
    *,
    backend: str = "networkx",
) -> nx.Graph | Any:
    """The graph of ``family`` on ``p`` nodes; ``seed`` is used by random families only.

    ``backend`` is the family's ``backend=`` (``"scipy"`` for a sparse adjacency
    built in O(p + edges), never a networkx graph).
    """
    from spdgraph.graphs import FAMILIES, check_count

    if p is None:
        raise InvalidOptionError(
            f"a family name ({family!r}) needs the number of nodes: pass p=..., e.g. "
            f"simulate({family!r}, n=100, p=50)."
        )
    p = check_count(p, "p")
    kwargs = dict(options)
    if family == "erdos_renyi":
        kwargs.setdefault("d", min(1.0, 3.0 / p))  # huge's default density
    function = FAMILIES[family]
    random = family != "hub" or kwargs.get("mode", "huge") != "huge"
    if random and "seed" in inspect.signature(function).parameters:
        kwargs["seed"] = seed
    try:
        return function(p, **kwargs, backend=backend)
    except TypeError as exc:  # a missing or extra parameter
        raise InvalidOptionError(
            f"graph family {family!r}: {exc}; it takes {_parameters(family)}."
        ) from None
