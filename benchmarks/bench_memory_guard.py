"""The memory guard's estimate against the measured peak, for every built-in method.

Each row samples one matrix (or a small stack) in a fresh child process and
reads the peak resident set size the call added (``VmHWM`` after the call
minus ``VmRSS`` just before it, the peak reset by ``/proc/self/clear_refs``
after the generator was compiled on a small graph, so compilation is not
counted; Linux). The estimate is the guard's own
(:func:`spdgraph.sampling.estimate_need`, what ``spdgraph.sample`` compares
with the available memory). The built-in methods' declared work is fitted so
that estimate / peak is 1.00 to 1.16 at p = 2000 to 4000 (``tests/test_memory_guards.py``
holds it within 25%); at small p the interpreter's own allocations make the
ratio noisy.

Usage::

    python benchmarks/bench_memory_guard.py            # p = 2000, 3000, 4000
    python benchmarks/bench_memory_guard.py --quick    # p = 2000, 3000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
import numpy as np, scipy.sparse as sp
import spdgraph
from spdgraph.sampling import estimate_need

method, p, size, degree = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def graph(p):
    rng = np.random.default_rng(0)
    if method == "uniform":  # needs a chordal graph: a band (an interval graph)
        k = max(1, int(degree // 2))
        rows = np.repeat(np.arange(p), k)
        cols = rows + np.tile(np.arange(1, k + 1), p)
        keep = cols < p
        a = sp.coo_matrix((np.ones(keep.sum(), bool), (rows[keep], cols[keep])), shape=(p, p))
        return ((a + a.T) > 0).tocsr()
    if degree >= p - 1:
        return np.ones((p, p), bool) & ~np.eye(p, dtype=bool)
    m = int(p * degree / 2)
    i, j = rng.integers(0, p, m), rng.integers(0, p, m)
    keep = i != j
    a = sp.coo_matrix((np.ones(keep.sum(), bool), (i[keep], j[keep])), shape=(p, p)).tocsr()
    if method == "dag":  # edges from lower to higher index: acyclic
        return spdgraph.DAG(sp.triu(a + a.T, k=1).tocsr())
    return ((a + a.T) > 0).tocsr()
kind = "precision" if method in ("huge", "gwishart") else "covariance"
# compile first, the same path (a stack takes the batch code)
spdgraph.sample(graph(50), method, size=None if size == 1 else size, seed=1, kind=kind)
g = graph(p)
need = estimate_need(g, method, size=None if size == 1 else size, kind=kind)
def status(key):
    line = next(x for x in open("/proc/self/status") if x.startswith(key + ":"))
    return int(line.split()[1]) * 1024
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # the peak from here on (not the compilation's)
before = status("VmRSS")
spdgraph.sample(g, method, size=None if size == 1 else size, seed=1, kind=kind)
print(json.dumps({"estimate": need.bytes, "peak": status("VmHWM") - before}))
"""


def measure(method: str, p: int, size: int, degree: float) -> dict[str, float]:
    run = subprocess.run(
        [sys.executable, "-c", CHILD, method, str(p), str(size), str(degree)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
    )
    if run.returncode != 0:
        raise RuntimeError(f"{method} p={p}: {run.stderr.strip().splitlines()[-1:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="p = 2000 and 3000 only")
    parser.add_argument("--methods", help="comma-separated methods (default: every built-in)")
    args = parser.parse_args(argv)
    sizes = (2000, 3000) if args.quick else (2000, 3000, 4000)
    import spdgraph

    methods = [m for m in spdgraph.methods() if not m.startswith("example")]
    if args.methods:
        methods = [m for m in methods if m in args.methods.split(",")]
    cases = []
    for method in methods:
        # gwishart (a plugin) is slow at large p: its smallest p only
        for p in sizes[:1] if method == "gwishart" else sizes:
            cases.append((method, p, 1, 5.0))
        cases += [(method, p, 4, 5.0) for p in sizes[:1] if method == "gwishart"]
        cases += [(method, p, 4, 5.0) for p in sizes[:2] if method != "gwishart"]  # stacks
    dense = sizes[0] / 2  # mean degree p/2: density 0.5
    cases += [("po", sizes[0], 1, dense), ("dd", sizes[0], 1, dense), ("huge", sizes[0], 1, dense)]
    print("| method | p | size | mean degree | estimate (MiB) | peak (MiB) | estimate / peak |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for method, p, size, degree in cases:
        try:
            row = measure(method, p, size, degree)
        except RuntimeError as exc:
            print(f"| {method} | {p} | {size} | {degree:g} | - | - | failed: {exc} |")
            continue
        ratio = row["estimate"] / max(row["peak"], 1)
        print(
            f"| {method} | {p} | {size} | {degree:g} | {row['estimate'] / 2**20:,.0f} "
            f"| {row['peak'] / 2**20:,.0f} | {ratio:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
