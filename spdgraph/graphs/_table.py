"""The one table of graph families: name, R's names, parameters with defaults, builder.

Every entry point that builds a graph from a family name -- :func:`family_graph`
(public as :func:`spdgraph.graphs.family_graph`), :func:`spdgraph.simulate`,
``spdgraph graph``, ``spdgraph sample --graph-family``, ``spdgraph simulate``
and a study's ``family`` -- goes through :func:`family_graph`, so one family
name, its parameters and a seed give the same graph everywhere. The names and
R aliases of the families are :mod:`spdgraph.vocabulary`'s (the ground floor,
where every entry point checks them); the parameters and their defaults are the
builder's signature, read here, never written twice.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spdgraph.errors import InvalidOptionError
from spdgraph.graphs._families import cluster, hub, star
from spdgraph.graphs._growth import scale_free, small_world
from spdgraph.graphs._random import erdos_renyi
from spdgraph.graphs._regular import ar1, ar2, band, circle, lattice
from spdgraph.graphs._sparse import DEFAULT_BACKEND
from spdgraph.vocabulary import FAMILY_SPELLINGS, canonical_family

__all__ = ["FAMILIES", "Family", "family_graph"]

#: Parameters of every builder that are not the family's own.
_COMMON = ("p", "seed", "backend")


def _always(parameters: Mapping[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class Family:
    """One graph family: its builder, R's names of its parameters, when it draws.

    A ``Family`` is called as its builder is (``FAMILIES["band"](10, 2)``).

    Attributes
    ----------
    function
        The builder, ``function(p, **parameters, seed=..., backend=...)``.
    r_arguments
        R huge's / BDgraph's name of a parameter -> the parameter (huge's
        ``g``, BDgraph's ``class``, the ``prob`` of a random graph).
    draws_with
        Whether the family is random for the given parameters (a hub graph
        in huge's mode is not).
    """

    function: Callable[..., Any]
    r_arguments: Mapping[str, str] = field(default_factory=dict)
    draws_with: Callable[[Mapping[str, Any]], bool] = _always

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        """The builder's signature (what :func:`inspect.signature` of the record gives)."""
        return inspect.signature(self.function)

    @property
    def name(self) -> str:
        """The family's name (its builder's name)."""
        return self.function.__name__

    @property
    def aliases(self) -> tuple[str, ...]:
        """R huge's and BDgraph's names of the family (``vocabulary.FAMILY_SPELLINGS``)."""
        return FAMILY_SPELLINGS[self.name]

    @property
    def parameters(self) -> dict[str, Any]:
        """The family's parameters (beyond ``p``, ``seed``, ``backend``) -> default."""
        signature = inspect.signature(self.function).parameters
        return {k: v.default for k, v in signature.items() if k not in _COMMON}

    def draws(self, parameters: Mapping[str, Any]) -> bool:
        """Whether a graph with these parameters is random (takes a seed)."""
        takes_seed = "seed" in inspect.signature(self.function).parameters
        return takes_seed and self.draws_with(parameters)

    def arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` with R's names translated; a parameter it does not take is refused."""
        out: dict[str, Any] = {}
        for key, value in given.items():
            name = self.r_arguments.get(key, key)
            if name not in self.parameters:
                takes = ", ".join(self.parameters) or "none but p"
                raise InvalidOptionError(
                    f"graph family {self.name!r} takes no {key!r}; its parameters: {takes}."
                )
            if name in out:
                raise InvalidOptionError(
                    f"{self.name}'s {name!r} is given twice (once as R's {key!r}); give it once."
                )
            out[name] = value
        return out


def _random_hubs(parameters: Mapping[str, Any]) -> bool:
    return parameters.get("mode", "huge") != "huge"


#: Every graph family by name (what ``spdgraph graph FAMILY`` makes).
FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family(ar1),
        Family(ar2),
        Family(band, {"g": "bandwidth"}),
        Family(circle),
        Family(cluster, {"g": "n_groups", "class": "n_groups"}),
        Family(erdos_renyi, {"prob": "d"}),
        Family(hub, {"g": "n_hubs"}, _random_hubs),
        Family(lattice),
        Family(scale_free),
        Family(small_world, {"nei": "neighbors"}),
        Family(star),
    )
}


def family_graph(
    family: str, p: object, *, seed: Any = None, backend: str = DEFAULT_BACKEND, **parameters: Any
) -> Any:
    """The graph of a family named as any entry point names it, with R's parameter names too.

    Parameters
    ----------
    family
        A name of :data:`FAMILIES` or an R alias (``"random"``, ``"AR(1)"``,
        ``"scale-free"``...; :func:`spdgraph.vocabulary.canonical_family`).
    p
        Number of nodes.
    seed
        The seed of a random family; a family that draws nothing ignores it.
    backend
        The type returned (``"networkx"``, ``"scipy"``, ...), as each family's ``backend=``.
    **parameters
        The family's parameters, under their names or R's (``prob`` for
        ``erdos_renyi``'s ``d``, ``g`` for ``hub``'s ``n_hubs``...); the rest
        take the family's defaults (``erdos_renyi``: huge's ``d = min(1, 3/p)``).

    Examples
    --------
    >>> from spdgraph.graphs import erdos_renyi, family_graph
    >>> g = family_graph("random", 30, seed=4)
    >>> g.graph["family"], g.graph["parameters"]["d"]
    ('erdos_renyi', 0.1)
    >>> sorted(g.edges) == sorted(erdos_renyi(30, seed=4).edges)
    True
    >>> family_graph("hub", 10, g=2).graph["hubs"]
    [0, 5]
    """
    spec = FAMILIES[canonical_family(family)]
    kwargs = spec.arguments(parameters)
    if spec.draws(kwargs):
        kwargs["seed"] = seed
    return spec.function(p, **kwargs, backend=backend)
