"""Check: is a G-Wishart sampler's joint law W_G(b, D)? The default against Lenkoski's.

Issue 36 found that Lenkoski's (2013) sampler, as R BDgraph's ``rgwish`` and
spdgraph's former default, has the right marginal means but not the joint law
W_G(b, D): on a graph without edges W_G's diagonal entries are independent
Gamma(b/2, rate 1/2) variables, while Lenkoski's are ``1 / diag(Sigma)`` of one
inverse-Wishart draw, positively correlated (R's ``rgwish(20000, adj = 0,
b = 3, D = I)`` gives corr(K11, K22) = 0.168, measured with BDgraph 2.72).

This script draws 20,000 matrices from each sampler (b = 3, D = I) on the
graphs of the issue and compares the free entries of K (diagonal and edges)
with 200,000 draws of an independent exact reference (Wang and Carvalho
2010 in the natural node order, ``plugins/spdgraph-gwishart/tests/
gwishart_reference.py``): the largest |z| of the means and of the variances,
and the largest absolute difference of the correlation matrices. The
"noise" row is a second reference sample of 20,000 draws: what agreement
looks like. Prints a Markdown table (docs/generators.md and the plugin README
carry it).

    python benchmarks/check_gwishart_exact.py [--draws 20000]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import networkx as nx

import spdgraph

sys.path.insert(0, str(Path(__file__).parents[1] / "plugins/spdgraph-gwishart/tests"))
from gwishart_reference import agreement, free_entries, reference_draws


def graphs() -> dict[str, nx.Graph]:
    pendant = nx.cycle_graph(4)
    pendant.add_edge(0, 4)
    return {
        "no edges (p = 4)": nx.empty_graph(4),
        "C4": nx.cycle_graph(4),
        "C5": nx.cycle_graph(5),
        "C4 + pendant": pendant,
        "3 x 3 grid": nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)),
        "random, p = 10": nx.gnp_random_graph(10, 0.3, seed=1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20_000)
    args = parser.parse_args(argv)
    n = args.draws
    print("| graph | sampler | max abs z, means | max abs z, variances | max corr. diff. |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, g in graphs().items():
        a = nx.to_numpy_array(g, dtype=bool)
        ref = free_entries(reference_draws(a, 10 * n, seed=1), a)
        rows = {"noise (reference)": free_entries(reference_draws(a, n, seed=2), a)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for label, algorithm in (("default (auto)", "auto"), ("lenkoski", "lenkoski")):
                k = spdgraph.sample(a, "gwishart", size=n, seed=3, kind="precision",
                                    normalize=False, algorithm=algorithm).values  # fmt: skip
                rows[label] = free_entries(k, a)
        for label, x in rows.items():
            z_mean, z_var, corr = agreement(x, ref)
            print(f"| {name} | {label} | {z_mean:.1f} | {z_var:.1f} | {corr:.3f} |", flush=True)
    print(f"\n{n} draws each, reference {10 * n}; b = 3, D = I.")


if __name__ == "__main__":
    main()
