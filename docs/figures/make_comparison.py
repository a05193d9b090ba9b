"""Make ``docs/figures/comparison.png`` and the table of docs/comparison.md.

Every registered generator (``spdgraph.methods()``: built-ins and installed
plugins, so rerunning it after installing or adding a method covers that
method too) is run on Erdős–Rényi graphs G of p in P_GRID nodes and density d
in DENSITIES (GRAPHS graphs x MATRICES matrices per point, seeded), with
``kind="precision"`` and the default ``normalize=True`` (unit diagonal, so
every method is on the same scale). How a method is given G is its entry in
RECIPES (a method without one gets G itself and its default options):

* ``uniform`` (chordal graphs only): the minimum-degree chordal cover H of G
  (the cover ``port_chol`` uses), ``sampler="exact"`` (the law of the
  default ``"mh"``, drawn exactly);
* ``dag``: G oriented i -> j for i < j (``spdgraph.DAG`` of its upper
  triangle); its precision's zeros are the moral graph of that DAG, not G.

Per point it records, with :func:`spdgraph.diagnostics` (over the edges of the
matrix's own zero pattern, the ``adjacency`` coordinate: H for ``uniform``,
the moral graph for ``dag``):

* R̄: the mean over matrices of the paper's link strength R = max over edges
  of ``|m_ij| / m_ii`` (on the unit diagonal: the largest ``|m_ij|``);
* the mean absolute partial correlation over the edges (the matrix read as a
  precision);
* the median condition number;
* the time per matrix (the ``sample`` call divided by MATRICES; building the
  cover or the DAG is not timed).

A method that refuses or fails on a graph is left out of that point and named
in the printed table with the error's class. The docs build does not run this
script (several minutes on 2 cores); run it after adding or changing a
generator and commit the PNG::

    python docs/figures/make_comparison.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parent / "comparison.png"
P_GRID = (10, 25, 50, 100, 200)
DENSITIES = (0.1, 0.5)
GRAPHS, MATRICES = 3, 3
#: registered methods left out: toys that ignore the graph
EXCLUDE = ("example-scaled-identity",)
METRICS = ("R̄ (link strength)", "mean |partial correlation|", "condition number", "ms per matrix")


def chordal_cover(adjacency: np.ndarray) -> np.ndarray:
    """The minimum-degree chordal cover of the graph (the graph itself when chordal)."""
    from spdgraph.plugins._builtin.gen_uniform import chordal_cover as cover

    return cover(adjacency, "min_degree")[0]


def oriented(adjacency: np.ndarray) -> Any:
    """The graph as a DAG, every edge oriented i -> j for i < j."""
    import spdgraph

    return spdgraph.DAG(np.triu(adjacency, 1))


#: method -> (what it is given, graph builder from G's boolean adjacency, options)
RECIPES: dict[str, tuple[str, Callable[[np.ndarray], Any], dict[str, Any]]] = {
    "uniform": ("chordal cover H of G", chordal_cover, {"sampler": "exact"}),
    "dag": ("G oriented i -> j, i < j", oriented, {}),
}
PLAIN = ("G", lambda adjacency: adjacency, {})

Result = tuple[float, float, float, float] | str


def measure(method: str, p: int, d: float) -> Result:
    """(R̄, mean |pcor|, median condition number, ms per matrix) or the failure's class."""
    import networkx as nx

    import spdgraph
    from spdgraph.graphs import erdos_renyi

    _, build, options = RECIPES.get(method, PLAIN)
    strength, pcor, cond, seconds = [], [], [], 0.0
    for g_index in range(GRAPHS):
        graph = erdos_renyi(p, d, seed=1000 * p + g_index)
        given = build(nx.to_numpy_array(graph, nodelist=sorted(graph), dtype=bool))
        start = time.perf_counter()
        try:
            da = spdgraph.sample(
                given,
                method,
                size=MATRICES,
                kind="precision",
                seed=np.random.SeedSequence([p, g_index, round(d * 1000)]),
                **options,
            )
        except spdgraph.SpdgraphError as exc:
            return type(exc).__name__
        seconds += time.perf_counter() - start
        ds = spdgraph.diagnostics(da)
        strength.extend(ds["link_strength"].values.tolist())
        pcor.extend(ds["abs_pcor_mean"].values.tolist())
        cond.extend(ds["condition_number"].values.tolist())
    ms = 1e3 * seconds / (GRAPHS * MATRICES)
    return float(np.mean(strength)), float(np.nanmean(pcor)), float(np.median(cond)), ms


def warm_up(method: str) -> None:
    """One small call (Numba compilation, caches) on the method's own kind of graph."""
    import networkx as nx

    import spdgraph
    from spdgraph.graphs import erdos_renyi

    _, build, options = RECIPES.get(method, PLAIN)
    small = nx.to_numpy_array(erdos_renyi(10, 0.3, seed=0), nodelist=range(10), dtype=bool)
    for seed in range(3):  # the first calls in a process are slower than the next ones
        try:
            spdgraph.sample(
                build(small), method, size=MATRICES, seed=seed, kind="precision", **options
            )
        except spdgraph.SpdgraphError:
            pass


def plot(methods: list[str], results: dict[tuple[str, int, float], Result]) -> None:
    """The four panels against p, one colour per method, solid d = 0.1, dashed d = 0.5."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, axes = plt.subplots(1, 4, figsize=(18, 4.6))
    colors = dict(zip(methods, plt.get_cmap("tab10").colors, strict=False))
    for k, (ax, title) in enumerate(zip(axes, METRICS, strict=True)):
        for method in methods:
            for d, style in zip(DENSITIES, ("-", "--"), strict=True):
                xs = [p for p in P_GRID if not isinstance(results[method, p, d], str)]
                ys = [results[method, p, d][k] for p in xs]  # type: ignore[index]
                if xs:
                    ax.plot(xs, ys, style, marker="o", ms=3, color=colors[method])
        ax.set_xlabel("p (nodes)")
        ax.set_xscale("log")
        ax.set_title(title)
        if k >= 2:
            ax.set_yscale("log")
    handles = [Line2D([], [], color=colors[m], marker="o", ms=3, label=m) for m in methods]
    handles += [
        Line2D([], [], color="k", linestyle=style, label=f"d = {d}")
        for d, style in zip(DENSITIES, ("-", "--"), strict=True)
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9)
    fig.suptitle(
        "Generators on Erdős–Rényi graphs G (kind='precision', unit diagonal; "
        f"{GRAPHS} graphs x {MATRICES} matrices per point; uniform on G's chordal cover, "
        "dag on G oriented i -> j for i < j)"
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


def main() -> int:
    import spdgraph

    methods = [m for m in spdgraph.methods() if m not in EXCLUDE]
    results: dict[tuple[str, int, float], Result] = {}
    for method in methods:
        warm_up(method)
        for d in DENSITIES:
            for p in P_GRID:
                results[method, p, d] = measure(method, p, d)
                print(method, p, d, results[method, p, d], file=sys.stderr, flush=True)
    plot(methods, results)
    print("| method | given | d | R̄ | mean abs pcor | condition number | ms per matrix | × po |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (method, p, d), value in results.items():
        if p != 100:
            continue
        given = RECIPES.get(method, PLAIN)[0]
        if isinstance(value, str):
            print(f"| {method} | {given} | {d} | failed ({value}) | | | | |")
            continue
        r, pc, c, ms = value
        base = results["po", p, d]
        ratio = f"{ms / base[3]:.2f}" if not isinstance(base, str) else ""
        print(f"| {method} | {given} | {d} | {r:.2f} | {pc:.3f} | {c:.3g} | {ms:.1f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
