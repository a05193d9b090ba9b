"""Benchmark: neighbourhood selection (the ``"mb"`` learner) against R ``huge(method = "mb")``.

For each ``--p``: a band graph (bandwidth 2), a diagonally dominant precision
(``simulate("band", sparse=True, method="dd")``) and ``--n`` observations
saved as ``.npy``; then, each in a fresh process, median over ``--repeats``:

* ``py path``: :func:`spdgraph.validation._mb.mb_path` on huge's grid
  (``--nlambda`` penalties down to 0.1 of the largest), the data read from
  the memory-mapped ``.npy`` (one BLAS thread);
* ``py learner``: the whole learner, ``neighbourhood_selection(x,
  nlambda=...)`` (path, huge's RIC penalty over 20 rotations, the fit there);
* ``R path`` / ``R ric``: ``huge(x, method = "mb", nlambda = ...)`` and then
  ``huge.select(fit, criterion = "ric")`` (huge's own clock, ``system.time``;
  R reads the same numbers from a raw float64 file), one BLAS/OpenMP thread.

Peak memory is each process's own peak resident set (``ru_maxrss``; R's
``VmHWM``), data included. ``ratio`` is ``py path / R path`` (below 1: spdgraph
faster). ``edges`` is the OR graph's size at the smallest penalty (spdgraph /
R). R columns are empty without ``Rscript`` or the huge package.

    python benchmarks/bench_mb.py [--p 1000 10000] [--n 200] [--nlambda 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import spdgraph

PY_CHILD = """
import json, resource, sys, time
import numpy as np
from spdgraph.validation import neighbourhood_selection
from spdgraph.validation._mb import mb_path, mb_penalties, standardize_columns
path, nlambda, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
x = np.load(path, mmap_mode="r")
t0 = time.perf_counter()
if what == "path":
    xs = standardize_columns(x)
    graphs = mb_path(xs, mb_penalties(xs, nlambda, 0.1), "or")
    edges = int(graphs[-1].nnz // 2)
else:
    edges = int(neighbourhood_selection(x, nlambda=nlambda, seed=0).selected.nnz // 2)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "edges": edges}))
"""

R_CHILD = """
suppressMessages(library(huge))
args <- commandArgs(trailingOnly = TRUE)
n <- as.integer(args[2]); p <- as.integer(args[3]); nlambda <- as.integer(args[4])
x <- matrix(readBin(args[1], "double", n * p), n, p, byrow = TRUE)
t_path <- system.time(
  fit <- huge(x, method = "mb", nlambda = nlambda, verbose = FALSE))[["elapsed"]]
t_ric <- system.time(sel <- huge.select(fit, criterion = "ric", verbose = FALSE))[["elapsed"]]
edges <- sum(fit$path[[nlambda]]) / 2
hwm <- grep("VmHWM", readLines("/proc/self/status"), value = TRUE)
peak <- as.numeric(gsub("[^0-9]", "", hwm)) / 1024
cat(sprintf('{"path": %.6f, "ric": %.6f, "peak_mb": %.1f, "edges": %d}\\n',
            t_path, t_ric, peak, as.integer(edges)))
"""


def _one_thread_env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def _python(npy: Path, nlambda: int, what: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PY_CHILD, str(npy), str(nlambda), what],
        check=True, capture_output=True, text=True, env=_one_thread_env(),
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _has_huge() -> bool:
    if shutil.which("Rscript") is None:
        return False
    probe = "quit(status = !requireNamespace('huge', quietly = TRUE))"
    return subprocess.run(["Rscript", "-e", probe], capture_output=True).returncode == 0


def _r(raw: Path, n: int, p: int, nlambda: int) -> dict:
    out = subprocess.run(
        ["Rscript", "-e", R_CHILD, str(raw), str(n), str(p), str(nlambda)],
        check=True, capture_output=True, text=True, env=_one_thread_env(),
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(runs: list[dict], key: str) -> float:
    return float(np.median([r[key] for r in runs]))


def _row(p: int, n: int, nlambda: int, repeats: int, folder: Path, with_r: bool) -> str:
    sim = spdgraph.simulate("band", p=p, n=n, seed=0, sparse=True, method="dd")
    x = np.ascontiguousarray(np.asarray(sim.data, dtype=float))
    npy, raw = folder / f"x{p}.npy", folder / f"x{p}.bin"
    np.save(npy, x)
    x.tofile(raw)
    path = [_python(npy, nlambda, "path") for _ in range(repeats)]
    learner = [_python(npy, nlambda, "learner") for _ in range(repeats)]
    cells = [
        f"{p:>6} {n:>4} {nlambda:>3}",
        f"{_median(path, 'seconds'):>9.2f} {_median(learner, 'seconds'):>10.2f}",
        f"{max(r['peak_mb'] for r in path + learner):>8.0f}",
    ]
    if with_r:
        rr = [_r(raw, n, p, nlambda) for _ in range(repeats)]
        ratio = _median(path, "seconds") / _median(rr, "path")
        cells.append(
            f"{_median(rr, 'path'):>8.2f} {_median(rr, 'ric'):>7.2f} "
            f"{max(r['peak_mb'] for r in rr):>8.0f} {ratio:>6.2f}"
        )
        cells.append(f"{path[0]['edges']:>7}/{rr[0]['edges']}")
    else:
        cells.append(f"{'':>8} {'':>7} {'':>8} {'':>6} {path[0]['edges']:>7}/-")
    return " ".join(cells)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--nlambda", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with_r = _has_huge()
    print(
        f"band(p, 2), dd precision, medians of {args.repeats} runs, seconds; peak MB per process"
    )
    print(
        f"{'p':>6} {'n':>4} {'K':>3} {'py path':>9} {'py learner':>10} {'py peak':>8} "
        f"{'R path':>8} {'R ric':>7} {'R peak':>8} {'ratio':>6} {'edges py/R':>12}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for p in args.p:
            print(_row(p, args.n, args.nlambda, args.repeats, Path(tmp), with_r), flush=True)


if __name__ == "__main__":
    main()
