"""Graph families at a million nodes: seconds and peak memory with ``backend="scipy"``.

    python benchmarks/bench_large_graphs.py [--p 1000000] [--repeats 3] [--baseline-p 10000]
                                            [--backends]

For every family of :data:`spdgraph.graphs.FAMILIES` (mean degree as near 5
as the family allows), prints the median seconds over ``--repeats`` builds with
``backend="scipy"``, the mean degree obtained, and the peak memory: the growth
of the process's peak resident set size (Linux ``VmHWM``, reset through
``/proc/self/clear_refs`` after a small warm-up, so imports and compiled
kernels are not counted) over its resident size before the build, in a fresh
child process (compiled loops allocate outside tracemalloc's view, which is
why the RSS is used). Then, in the same run, the
baseline: ``erdos_renyi`` at ``--baseline-p`` nodes (mean degree 5) against
``networkx.fast_gnp_random_graph``, with the ratio, for ``backend="networkx"``
(the same output type) and ``backend="scipy"``. ``--backends`` adds one build
of ``erdos_renyi`` at ``--p`` nodes in every backend that builds from the sparse
form (networkx last: it is the slowest).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import spdgraph.graphs as graphs


def builders(p: int) -> dict[str, Callable[[str], Any]]:
    """Each family at ``p`` nodes, mean degree as near 5 as it allows."""
    d = 5.0 / (p - 1)
    return {
        "erdos_renyi": lambda b: graphs.erdos_renyi(p, d, seed=1, backend=b),
        "cluster": lambda b: graphs.cluster(p, prob=5 / 19, seed=1, backend=b),  # groups of 20
        "small_world": lambda b: graphs.small_world(p, 2, 0.1, seed=1, backend=b),
        "scale_free": lambda b: graphs.scale_free(p, seed=1, backend=b),
        "band": lambda b: graphs.band(p, 2, backend=b),
        "ar1": lambda b: graphs.ar1(p, backend=b),
        "ar2": lambda b: graphs.ar2(p, backend=b),
        "circle": lambda b: graphs.circle(p, backend=b),
        "lattice": lambda b: graphs.lattice(p, backend=b),
        "hub": lambda b: graphs.hub(p, backend=b),
        "star": lambda b: graphs.star(p, backend=b),
    }


def _status(field: str) -> int:
    """A ``/proc/self/status`` size in bytes (``VmRSS``, ``VmHWM``)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no {field} in /proc/self/status")


def child(name: str, p: int) -> None:
    """Run in a fresh process: warm up, then one build; print its RSS growth (JSON)."""
    builders(1024)[name]("scipy")  # imports, compiled kernels (cached) loaded
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset the peak (VmHWM) to the current resident size
    before = _status("VmRSS")
    g = builders(p)[name]("scipy")
    print(json.dumps({"peak": _status("VmHWM") - before, "nnz": int(g.nnz)}))


def _median_seconds(make: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline-p", type=int, default=10**4)
    parser.add_argument("--backends", action="store_true", help="time every backend too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.p)
        return 0
    p = args.p
    print(f"p = {p:,}, backend='scipy', load average {os.getloadavg()[0]:.2f}")
    print(f"{'family':<12} {'median s':>9} {'mean degree':>12} {'peak MiB':>9} {'B/edge':>7}")
    for name, make in builders(p).items():
        make("scipy")  # warm-up: compiled kernels loaded
        seconds = _median_seconds(lambda make=make: make("scipy"), args.repeats)
        out = subprocess.run(
            [sys.executable, __file__, "--p", str(p), "--child", name],
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        edges = max(result["nnz"] // 2, 1)
        print(
            f"{name:<12} {seconds:>9.3f} {result['nnz'] / p:>12.2f} "
            f"{result['peak'] / 2**20:>9.1f} {result['peak'] / edges:>7.0f}"
        )
    import networkx as nx

    q = args.baseline_p
    d = 5.0 / (q - 1)
    base = _median_seconds(lambda: nx.fast_gnp_random_graph(q, d, seed=1), args.repeats)
    print(f"\nbaseline: p = {q:,}, mean degree 5")
    print(f"{'graph':<44} {'median s':>9} {'ratio':>7}")
    print(f"{'networkx.fast_gnp_random_graph':<44} {base:>9.4f} {1.0:>7.2f}")
    for backend in ("networkx", "scipy"):
        seconds = _median_seconds(
            lambda backend=backend: graphs.erdos_renyi(q, d, seed=1, backend=backend),
            args.repeats,
        )
        label = f"spdgraph erdos_renyi(backend={backend!r})"
        print(f"{label:<44} {seconds:>9.4f} {seconds / base:>7.2f}")
    if args.backends:
        print(f"\nerdos_renyi, p = {p:,}, mean degree 5, one build per backend")
        print(f"{'backend':<12} {'seconds':>9}")
        for backend in ("scipy", "igraph", "networkit", "rustworkx", "networkx"):
            graphs.erdos_renyi(1000, 0.005, seed=1, backend=backend)  # import the library first
            start = time.perf_counter()
            graphs.erdos_renyi(p, 5 / (p - 1), seed=1, backend=backend)
            seconds = time.perf_counter() - start
            print(f"{backend:<12} {seconds:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
