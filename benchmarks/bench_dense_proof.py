"""The cost of the dense path's proven Cholesky certificate: before / after, one run.

    python benchmarks/bench_dense_proof.py --baseline /path/to/old/checkout [--repeats 5]

The dense certificate (issue 54) passes a completed Cholesky factorization only
with its rounding bound accounted: from the existing factor (``p^2`` work),
else one more factorization of the shifted, rescaled matrix
(:func:`spdgraph._kernels.cholesky_proof.dense_lower_bound`). This script times
``spdgraph.sample(G, method, size=n, seed=1)`` for Erdős–Rényi graphs at
p = 100, 500, 1000 with the code of this tree and with the code of
``--baseline`` (a checkout from before the change, on ``PYTHONPATH``), each
call in its own fresh interpreter after a warm-up call there, the two
interleaved; medians of ``--repeats``; the ratio column is after / before.
It also prints, in this interpreter, the time of the proof alone against one
``numpy.linalg.cholesky`` of the same matrix (one BLAS thread).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

#: (p, density, method, size): the dense path's shapes (PO's proof or the factorization).
CASES = [
    (100, 0.5, "po", 100),
    (500, 0.1, "po", 100),
    (500, 0.5, "po", 20),
    (1000, 0.05, "po", 10),
    (200, 0.5, "dd", 100),
]

_CHILD = """
import sys, time, networkx as nx, spdgraph
p, d, method, size = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
g = nx.erdos_renyi_graph(p, d, seed=1)
spdgraph.sample(g, method, size=2, seed=0)  # warm: kernels loaded, plans cached
t0 = time.perf_counter()
spdgraph.sample(g, method, size=size, seed=1)
print(time.perf_counter() - t0)
"""


def _child_seconds(root: Path, case: tuple) -> float:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *map(str, case)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def _proof_alone(p: int, repeats: int) -> tuple[float, float, float]:
    """(cholesky, proof from the factor, shifted proof) seconds for a dense PO matrix."""
    import networkx as nx
    from threadpoolctl import threadpool_limits

    import spdgraph
    from spdgraph._kernels.cholesky_proof import _shifted_dense_bound, dense_lower_bound

    m = spdgraph.sample(nx.erdos_renyi_graph(p, 0.5, seed=1), seed=0).values
    factor = np.linalg.cholesky(m)
    with threadpool_limits(limits=1):
        rows = []
        for fn in (
            lambda: np.linalg.cholesky(m),
            lambda: dense_lower_bound(m, factor),
            lambda: _shifted_dense_bound(m),
        ):
            fn()
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            rows.append(statistics.median(times))
    return rows[0], rows[1], rows[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parents[1]
    print(f"medians of {args.repeats}, load average {os.getloadavg()[0]:.2f}")
    print(f"{'p':>6}{'d':>6}{'method':>8}{'size':>6}{'before s':>10}{'after s':>10}{'ratio':>8}")
    print("-" * 54)
    for case in CASES:
        before, after = [], []
        for _ in range(args.repeats):  # interleaved: load changes hit both
            before.append(_child_seconds(args.baseline, case))
            after.append(_child_seconds(here, case))
        b, a = statistics.median(before), statistics.median(after)
        print(f"{case[0]:>6}{case[1]:>6}{case[2]:>8}{case[3]:>6}{b:>10.3f}{a:>10.3f}{a / b:>8.2f}")
    print()
    print(f"{'p':>6}{'cholesky ms':>13}{'from factor':>13}{'shifted':>10}  (d = 0.5, ratios)")
    for p in (100, 500, 1000):
        chol, factor, shifted = _proof_alone(p, args.repeats)
        print(f"{p:>6}{chol * 1e3:>13.2f}{factor / chol:>13.2f}{shifted / chol:>10.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
