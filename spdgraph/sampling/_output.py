"""Building the labelled output: every generator's matrices get the same DataArray."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.plugins.types import GraphData
from spdgraph.sampling._adapt import label_array

__all__ = ["LOWER_BOUND_ATTR", "build_dataarray", "certificate_attrs", "json_options"]

#: The attr holding the proven lower bound of the smallest eigenvalue (the minimum
#: over a stack), on every layout.
LOWER_BOUND_ATTR = "certificate_lambda_min_lower_bound"


#: Attrs holding one value per matrix (the achieved spectrum, with a target).
ACHIEVED_SPECTRUM = frozenset({"min_eigenvalue", "condition_number"})


def _json_default(value: Any) -> Any:
    """JSON fallback: numpy scalars as numbers, arrays as a reproducible summary."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]
        return f"ndarray(shape={value.shape}, dtype={value.dtype}, sha256={digest})"
    return repr(value)


def json_options(options: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(options.items())), default=_json_default)


def certificate_attrs(proven: np.ndarray) -> dict[str, Any]:
    """The certificate attrs of a dense result from its ``(2, n)`` proofs (row 0 each
    matrix's proven lower bound of its smallest eigenvalue, row 1 the proof's code).

    ``certificate`` names the proofs used (joined by "; " when a stack took
    several); ``certificate_lambda_min_lower_bound`` is the bound, the smallest over a
    stack (attrs hold provenance, one number: ``da.spd.check()`` proves it again).
    Nothing for an empty stack.

    >>> certificate_attrs(np.array([[0.5, 0.25], [1.0, 2.0]]))  # doctest: +NORMALIZE_WHITESPACE
    {'certificate': 'Cholesky factorization with its rounding bounded;
      diagonal dominance (weighted Gershgorin)', 'certificate_lambda_min_lower_bound': 0.25}
    """
    from spdgraph._kernels.proofs import PROOF_NAMES

    if proven.shape[1] == 0 or not np.all(proven[0] > 0):
        return {}
    names = sorted({PROOF_NAMES[float(code)] for code in np.unique(proven[1])})
    return {"certificate": "; ".join(names), LOWER_BOUND_ATTR: float(proven[0].min())}


def build_dataarray(
    values: Any,
    graph: GraphData,
    *,
    kind: str,
    stacked: bool,
    attrs: Mapping[str, Any],
) -> xr.DataArray:
    """Wrap values (numpy or dask) in the labelled DataArray every generator returns.

    Dims are ``("node", "node_2")`` (with a leading ``"sample"`` for a
    stack); both matrix dims carry the node labels; the boolean ``adjacency``
    coordinate over ``(node, node_2)`` carries the graph (the zero pattern); for
    a DAG method the boolean ``dag`` coordinate carries the DAG
    (``dag[i, j]`` True for the edge ``i -> j``).
    """
    labels = label_array(graph.labels)
    coords: dict[str, Any] = {
        "node": ("node", labels),
        "node_2": ("node_2", labels.copy()),
        "adjacency": (("node", "node_2"), graph.adjacency.copy()),
    }
    if graph.directed is not None:  # a DAG method: the DAG itself, dag[i, j] for i -> j
        coords["dag"] = (("node", "node_2"), graph.directed.copy())
    dims: tuple[str, ...] = ("node", "node_2")
    if stacked:
        dims = ("sample", *dims)
        coords["sample"] = ("sample", np.arange(values.shape[0], dtype=np.int64))
    else:
        values = values[0]
    return xr.DataArray(values, dims=dims, coords=coords, name=kind, attrs=dict(attrs))
