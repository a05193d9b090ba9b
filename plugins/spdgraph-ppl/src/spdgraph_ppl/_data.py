"""Observed data for a Gaussian graphical model, as an ``(n, p)`` array in node order."""

from __future__ import annotations

import numpy as np
import xarray as xr

from spdgraph_ppl._graph import GraphStructure, graph_structure

__all__ = ["data_matrix"]


def data_matrix(data: object, graph: object) -> tuple[np.ndarray, np.ndarray]:
    """The observations as an ``(n, p)`` float64 array whose columns follow the graph.

    Parameters
    ----------
    data
        A NumPy array ``(n, p)`` (columns in the graph's node order), or an
        ``xarray.DataArray`` with a ``node`` dimension and one other dimension
        (e.g. what ``da.spd.draw`` returns, dims ``("obs", "node")``); its
        ``node`` coordinate, if any, must hold the graph's labels (any order).
    graph
        The graph.

    Returns
    -------
    tuple of numpy.ndarray
        The ``(n, p)`` data and the observation coordinate (``0..n-1`` for
        an array).

    Raises
    ------
    ValueError
        Wrong shape, non-finite values, or node labels that differ from the graph's.

    Examples
    --------
    >>> import networkx as nx
    >>> x, obs = data_matrix(np.zeros((4, 3)), nx.path_graph(3))
    >>> x.shape, obs.tolist()
    ((4, 3), [0, 1, 2, 3])
    """
    s: GraphStructure = graph_structure(graph)
    if isinstance(data, xr.DataArray):
        if "node" not in data.dims or data.ndim != 2:
            raise ValueError(
                "data as a DataArray needs dims (obs, node) - one observation dimension and "
                f"'node' - got dims {data.dims}; select one matrix of a stack first."
            )
        obs_dim = next(d for d in data.dims if d != "node")
        if "node" in data.coords:
            labels = list(data["node"].values.tolist())
            if sorted(map(str, labels)) != sorted(map(str, s.labels)) or len(labels) != s.p:
                raise ValueError(
                    f"the data's node labels {labels} are not the graph's {list(s.labels)}."
                )
            data = data.sel(node=list(s.labels))
        x = np.asarray(data.transpose(obs_dim, "node").values, dtype=np.float64)
        obs = np.asarray(data[obs_dim].values) if obs_dim in data.coords else None
    else:
        x = np.asarray(data, dtype=np.float64)
        obs = None
    if x.ndim != 2 or x.shape[1] != s.p:
        raise ValueError(f"data must be (n, {s.p}) for this {s.p}-node graph, got {x.shape}.")
    if not np.all(np.isfinite(x)):
        raise ValueError("data holds NaN or inf; drop or impute missing values first.")
    if obs is None:
        obs = np.arange(x.shape[0])
    return x, obs
