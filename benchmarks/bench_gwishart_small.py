"""Benchmark: exact G-Wishart's fixed cost on small graphs against R's one-thread rgwish.

100 draws of W_G(3, I) on K_{2,3}, the wheel W5, the 10-cycle and the Petersen
graph (10 nodes), medians of ``--repeats`` calls, all in the same run:

* ``fresh``: spdgraph with its plan caches cleared before each call (the
  minimum fill-in order and the acceptance pilot are paid every time, as in
  a new process);
* ``warm``: the plan reused for the same (G, b, D) (cached by content within
  a process: the second and later calls);
* ``R``: BDgraph's ``rgwish(n = 100, adj, b = 3, D = I)`` timed by
  ``system.time`` in one ``Rscript`` process run with
  ``OPENBLAS_NUM_THREADS=1`` (R's default BLAS threads make it 10-50x slower
  on a shared machine). Note that ``rgwish`` is Lenkoski's sampler: not
  exact jointly off complete graphs, unlike spdgraph's default.

Target (issue 47): fresh / R < 2 on the 10-node graphs.

    python benchmarks/bench_gwishart_small.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import warnings

import networkx as nx
import numpy as np

import spdgraph

DRAWS = 100

R_SCRIPT = r"""
suppressMessages(library(BDgraph))
args <- commandArgs(trailingOnly = TRUE)
reps <- as.integer(args[1])
files <- args[-1]
for (f in files) {
  g <- as.matrix(read.table(f))
  dimnames(g) <- NULL
  invisible(rgwish(n = 100, adj = g, b = 3, D = diag(nrow(g))))
  t <- sapply(1:reps, function(i)
    system.time(rgwish(n = 100, adj = g, b = 3, D = diag(nrow(g))))[["elapsed"]])
  cat(basename(f), median(t), "\n")
}
"""


def graphs() -> dict[str, nx.Graph]:
    return {
        "K2,3": nx.complete_bipartite_graph(2, 3),
        "W5": nx.wheel_graph(6),
        "cycle10": nx.cycle_graph(10),
        "Petersen": nx.petersen_graph(),
    }


def clear_plans() -> None:
    from spdgraph_gwishart import choice, exact, mcmc

    exact._cached_plan.cache_clear()
    mcmc._cached.cache_clear()
    choice._decomposable.cache_clear()


def spdgraph_seconds(g: nx.Graph, repeats: int, fresh: bool) -> float:
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(repeats):
            if fresh:
                clear_plans()
            start = time.perf_counter()
            spdgraph.sample(g, "gwishart", size=DRAWS, seed=seed, kind="precision",
                            normalize=False)  # fmt: skip
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def r_seconds(named: dict[str, nx.Graph], repeats: int) -> dict[str, float]:
    if shutil.which("Rscript") is None:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, g in enumerate(named.values()):
            path = os.path.join(tmp, f"g{i}")
            np.savetxt(path, nx.to_numpy_array(g, dtype=int), fmt="%d")
            files.append(path)
        script = os.path.join(tmp, "bench.R")
        with open(script, "w") as fh:
            fh.write(R_SCRIPT)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        out = subprocess.run(
            ["Rscript", script, str(repeats), *files],
            env=env, capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip
    if out.returncode != 0:
        print("R failed:", out.stderr.strip().splitlines()[-1:])
        return {}
    by_file = {line.split()[0]: float(line.split()[1]) for line in out.stdout.splitlines()}
    return {name: by_file[f"g{i}"] for i, name in enumerate(named) if f"g{i}" in by_file}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    named = graphs()
    spdgraph_seconds(nx.cycle_graph(5), 1, fresh=True)  # compile
    rows = []
    for name, g in named.items():
        rows.append(
            (
                name,
                g.number_of_nodes(),
                spdgraph_seconds(g, args.repeats, fresh=True),
                spdgraph_seconds(g, args.repeats, fresh=False),
            )
        )
    r = r_seconds(named, args.repeats)
    print(f"{DRAWS} draws of W_G(3, I), median of {args.repeats} (ms); R: rgwish, one thread")
    print(f"{'graph':<10} {'p':>3} {'fresh':>8} {'warm':>8} {'R':>8} {'fresh/R':>8} {'warm/R':>8}")
    for name, p, fresh, warm in rows:
        rt = r.get(name)
        r_text = f"{rt * 1e3:8.1f}" if rt else f"{'-':>8}"
        ratios = f"{fresh / rt:8.2f} {warm / rt:8.2f}" if rt else f"{'-':>8} {'-':>8}"
        print(f"{name:<10} {p:>3} {fresh * 1e3:8.1f} {warm * 1e3:8.1f} {r_text} {ratios}")


if __name__ == "__main__":
    main()
