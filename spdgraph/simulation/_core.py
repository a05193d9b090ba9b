"""``spdgraph.simulate``: graph, matrix, its inverse, partial correlations and data in one call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import networkx as nx
import numpy as np
import xarray as xr

import spdgraph.accessor  # noqa: F401 - registers da.spd
from spdgraph._version import __version__
from spdgraph.accessor import check_draw_chunks, check_draw_memory
from spdgraph.errors import InvalidOptionError, written
from spdgraph.graphs import FAMILIES, related_graphs
from spdgraph.parameters import SAMPLE_PARAMETERS
from spdgraph.sampling import adapt_for, adapt_graph, sample
from spdgraph.seeds import SeedLike, seed_attrs, seed_sequence, sub_root
from spdgraph.simulation._data import data_marginals, describe_data
from spdgraph.simulation._families import canonical_family, family_graph, split_family_options
from spdgraph.simulation._sparse import refuse_sparse, sparse_dataset
from spdgraph.vocabulary import canonical_kind, check_count

__all__ = ["STREAMS", "simulate", "stream_seed"]

#: Spawn-key entries of the three sub-streams of a call (ASCII "grph", "mtrx", "data"):
#: the graph, the matrices and the observations never share random numbers.
STREAMS: dict[str, int] = {"graph": 0x67727068, "matrix": 0x6D747278, "data": 0x64617461}


def stream_seed(root: np.random.SeedSequence, stream: str) -> np.random.SeedSequence:
    """The sub-stream ``stream`` (``"graph"``, ``"matrix"`` or ``"data"``) of a call's root."""
    return sub_root(root, STREAMS[stream])


def _graphs(
    graph: object,
    p: object,
    options: dict[str, Any],
    related: Mapping[str, Any] | None,
    root: np.random.SeedSequence,
) -> tuple[object, dict[str, Any], dict[str, Any]]:
    """``(graph or list of graphs, the options left for sample, graph attrs)``.

    A family's graph is built sparse (``backend="scipy"``, O(p + edges)) whatever
    the layout, so a dense and a sparse simulation of the same call have the same
    graph and the same ``graph_parameters`` (``p`` and every parameter of the family
    under spdgraph's names: R's names translated, defaults filled in).
    """
    attrs: dict[str, Any] = {}
    if isinstance(graph, str):
        family = canonical_family(graph)
        graph_options, options = split_family_options(family, options)
        made = family_graph(family, p, graph_options, stream_seed(root, "graph"), backend="scipy")
        attrs["graph_family"] = family
        attrs["graph_name"] = graph
        spec = FAMILIES[family]
        parameters = {"p": p, **spec.parameters, **spec.arguments(graph_options)}
        attrs["graph_parameters"] = json.dumps(parameters, default=str)
        graph = made
    elif p is not None:
        raise InvalidOptionError(
            f"p={written(p)} is for a family name; a given graph has its own nodes (leave p out)."
        )
    else:
        attrs["graph_family"] = "given"
    if related:
        graph = _related(graph, related, root)
        attrs["related"] = json.dumps(dict(related))
    return graph, options, attrs


def _related(
    graph: object, related: Mapping[str, Any], root: np.random.SeedSequence
) -> list[object]:
    """The related graphs of one base graph (read once if it is not networkx's)."""
    if isinstance(graph, list | tuple):
        raise InvalidOptionError("related= makes the group of graphs; pass one base graph.")
    if isinstance(graph, nx.Graph):
        base = graph
    else:
        adapted = adapt_graph(graph)
        base = nx.relabel_nodes(
            nx.from_numpy_array(adapted.adjacency.astype(np.int8)),
            dict(enumerate(adapted.labels)),
        )
    allowed = {"n_graphs", "n_add", "n_remove", "mode"}
    if not set(related) <= allowed or "n_graphs" not in related:
        raise InvalidOptionError(
            f"related takes n_graphs (required), n_add, n_remove and mode, got {sorted(related)}."
        )
    seed = sub_root(root, STREAMS["graph"], 1)
    return list(related_graphs(base, **dict(related), seed=seed))


