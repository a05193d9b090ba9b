"""The paper's studies as grids of independent cells, run by :func:`spdgraph.study.run_cells`.

Every cell function is a module-level function ``f(params, config) ->
records`` (picklable for worker processes and dask). Its randomness comes
only from the study seed and coordinates, through
:func:`spdgraph.study.cell_seed`: a cell's own draws from its coordinates, an
object several cells share (the Erdős–Rényi graph every generator and every
n of a replication use) from the coordinates it depends on, with a
``stream`` name. So results do not depend on the order or the place cells
are computed in.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import spdgraph
from spdgraph import InvalidOptionError
from spdgraph.graphs import erdos_renyi
from spdgraph.study import cell_seed

__all__ = [
    "KRAMER_GENERATORS",
    "PAPER_D",
    "PAPER_P",
    "condition_number",
    "grid",
    "kramer_generators",
    "link_strength",
]

#: The paper's grids (Table 1).
PAPER_P = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000)
PAPER_D = (0.0025, 0.005, 0.025, 0.05, 0.25, 0.5)

#: Entry distribution and scale of the two ratio settings.
SETTINGS: dict[str, dict[str, Any]] = {
    "paper": {"entries": "uniform", "normalize": False},  # paper-era gmat 0.1.0
    "gmat": {"entries": "normal", "normalize": True},  # gmat 0.2.x defaults
}


def _diagnostics(m: np.ndarray, adjacency: np.ndarray) -> Any:
    """spdgraph's diagnostics of a bare matrix or stack (read as a precision)."""
    import xarray as xr

    dims = ("node", "node_2") if np.ndim(m) == 2 else ("sample", "node", "node_2")
    da = xr.DataArray(
        np.asarray(m, dtype=np.float64),
        dims=dims,
        coords={"adjacency": (("node", "node_2"), np.asarray(adjacency, dtype=bool))},
    )
    return spdgraph.diagnostics(da, kind="precision")


def link_strength(m: np.ndarray, adjacency: np.ndarray) -> float:
    """The paper's R: max over edges ``i < j`` of ``|m_ij| / m_ii``; 0 without edges.

    What ``spdgraph.diagnostics(da)["link_strength"]`` computes, for a bare
    array (the studies call :func:`spdgraph.diagnostics` on what
    :func:`spdgraph.sample` returns).

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph_reproduce import link_strength
    >>> m = np.array([[2.0, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    >>> adj = m != 0
    >>> np.fill_diagonal(adj, False)
    >>> link_strength(m, adj)
    0.5
    """
    return float(_diagnostics(m, adjacency)["link_strength"])


def condition_number(m: np.ndarray) -> float:
    """2-norm condition number ``lambda_max / lambda_min`` of an SPD matrix.

    What ``spdgraph.diagnostics(da)["condition_number"]`` computes.

    >>> condition_number(np.diag([1.0, 10.0]))
    10.0
    """
    adjacency = np.zeros(np.shape(m), dtype=bool)
    return float(_diagnostics(m, adjacency)["condition_number"])


# --------------------------------------------------------------------------- grids

QUICK = {
    "ratio": {"p": (10, 20, 50, 100), "d": PAPER_D, "graphs": 3, "matrices": 3},
    "condition": {"p": (10, 20, 50, 100), "d": PAPER_D, "graphs": 3, "matrices": 3},
    "timing": {"p": (10, 25, 50, 100), "d": (0.05, 0.5), "batch": 20},
    "kramer": {"p": 100, "n": (50, 200), "d": (0.25,), "reps": 1},
}
FULL = {
    "ratio": {"p": PAPER_P, "d": PAPER_D, "graphs": 10, "matrices": 10},
    "condition": {"p": PAPER_P[:10], "d": PAPER_D, "graphs": 10, "matrices": 10},
    "timing": {"p": (10, 25, 50, 75, 100, 150, 200), "d": PAPER_D, "batch": 5000},
    "kramer": {
        "p": 100,
        "n": (25, 50, 75, 100, 125, 150, 175, 200),
        "d": (0.25, 0.05),
        "reps": 20,
    },
}


#: Default truth generators of the Krämer study, in this order; each one that is
#: registered is used (``gwishart`` comes from the spdgraph-gwishart plugin).
KRAMER_GENERATORS: tuple[str, ...] = ("po", "dd", "gwishart")


