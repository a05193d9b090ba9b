"""Exact draws through spdgraph's ``gwishart`` sampler: prior and conjugate posterior."""

from __future__ import annotations

import numpy as np
import xarray as xr

import spdgraph
from spdgraph.seeds import SeedLike
from spdgraph_ppl._data import data_matrix
from spdgraph_ppl._graph import graph_structure

__all__ = ["exact_posterior", "prior_draws", "scale_or_identity"]


def scale_or_identity(D: object, p: int) -> np.ndarray:
    """``D`` as a ``(p, p)`` SPD array: None is the identity, a number c is c I."""
    from spdgraph_gwishart import scale_matrix

    return scale_matrix(D, p)


def prior_draws(
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    size: int = 1,
    seed: SeedLike = None,
    algorithm: str = "auto",
) -> np.ndarray:
    """``size`` draws of ``W_G(b, D)`` as a ``(size, p, p)`` array in the graph's node order.

    Parameters
    ----------
    graph
        The graph.
    b, D
        Degrees of freedom (> 2) and scale (None: identity).
    size
        Number of draws.
    seed
        Anything :func:`spdgraph.sample` accepts as a seed.
    algorithm
        ``spdgraph-gwishart``'s ``algorithm``: ``"auto"`` (exact on every
        graph: chordal rows, accept-reject, or block Gibbs with a warning when
        the exact acceptance is tiny), ``"chordal"``, ``"exact"``, ``"mcmc"``
        or ``"lenkoski"`` (not W_G jointly; warns).

    Examples
    --------
    >>> import networkx as nx
    >>> k = prior_draws(nx.path_graph(3), size=2, seed=0)
    >>> k.shape, float(k[0, 0, 2])
    ((2, 3, 3), 0.0)
    """
    s = graph_structure(graph)
    d = scale_or_identity(D, s.p)
    out = spdgraph.sample(
        s.adjacency,
        "gwishart",
        size=int(size),
        seed=seed,
        kind="precision",
        normalize=False,
        b=float(b),
        D=d,
        algorithm=algorithm,
    )
    return np.asarray(out.values, dtype=np.float64).reshape(int(size), s.p, s.p)


def exact_posterior(
    data: object,
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    size: int = 1000,
    seed: SeedLike = None,
) -> xr.DataArray:
    """Exact draws of the conjugate posterior ``K | X ~ W_G(b + n, D + X^T X)``.

    For a fixed decomposable graph and rows of X i.i.d. ``N(0, K^-1)``; drawn
    by ``spdgraph.sample(..., "gwishart", algorithm="chordal")``.

    Parameters
    ----------
    data
        ``(n, p)`` array or a DataArray with dims ``(obs, node)``.
    graph
        A decomposable graph.
    b, D
        The prior ``W_G(b, D)``.
    size
        Number of draws.
    seed
        Seed of the draws.

    Returns
    -------
    xarray.DataArray
        Dims ``("draw", "node", "node_2")`` labelled by the graph's nodes.

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not decomposable.
    """
    s = graph_structure(graph)
    if not s.decomposable:
        raise spdgraph.InvalidOptionError(
            "the exact conjugate posterior is drawn on decomposable graphs only."
        )
    x, _ = data_matrix(data, s)
    d_post = scale_or_identity(D, s.p) + x.T @ x
    draws = prior_draws(
        s, float(b) + x.shape[0], d_post, size=size, seed=seed, algorithm="chordal"
    )
    return xr.DataArray(
        draws,
        dims=("draw", "node", "node_2"),
        coords={
            "draw": np.arange(draws.shape[0]),
            "node": list(s.labels),
            "node_2": list(s.labels),
        },
        name="K",
        attrs={"law": "G-Wishart conjugate posterior", "b": float(b) + x.shape[0]},
    )
