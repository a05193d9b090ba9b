"""Benchmark: time per matrix of every registered generator, with its ratio to ``po``.

Loops over ``spdgraph.methods()`` (built-ins and installed plugins) and times
one matrix per ``spdgraph.sample`` call (``normalize=False``, no spectrum
control) on Erdős–Rényi graphs, p in {100, 500}, d in {0.05, 0.25}: the
median over ``--repeats`` calls, and the ratio to ``po`` timed in the same
run (timings on a shared machine are noisy: read the ratios). A method that
refuses the undirected graph (a DAG-only method, or one that needs a
chordal graph) is listed as ``refused`` with the error's class; one whose
first call takes over ``--cap`` seconds is timed once. A warm-up call per
method compiles the Numba kernels first.

    python benchmarks/bench_generators.py [--repeats 5] [--sizes 100 500] [--cap 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import spdgraph
from spdgraph.graphs import erdos_renyi

#: Registered methods left out by default: toys that ignore the graph.
EXCLUDE = ("example-scaled-identity",)


def seconds_per_matrix(graph: object, method: str, repeats: int, cap: float) -> float | str:
    """Median seconds of one ``sample`` call, or ``"refused (ErrorClass)"``."""
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        try:
            spdgraph.sample(graph, method, seed=seed, normalize=False)
        except spdgraph.SpdgraphError as exc:
            return f"refused ({type(exc).__name__})"
        times.append(time.perf_counter() - start)
        if times[0] > cap:
            break
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--densities", type=float, nargs="+", default=[0.05, 0.25])
    parser.add_argument("--cap", type=float, default=5.0, help="time once above this (s)")
    parser.add_argument("--exclude", nargs="*", default=list(EXCLUDE))
    args = parser.parse_args(argv)
    methods = ["po"] + [m for m in spdgraph.methods() if m != "po" and m not in args.exclude]
    small = erdos_renyi(10, 0.3, seed=0)
    for method in methods:  # warm-up: Numba compilation, caches
        try:
            spdgraph.sample(small, method, seed=0)
        except spdgraph.SpdgraphError:
            pass
    print(f"median ms per matrix over {args.repeats} calls (x = ratio to po in the same run)")
    print(f"{'p':>5} {'d':>5}  " + "  ".join(f"{m:>20}" for m in methods))
    for p in args.sizes:
        for d in args.densities:
            graph = erdos_renyi(p, d, seed=1)
            t = {m: seconds_per_matrix(graph, m, args.repeats, args.cap) for m in methods}
            base = t["po"]
            cells = []
            for m in methods:
                value = t[m]
                if isinstance(value, str) or isinstance(base, str):
                    cells.append(f"{value if isinstance(value, str) else value * 1e3:>20}")
                else:
                    cells.append(f"{value * 1e3:>10.1f} ({value / base:>6.2f}x)")
            print(f"{p:>5} {d:>5}  " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
