"""Sparse studies at scale (issue 56, item 6): spdgraph's own time and peak memory per cell.

A study with ``sparse = true``: families band and random (Erdős–Rényi, huge's
default density 3/p), p = 10**4 and 10**5, n = 200, two repeats, the built-in
neighbourhood selection learner ``mb`` and, at p <= ``--r-max-p`` (10**4) when
R is installed, R's ``huge(method = "mb")`` returning a ``Matrix`` sparse
matrix. Each cell (a family and a p, with its repeats) runs as a study of its own in
a fresh child process (``workers=1``: the cell, the tables and the report in that
process), so that its peak resident memory (``ru_maxrss``) is its own (the numba
kernels compiled first on a small simulation, as ``bench_large.py`` does): the R
process is not counted (it is the learner's), the Python learner ``mb`` is.

Per cell the table gives spdgraph's own seconds, from the cell's stored
``timings`` (``spdgraph.study``'s phases, summed over the repeats): ``truth``
and ``data`` (the study's ``simulate`` seconds split by the share of the truth
alone, ``simulate(..., n=0)``, in a warm simulation of the cell timed after the
run), ``files`` (the ``.npy`` the learners read, memory-mapped), ``scoring``
(edge sets, O(edges)) and ``report`` (the run's wall time less the cell's
phases and fits: checking the study and R, storing the cell, the tables, the
plots, ``report.html``);
``own`` is their sum (target at p = 10**5: under 30 s), ``fits`` the
learners' time (not spdgraph's), ``peak`` the child's peak resident memory
(target at p = 10**5: under 2 GB; it includes ``mb``'s working memory).

``mb`` at p = 10**4 takes minutes per fit on one core and at p = 10**5 hours
(its lasso paths are O(n p**2)): ``--learners null`` replaces it with a learner
that returns a fixed sparse selection at once (the path graph), which measures
spdgraph's own work alone at any p.

Usage::

    python benchmarks/bench_large_study.py                      # the issue's run (hours: mb)
    python benchmarks/bench_large_study.py --p 1000 --learners mb null   # a quick check
    python benchmarks/bench_large_study.py --p 100000 --learners null    # spdgraph at 10**5
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np
from scipy import sparse
import spdgraph, spdgraph.study

args = json.loads(sys.argv[1])

def null(x):
    '''A learner returning the path graph 0-1-...-(p-1) at once: spdgraph's work alone.'''
    p = x.shape[1]
    return sparse.csr_array(sparse.diags_array([np.ones(p - 1)], offsets=[1], shape=(p, p)))

learners = []
for name in args["learners"]:
    learners.append({"name": "null", "function": null} if name == "null" else {"name": name})
if args["r"]:
    learners.append({"name": "huge-mb", "packages": ["huge", "Matrix"], "r": (
        "fit <- huge(x, method = 'mb', verbose = FALSE); "
        "huge.select(fit, criterion = 'ric', verbose = FALSE)$refit")})
spec = {"name": "large", "seed": 56, "repeats": args["repeats"], "sparse": True,
        "grid": {"family": [args["family"]], "p": [args["p"]], "n": [args["n"]],
                 "method": ["dd"]},
        "learners": learners}
if args["degree"] is not None and args["family"] == "random":
    spec["families"] = {"random": {"prob": args["degree"] / args["p"]}}
spdgraph.simulate(args["family"], 10, p=50, method="dd", sparse=True, seed=0)  # compiled
start = time.perf_counter()
result = spdgraph.study.run(spec, args["out"], workers=1, plots=args["plots"], progress=False)
total = time.perf_counter() - start
(cell,) = Path(args["out"], "cells").glob("*.json")
timings = json.loads(cell.read_text())["timings"]
seconds = []
for n in (0, args["n"]):  # warm: the share of the truth in a simulation of the cell
    start = time.perf_counter()
    spdgraph.simulate(args["family"], n, p=args["p"], method="dd", sparse=True, seed=1,
                      **spec.get("families", {}).get(args["family"], {}))
    seconds.append(time.perf_counter() - start)
truth = seconds[0] / max(seconds[1], seconds[0])
status = sorted(set(result.table["status"]))
print(json.dumps({"total": total, "timings": timings, "truth": truth, "status": status,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def run_cell(family: str, p: int, options: argparse.Namespace) -> dict:
    """One cell as a study in a fresh child process: its timings and peak memory."""
    out = tempfile.mkdtemp(prefix="bench-large-study-")
    try:
        args = {
            "family": family,
            "p": p,
            "n": options.n,
            "repeats": options.repeats,
            "learners": options.learners,
            "r": bool(shutil.which("Rscript")) and p <= options.r_max_p and not options.no_r,
            "plots": not options.no_plots,
            "degree": options.random_degree,
            "out": out,
        }
        done = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(args)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:  # the reason's last line, e.g. a factor refused for its fill
            reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "?"
            return {"failed": reason[:400]}
        return {**json.loads(done.stdout.strip().splitlines()[-1]), "r": args["r"]}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def row(family: str, p: int, got: dict, repeats: int) -> dict:
    """The table's row of a cell (seconds summed over its repeats)."""
    t = got["timings"]
    truth = got["truth"] * t.get("simulate", 0.0)
    phases = sum(t.get(k, 0.0) for k in ("simulate", "files", "fits", "scoring"))
    report = max(0.0, got["total"] - phases)
    own = t.get("simulate", 0.0) + t.get("files", 0.0) + t.get("scoring", 0.0) + report
    return {
        "family": family,
        "p": p,
        "truth": truth,
        "data": t.get("simulate", 0.0) - truth,
        "files": t.get("files", 0.0),
        "scoring": t.get("scoring", 0.0),
        "report": report,
        "own": own,
        "fits": t.get("fits", 0.0),
        "peak_gb": got["peak"] / 2**30,
        "status": ",".join(got["status"]) + (" +R" if got["r"] else ""),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, nargs="+", default=[10**4, 10**5])
    parser.add_argument("--families", nargs="+", default=["band", "random"])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--learners", nargs="+", default=["mb"], help="mb, null, a built-in")
    parser.add_argument("--r-max-p", type=int, default=10**4, help="R huge mb up to this p")
    parser.add_argument("--no-r", action="store_true", help="leave R's huge mb out")
    parser.add_argument(
        "--random-degree",
        type=float,
        default=None,
        help="mean degree of the random family (default: huge's density 3/p)",
    )
    parser.add_argument("--no-plots", action="store_true", help="the report without plots")
    options = parser.parse_args()
    with open("/proc/loadavg") as handle:
        load = handle.read().split()[:3]
    print(f"load average before: {' '.join(load)}; n = {options.n}, repeats = {options.repeats}")
    head = "family      p  truth s  data s files s  score s report s   own s  fits s  peak GB"
    print(head + "  status")
    if options.random_degree is not None:
        print(f"random: mean degree {options.random_degree:g}")
    for p in options.p:
        for family in options.families:
            got = run_cell(family, p, options)
            if "failed" in got:
                print(f"{family:<8}{p:>7}  failed: {got['failed']}", flush=True)
                continue
            r = row(family, p, got, options.repeats)
            target = "" if p < 10**5 else (
                "  (target own < 30 s: " + ("met" if r["own"] < 30 else "missed")
                + ", peak < 2 GB: " + ("met" if r["peak_gb"] < 2 else "missed") + ")"
            )  # fmt: skip
            print(
                f"{family:<8}{p:>7} {r['truth']:>8.2f} {r['data']:>7.2f} {r['files']:>7.2f} "
                f"{r['scoring']:>8.2f} {r['report']:>8.2f} {r['own']:>7.2f} {r['fits']:>7.1f} "
                f"{r['peak_gb']:>8.2f}  {r['status']}{target}",
                flush=True,
            )


if __name__ == "__main__":
    main()
