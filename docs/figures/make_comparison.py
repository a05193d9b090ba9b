"""Make ``docs/figures/comparison.png`` and the table of docs/comparison.md.

Every registered generator (``spdgraph.methods()``: built-ins and installed
plugins, so rerunning it after installing or adding a method covers that
method too) that accepts the undirected test graphs is run on Erdős–Rényi
graphs of p in P_GRID nodes and density d in DENSITIES (GRAPHS graphs x
MATRICES matrices per point, seeded), with ``kind="precision"`` and the
default ``normalize=True`` (unit diagonal, so every method is on the same
scale). Per point it records, with :func:`spdgraph.diagnostics`:

* R̄: the mean over matrices of the paper's link strength R = max over edges
  of ``|m_ij| / m_ii`` (on the unit diagonal: the largest ``|m_ij|``);
* the mean absolute partial correlation over the edges (the matrix read as a
  precision);
* the median condition number;
* the time per matrix (the ``sample`` call divided by MATRICES).

A method that refuses a graph (DAG-only, or one that needs a chordal graph)
is left out of that point and named in the printed table. The docs build does
not run this script (a few minutes on 2 cores); run it after adding or
changing a generator and commit the PNG::

    python docs/figures/make_comparison.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "comparison.png"
P_GRID = (10, 25, 50, 100, 200)
DENSITIES = (0.1, 0.5)
GRAPHS, MATRICES = 3, 3
#: registered methods left out: toys that ignore the graph
EXCLUDE = ("example-scaled-identity",)
METRICS = ("R̄ (link strength)", "mean |partial correlation|", "condition number", "ms per matrix")


def measure(method: str, p: int, d: float) -> tuple[float, float, float, float] | str:
    """(R̄, mean |pcor|, median condition number, ms per matrix) or the refusal's class."""
    import spdgraph
    from spdgraph.graphs import erdos_renyi

    strength, pcor, cond, seconds = [], [], [], 0.0
    for g_index in range(GRAPHS):
        graph = erdos_renyi(p, d, seed=1000 * p + g_index)
        start = time.perf_counter()
        try:
            da = spdgraph.sample(
                graph,
                method,
                size=MATRICES,
                kind="precision",
                seed=np.random.SeedSequence([p, g_index, round(d * 1000)]),
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


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import spdgraph

    methods = [m for m in spdgraph.methods() if m not in EXCLUDE]
    results: dict[tuple[str, int, float], tuple[float, float, float, float] | str] = {}
    for method in methods:
        try:  # warm-up: Numba compilation, caches
            spdgraph.sample(np.ones((3, 3)), method, seed=0)
        except spdgraph.SpdgraphError:
            pass
        for d in DENSITIES:
            for p in P_GRID:
                results[method, p, d] = measure(method, p, d)
                print(method, p, d, results[method, p, d], file=sys.stderr, flush=True)
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    colors = dict(zip(methods, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
    for k, (ax, title) in enumerate(zip(axes, METRICS, strict=True)):
        for method in methods:
            for d, style in zip(DENSITIES, ("-", "--"), strict=True):
                xs = [p for p in P_GRID if not isinstance(results[method, p, d], str)]
                ys = [results[method, p, d][k] for p in xs]  # type: ignore[index]
                if xs:
                    label = f"{method}, d = {d}"
                    ax.plot(xs, ys, style, marker="o", color=colors[method], label=label)
        ax.set_xlabel("p (nodes)")
        ax.set_title(title)
        if k >= 2:
            ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(
        "Generators on Erdős–Rényi graphs (kind='precision', unit diagonal; "
        f"{GRAPHS} graphs x {MATRICES} matrices per point)"
    )
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")
    print("| method | p | d | R̄ | mean abs pcor | condition number | ms per matrix |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (method, p, d), value in results.items():
        if p != 100:
            continue
        if isinstance(value, str):
            print(f"| {method} | {p} | {d} | refused ({value}) | | | |")
        else:
            r, pc, c, ms = value
            print(f"| {method} | {p} | {d} | {r:.2f} | {pc:.3f} | {c:.3g} | {ms:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
