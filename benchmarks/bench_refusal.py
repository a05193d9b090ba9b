"""How fast and how light the memory guard refuses what cannot fit (issue 12, item 2).

    python benchmarks/bench_refusal.py [--repeats 3]

For each input (built before the clock starts) it times ``spdgraph.sample``
until it raises ``TooLargeError`` (median of ``--repeats``) and measures the
memory the call allocates: the traced peak (tracemalloc, every numpy and
Python allocation) and the growth of the process's resident peak
(``ru_maxrss``). The first call of a process also loads the plugins (entry
points); it is reported on its own line, untraced. Issue 12 asks for
a refusal within 1 s and 200 MB.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable

import networkx as nx
import numpy as np
import scipy.sparse

import spdgraph


def _sparse(p: int) -> scipy.sparse.csr_matrix:
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, p, size=(2, 2 * p))
    graph = scipy.sparse.coo_matrix((np.ones(u.size), (u, v)), shape=(p, p))
    return (graph + graph.T).tocsr()


def _optional(name: str, build: Callable[[], object]) -> list[tuple[str, Callable[[], object]]]:
    """An input of an optional graph library, or nothing when it is not installed."""
    import importlib.util

    library = name.split()[0].split(".")[0]
    return [(name, build)] if importlib.util.find_spec(library) is not None else []


def _rustworkx(p: int) -> object:
    import rustworkx

    g = rustworkx.PyGraph()
    g.add_nodes_from(range(p))
    g.add_edges_from_no_data([(i, i + 1) for i in range(0, p - 1, 2)])
    return g


def _networkit(p: int) -> object:
    import networkit

    g = networkit.Graph(p)
    for i in range(0, p - 1, 2):
        g.addEdge(i, i + 1)
    return g


def _pydata_sparse(p: int) -> object:
    import sparse

    return sparse.COO.from_scipy_sparse(_sparse(p))


def _refuse(graph: object, *, trace: bool = True) -> tuple[float, int, int]:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    try:
        spdgraph.sample(graph)
    except spdgraph.TooLargeError:
        pass
    else:  # pragma: no cover - the point of the benchmark
        raise SystemExit("the request was not refused")
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    tracemalloc.stop()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) * 1024
    return seconds, peak, grown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    inputs: list[tuple[str, Callable[[], object]]] = [
        ("scipy.sparse csr, p = 200,000", lambda: _sparse(200_000)),
        ("networkx G(n, m), p = 200,000", lambda: nx.gnm_random_graph(200_000, 400_000, seed=0)),
        ("networkx path_graph(40,000)", lambda: nx.path_graph(40_000)),
        ("networkx path_graph(60,000)", lambda: nx.path_graph(60_000)),
        *_optional("rustworkx PyGraph, p = 200,000", lambda: _rustworkx(200_000)),
        *_optional("networkit Graph, p = 200,000", lambda: _networkit(200_000)),
        *_optional("sparse COO, p = 200,000", lambda: _pydata_sparse(200_000)),
    ]
    print(f"{'input':<32}{'seconds':>10}{'traced peak':>14}{'RSS growth':>12}")
    print("-" * 68)
    first = True
    for name, build in inputs:
        graph = build()
        if first:  # untraced: tracemalloc would slow the plugin imports it measures
            seconds, _, grown = _refuse(graph, trace=False)
            label = "first call (plugins load)"
            print(f"{label:<32}{seconds:>10.4f}{'-':>14}{grown / 2**20:>9.1f} MB")
            first = False
        runs = [_refuse(graph) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        grown = max(r[2] for r in runs)
        print(f"{name:<32}{seconds:>10.4f}{peak / 2**20:>11.2f} MB{grown / 2**20:>9.1f} MB")
    try:
        spdgraph.sample(_sparse(200_000))
    except spdgraph.TooLargeError as exc:
        print(f"\nmessage: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
