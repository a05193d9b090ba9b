"""The graph of a sampled matrix, back out in the graph library a user works with.

``da.spd.graph(backend=...)``: the undirected graph of the ``adjacency``
coordinate with the array's node labels, built by ``from_graph`` of the
registered graph backend of that name (:class:`spdgraph.GraphBackend`: the
built-in networkx, igraph, rustworkx, NetworKit, SciPy, PyData sparse, numpy,
pandas and xarray ones, or a plugin's). The library is imported only when
asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, TooLargeError
from spdgraph.plugins.backends import call_backend, graph_backend, graph_backends
from spdgraph.plugins.types import GraphData, SparseGraphData


def graph_out(adjacency: np.ndarray, labels: Sequence[Any], kind: str, backend: str) -> Any:
    """The graph of a boolean ``adjacency`` with node ``labels`` in ``backend``'s type.

    ``kind`` (``"covariance"`` or ``"precision"``) goes to the backend as
    ``attrs={"kind": kind}``, stored where the type has room for graph
    attributes (networkx ``G.graph``, igraph ``g["kind"]``, rustworkx
    ``g.attrs``, pandas and xarray ``.attrs``).

    Examples
    --------
    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> sorted(graph_out(a, ["x", "y", "z"], "precision", "networkx").edges())
    [('x', 'y'), ('y', 'z')]
    >>> graph_out(a, ["x", "y", "z"], "precision", "scipy").toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    found, plugin = graph_backend(backend)
    if found.from_graph is None:
        builders = sorted(b.name for b, _ in graph_backends() if b.from_graph is not None)
        raise InvalidOptionError(
            f"graph backend {backend!r} reads graphs but does not build them; choose one of "
            f"{', '.join(map(repr, builders))}."
        )
    data = GraphData(adjacency=adjacency, labels=list(labels), attrs={"kind": kind})
    return call_backend(found, plugin, "from_graph", data)


def sparse_graph_out(upper: Any, labels: Sequence[Any], kind: str, backend: str) -> Any | None:
    """The graph of the upper-triangle edges ``upper`` (int8 CSR) in ``backend``'s type,
    by the backend's ``from_sparse``; None when the backend has none (then the caller
    hands the dense adjacency to :func:`graph_out`, if it fits)."""
    found, plugin = graph_backend(backend)
    if found.from_sparse is None:
        return None
    data = SparseGraphData(upper=upper, labels=list(labels), attrs={"kind": kind})
    try:
        return call_backend(found, plugin, "from_sparse", data)
    except MemoryError as exc:  # a type holding p x p values (numpy) at a sparse size
        raise TooLargeError(
            f"graph({backend!r}) of this sparse result ({len(data.labels):,} nodes) does not "
            f"fit in memory as a {backend} graph ({exc}); use a sparse type: 'scipy', "
            "'sparse', 'networkx', 'igraph', 'rustworkx' or 'networkit'."
        ) from exc
