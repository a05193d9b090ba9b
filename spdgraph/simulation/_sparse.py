"""``spdgraph.simulate(..., sparse=True)``: a sparse precision and exact data, no dense p x p.

The graph (a family name or any graph ``sample(..., sparse=True)`` reads), its
matrix from ``sample(..., sparse=True)`` and Gaussian data drawn from it exactly
through a sparse Cholesky factorization (``da.spd.draw`` on a sparse matrix). The
inverse of a sparse matrix is dense: it is included only while a dense ``p x p``
array stays small (:data:`DENSE_INVERSE_NODES`), and ``attrs["omitted"]`` says so
otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import xarray as xr

from spdgraph._version import __version__
from spdgraph.errors import InvalidOptionError, written
from spdgraph.seeds import seed_attrs

__all__ = ["DENSE_INVERSE_NODES", "simulate_sparse"]

#: Up to this many nodes the dense inverse (covariance of a precision, or the reverse)
#: and, for a covariance, the partial correlations are included (8 * p**2 bytes each).
DENSE_INVERSE_NODES = 4000


def _graph(
    graph: object, p: object, options: dict[str, Any], graph_seed: np.random.SeedSequence
) -> tuple[object, dict[str, Any], dict[str, Any]]:
    from spdgraph.simulation._families import canonical_family, family_graph, split_family_options

    attrs: dict[str, Any] = {}
    if not isinstance(graph, str):
        if p is not None:
            raise InvalidOptionError(
                f"p={written(p)} is for a family name; a given graph has its own nodes."
            )
        attrs["graph_family"] = "given"
        return graph, options, attrs
    family = canonical_family(graph)
    graph_options, options = split_family_options(family, options)
    made = family_graph(family, p, graph_options, graph_seed, backend="scipy")  # O(p + edges)
    attrs["graph_family"] = family
    attrs["graph_name"] = graph
    attrs["graph_parameters"] = json.dumps({"p": p, **graph_options}, default=str)
    return made, options, attrs


def simulate_sparse(
    graph: object,
    n: int,
    *,
    p: int | None,
    method: str,
    kind: str,
    data: object,
    missing: float,
    size: int | None,
    related: object,
    root: np.random.SeedSequence,
    options: dict[str, Any],
    seeds: dict[str, np.random.SeedSequence],
    streams: dict[str, int],
) -> xr.Dataset:
    """The sparse path of :func:`spdgraph.simulate` (see the module docstring);
    ``seeds`` holds the call's ``"graph"``, ``"matrix"`` and ``"data"`` sub-streams."""
    from spdgraph.sampling import sample

    if related:
        raise InvalidOptionError("sparse=True takes one graph: related graphs need sparse=False.")
    if data != "gaussian" or missing:
        raise InvalidOptionError(
            "sparse=True draws Gaussian data (data='gaussian', missing=0): other data types "
            "need the dense path (sparse=False)."
        )
    graph, options, attrs = _graph(graph, p, dict(options), seeds["graph"])
    truth = sample(
        graph, method, kind=kind, size=size, seed=seeds["matrix"], sparse=True,
        **options,
    )  # fmt: skip
    observations = truth.spd.draw(int(n), seed=seeds["data"])
    nodes = int(truth.sizes["node"])
    adjacency = truth["adjacency"].reset_coords(drop=True).rename("adjacency")
    adjacency.attrs = {"description": "the true graph: exact zeros of the " + kind}
    variables: dict[str, xr.DataArray] = {kind: truth.drop_vars("adjacency").rename(kind)}
    other = "covariance" if kind == "precision" else "precision"
    if kind == "precision":
        pcor = truth.spd.partial_correlation().drop_vars("adjacency")
        variables["partial_correlation"] = pcor.rename("partial_correlation")
    if nodes <= DENSE_INVERSE_NODES:
        dense = truth.copy(data=np.asarray(truth.data.todense()))
        inverse = dense.spd.inverse().drop_vars("adjacency")
        variables[other] = inverse.rename(other)
        if kind == "covariance":
            pcor = inverse.assign_coords(adjacency=truth["adjacency"]).spd.partial_correlation()
            variables["partial_correlation"] = pcor.drop_vars("adjacency").rename(
                "partial_correlation"
            )
    else:
        attrs["omitted"] = (
            f"{other}{' and partial_correlation' if kind == 'covariance' else ''}: the inverse "
            f"of a sparse {kind} is a dense {nodes:,} x {nodes:,} matrix (more than "
            f"{DENSE_INVERSE_NODES:,} nodes); invert a small part, or use the data."
        )
    variables["adjacency"] = adjacency
    variables["data"] = observations
    n_edges = int(truth["adjacency"].data.nnz) // 2
    attrs.update(
        {
            "n": int(n),
            "p": nodes,
            "n_edges": n_edges,
            "kind": kind,
            "method": method,
            "data": "gaussian",
            "data_options": json.dumps({}),
            "missing": 0.0,
            "sparse": 1,
            "streams": json.dumps(streams),
            "spdgraph_version": __version__,
            **seed_attrs(root),
        }
    )
    return xr.Dataset(variables, attrs=attrs)
