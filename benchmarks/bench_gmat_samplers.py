"""Benchmark: gmat's other samplers (``uniform``, ``port_chol``) against ``po``.

Times one matrix per call of ``spdgraph.sample`` (normalize=False) for
p in {100, 500}: ``port_chol`` (samplers mh and exact) on an Erdős–Rényi graph
G(p, d) against ``po`` on the same graph, and ``uniform`` (mh, exact, and onion
on the complete graph) on the chordal cover H of G (minimum-degree
triangulation; H = G when d = 1) against ``po`` on H. Prints the median over
``--repeats`` calls and the ratio to ``po`` measured in the same run. A warm-up
call per method compiles the Numba kernels first.

    python benchmarks/bench_gmat_samplers.py [--repeats 3] [--sizes 100 500]
"""

from __future__ import annotations

import argparse
import statistics
import time

import networkx as nx

import spdgraph
from spdgraph._adapt import adapt_graph
from spdgraph._builtin.gen_uniform import chordal_cover
from spdgraph.graphs import erdos_renyi

#: (column, method, options, graph: "G" the random graph or "H" its chordal cover)
COLUMNS = (
    ("po(G)", "po", {}, "G"),
    ("port_chol mh", "port_chol", {}, "G"),
    ("port_chol exact", "port_chol", {"sampler": "exact"}, "G"),
    ("po(H)", "po", {}, "H"),
    ("uniform mh", "uniform", {}, "H"),
    ("uniform exact", "uniform", {"sampler": "exact"}, "H"),
    ("uniform onion", "uniform", {"sampler": "onion"}, "H"),
)


def median_seconds(graph, method: str, options: dict, repeats: int) -> float:
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        spdgraph.sample(graph, method, seed=seed, normalize=False, **options)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--densities", type=float, nargs="+", default=[0.01, 0.05, 1.0])
    args = parser.parse_args(argv)
    for _, method, options, _ in COLUMNS:  # warm-up: Numba compilation, caches
        spdgraph.sample(nx.complete_graph(5), method, seed=0, **options)
    print(f"median seconds per matrix over {args.repeats} calls (ratio to po, same run)")
    print(
        f"{'p':>5} {'d':>5} {'edges G':>8} {'edges H':>8} "
        + " ".join(f"{c[0]:>18}" for c in COLUMNS)
    )
    for p in args.sizes:
        for d in args.densities:
            g = erdos_renyi(p, d, seed=1)
            h = nx.from_numpy_array(chordal_cover(adapt_graph(g).adjacency, "min_degree")[0])
            graphs = {"G": g, "H": h}
            t = {}
            for name, method, options, which in COLUMNS:
                if options.get("sampler") == "onion" and d < 1.0:
                    continue  # the onion method is for complete graphs only
                t[name] = median_seconds(graphs[which], method, options, args.repeats)
            cells = []
            for name, _, _, which in COLUMNS:
                if name not in t:
                    cells.append(f"{'-':>18}")
                    continue
                base = t["po(G)"] if which == "G" else t["po(H)"]
                cells.append(f"{t[name]:>9.4f} ({t[name] / base:>5.1f}x)")
            head = f"{p:>5} {d:>5} {g.number_of_edges():>8} {h.number_of_edges():>8} "
            print(head + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
