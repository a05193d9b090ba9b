"""Batch throughput of ``method="po"``: threads over matrices, 1 vs N threads.

    python benchmarks/bench_batch.py [--p 500] [--d 0.25] [--size 8] [--repeats 3]

Prints the median time per matrix of the ``po`` batch generator (the
matrices only) and of ``spdgraph.sample(..., size=N)`` (plus the core's
validation, normalization and labelling) with ``numba.set_num_threads(t)`` for
t = 1 .. ``numba.config.NUMBA_NUM_THREADS`` (the generator runs one matrix
per thread), and checks that the results are bit-for-bit identical.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numba
import numpy as np

import spdgraph
from spdgraph.plugins._builtin.gen_po import generate_po_batch
from spdgraph.sampling._core import child_generator, resolve_entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=500)
    parser.add_argument("--d", type=float, default=0.25)
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    g = spdgraph.graphs.erdos_renyi(args.p, args.d, seed=1)
    spdgraph.sample(g, "po", seed=0)  # warm-up (compile or load the kernels)
    print(f"p={args.p} d={args.d} size={args.size}, load average {os.getloadavg()[0]:.2f}")
    ref = None
    adjacency = spdgraph.adapt_graph(g).adjacency
    entries, _ = resolve_entries("normal")
    root = np.random.SeedSequence(3)
    for threads in range(1, numba.config.NUMBA_NUM_THREADS + 1):
        numba.set_num_threads(threads)
        gen_times, times = [], []
        for _ in range(args.repeats):
            rngs = [child_generator(root, k) for k in range(args.size)]
            t0 = time.perf_counter()
            generate_po_batch(adjacency, rngs=rngs, entries=entries)
            gen_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            out = spdgraph.sample(g, "po", size=args.size, seed=3, normalize=False).values
            times.append(time.perf_counter() - t0)
        ref = out if ref is None else ref
        same = np.array_equal(out, ref)
        gen = statistics.median(gen_times) / args.size
        per = statistics.median(times) / args.size
        print(
            f"threads {threads}: generator {gen * 1e3:8.1f} ms, sample() {per * 1e3:8.1f} ms "
            f"per matrix; identical to 1 thread: {same}"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
