"""Benchmark: exact G-Wishart's per-call cost on small graphs against R's one-thread rgwish.

100 draws of W_G(3, I) on K_{2,3}, the wheel W5, the 10-cycle and the Petersen
graph (10 nodes), interleaved with R in the same run:

* ``warm``: ``spdgraph.sample(g, "gwishart", size=100, kind="precision",
  normalize=False)`` with the plan reused for the same (G, b, D) (cached by
  content within a process: a sampler inside a loop; a new graph object with
  the same adjacency hits the same plan at the same cost);
* ``fresh``: the same with every plan cache of the plugin cleared before each
  call, a truly cold plan (the minimum fill-in order, the row laws and the
  acceptance pilot paid every time, as in a new process after import);
* ``R``: BDgraph's ``rgwish(n = 100, adj, b = 3, D = I)`` in one ``Rscript``
  process kept open for the whole run, with ``OPENBLAS_NUM_THREADS=1``
  (R's default BLAS threads make it 10-50x slower on a shared machine).
  ``rgwish`` is Lenkoski's sampler: not exact jointly off complete graphs,
  unlike spdgraph's default.

Every measurement is the wall time of ``--calls`` calls in a row divided by
``--calls`` (R: ``proc.time()`` around the loop, so its clock, which reads
milliseconds, is resolved); the rounds run graph by graph, spdgraph then R,
and the table gives the medians over ``--rounds`` rounds and the machine's
load (``os.getloadavg``) before and after. ``--busy`` runs a process spinning
on one core beside the benchmark for its whole duration (and ends it).
Target (issue 54): warm / R and fresh / R <= 1 on every graph, loaded or not.

    python benchmarks/bench_gwishart_small.py [--rounds 7] [--calls 100] [--busy]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import networkx as nx
import numpy as np

import spdgraph

DRAWS = 100

R_SERVER = r"""
suppressMessages(library(BDgraph))
con <- file("stdin")
open(con)
graphs <- list()
for (f in commandArgs(trailingOnly = TRUE)) {
  g <- as.matrix(read.table(f))
  dimnames(g) <- NULL
  graphs[[basename(f)]] <- g
  invisible(rgwish(n = 100, adj = g, b = 3, D = diag(nrow(g))))
}
cat("ready\n")
while (length(line <- readLines(con, n = 1)) > 0) {
  words <- strsplit(line, " ")[[1]]
  g <- graphs[[words[1]]]
  calls <- as.integer(words[2])
  d <- diag(nrow(g))
  start <- proc.time()[["elapsed"]]
  for (i in seq_len(calls)) rgwish(n = 100, adj = g, b = 3, D = d)
  cat((proc.time()[["elapsed"]] - start) / calls, "\n")
  flush(stdout())
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


def spdgraph_seconds(g: nx.Graph, calls: int, fresh: bool) -> float:
    """Wall seconds of one call of 100 draws: the mean of ``calls`` calls in a row."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = 0.0
        for seed in range(calls):
            if fresh:
                clear_plans()
            start = time.perf_counter()
            spdgraph.sample(g, "gwishart", size=DRAWS, seed=seed, kind="precision",
                            normalize=False)  # fmt: skip
            total += time.perf_counter() - start
    return total / calls


class RServer:
    """One Rscript process holding the graphs; ``seconds(i, calls)`` times ``calls`` calls."""

    def __init__(self, named: dict[str, nx.Graph], tmp: str) -> None:
        files = []
        for i, g in enumerate(named.values()):
            path = os.path.join(tmp, f"g{i}")
            np.savetxt(path, nx.to_numpy_array(g, dtype=int), fmt="%d")
            files.append(path)
        script = os.path.join(tmp, "server.R")
        with open(script, "w") as fh:
            fh.write(R_SERVER)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen(
            ["Rscript", script, *files], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("Rscript with BDgraph did not start")

    def seconds(self, index: int, calls: int) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"g{index} {calls}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


@contextmanager
def busy_neighbour(on: bool) -> Iterator[None]:
    """A process spinning on one core beside the benchmark (if ``on``), ended after."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def measure(named: dict[str, nx.Graph], rounds: int, calls: int) -> dict[str, dict[str, list]]:
    times: dict[str, dict[str, list]] = {n: {"warm": [], "fresh": [], "R": []} for n in named}
    with tempfile.TemporaryDirectory() as tmp:
        r = RServer(named, tmp) if shutil.which("Rscript") else None
        try:
            for _ in range(rounds):
                for i, (name, g) in enumerate(named.items()):
                    times[name]["warm"].append(spdgraph_seconds(g, calls, fresh=False))
                    if r is not None:
                        times[name]["R"].append(r.seconds(i, calls))
                    times[name]["fresh"].append(spdgraph_seconds(g, max(calls // 10, 3), True))
        finally:
            if r is not None:
                r.close()
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--busy", action="store_true", help="a busy process beside the run")
    args = parser.parse_args(argv)
    named = graphs()
    for g in named.values():  # compile, and the warm plans
        spdgraph_seconds(g, 1, fresh=False)
    with busy_neighbour(args.busy):
        load_before = os.getloadavg()
        times = measure(named, args.rounds, args.calls)
        load_after = os.getloadavg()
    print(
        f"{DRAWS} draws of W_G(3, I) per call; ms per call, median of {args.rounds} rounds of "
        f"{args.calls} calls (fresh: {max(args.calls // 10, 3)}); R: rgwish, one thread"
        f"{'; a busy process beside the run' if args.busy else ''}"
    )
    print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} "
          f"{load_before[2]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f} "
          f"{load_after[2]:.2f}; {os.cpu_count()} cores")  # fmt: skip
    print(f"{'graph':<10} {'p':>3} {'warm':>8} {'fresh':>8} {'R':>8} {'warm/R':>8} {'fresh/R':>8}")
    for name, g in named.items():
        warm, fresh = (statistics.median(times[name][k]) for k in ("warm", "fresh"))
        rt = statistics.median(times[name]["R"]) if times[name]["R"] else None
        r_text = f"{rt * 1e3:8.2f}" if rt else f"{'-':>8}"
        ratios = f"{warm / rt:8.2f} {fresh / rt:8.2f}" if rt else f"{'-':>8} {'-':>8}"
        print(f"{name:<10} {g.number_of_nodes():>3} {warm * 1e3:8.2f} {fresh * 1e3:8.2f} "
              f"{r_text} {ratios}")  # fmt: skip


if __name__ == "__main__":
    main()
