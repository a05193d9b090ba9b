"""Benchmark: time per matrix of every registered generator, with its ratio to ``po``.

Loops over ``spdgraph.methods()`` (built-ins and installed plugins) and times
one matrix per ``spdgraph.sample`` call (``normalize=False``, no spectrum
control) on Erdős–Rényi graphs G, p in {100, 500}, d in {0.05, 0.25}: the
median over ``--repeats`` calls, and the ratio to ``po`` on G timed in the
same run (timings on a shared machine are noisy: read the ratios). How a
method is given G is its entry in RECIPES, one column per variant; a method
without a recipe gets G itself and its default options:

* ``uniform`` (chordal graphs only): the minimum-degree chordal cover H of G
  (the cover ``port_chol`` uses; its edge count is printed), once with
  ``sampler="exact"`` and once with the default ``"mh"``;
* ``dag``: G oriented i -> j for i < j, ``kind="precision"`` (zeros: the
  moral graph of that DAG), once with the default N(0, 1) edge weights
  (numerically singular on dense DAGs: ``failed (NumericalError)``) and once
  with U(-0.5, 0.5) weights.

Building the cover or the DAG is not timed. A method that refuses or fails on
its graph is listed as ``failed (ErrorClass)``; one whose first call takes
over ``--cap`` seconds is timed once. A warm-up call per variant compiles the
Numba kernels first.

    python benchmarks/bench_generators.py [--repeats 5] [--sizes 100 500] [--cap 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np

import spdgraph
from spdgraph.graphs import erdos_renyi
from spdgraph.plugins._builtin.gen_uniform import chordal_cover

#: Registered methods left out by default: toys that ignore the graph.
EXCLUDE = ("example-scaled-identity",)


def cover(adjacency: np.ndarray) -> np.ndarray:
    """The minimum-degree chordal cover of the graph (the graph itself when chordal)."""
    return chordal_cover(adjacency, "min_degree")[0]


def oriented(adjacency: np.ndarray) -> spdgraph.DAG:
    """The graph as a DAG, every edge oriented i -> j for i < j."""
    return spdgraph.DAG(np.triu(adjacency, 1))


def small_weights(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Edge weights U(-0.5, 0.5): dense DAGs stay well enough conditioned to be SPD."""
    return rng.uniform(-0.5, 0.5, shape)


Variant = tuple[str, Callable[[np.ndarray], Any], dict[str, Any]]
#: method -> its variants (column label, graph builder from G's boolean adjacency, options)
RECIPES: dict[str, list[Variant]] = {
    "uniform": [
        ("uniform exact (H)", cover, {"sampler": "exact"}),
        ("uniform mh (H)", cover, {"sampler": "mh"}),
    ],
    "dag": [
        ("dag precision", oriented, {"kind": "precision"}),
        ("dag prec. U(-.5,.5)", oriented, {"kind": "precision", "entries": small_weights}),
    ],
}


def variants(method: str) -> list[Variant]:
    """The method's recipe, or G itself with its default options."""
    return RECIPES.get(method, [(method, lambda adjacency: adjacency, {})])


def seconds_per_matrix(graph: object, method: str, options: dict, repeats: int, cap: float):
    """Median seconds of one ``sample`` call, or ``"failed (ErrorClass)"``."""
    times: list[float] = []
    for seed in range(repeats):
        start = time.perf_counter()
        try:
            spdgraph.sample(graph, method, seed=seed, normalize=False, **options)
        except spdgraph.SpdgraphError as exc:
            return f"failed ({type(exc).__name__})"
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
    columns = [(m, *v) for m in methods for v in variants(m)]
    small = nx.to_numpy_array(erdos_renyi(10, 0.3, seed=0), nodelist=range(10), dtype=bool)
    for method, _, build, options in columns:  # warm-up: Numba compilation, caches
        try:
            spdgraph.sample(build(small), method, seed=0, **options)
        except spdgraph.SpdgraphError:
            pass
    print(f"median ms per matrix over {args.repeats} calls (x = ratio to po on G, same run)")
    print(
        f"{'p':>5} {'d':>5} {'edges G':>8} {'edges H':>8}  "
        + "  ".join(f"{c[1]:>20}" for c in columns)
    )
    for p in args.sizes:
        for d in args.densities:
            graph = erdos_renyi(p, d, seed=1)
            adjacency = nx.to_numpy_array(graph, nodelist=sorted(graph), dtype=bool)
            t = {
                label: seconds_per_matrix(build(adjacency), m, options, args.repeats, args.cap)
                for m, label, build, options in columns
            }
            base = t["po"]
            cells = []
            for _, label, _, _ in columns:
                value = t[label]
                if isinstance(value, str) or isinstance(base, str):
                    cells.append(f"{value if isinstance(value, str) else value * 1e3:>20}")
                else:
                    cells.append(f"{value * 1e3:>10.1f} ({value / base:>6.2f}x)")
            edges = f"{adjacency.sum() // 2:>8} {cover(adjacency).sum() // 2:>8}"
            print(f"{p:>5} {d:>5} {edges}  " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
