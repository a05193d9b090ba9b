"""Benchmark: the gwishart plugin against the core generators po and dd.

Times one matrix per call of ``spdgraph.sample`` (normalize=False, no spectrum
control) on Erdős–Rényi graphs, p in {100, 200}, d in {0.05, 0.25}; prints the
median over ``--repeats`` calls and the ratio to ``po`` measured in the same
run. A warm-up call per method compiles the Numba kernels first.

    python benchmarks/bench_gwishart.py [--repeats 5] [--sizes 100 200]

Needs ``pip install ./plugins/spdgraph-gwishart``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import spdgraph
from spdgraph.graphs import erdos_renyi

METHODS = ("po", "dd", "gwishart")


def median_seconds(graph, method: str, repeats: int) -> float:
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        spdgraph.sample(graph, method, seed=seed, normalize=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--densities", type=float, nargs="+", default=[0.05, 0.25])
    args = parser.parse_args(argv)
    if "gwishart" not in spdgraph.methods():
        raise SystemExit("install the plugin first: pip install ./plugins/spdgraph-gwishart")
    small = erdos_renyi(10, 0.3, seed=0)
    for method in METHODS:  # warm-up: Numba compilation, caches
        spdgraph.sample(small, method, seed=0)
    print(f"median seconds per matrix over {args.repeats} calls (ratio to po, same run)")
    print(f"{'p':>5} {'d':>6} " + " ".join(f"{m:>18}" for m in METHODS))
    for p in args.sizes:
        for d in args.densities:
            graph = erdos_renyi(p, d, seed=1)
            t = {m: median_seconds(graph, m, args.repeats) for m in METHODS}
            cells = " ".join(f"{t[m]:>9.4f} ({t[m] / t['po']:>5.2f}x)" for m in METHODS)
            print(f"{p:>5} {d:>6} {cells}", flush=True)


if __name__ == "__main__":
    main()
