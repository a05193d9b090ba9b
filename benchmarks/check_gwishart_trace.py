"""Check: G-Wishart draws against a closed form that needs no R, E[tr K] = p b + 2 |E|.

For ``K ~ W_G(b, I)`` (density proportional to ``|K|^((b - 2) / 2) exp(-tr K / 2)`` on
the SPD matrices with zeros off the graph, BDgraph's parametrization) the
normalizing constant scales as ``I_G(b, t I) = t^-(p + |E| + p (b - 2) / 2) I_G(b, I)``
(substitute ``K = K' / t``: ``p + |E|`` free entries and the determinant's power),
so ``E[tr K] = -2 d/dt log I_G(b, t I) |_(t = 1) = p b + 2 |E|`` on every graph.

This script draws ``--draws`` matrices (default 20,000) on a 3 x 5 grid and a
7-cycle with a chord (b = 3; neither graph is decomposable) with spdgraph's default
sampler, with ``algorithm="lenkoski"`` and with R BDgraph's ``rgwish`` (if
``Rscript`` and BDgraph are there), and prints for each the z-score of the mean
trace against the closed form (``(mean - p b - 2 |E|) / (sd / sqrt(n))``: |z| > 4
is far outside sampling noise) and the mean correlation of ``K_ii`` and ``K_jj``
over the non-adjacent pairs. The tests check the default sampler and
``lenkoski`` the same way (``plugins/spdgraph-gwishart/tests/test_closed_form.py``).

    python benchmarks/check_gwishart_trace.py [--draws 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import warnings

import networkx as nx
import numpy as np

import spdgraph

B = 3.0

R_SCRIPT = r"""
suppressMessages(library(BDgraph))
args <- commandArgs(trailingOnly = TRUE)
g <- as.matrix(read.table(args[1]))
dimnames(g) <- NULL
set.seed(as.integer(args[3]))
k <- rgwish(n = as.integer(args[2]), adj = g, b = 3, D = diag(nrow(g)))
d <- t(apply(k, 3, diag))
write.table(d, args[4], row.names = FALSE, col.names = FALSE)
"""


def graphs() -> dict[str, nx.Graph]:
    chord = nx.cycle_graph(7)
    chord.add_edge(0, 3)
    return {
        "grid 3x5": nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 5)),
        "7-cycle + chord": chord,
    }


def diagonals_spdgraph(g: nx.Graph, draws: int, seed: int, algorithm: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = spdgraph.sample(g, "gwishart", size=draws, seed=seed, kind="precision",
                            normalize=False, b=B, algorithm=algorithm)  # fmt: skip
    return np.diagonal(k.values, axis1=1, axis2=2)


def diagonals_r(g: nx.Graph, draws: int, seed: int) -> np.ndarray | None:
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        graph_file, out_file = os.path.join(tmp, "g"), os.path.join(tmp, "d")
        np.savetxt(graph_file, nx.to_numpy_array(g, dtype=int), fmt="%d")
        script = os.path.join(tmp, "rgwish.R")
        with open(script, "w") as fh:
            fh.write(R_SCRIPT)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        done = subprocess.run(
            ["Rscript", script, graph_file, str(draws), str(seed), out_file],
            env=env, capture_output=True, text=True, check=False, timeout=3600,
        )  # fmt: skip
        if done.returncode != 0:
            print("R failed:", done.stderr.strip().splitlines()[-1:])
            return None
        return np.loadtxt(out_file, ndmin=2)


def trace_z(g: nx.Graph, diagonals: np.ndarray) -> float:
    """The z-score of the mean trace against ``p b + 2 |E|``."""
    traces = diagonals.sum(axis=1)
    expected = g.number_of_nodes() * B + 2 * g.number_of_edges()
    return float((traces.mean() - expected) / (traces.std(ddof=1) / np.sqrt(traces.size)))


def non_adjacent_correlation(g: nx.Graph, diagonals: np.ndarray) -> float:
    """The mean correlation of ``K_ii`` and ``K_jj`` over the non-adjacent pairs."""
    corr = np.corrcoef(diagonals, rowvar=False)
    a = nx.to_numpy_array(g, dtype=bool)
    pairs = np.triu(~a, 1)
    return float(corr[pairs].mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"W_G({B:g}, I), {args.draws} draws, seed {args.seed}: z of the mean trace "
          "against p b + 2|E|; mean corr(K_ii, K_jj) over non-adjacent pairs")  # fmt: skip
    print(f"{'graph':<16} {'p':>3} {'|E|':>4} {'sampler':<22} {'z':>7} {'corr':>7}")
    for name, g in graphs().items():
        rows = {
            "spdgraph (default)": diagonals_spdgraph(g, args.draws, args.seed, "auto"),
            "spdgraph lenkoski": diagonals_spdgraph(g, args.draws, args.seed, "lenkoski"),
            "BDgraph rgwish": diagonals_r(g, args.draws, args.seed),
        }
        for sampler, diagonals in rows.items():
            if diagonals is None:
                print(f"{name:<16} {'':>3} {'':>4} {sampler:<22} {'(no R)':>7}")
                continue
            print(f"{name:<16} {g.number_of_nodes():>3} {g.number_of_edges():>4} "
                  f"{sampler:<22} {trace_z(g, diagonals):7.2f} "
                  f"{non_adjacent_correlation(g, diagonals):7.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
