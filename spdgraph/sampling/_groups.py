"""Several related graphs in one call: ``spdgraph.sample([g_1, ..., g_K])`` -> a ``group`` dim.

Each graph is sampled by :func:`spdgraph.sample` itself, with its own seed
stream (the call's root seed with :data:`GROUP_STREAM_DOMAIN` and ``k``
appended to its spawn key), and the results are stacked along a leading
``group`` dimension. Every group keeps its graph: the ``adjacency``
coordinate has dims ``("group", "node", "node_2")``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import plain
from spdgraph.errors import InvalidOptionError
from spdgraph.sampling._adapt import adapt_graph
from spdgraph.sampling._output import ACHIEVED_SPECTRUM
from spdgraph.seeds import SeedLike, seed_attrs, seed_sequence

__all__ = ["GROUP_STREAM_DOMAIN", "group_seed", "sample_groups"]

#: Spawn-key entry of the per-group streams (ASCII "grup").
GROUP_STREAM_DOMAIN = 0x67727570


#: Attrs that are always listed per group (flattened in (group, sample) order):
#: the achieved spectrum, present when the call sets a spectrum target.
_PER_GROUP = ACHIEVED_SPECTRUM


def group_seed(root: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """The seed of group ``k`` under the call's root seed."""
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, GROUP_STREAM_DOMAIN, k), pool_size=root.pool_size
    )


def _labels(graph: object, method: str) -> list[Any]:
    """The node labels of a graph, adapted as ``method`` will (a DAG for a DAG method)."""
    from spdgraph.plugins import find_generator

    if isinstance(method, str) and find_generator(method)[0].accepts_dag:
        from spdgraph.sampling._adapt_dag import adapt_dag

        return [plain(x) for x in adapt_dag(graph, "covariance", method).labels]
    return [plain(x) for x in adapt_graph(graph).labels]


def _check_nodes(graphs: Sequence[object], method: str) -> None:
    first: list[Any] | None = None
    for k, graph in enumerate(graphs):
        labels = _labels(graph, method)
        if first is None:
            first = labels
        elif labels != first:
            raise InvalidOptionError(
                f"graph {k} does not have the nodes of graph 0 in the same order; related "
                "graphs must share their nodes (spdgraph.graphs.related_graphs keeps them)."
            )


def _combine_attrs(parts: list[xr.DataArray], root: np.random.SeedSequence) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for key, value in parts[0].attrs.items():
        if key in ("seed", "seed_spawn_key"):
            continue
        values = [part.attrs.get(key) for part in parts]
        same = all(np.array_equal(np.asarray(v), np.asarray(value)) for v in values)
        if same and key not in _PER_GROUP:
            attrs[key] = value
        else:  # e.g. the achieved spectrum: flattened in (group, sample) order
            attrs[key] = [float(x) for v in values for x in np.ravel(np.asarray(v, dtype=float))]
    attrs.update(seed_attrs(root))
    attrs["groups"] = len(parts)
    return attrs


def sample_groups(
    sample: Callable[..., xr.DataArray],
    graphs: Sequence[object],
    method: str,
    seed: SeedLike,
    options: dict[str, Any],
) -> xr.DataArray:
    """Sample each graph with its own seed stream and stack along ``group`` (see module)."""
    if len(graphs) == 0:
        raise InvalidOptionError("the sequence of graphs is empty; give at least one graph.")
    if options.get("factor") is not None:
        raise InvalidOptionError(
            "factor= cannot be given with several graphs; sample each graph on its own."
        )
    _check_nodes(graphs, method)
    root = seed_sequence(seed)
    parts = [
        sample(graph, method, seed=group_seed(root, k), **options)
        for k, graph in enumerate(graphs)
    ]
    # each group's graph: the adjacency, and the DAG for a DAG method
    per_group = [name for name in ("adjacency", "dag") if name in parts[0].coords]
    graphs_of = {
        name: np.stack([np.asarray(part[name].values) for part in parts]) for name in per_group
    }
    stacked = xr.concat(
        [part.drop_vars(per_group) for part in parts],
        dim="group",
        coords="minimal",
        compat="override",
        combine_attrs="drop",
    )
    coords: dict[str, Any] = {"group": ("group", np.arange(len(parts), dtype=np.int64))}
    coords.update({name: (("group", "node", "node_2"), v) for name, v in graphs_of.items()})
    stacked = stacked.assign_coords(coords)
    stacked.attrs = _combine_attrs(parts, root)
    stacked.name = parts[0].name
    return stacked
