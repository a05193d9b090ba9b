"""Cells per second of a 200-cell study: in-process, local processes, a dask LocalCluster.

Run: ``python benchmarks/bench_study.py [--repeat 3] [--workers 2]``.

The study: 10 graph families x 20 sample sizes (p = 10, one repeat, the
``shrink`` learner), 200 cells, each a few ms of work, so the numbers are
dominated by what the runner adds. The baseline is a bare loop of
``compute_cell`` over the cells in this process (no storage, no tables, no
plots); "overhead per cell" is ``(run time - baseline) / 200``. Every row
checks that its table is bit-for-bit the in-process one. Times are medians of
``--repeat`` runs taken round robin, so that a change in the machine's load
hits every row alike.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings

import pandas as pd

from spdgraph.study import compute_cell, load_study, run

FAMILIES = ["random", "hub", "cluster", "band", "scale-free", "smallworld", "circle", "star",
            "lattice", "AR(1)"]  # fmt: skip
SPEC = {
    "name": "bench",
    "seed": 1,
    "grid": {"family": FAMILIES, "p": [10], "n": list(range(40, 240, 10))},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["tpr", "tdr", "f1"], "curves": True},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    study = load_study(SPEC)
    cells = study.cells()
    assert len(cells) == 200

    def baseline() -> None:
        for c in cells:
            compute_cell(study, c)

    small = load_study({**SPEC, "grid": {**SPEC["grid"], "family": ["hub"], "n": [40, 50]}})

    def runner(which=study, **kw):
        def go():
            return run(which, tempfile.mkdtemp(), plots=False, progress=False, **kw).table

        return go

    w = args.workers
    setups = {
        "in process (workers=1)": {"workers": 1},
        f"{w} local processes": {"workers": w},
        "LocalCluster 1 worker": {"workers": 1, "scheduler": "local"},
        f"LocalCluster {w} workers": {"workers": w, "scheduler": "local"},
    }
    rows = [("bare compute_cell loop (baseline)", baseline)]
    for name, kw in setups.items():
        rows.append((name, runner(**kw)))
        rows.append((f"{name}, 2 cells", runner(small, **kw)))  # the fixed start-up cost
    baseline()  # compile and import everything once
    reference = runner(workers=1)()
    times: dict[str, list[float]] = {name: [] for name, _ in rows}
    for _ in range(args.repeat):
        for name, f in rows:
            t0 = time.perf_counter()
            out = f()
            times[name].append(time.perf_counter() - t0)
            if isinstance(out, pd.DataFrame) and len(out) == len(reference):
                pd.testing.assert_frame_equal(out, reference)  # same bits everywhere
    base = statistics.median(times[rows[0][0]])
    print(f"200 cells (10 families x 20 n, p = 10, shrink), median of {args.repeat} runs")
    print("start-up: a 2-cell study's time less 2 baseline cells; per cell: the rest / 200")
    head = f"{'runner':34s} {'seconds':>8s} {'cells/s':>8s} {'x base':>7s}"
    print(f"{head} {'start-up s':>10s} {'ms/cell over':>13s}")
    print(f"{rows[0][0]:34s} {base:8.2f} {200 / base:8.1f} {1:7.2f} {'':>10s} {'':>13s}")
    for name in setups:
        t = statistics.median(times[name])
        start = statistics.median(times[f"{name}, 2 cells"]) - base / 100
        over = (t - start - base) / 200 * 1e3
        print(f"{name:34s} {t:8.2f} {200 / t:8.1f} {t / base:7.2f} {start:10.2f} {over:13.1f}")


if __name__ == "__main__":
    main()