def _adapted(
    graph: object, method: str, kind: str, options: Mapping[str, Any], sparse: bool
) -> Any:
    """Each graph read once, knowing the method (a DAG for a DAG-capable one) and the
    layout; ``sample`` takes the result as it is (no second reading)."""
    complete = options.get("complete", False)
    if isinstance(graph, list | tuple):
        return [adapt_for(g, method, kind=kind, complete=complete) for g in graph]
    return adapt_for(graph, method, kind=kind, complete=complete, sparse=sparse)


def _per_group(matrix: xr.DataArray, step: str) -> xr.DataArray:
    """``matrix.spd.<step>()``, one group at a time when there is a ``group`` dim."""
    if "group" not in matrix.dims:
        return getattr(matrix.spd, step)()
    parts = [
        getattr(matrix.isel(group=k).spd, step)().drop_vars("adjacency")
        for k in range(matrix.sizes["group"])
    ]
    out = xr.concat(parts, dim="group", coords="minimal", combine_attrs="override")
    return out.transpose(*matrix.dims).assign_coords(adjacency=matrix["adjacency"])


#: float64 p x p arrays per matrix a simulation holds at its peak: the sampled
#: matrix, its inverse, the partial correlations and the inversion's workspace.
SIMULATION_ARRAYS_PER_MATRIX = 5


def simulation_need(matrices: int, p: int, n: int) -> int:
    """Peak bytes of :func:`simulate`: the matrices (:data:`SIMULATION_ARRAYS_PER_MATRIX`
    p x p arrays each) and the data, as ``da.spd.draw`` holds them (its output and a
    few blocks of rows, :func:`spdgraph.accessor.draw_need`, marginals counted)."""
    from spdgraph.accessor import draw_need

    data = draw_need(matrices, int(n), p, marginals=True, missing=True)
    return 8 * matrices * p * p * SIMULATION_ARRAYS_PER_MATRIX + data


def check_simulation_memory(matrices: int, p: int, n: int) -> None:
    """Refuse (TooLargeError) a simulation whose arrays will not fit, before any is made.

    Every allocation path of :func:`simulate` is counted (:func:`simulation_need`):
    the sampled stack, its inverses and partial correlations (``matrices x p x p``)
    and the data (``matrices x n x p`` and the draw's blocks), so a stack just
    above memory is refused at once.
    """
    from spdgraph import _machine
    from spdgraph.errors import TooLargeError

    need = simulation_need(matrices, p, n)
    available = _machine.available_memory()
    if available is None or need <= available:
        return
    raise TooLargeError(
        f"simulate with {matrices:,} matrices of {p:,} x {p:,} and {int(n):,} observations "
        f"each needs about {need / 2**30:,.1f} GiB (the matrices, their inverses, partial "
        f"correlations and data) but only {available / 2**30:,.1f} GiB of memory is "
        "available; ask for a smaller size, fewer nodes or fewer observations, or sample the "
        "stack lazily with spdgraph.sample(..., chunks=...)."
    )


def _dataset(
    truth: xr.DataArray, data: xr.DataArray, kind: str, attrs: dict[str, Any]
) -> xr.Dataset:
    other = _per_group(truth, "inverse")
    precision, covariance = (truth, other) if kind == "precision" else (other, truth)
    pcor = _per_group(precision, "partial_correlation")
    adjacency = truth["adjacency"].reset_coords(drop=True).rename("adjacency")
    adjacency.attrs = {"description": "the true graph: exact zeros of the " + kind}
    variables = {
        "precision": precision,
        "covariance": covariance,
        "partial_correlation": pcor,
    }
    out = {k: v.drop_vars("adjacency").rename(k) for k, v in variables.items()}
    out["data"] = data
    # the graph as a coordinate: each matrix variable carries it, as sampled arrays do
    return xr.Dataset(out, attrs=attrs).assign_coords(adjacency=adjacency)


