"""How often a matrix fails its certificate and is redrawn (``sample(uncertified="redraw")``).

Prints, per method, p and density d (Erdős–Rényi, seeded; d = 1 the complete
graph), the matrices drawn, how many were redrawn, the rate, and the most redraws
of one matrix, from ``attrs["redraws"]``. Run: ``python benchmarks/bench_redraws.py``.
"""

from __future__ import annotations

import sys
import time

import networkx as nx

import spdgraph

#: (p, d, matrices): the dense end, where the scaled condition number's tail is heavy.
CASES = [
    (100, 1.0, 3000),
    (200, 0.3, 1500),
    (200, 0.5, 1500),
    (200, 0.7, 1500),
    (200, 1.0, 1500),
    (300, 0.7, 600),
    (300, 1.0, 600),
]


def main(seeds: int = 1) -> None:
    print(
        f"{'method':<7}{'p':>5}{'d':>6}{'matrices':>10}{'redrawn':>9}{'rate':>10}{'max':>5}{'s':>8}"
    )
    for p, d, n in CASES:
        graph = nx.complete_graph(p) if d == 1.0 else nx.gnp_random_graph(p, d, seed=p)
        total = redrawn = most = 0
        start = time.perf_counter()
        for seed in range(seeds):
            counts = spdgraph.sample(graph, size=n, seed=seed).attrs["redraws"]
            total += len(counts)
            redrawn += sum(1 for c in counts if c)
            most = max(most, max(counts))
        rate = redrawn / total
        print(
            f"{'po':<7}{p:>5}{d:>6.1f}{total:>10}{redrawn:>9}{rate:>10.2e}{most:>5}"
            f"{time.perf_counter() - start:>8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
