"""Chunked (dask) sampling against the in-memory call, and the cost of files.

Run: ``python benchmarks/bench_data.py [--n 2000] [--p 50] [--repeat 3]``.
Prints median seconds and the ratio to the in-memory baseline measured in the
same run. Chunking is about memory and clusters, not single-machine speed:
the interesting numbers are that the chunked run costs about the same as the
eager one (same work, bit-for-bit the same values) and how the chunk size
changes that.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import dask
import numpy as np

import spdgraph
from spdgraph.graphs import erdos_renyi


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--p", type=int, default=50)
    parser.add_argument("--method", default="po")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    graph = erdos_renyi(args.p, 0.1, seed=1)
    n, method, repeat = args.n, args.method, args.repeat

    def eager():
        return spdgraph.sample(graph, method, size=n, seed=1)

    spdgraph.sample(graph, method, size=2, seed=0)  # JIT warm-up
    reference = eager().values
    tasks = [("in memory (baseline)", lambda: eager().values.sum())]
    for chunks in (50, 250, 1000):
        lazy = spdgraph.sample(graph, method, size=n, seed=1, chunks=chunks)
        assert np.array_equal(lazy.values, reference)
        for scheduler in ("threads", "synchronous"):

            def run(lazy=lazy, scheduler=scheduler):
                with dask.config.set(scheduler=scheduler, num_workers=2):
                    return lazy.sum().compute()

            tasks.append((f"chunks={chunks}, {scheduler}", run))
    da = eager()
    folder = tempfile.mkdtemp()
    for suffix in (".nc", ".zarr"):
        path = Path(folder) / f"m{suffix}"
        tasks.append((f"save {suffix}", lambda p=path: spdgraph.save(da, p)))
        tasks.append((f"open {suffix}", lambda p=path: spdgraph.open(p)))
    tasks.append(("draw 200 obs each", lambda: da.spd.draw(200, seed=1)))
    # round robin, so that a change in machine load hits every task alike
    times: dict[str, list[float]] = {name: [] for name, _ in tasks}
    for _ in range(repeat):
        for name, run in tasks:
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    shutil.rmtree(folder)
    rows = [(name, statistics.median(values)) for name, values in times.items()]
    baseline = rows[0][1]
    print(f"{n} {method} matrices, p={args.p}, median of {repeat}")
    print(f"{'task':<28}{'seconds':>10}{'ratio':>8}")
    for name, seconds in rows:
        print(f"{name:<28}{seconds:>10.3f}{seconds / baseline:>8.2f}")


if __name__ == "__main__":
    main()
