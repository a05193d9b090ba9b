"""Benchmark: gmat's other samplers (``uniform``, ``port_chol``) against ``po``.

Times one matrix per call of ``spdgraph.sample`` (normalize=False) for
p in {100, 500}: ``port_chol`` (samplers mh and exact) on an Erdős–Rényi graph
G(p, d) against ``po`` on the same graph, and ``uniform`` (mh, exact, and onion
on the complete graph) on the chordal cover H of G (minimum-degree
triangulation; H = G when d = 1) against ``po`` on H; then ``dag`` (precision
and covariance) on G oriented from lower to higher node, against ``po`` on G.
Prints the median over
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
from spdgraph.errors import NumericalError
from spdgraph.graphs import erdos_renyi
from spdgraph.plugins._builtin.gen_uniform import chordal_cover
from spdgraph.sampling._adapt import adapt_graph

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
    options = dict(options)
    kind = options.pop("kind", "covariance")
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        spdgraph.sample(graph, method, seed=seed, normalize=False, kind=kind, **options)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--densities", type=float, nargs="+", default=[0.01, 0.05, 1.0])
    parser.add_argument("--dag-only", action="store_true", help="only the dag table")
    args = parser.parse_args(argv)
    if args.dag_only:
        dag_table(args)
        return
    for _, method, options, _ in COLUMNS:  # warm-up: Numba compilation, caches
        spdgraph.sample(nx.complete_graph(5), method, seed=0, **options)
    spdgraph.sample(nx.DiGraph([(0, 1)]), "dag", seed=0)
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
    dag_table(args)


def dag_table(args: argparse.Namespace) -> None:
    """``dag`` on G(p, d) oriented i -> j for i < j, against ``po`` on G, same run."""
    print(f"\n{'p':>5} {'d':>5} {'po(G)':>18} {'dag precision':>18} {'dag covariance':>18}")
    for p in args.sizes:
        for d in args.densities:
            g = erdos_renyi(p, d, seed=1)
            dag = nx.DiGraph()
            dag.add_nodes_from(g.nodes)
            dag.add_edges_from((min(u, v), max(u, v)) for u, v in g.edges)
            t = [median_seconds(g, "po", {}, args.repeats)]
            for kind in ("precision", "covariance"):
                try:
                    t.append(median_seconds(dag, "dag", {"kind": kind}, args.repeats))
                except NumericalError:  # dense DAGs: (I - B) numerically singular
                    t.append(float("nan"))
            cells = " ".join(f"{x:>9.4f} ({x / t[0]:>5.2f}x)" for x in t)
            print(f"{p:>5} {d:>5} {cells}", flush=True)


if __name__ == "__main__":
    main()