def simulate(
    graph: object,
    n: int = 0,
    *,
    p: int | None = None,
    method: str = "po",
    kind: str = "precision",
    data: object = "gaussian",
    missing: float = 0.0,
    size: int | None = None,
    related: Mapping[str, Any] | None = None,
    seed: SeedLike = None,
    sparse: bool = False,
    **options: Any,
) -> xr.Dataset:
    """A graph, its matrices and data drawn from them, in one call (huge.generator, bdgraph.sim).

    Parameters
    ----------
    graph
        Anything :func:`spdgraph.sample` accepts (a graph, an adjacency
        matrix, a list of related graphs), or a family name of R
        ``huge.generator`` / ``bdgraph.sim`` with ``p``: ``"random"``,
        ``"hub"``, ``"cluster"``, ``"band"``, ``"scale-free"``,
        ``"smallworld"``, ``"circle"``, ``"star"``, ``"lattice"``,
        ``"AR(1)"``, ``"AR(2)"`` (see :data:`FAMILY_NAMES`).
    n
        Number of observations (0: matrices only, an empty ``data``).
    p
        Number of nodes, with a family name.
    method
        The generator (:func:`spdgraph.methods`): ``"po"``, ``"huge"`` (R
        huge's matrix, options ``v`` and ``u``), ``"gwishart"`` (BDgraph's,
        options ``b`` and ``D``, from the spdgraph-gwishart plugin), ...
    kind
        ``"precision"`` (default: the graph is the conditional independence
        graph, as in huge and BDgraph) or ``"covariance"``. The matrix of this
        kind has the exact zeros; the other is its inverse.
    data
        ``"gaussian"`` or a BDgraph type (``"non-Gaussian"``, ``"binary"``,
        ``"categorical"``, ``"count"``, ``"t"``, ``"mixed"``; see
        :data:`DATA_TYPES`, tuned by the options ``cut``, ``df`` and
        ``mean_count``), a marginal written as text (``"t(df=5)"``,
        ``"poisson(3)"``) or anything ``da.spd.draw(marginals=...)`` takes.
    missing
        Rate of values set to NaN completely at random.
    size
        None for one matrix and data set; an int for a stack (``sample`` dim).
    related
        ``{"n_graphs": K, "n_add": a, "n_remove": r, "mode": "group"}``:
        K related graphs (:func:`spdgraph.graphs.related_graphs`) from the
        base graph: a leading ``group`` dim.
    seed
        The root seed. The graph, the matrices and the data come from three
        sub-streams of it (:data:`STREAMS`): same seed, same bits; the
        matrices do not depend on ``n`` or ``data``.
    sparse
        ``True``: the matrix from ``sample(..., sparse=True)`` (a PyData sparse
        array; methods ``dd`` and ``huge`` with ``unit_variance=False``), Gaussian
        data drawn exactly through a sparse Cholesky factorization, no dense
        ``p x p`` array: the dense inverse is included up to 4,000 nodes only
        (``attrs["omitted"]`` says what was left out). For graphs of a million
        nodes; see ``docs/large_graphs.md``. With ``sparse=True``, ``chunks=N``
        (an option) makes ``data`` a dask array of blocks of ``N`` rows drawn
        from the one factorization (``da.spd.draw(n, chunks=N)``: the same bits
        as in memory), for data larger than memory, saved block by block to a
        Zarr store; without it, data that would not fit are refused with the
        ``chunks`` that would.
    **options
        The family's parameters (``n_hubs``, ``prob``, ``bandwidth``, or R's
        names ``g`` and ``class``), the data options, then the options of
        :func:`spdgraph.sample` and of the method (``normalize``,
        ``entries``, ``v``, ``b``...).

    Returns
    -------
    xarray.Dataset
        ``precision``, ``covariance``, ``partial_correlation`` (dims
        ``node``, ``node_2``) and ``data`` (``obs``, ``node``), after a
        ``group`` and a ``sample`` dim when asked for, with the graph as the
        coordinate ``adjacency`` (each matrix variable carries it, as
        sampled arrays do: ``sim["precision"].spd.graph()``); attrs: the
        graph's family, parameters and edge count, ``n``, ``data``,
        ``missing``, ``kind``, ``method`` and ``seed``. Every spdgraph input
        takes it (:func:`spdgraph.open` of its file, ``score(data, sim)``,
        ``spdgraph info/draw/score FILE``).

    Examples
    --------
    >>> import numpy as np, spdgraph
    >>> sim = spdgraph.simulate("hub", n=100, p=20, seed=1)
    >>> sim["data"].dims, sim["precision"].dims
    (('obs', 'node'), ('node', 'node_2'))
    >>> off = ~np.eye(20, dtype=bool) & ~sim["adjacency"].values
    >>> bool((sim["precision"].values[off] == 0).all())
    True
    >>> sim.attrs["graph_family"], int(sim.attrs["n_edges"])
    ('hub', 18)
    >>> sim["precision"].spd.graph().number_of_edges()
    18
    >>> big = spdgraph.simulate("band", n=1000, p=50, method="dd", sparse=True, chunks=250,
    ...                         seed=1)
    >>> big["data"].data.numblocks, big["data"].shape
    ((4, 1), (1000, 50))
    """
    n = check_count(n, "n", low=0)
    kind = canonical_kind(kind)
    root = seed_sequence(seed)
    options = dict(options)
    sparse = SAMPLE_PARAMETERS["sparse"].check(sparse)  # the table's message, as sample's
    chunks = None
    if sparse:
        refuse_sparse(related, data, missing)
        chunks = check_draw_chunks(options.pop("chunks", None))  # the data's rows per block
    # one graph step, whatever the layout: made, related, read once knowing the method
    graph, options, attrs = _graphs(graph, p, options, related, root)
    graph = _adapted(graph, method, kind, options, sparse)
    first: Any = graph[0] if isinstance(graph, list) else graph
    nodes = int(first.p if sparse else first.adjacency.shape[0])
    if sparse:  # the data's guard before the matrix is made: how to chunk them
        check_draw_memory(1, n, nodes, sparse=True, chunks=chunks)
    else:
        marginals, data_options = data_marginals(data, nodes, options)
        groups = len(graph) if isinstance(graph, list) else 1
        check_simulation_memory(groups * (1 if size is None else int(size)), nodes, n)
    truth = sample(
        graph, method, kind=kind, size=size, seed=stream_seed(root, "matrix"), sparse=sparse,
        **options,
    )  # fmt: skip
    # the layouts differ from here on only: the data, the inverse, the Dataset
    attrs.update(
        {
            "n": int(n),
            "p": nodes,
            "kind": kind,
            "method": truth.attrs["method"],  # the registered name ("PO" is "po")
            "streams": json.dumps(STREAMS),
            "spdgraph_version": __version__,
            **seed_attrs(root),
        }
    )
    if sparse:
        return sparse_dataset(truth, int(n), stream_seed(root, "data"), attrs, chunks)
    observations = truth.spd.draw(
        int(n), seed=stream_seed(root, "data"), marginals=marginals, missing=missing
    )
    adjacency = np.asarray(truth["adjacency"].values)
    attrs.update(
        {
            "n_edges": int(np.triu(adjacency if adjacency.ndim == 2 else adjacency[0], 1).sum()),
            "data": data if isinstance(data, str) else describe_data(data),
            "data_options": json.dumps(data_options),
            "missing": float(missing),
        }
    )
    return _dataset(truth, observations, kind, attrs)
