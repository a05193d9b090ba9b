"""Benchmark: the exact default G-Wishart sampler (``algorithm="auto"``) against R's rgwish.

R is not installable on every machine (CRAN may be unreachable); R BDgraph's
``rgwish`` was measured side by side with spdgraph in issue 36 (100 draws,
b = 3, D = I): band of width 2 at p = 50: R 2.1 s, i.e. 2.5x spdgraph's
``algorithm="lenkoski"``; 30-cycle: R = 11x spdgraph's lenkoski. This script
times ``lenkoski`` in the same run and reports R's time as that ratio times
it ("R est."), and the absolute 2.1 s. Targets (issue 36): auto >= 20x R on
the band, >= 1x R on the 30-cycle.

Then the table: draws per second, the sampler ``auto`` picks and its
acceptance, for p in {10, 30, 100} on band (width 2), cycle, grid and
random (Erdos-Renyi, mean degree 3) graphs; each row's plan (order,
acceptance pilot, MCMC pilot) is built before the clock starts and timed
separately ("plan s").

    python benchmarks/bench_gwishart_exact.py [--draws 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import networkx as nx
import numpy as np
from spdgraph_gwishart import plan

import spdgraph

#: R / spdgraph-lenkoski time ratios measured in issue 36 (same run, BDgraph 2.72).
R_OVER_LENKOSKI = {"band p=50": 2.1 / 0.84, "cycle p=30": 11.0}
R_BAND_SECONDS = 2.1


def band(p: int, width: int = 2) -> nx.Graph:
    g = nx.empty_graph(p)
    g.add_edges_from((i, j) for i in range(p) for j in range(i + 1, min(p, i + width + 1)))
    return g


def grid(p: int) -> nx.Graph:
    rows = int(np.floor(np.sqrt(p)))
    while p % rows:
        rows -= 1
    return nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, p // rows))


def random_graph(p: int) -> nx.Graph:
    for seed in range(100):
        g = nx.gnp_random_graph(p, 3.0 / (p - 1), seed=seed)
        if not nx.is_chordal(g):
            return g
    raise RuntimeError("no non-chordal random graph")  # pragma: no cover


def seconds(g: nx.Graph, n: int, repeats: int, **options: object) -> float:
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(repeats):
            start = time.perf_counter()
            spdgraph.sample(g, "gwishart", size=n, seed=seed, kind="precision",
                            normalize=False, **options)  # fmt: skip
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    seconds(nx.cycle_graph(5), 2, 1)  # compile
    seconds(nx.cycle_graph(5), 2, 1, algorithm="lenkoski")
    print(f"R rgwish vs default, {args.draws} draws, b = 3, D = I (median of {args.repeats})")
    print(f"{'graph':<12} {'auto s':>8} {'lenkoski s':>11} {'R est. s':>9} "
          f"{'auto/R':>8} {'vs R 2.1 s':>11} target")  # fmt: skip
    for name, g, target in (
        ("band p=50", band(50), 20.0),
        ("cycle p=30", nx.cycle_graph(30), 1.0),
    ):
        plan(g)
        auto = seconds(g, args.draws, args.repeats)
        lenk = seconds(g, args.draws, args.repeats, algorithm="lenkoski")
        r_est = R_OVER_LENKOSKI[name] * lenk
        absolute = f"{R_BAND_SECONDS / auto:>10.1f}x" if name.startswith("band") else " " * 11
        ok = "met" if r_est / auto >= target else "MISSED"
        print(f"{name:<12} {auto:>8.3f} {lenk:>11.3f} {r_est:>9.3f} {r_est / auto:>7.1f}x "
              f"{absolute} >= {target:g}x {ok}", flush=True)  # fmt: skip
    print()
    print(f"default sampler, {args.draws} draws (draws/s; plan built first, timed apart)")
    print(f"{'family':<8} {'p':>4} {'edges':>6} {'sampler':>8} {'fill':>5} "
          f"{'accept':>9} {'burn-in':>8} {'plan s':>7} {'draws/s':>9}")  # fmt: skip
    families = {"band": band, "cycle": nx.cycle_graph, "grid": grid, "random": random_graph}
    for fam, make in families.items():
        for p in (10, 30, 100):
            g = make(p)
            start = time.perf_counter()
            c = plan(g)
            plan_s = time.perf_counter() - start
            n = args.draws if c.algorithm != "mcmc" else max(2, args.draws // 20)
            rate = n / seconds(g, n, 1)
            burn = "" if c.burn_in is None else str(c.burn_in)
            print(f"{fam:<8} {p:>4} {g.number_of_edges():>6} {c.algorithm:>8} {c.n_fill:>5} "
                  f"{c.acceptance:>9.3g} {burn:>8} {plan_s:>7.2f} {rate:>9.1f}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
