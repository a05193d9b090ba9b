"""What every graph family shares: argument checks, seeded streams, the labelled graph."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.seeds import SeedLike, seed_sequence

__all__ = ["check_count", "check_probability", "equal_groups", "make_graph", "seeded_rng"]


def check_count(value: object, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``, else an InvalidOptionError saying so."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = int(value)
        if n >= low and (high is None or n <= high):
            return n
    upper = "" if high is None else f" and <= {high}"
    raise InvalidOptionError(f"{name} must be an integer >= {low}{upper}, got {written(value)}.")


def check_probability(value: object, name: str) -> float:
    """``value`` as a float in [0, 1], else an InvalidOptionError saying so."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidOptionError(f"{name} must be a probability in [0, 1], got {written(value)}.")
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidOptionError(f"{name} must be a probability in [0, 1], got {written(value)}.")
    return float(value)


def seeded_rng(seed: SeedLike) -> tuple[np.random.Generator, str]:
    """The family's random stream and the root entropy that replays it (for ``G.graph``)."""
    root = seed_sequence(seed)
    return np.random.Generator(np.random.PCG64(root)), str(root.entropy)


def make_graph(
    p: int,
    edges: Iterable[tuple[int, int]],
    family: str,
    parameters: dict[str, Any],
    seed: str | None = None,
) -> nx.Graph:
    """A graph on nodes ``0..p-1`` recording its family and parameters in ``G.graph``.

    ``G.graph["family"]`` is the family's function name, ``G.graph["parameters"]``
    the parameters with every default resolved (plain JSON values), and, for a
    random family, ``G.graph["seed"]`` the root entropy that replays it.
    """
    g = nx.Graph()
    g.add_nodes_from(range(p))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    g.graph["family"] = family
    g.graph["parameters"] = {"p": p, **parameters}
    if seed is not None:
        g.graph["seed"] = seed
    return g


def equal_groups(p: int, n_groups: int) -> list[int]:
    """Group sizes as R huge and BDgraph make them: ``p % g`` groups get one node more, last."""
    small, n_large = divmod(p, n_groups)
    return [small] * (n_groups - n_large) + [small + 1] * n_large
