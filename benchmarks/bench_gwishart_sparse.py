"""Benchmark: sparse G-Wishart on a large graph holding one dense block (issue 57).

The graph: a path on ``--nodes`` nodes whose first ``c`` nodes also form a
clique (chordal: a clique glued to a path). Per clique size ``c``, the median
over ``--rounds`` rounds of the wall time of each stage of
``spdgraph_gwishart.sparse.gwishart_sparse`` (D = I, b = 3):

* ``cost``: the ``max_flops`` prediction (:func:`spdgraph_gwishart.sparse.sparse_plan`:
  maximum cardinality search, the chordality check and the clique sizes);
* ``order``: the greedy minimum fill-in order (:func:`chordal_order`);
* ``gram``: ``K = Phi^T Phi`` on the pattern (the ``gram_upper`` kernel);
* ``draw``: the whole call (all of the above, the random numbers and the CSR);

and the baseline, timed in the same run: ``blas``, NumPy's dense
``phi.T @ phi`` on a ``c x c`` upper triangular block (the work a dense block
legitimately costs: about ``c**3`` flops). The ratios ``order/blas`` and
``gram/blas`` say how far each stage is from that floor. ``--stages`` picks
the stages (the module of the installed or ``PYTHONPATH`` plugin is timed: run
it against another checkout's plugin for a before/after table).

    python benchmarks/bench_gwishart_sparse.py [--nodes 1000000] [--cliques 300 1000 3000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import scipy.sparse


def clique_on_path(p: int, c: int) -> scipy.sparse.csr_array:
    """A path on ``p`` nodes whose first ``c`` nodes also form a clique (CSR, bool)."""
    iu, ju = np.triu_indices(c, 1)
    path = np.arange(max(c - 1, 0), p - 1)
    rows = np.concatenate([iu, path])
    cols = np.concatenate([ju, path + 1])
    upper = scipy.sparse.coo_array((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(p, p))
    return scipy.sparse.csr_array(upper + upper.T)


def _median_time(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    import spdgraph_gwishart.sparse as sp
    from spdgraph_gwishart._sparse_kernels import gram_upper, later_neighbours

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--cliques", type=int, nargs="+", default=[300, 1000, 3000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stages", nargs="+", default=["cost", "order", "gram", "draw"])
    args = parser.parse_args()
    warm = clique_on_path(50, 10)  # compile the kernels outside the timings
    sp.gwishart_sparse(warm, rng=np.random.default_rng(0), entries=None)  # type: ignore[arg-type]
    print(f"path on {args.nodes:,} nodes + one clique; median of {args.rounds} (seconds)")
    header = ["clique", "blas", *args.stages, "order/blas", "gram/blas"]
    print(" | ".join(f"{h:>10}" for h in header))
    for c in args.cliques:
        a = clique_on_path(args.nodes, c)
        phi = np.triu(np.random.default_rng(1).standard_normal((c, c)))
        row: dict[str, float] = {"blas": _median_time(partial(np.matmul, phi.T, phi), args.rounds)}
        order = sp.chordal_order(a)
        ptr, idx = later_neighbours(a.indptr.astype(np.int64), a.indices.astype(np.int64), order)
        draw = partial(sp.gwishart_sparse, a, entries=None, max_flops=1e12)
        stages: dict[str, Callable[[], object]] = {
            # (before issue 57 there was no plan: time "order" and "gram" only)
            "cost": partial(getattr(sp, "sparse_plan", print), a),
            "order": partial(sp.chordal_order, a),
            "gram": partial(gram_upper, ptr, idx, np.ones(args.nodes), np.ones(idx.size)),
            "draw": lambda draw=draw: draw(rng=np.random.default_rng(0)),
        }
        for stage in args.stages:
            row[stage] = _median_time(stages[stage], args.rounds)
        ratios = [row.get(s, float("nan")) / row["blas"] for s in ("order", "gram")]
        cells = [f"{c:>10,}"] + [f"{row[h]:>10.3f}" for h in ["blas", *args.stages]]
        print(" | ".join(cells + [f"{r:>10.1f}" for r in ratios]), flush=True)


if __name__ == "__main__":
    main()
