"""Several related graphs in one call: ``spdgraph.sample([g_1, ..., g_K])`` -> a ``group`` dim.

Each graph is sampled by :func:`spdgraph.sample` itself, with its own seed
stream (:func:`spdgraph.seeds.group_root`: the call's root seed with
:data:`spdgraph.seeds.GROUP` and ``k`` appended to its spawn key), and the
results are stacked along a leading ``group`` dimension. Every group keeps its
graph: the ``adjacency`` coordinate has dims ``("group", "node", "node_2")``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import plain
from spdgraph.errors import InvalidOptionError
from spdgraph.sampling._output import ACHIEVED_SPECTRUM, LOWER_BOUND_ATTR
from spdgraph.sampling._record import SampleCall, SampleRequest
from spdgraph.sampling._request import build_request
from spdgraph.seeds import SEED_ATTRS, group_root, seed_attrs, seed_sequence

__all__ = ["sample_groups"]


#: Attrs that are always listed per group (flattened in (group, sample) order):
#: the achieved spectrum, present when the call sets a spectrum target, and the
#: redraws per matrix.
_PER_GROUP = ACHIEVED_SPECTRUM | {"redraws"}


def _check_nodes(requests: Sequence[SampleRequest]) -> None:
    first = [plain(x) for x in requests[0].graph.labels]
    for k, request in enumerate(requests[1:], start=1):
        if [plain(x) for x in request.graph.labels] != first:
            raise InvalidOptionError(
                f"graph {k} does not have the nodes of graph 0 in the same order; related "
                "graphs must share their nodes (spdgraph.graphs.related_graphs keeps them)."
            )


#: How the groups' certificate attrs combine (as a stack's: :func:`certificate_attrs`).
_CERTIFICATE_ATTRS: dict[str, Callable[[list[Any]], Any]] = {
    LOWER_BOUND_ATTR: lambda bounds: float(min(bounds)),
    "certificate": lambda names: "; ".join(sorted({x for v in names for x in v.split("; ")})),
}


def _combine_attrs(parts: list[xr.DataArray], root: np.random.SeedSequence) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for key, value in parts[0].attrs.items():
        if key in SEED_ATTRS:
            continue
        values = [part.attrs.get(key) for part in parts]
        if key in _CERTIFICATE_ATTRS:  # one float (the smallest bound), the proofs named once
            attrs[key] = _CERTIFICATE_ATTRS[key]([v for v in values if v is not None])
            continue
        same = all(np.array_equal(np.asarray(v), np.asarray(value)) for v in values)
        if same and key not in _PER_GROUP:
            attrs[key] = value
        else:  # e.g. the achieved spectrum: flattened in (group, sample) order
            attrs[key] = [x for v in values for x in np.ravel(np.asarray(v)).tolist()]
    attrs.update(seed_attrs(root))
    attrs["groups"] = len(parts)
    return attrs


def sample_groups(
    graphs: Sequence[object], call: SampleCall, run: Callable[[SampleRequest], xr.DataArray]
) -> xr.DataArray:
    """Sample each graph with its own seed stream and stack along ``group`` (see module).

    Every group's request is built (``call`` with the group's root as seed, its
    graph adapted once), and the groups' nodes compared, before ``run`` samples
    any of them.
    """
    if len(graphs) == 0:
        raise InvalidOptionError("the sequence of graphs is empty; give at least one graph.")
    root = seed_sequence(call.get("seed"))  # type: ignore[arg-type]  # checked there
    requests = [  # build_request refuses what a group cannot take (factor, sparse=True)
        build_request(graph, call.replace(seed=group_root(root, k)), grouped=True)
        for k, graph in enumerate(graphs)
    ]
    _check_nodes(requests)
    parts = [run(request) for request in requests]
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
