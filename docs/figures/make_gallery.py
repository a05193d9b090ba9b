"""Draw docs/figures/gallery.png (one graph under each generator) and plot_example.png.

plot_example.png (the README's): ``da.spd.plot()`` of a covariance and of a
precision sampled on the karate club graph (white: the exact zeros, the
non-edges, in both) and ``plot_graph`` of the precision.

    python docs/figures/make_gallery.py

One row per generator: the heatmap of the partial correlations (``da.spd.plot``)
and the histogram of |partial correlation| on the edges. The graph is a 30-node
Erdős–Rényi graph with d = 0.2 (for ``uniform``: its chordal cover; for ``dag``:
the graph oriented from smaller to larger node, read as a precision).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

import spdgraph

OUT = Path(__file__).resolve().parent / "gallery.png"
EXAMPLE = Path(__file__).resolve().parent / "plot_example.png"


def _calls(g: nx.Graph) -> dict[str, tuple[object, dict]]:
    chordal, _ = nx.complete_to_chordal_graph(g)
    dag = nx.DiGraph([(u, v) for u, v in g.edges if u < v])
    dag.add_nodes_from(g)
    small = {"entries": lambda rng, shape: rng.uniform(-0.5, 0.5, shape)}
    return {
        "po": (g, {}),
        "dd": (g, {}),
        "huge": (g, {}),
        "uniform": (nx.Graph(chordal), {}),
        "port_chol": (g, {}),
        "dag": (dag, small),
    }


def main() -> None:
    g = spdgraph.graphs.erdos_renyi(30, 0.2, seed=3)
    calls = _calls(g)
    fig, axes = plt.subplots(len(calls), 2, figsize=(10, 4.2 * len(calls)), layout="constrained")
    for row, (method, (graph, kw)) in zip(axes, calls.items(), strict=True):
        da = spdgraph.sample(graph, method, seed=1, kind="precision", **kw)
        da.spd.plot(ax=row[0])
        row[0].set_title(f"{method}: partial correlations")
        pcor = np.abs(da.spd.partial_correlation().values)
        edges = np.triu(da.spd.adjacency().values, 1)
        row[1].hist(pcor[edges], bins=np.linspace(0, 1, 21), color="#4c72b0")
        row[1].set_xlim(0, 1)
        row[1].set_title(f"{method}: |partial correlation| on the {int(edges.sum())} edges")
    fig.savefig(OUT, dpi=70)
    print(f"wrote {OUT}")
    # the README's picture: da.spd.plot() shows the matrix whose zeros are the graph:
    # a covariance (the default kind) as it is, a precision as partial correlations
    g = nx.karate_club_graph()
    cov = spdgraph.sample(g, seed=1)
    prec = spdgraph.sample(g, seed=1, kind="precision")
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.6), layout="constrained")
    cov.spd.plot(ax=left)
    left.set_title('covariance (kind="covariance", the default)')
    prec.spd.plot(ax=middle)
    middle.set_title('partial correlations (kind="precision")')
    prec.spd.plot_graph(ax=right, seed=2)
    fig.savefig(EXAMPLE, dpi=70)
    print(f"wrote {EXAMPLE}")


if __name__ == "__main__":
    main()
