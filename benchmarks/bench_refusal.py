"""How fast and how light the memory guard refuses what cannot fit (issue 12, item 2).

    python benchmarks/bench_refusal.py [--repeats 3]

For each input (built before the clock starts) it times ``spdgraph.sample``
until it raises ``TooLargeError`` (median of ``--repeats``) and measures the
memory the call allocates: the traced peak (tracemalloc, every numpy and
Python allocation) and the growth of the process's resident peak
(``ru_maxrss``). The first call of a process also loads the plugins (entry
points); it is reported on its own line, untraced. Issue 12 asks for
a refusal within 1 s and 200 MB; issue 26 for the same in every backend
(rustworkx, NetworKit and PyData sparse rows need those libraries: the
``rustworkx``, ``networkit`` and ``sparse`` extras; a missing one is skipped).
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
import pandas as pd
import scipy.sparse
import xarray as xr

import spdgraph


def _sparse(p: int) -> scipy.sparse.csr_matrix:
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, p, size=(2, 2 * p))
    graph = scipy.sparse.coo_matrix((np.ones(u.size), (u, v)), shape=(p, p))
    return (graph + graph.T).tocsr()


def _backends(p: int) -> list[tuple[str, Callable[[], object], str]]:
    """(name, build, method) of a p-node sparse graph in each optional backend installed."""
    rows: list[tuple[str, Callable[[], object], str]] = []
    try:
        import igraph as ig

        rows.append(("igraph", lambda: ig.Graph.Erdos_Renyi(n=p, m=2 * p), "po"))
    except ImportError:
        pass
    try:
        import rustworkx as rx

        rows.append(("rustworkx PyGraph", lambda: rx.undirected_gnm_random_graph(p, 2 * p), "po"))
        rows.append(
            ("rustworkx PyDiGraph (dag)", lambda: rx.directed_gnm_random_graph(p, p), "dag")
        )
    except ImportError:
        pass
    try:
        import networkit as nk

        rows.append(
            ("networkit", lambda: nk.generators.ErdosRenyiGenerator(p, 4 / p).generate(), "po")
        )
    except ImportError:
        pass
    try:
        import sparse

        rows.append(("PyData sparse COO", lambda: sparse.COO.from_scipy_sparse(_sparse(p)), "po"))
        rows.append(
            ("PyData sparse GCXS", lambda: sparse.GCXS.from_scipy_sparse(_sparse(p)), "po")
        )
        rows.append(
            (
                "xarray over sparse COO",
                lambda: xr.DataArray(sparse.COO.from_scipy_sparse(_sparse(p))),
                "po",
            )
        )
    except ImportError:
        pass
    rows.append(("pandas sparse", lambda: pd.DataFrame.sparse.from_spmatrix(_sparse(p)), "po"))
    rows.append(
        ("DAG(scipy.sparse) (dag)", lambda: spdgraph.DAG(scipy.sparse.triu(_sparse(p), 1)), "dag")
    )
    return rows


def _refuse(graph: object, method: str = "po", *, trace: bool = True) -> tuple[float, int, int]:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    try:
        spdgraph.sample(graph, method)
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
    inputs: list[tuple[str, Callable[[], object], str]] = [
        ("scipy.sparse csr, p = 200,000", lambda: _sparse(200_000), "po"),
        (
            "networkx G(n, m), p = 200,000",
            lambda: nx.gnm_random_graph(200_000, 400_000, seed=0),
            "po",
        ),
        ("networkx path_graph(40,000)", lambda: nx.path_graph(40_000), "po"),
        ("networkx path_graph(60,000)", lambda: nx.path_graph(60_000), "po"),
        *((f"{name}, p = 200,000", build, method) for name, build, method in _backends(200_000)),
    ]
    width = max(len(name) for name, _, _ in inputs) + 2
    print(f"{'input':<{width}}{'seconds':>10}{'x scipy':>9}{'traced peak':>14}{'RSS growth':>12}")
    print("-" * (width + 45))
    baseline = 0.0  # the scipy.sparse row, the first: the other rows as multiples of it
    first = True
    for name, build, method in inputs:
        graph = build()
        if first:  # untraced: tracemalloc would slow the plugin imports it measures
            seconds, _, grown = _refuse(graph, method, trace=False)
            label = "first call (plugins load)"
            print(f"{label:<{width}}{seconds:>10.4f}{'-':>9}{'-':>14}{grown / 2**20:>9.1f} MB")
            first = False
        runs = [_refuse(graph, method) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        grown = max(r[2] for r in runs)
        baseline = baseline or seconds
        ratio = seconds / baseline
        print(
            f"{name:<{width}}{seconds:>10.4f}{ratio:>9.2f}{peak / 2**20:>11.2f} MB"
            f"{grown / 2**20:>9.1f} MB"
        )
    try:
        spdgraph.sample(_sparse(200_000))
    except spdgraph.TooLargeError as exc:
        print(f"\nmessage: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
