"""Cost of data beyond the Gaussian: copula marginals, discretization, missing values, CSV.

Run: ``python benchmarks/bench_marginals.py [--p 100] [--n-obs 2000] [--size 10] [--repeat 5]``.
Prints median seconds and the ratio to plain Gaussian ``draw`` (the baseline)
measured in the same run, round robin so that machine load hits every task alike.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from scipy import stats

import spdgraph
from spdgraph.graphs import erdos_renyi
from spdgraph.io import save_csv
from spdgraph.marginals import Ordinal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--p", type=int, default=100)
    parser.add_argument("--n-obs", type=int, default=2000)
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    prec = spdgraph.sample(
        erdos_renyi(args.p, 0.1, seed=1), size=args.size, seed=1, kind="precision"
    )
    n = args.n_obs
    mixed = [stats.t(5), stats.poisson(3), "binary", Ordinal(n_categories=4)] * (args.p // 4)
    mixed += ["gaussian"] * (args.p - len(mixed))
    folder = Path(tempfile.mkdtemp())
    data = prec.spd.draw(n, seed=2)
    tasks = [
        ("gaussian draw (baseline)", lambda: prec.spd.draw(n, seed=2)),
        ("copula t(5)", lambda: prec.spd.draw(n, seed=2, marginals=stats.t(5))),
        ("copula lognorm(1)", lambda: prec.spd.draw(n, seed=2, marginals=stats.lognorm(1))),
        ("poisson(3) counts", lambda: prec.spd.draw(n, seed=2, marginals=stats.poisson(3))),
        (
            "ordinal, 4 categories",
            lambda: prec.spd.draw(n, seed=2, marginals=Ordinal(n_categories=4)),
        ),
        ("mixed (t, pois, bin, ord)", lambda: prec.spd.draw(n, seed=2, marginals=mixed)),
        ("gaussian + 10% missing", lambda: prec.spd.draw(n, seed=2, missing=0.1)),
        ("save_csv of the data", lambda: save_csv(data, folder / "data")),
        ("save .nc of the data", lambda: spdgraph.save(data, folder / "data.nc")),
    ]
    for _, run in tasks:  # warm-up
        run()
    times: dict[str, list[float]] = {name: [] for name, _ in tasks}
    for _ in range(args.repeat):
        for name, run in tasks:
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    shutil.rmtree(folder)
    rows = [(name, statistics.median(values)) for name, values in times.items()]
    baseline = rows[0][1]
    print(
        f"{args.size} precision matrices, p={args.p}, {n} observations each, "
        f"median of {args.repeat}"
    )
    print(f"{'task':<28}{'seconds':>10}{'ratio':>8}")
    for name, seconds in rows:
        print(f"{name:<28}{seconds:>10.3f}{seconds / baseline:>8.2f}")


if __name__ == "__main__":
    main()
