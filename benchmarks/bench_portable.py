"""What ``portable=True`` costs: portable vs default ``spdgraph.sample`` in one run.

    python benchmarks/bench_portable.py [--repeats 5] [--sizes 100,400,1000]
        [--chain-sizes 100,400]

For each p and density (sparse: mean degree ~10 capped at d = 0.05; dense:
d = 0.5), one matrix of ``po`` (and a line of ``dd``) is sampled in the
default mode and with ``portable=True``, interleaved (default, portable,
default, ...), after one warm-up call of each (which also compiles the
portable kernels). For p in ``--chain-sizes``, ``port_chol`` on the same
graphs and ``uniform`` on their chordal cover (minimum degree; Metropolis-
Hastings, the default sampler) too. Medians of ``--repeats`` runs; the ratio column is
portable / default of the same run. The issue's rule: portable becomes the
default if it costs at most 1.5x at every p <= 1000.
"""

from __future__ import annotations

import argparse
import statistics
import time

import networkx as nx

import spdgraph
from spdgraph.plugins._builtin.gen_uniform import chordal_cover


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", default="100,400,1000")
    parser.add_argument("--chain-sizes", default="100,400")
    args = parser.parse_args()
    chain_sizes = {int(x) for x in args.chain_sizes.split(",") if x}
    rows = []
    for p in (int(x) for x in args.sizes.split(",")):
        for label, d in (("sparse", min(0.05, 10 / p)), ("dense", 0.5)):
            graph = spdgraph.graphs.erdos_renyi(p, d, seed=1)
            nodes = sorted(graph)
            adjacency = nx.to_numpy_array(graph, nodelist=nodes, dtype=bool)
            cover = chordal_cover(adjacency, "min_degree")[0]
            methods = ["po"] + (["dd"] if label == "sparse" else [])
            methods += ["port_chol", "uniform"] if p in chain_sizes else []
            for method in methods:
                g = cover if method == "uniform" else graph

                def default(g=g, method=method):
                    return spdgraph.sample(g, method, seed=1)

                def portable(g=g, method=method):
                    return spdgraph.sample(g, method, seed=1, portable=True)

                default()
                portable()
                times: dict[str, list[float]] = {"default": [], "portable": []}
                for _ in range(args.repeats):
                    times["default"].append(_time(default))
                    times["portable"].append(_time(portable))
                a = statistics.median(times["default"])
                b = statistics.median(times["portable"])
                shown = f"{label} d={d:g}" + (" (chordal cover)" if method == "uniform" else "")
                rows.append((method, p, shown, a, b, b / a))
    print("| method | p | graph | default (ms) | portable (ms) | portable / default |")
    print("| --- | --- | --- | --- | --- | --- |")
    for method, p, graph, a, b, ratio in rows:
        print(f"| {method} | {p} | {graph} | {a * 1e3:.1f} | {b * 1e3:.1f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