#: Default generators of the timing study: the paper's two, plus ``gwishart``
#: when registered. Other methods (``huge``, ``uniform``, ``dag``, a plugin's)
#: are timed only when named: some need a chordal graph or a DAG, which the
#: study's Erdős–Rényi graphs are not.
TIMING_GENERATORS: tuple[str, ...] = ("po", "dd", "gwishart")


def timing_generators(requested: Sequence[str] | None = None) -> list[str]:
    """The generators the timing study times.

    ``requested`` (``--methods``) names them, each a registered method; by
    default the registered ones among :data:`TIMING_GENERATORS`.

    Examples
    --------
    >>> from spdgraph_reproduce.studies import timing_generators
    >>> timing_generators()[:2]
    ['po', 'dd']
    """
    return _registered(requested, TIMING_GENERATORS)


def _registered(requested: Sequence[str] | None, defaults: Sequence[str]) -> list[str]:
    """``requested`` checked against the registered methods, else the registered ``defaults``."""
    known = spdgraph.methods()
    if requested:
        unknown = [m for m in requested if m not in known]
        if unknown:
            raise spdgraph.UnknownMethodError(
                f"unknown method(s) {unknown}; known methods: {sorted(known)}."
            )
        return list(requested)
    return [m for m in defaults if m in known]


def kramer_generators(requested: Sequence[str] | None = None) -> list[str]:
    """The truth generators of the Krämer study.

    ``requested`` (``run_study(..., methods=...)``, ``--methods``) names them
    explicitly; every name must be a registered method. By default the
    registered ones among :data:`KRAMER_GENERATORS`: ``po`` and ``dd``, plus
    ``gwishart`` when spdgraph-gwishart is installed. Other plugins' generators
    take part only when requested.

    Examples
    --------
    >>> from spdgraph_reproduce import kramer_generators
    >>> kramer_generators(["dd"])
    ['dd']
    >>> kramer_generators()[:2]
    ['po', 'dd']
    """
    return _registered(requested, KRAMER_GENERATORS)


def grid(study: str, *, quick: bool, options: Mapping[str, Any] | None = None) -> dict:
    """The grid and configuration of a study (``options`` override grid entries)."""
    base: dict[str, Any] = dict((QUICK if quick else FULL)[study])
    allowed = set(base) | {"max_p"}
    allowed |= {"kramer": {"entries", "normalize"}, "ratio": {"settings"}}.get(study, set())
    for key, value in (options or {}).items():
        if key not in allowed:
            raise InvalidOptionError(
                f"unknown option {key!r} for the {study} study; known: {sorted(allowed)}."
            )
        if value is not None:
            base[key] = value
    max_p = base.pop("max_p", None)
    if max_p is not None:
        base["p"] = tuple(p for p in base["p"] if p <= max_p)
        if not base["p"]:
            raise InvalidOptionError(f"max_p={max_p} leaves no p in the {study} grid.")
    return base


# --------------------------------------------------------------------------- cells


def graph_seed(seed: int, p: int, d: float, g: int) -> np.random.SeedSequence:
    """The seed of Erdős–Rényi graph ``g`` of ``(p, d)``: shared by the ratio, condition
    and timing cells of every method and setting (:func:`spdgraph.study.cell_seed` of
    the coordinates the graph depends on).

    Examples
    --------
    >>> from spdgraph_reproduce.studies import graph_seed
    >>> graph_seed(1, 10, 0.5, 0).spawn_key == graph_seed(1, 10, 0.5, 0).spawn_key
    True
    """
    return cell_seed(seed, {"stream": "graph", "p": p, "d": d, "graph": g})


def ratio_cell(params: Mapping[str, Any], config: Mapping[str, Any]) -> list[dict]:
    """R and condition number of ``graphs x matrices`` matrices for one (setting, p, d, method)."""
    setting, p, d, method = params["setting"], params["p"], params["d"], params["method"]
    seed = config["seed"]
    records = []
    for g in range(config["graphs"]):
        # graph g of (p, d) is shared by both settings and every method: a paired comparison
        graph = erdos_renyi(p, d, seed=graph_seed(seed, p, d, g))
        stack = spdgraph.sample(
            graph,
            method,
            size=config["matrices"],
            seed=cell_seed(seed, {**params, "graph": g}),
            kind="precision",
            **SETTINGS[setting],
        )
        diagnostics = spdgraph.diagnostics(stack)
        strength = diagnostics["link_strength"].values
        cond = diagnostics["condition_number"].values
        edges = int(diagnostics["n_edges"])
        for k in range(stack.sizes["sample"]):
            records.append(
                {
                    "setting": setting,
                    "p": p,
                    "d": d,
                    "method": method,
                    "graph": g,
                    "matrix": k,
                    "R": float(strength[k]),
                    "cond": float(cond[k]),
                    "edges": edges,
                }
            )
    return records


