"""What checking every block costs: a lazy open read with and without its digests.

    python benchmarks/bench_verified_open.py [--p 100] [--size 400] [--chunks 50] [--repeats 5]

Saves a stack (netCDF and Zarr), then times ``spdgraph.open(path, chunks=...)``
followed by reading every value (``.sum().compute()``), with ``verify=True``
(each ~4 MiB block checked against its digest as read) and ``verify=False``,
and the eager open (whole-array digest). Prints medians and the ratio against
the unchecked lazy read measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import networkx as nx

import spdgraph


def _median(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=100)
    parser.add_argument("--size", type=int, default=400)
    parser.add_argument("--chunks", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    stack = spdgraph.sample(nx.cycle_graph(args.p), size=args.size, seed=1)
    mib = stack.nbytes / 2**20
    print(
        f"p={args.p} size={args.size} ({mib:.0f} MiB) chunks={args.chunks}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{'format':8} {'read':28} {'median s':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("m.nc", "m.zarr"):
            path = spdgraph.save(stack, Path(tmp) / name)
            rows = {
                "lazy, verify=False": lambda p=path: (
                    spdgraph.open(p, chunks=args.chunks, verify=False).sum().compute()
                ),
                "lazy, verify=True": lambda p=path: (
                    spdgraph.open(p, chunks=args.chunks).sum().compute()
                ),
                "eager (whole digest)": lambda p=path: spdgraph.open(p).sum(),
                "eager, verify=False": lambda p=path: spdgraph.open(p, verify=False).sum(),
            }
            base = None
            for label, call in rows.items():
                call()  # warm the caches
                seconds = _median(call, args.repeats)
                base = base or seconds
                print(f"{name:8} {label:28} {seconds:9.3f} {seconds / base:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
