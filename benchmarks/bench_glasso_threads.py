"""Benchmark: ``select_glasso`` called directly against through ``score()``, same run.

Issue 47: called directly, ``spdgraph.validation.select_glasso`` used to run
with the process's BLAS threads (two on the project's machine) and took
63-123 s at p = 100, n = 2000, against 5 s through ``score()``, which held
BLAS at one thread. Both now run inside ``spdgraph._threads.thread_budget``.
This script times, in one run and alternating, for each criterion:

* ``direct``: ``select_glasso(standardize(x), criterion=..., seed=...)``;
* ``score``: ``score(x, truth, "glasso", criterion=..., seed=...)`` (the same
  fit plus standardization and scoring);
* with ``--user-blas``, also ``direct, BLAS as set``:
  ``select_glasso(..., blas_threads=None)`` (the former behaviour; slow on a
  busy machine, so off by default).

It prints medians over ``--repeats`` and the ratio to the ``score`` route.
The truth: a PO precision (``kind="precision"``) on ``erdos_renyi(p, 3/(p-1))``
seeded 47_100; data seeded 47_101.

    python benchmarks/bench_glasso_threads.py [--p 100] [--n 2000] [--repeats 3]
        [--criteria stars ebic] [--user-blas]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=100)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--criteria", nargs="+", default=["stars", "ebic"])
    parser.add_argument("--user-blas", action="store_true", help="also time blas_threads=None")
    args = parser.parse_args()

    import numba
    from threadpoolctl import threadpool_info

    import spdgraph
    from spdgraph._threads import available_cores
    from spdgraph.graphs import erdos_renyi
    from spdgraph.validation import draw_gaussian, score, select_glasso, standardize

    g = erdos_renyi(args.p, min(1.0, 3.0 / (args.p - 1)), seed=47_100)
    prec = spdgraph.sample(g, "po", seed=47_100, kind="precision")
    x = draw_gaussian(prec.values, args.n, seed=47_101)
    blas = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    print(
        f"p = {args.p}, n = {args.n}, repeats = {args.repeats}; cores {available_cores()}, "
        f"numba threads {numba.get_num_threads()}, BLAS threads as set {blas}"
    )
    routes = {
        "direct": lambda c: select_glasso(standardize(x), criterion=c, seed=0).fit.n_edges,
        "score": lambda c: score(x, prec, "glasso", criterion=c, seed=0).n_selected,
    }
    if args.user_blas:
        routes["direct, BLAS as set"] = lambda c: (
            select_glasso(standardize(x), criterion=c, seed=0, blas_threads=None).fit.n_edges
        )
    select_glasso(standardize(x[:200, :10]), criterion="ebic")  # warm up imports
    print("\n| criterion | route | median s | ratio to score | edges |\n|---|---|---|---|---|")
    for criterion in args.criteria:
        times: dict[str, list[float]] = {name: [] for name in routes}
        edges: dict[str, int] = {}
        for _ in range(args.repeats):
            for name, run in routes.items():
                t0 = time.perf_counter()
                edges[name] = int(run(criterion))
                times[name].append(time.perf_counter() - t0)
        base = statistics.median(times["score"])
        for name in routes:
            med = statistics.median(times[name])
            print(f"| {criterion} | {name} | {med:.2f} | {med / base:.2f} | {edges[name]} |")


if __name__ == "__main__":
    main()