def timing_cell(params: Mapping[str, Any], config: Mapping[str, Any]) -> list[dict]:
    """Seconds to sample ``batch`` matrices on one graph for one (method, p, d)."""
    method, p, d = params["method"], params["p"], params["d"]
    graph = erdos_renyi(p, d, seed=graph_seed(config["seed"], p, d, 0))
    spdgraph.sample(graph, method, size=1, seed=0, kind="precision")  # warm-up (compilation)
    t0 = time.perf_counter()
    spdgraph.sample(
        graph,
        method,
        size=config["batch"],
        seed=cell_seed(config["seed"], params),
        kind="precision",
        entries="uniform",
        normalize=False,
    )
    seconds = time.perf_counter() - t0
    return [
        {
            "method": method,
            "p": p,
            "d": d,
            "batch": config["batch"],
            "seconds": seconds,
            "seconds_per_matrix": seconds / config["batch"],
        }
    ]


def kramer_cell(params: Mapping[str, Any], config: Mapping[str, Any]) -> list[dict]:
    """All learners on one data set: truth from ``generator`` at density d, n observations.

    A learner whose solver fails (:class:`~spdgraph.NumericalError`) gets
    NaN TPR/TDR and ``n_selected = -1`` instead of aborting the cell.
    """
    from spdgraph import NumericalError
    from spdgraph.validation import (
        SELECTION_RULES,
        Score,
        draw_gaussian,
        fit_learners,
        score_selection,
        select_edges,
    )

    gen, d, n, rep = params["generator"], params["d"], params["n"], params["rep"]
    p, seed = config["p"], config["seed"]
    # one graph per (p, d, rep) for every generator and n; one truth per generator for every n
    shared = {"p": p, "d": d, "rep": rep}
    graph = erdos_renyi(p, d, seed=cell_seed(seed, {"stream": "kramer-graph", **shared}))
    truth = spdgraph.adapt_graph(graph).adjacency
    truth_matrix = spdgraph.sample(
        graph,
        gen,
        seed=cell_seed(seed, {"stream": "kramer-matrix", "generator": gen, **shared}),
        kind="precision",
        entries=config["entries"],
        normalize=config["normalize"],
    )
    prec = truth_matrix.values
    strength = float(spdgraph.diagnostics(truth_matrix)["link_strength"])
    data_seed = cell_seed(seed, {**params, "p": p})
    x = draw_gaussian(prec, n, seed=np.random.default_rng(data_seed))
    seconds: dict[str, float] = {}
    fold_seed = data_seed.spawn(1)[0]
    estimates: dict[str, np.ndarray | None] = {}
    # each learner group gets the same folds (a fresh generator on the same seed);
    # a learner whose solver fails on this data set is recorded as missing
    for group in ([n for n in config["learners"] if n != "glasso"], ["glasso"]):
        group = [n for n in group if n in config["learners"]]
        if not group:
            continue
        try:
            estimates.update(
                fit_learners(
                    x,
                    group,
                    seed=np.random.default_rng(fold_seed),
                    on_fit=seconds.__setitem__,
                    criterion="cv",  # the stored results' glasso (StARS is the default now)
                )
            )
        except NumericalError:
            estimates.update(dict.fromkeys(group))
    records = []
    for name in config["learners"]:
        estimate = estimates[name]
        if estimate is None:
            s = Score(np.nan, np.nan, -1, int(truth.sum() // 2), -1, truth, name)
        else:
            sel = select_edges(estimate, SELECTION_RULES[name], config["cutoff"])
            s = score_selection(sel, truth, name)
        records.append(
            {
                "generator": gen,
                "p": p,
                "d": d,
                "n": n,
                "rep": rep,
                "learner": name,
                "tpr": s.tpr,
                "tdr": s.tdr,
                "n_selected": s.n_selected,
                "n_true": s.n_true,
                "seconds": seconds.get(name, np.nan),
                "R": strength,
            }
        )
    return records
