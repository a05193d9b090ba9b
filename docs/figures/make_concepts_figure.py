"""Make ``docs/figures/concepts_link_strength.png``, the figure of docs/concepts.md.

Left: the paper's mean link strength R̄ (R = max over edges i<j of |m_ij| / m_ii)
against the number of nodes p, for partial orthogonalization (PO) and diagonal
dominance (DD) on Erdős–Rényi graphs of density d = 0.05 and d = 0.5, with
U(0, 1) entries and raw (unnormalized) matrices as in the paper's experiments.
Right: the two matrices of one graph on the correlation scale, side by side.

The docs build does not run this script (it takes a few minutes on 2 cores); run it after
changing a generator and commit the PNG::

    python docs/figures/make_concepts_figure.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "concepts_link_strength.png"
P_GRID = (10, 20, 40, 60, 80, 100, 150, 200)
DENSITIES = (0.05, 0.5)
GRAPHS, MATRICES = 5, 4  # per (p, d): 20 matrices, enough to show the trend


def link_strength(m: np.ndarray, adjacency: np.ndarray) -> float:
    """The paper's R: max over edges i<j of |m_ij| / m_ii; 0 without edges."""
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    if iu.size == 0:
        return 0.0
    return float(np.max(np.abs(m[iu, ju]) / np.diag(m)[iu]))


def mean_link_strength(method: str, p: int, d: float) -> float:
    """R̄ over GRAPHS graphs x MATRICES matrices, seeded so the figure is reproducible."""
    import spdgraph
    from spdgraph.graphs import erdos_renyi

    values = []
    for g_index in range(GRAPHS):
        graph = erdos_renyi(p, d, seed=1000 * p + g_index)
        da = spdgraph.sample(
            graph,
            method,
            size=MATRICES,
            seed=np.random.SeedSequence([p, g_index, round(d * 1000)]),
            entries="uniform",
            normalize=False,
        )
        adjacency = da["adjacency"].values
        values.extend(link_strength(m, adjacency) for m in da.values)
    return float(np.mean(values))


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import spdgraph
    from spdgraph.graphs import erdos_renyi

    fig, axes = plt.subplots(
        1, 3, figsize=(13, 4), gridspec_kw={"width_ratios": [1.3, 1, 1]}, layout="constrained"
    )
    styles = {"po": ("C0", "PO"), "dd": ("C3", "DD")}
    ax = axes[0]
    for d, marker in zip(DENSITIES, ("o", "s"), strict=True):
        for method, (colour, label) in styles.items():
            r = [mean_link_strength(method, p, d) for p in P_GRID]
            ax.plot(P_GRID, r, marker=marker, color=colour, label=f"{label}, d = {d}")
            print(f"{method} d={d}: " + " ".join(f"{x:.3f}" for x in r), file=sys.stderr)
    ax.set_xlabel("number of nodes p")
    ax.set_ylabel("mean link strength R̄")
    ax.set_yscale("log")
    ax.set_title("Link strength (U(0,1) entries, raw matrices)")
    ax.legend(fontsize="small")

    graph = erdos_renyi(40, 0.25, seed=7)
    for ax, method in zip(axes[1:], ("dd", "po"), strict=True):
        m = spdgraph.sample(graph, method, seed=7, entries="uniform").values  # unit diagonal
        shown = np.where(np.eye(len(m), dtype=bool), np.nan, m)  # hide the diagonal of 1s
        image = ax.imshow(np.abs(shown), cmap="viridis", vmin=0, vmax=0.6)
        ax.set_title(f"|correlation|, {styles[method][1]} (p = 40, d = 0.25)")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(image, ax=axes[1:], shrink=0.8, label="|m_ij| / sqrt(m_ii m_jj)")
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
