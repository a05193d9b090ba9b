"""The targets of issue 13 (PO kernel v2) in one table, ratios measured in the same run.

    python benchmarks/bench_po_targets.py [--repeats 3] [--skip-big] [--rows-baseline]
        [--sections 1,2,3,4]

1. p = 1000, the paper's densities: median time of one ``spdgraph.sample``
   (``normalize=False``) against one ``Q @ Q.T`` with BLAS's default threads,
   measured in the same run (target: at most 30x).
2. Large sparse graphs, one covariance matrix per call, each in a fresh
   process (so the peak resident memory is the call's): p = 5000 with
   d = 0.001 (target under 15 s) and p = 10,000 with mean degree 5 (target
   under 120 s and 3 GB). Each runs with ``NUMBA_NUM_THREADS=1`` and ``=2``
   and the SHA-256 of the result's bytes is printed: equal hashes prove the
   bits do not depend on the thread count; ``cpu`` is the process CPU time
   (on a busy machine the wall time of a one-thread run can be far above
   it). ``--rows-baseline`` also times the row-by-row kernel (the code path
   of the previous release) at p = 5000.
3. Batches: ``size=1000``, p = 100, d = 0.05, matrices per second
   (target at least 2,000), each in a fresh process, with 1 and 2 Numba
   threads, wall and CPU time; with ``--baseline-src DIR`` also for the
   ``spdgraph`` package in ``DIR`` (for example ``git archive main spdgraph |
   tar -x -C DIR``), alternating with this checkout's runs (3 rounds).
4. p = 400 against gmat's ``port`` (R): only when ``Rscript`` is on the PATH
   and ``library(gmat)`` loads; the column is skipped otherwise. To set it up
   on Debian: ``apt-get install r-base-core r-cran-igraph``, get gmat's public
   source, remove its ``gRbase`` import (only ``port_chol`` needs it) and run
   ``R CMD INSTALL`` on it. gmat is never part of spdgraph. For example::

       git clone https://github.com/irenecrsn/gmat /tmp/gmat_src
       sed -i '/gRbase,/d' /tmp/gmat_src/DESCRIPTION
       mkdir -p /tmp/Rlib && R CMD INSTALL -l /tmp/Rlib /tmp/gmat_src
       R_LIBS_USER=/tmp/Rlib python benchmarks/bench_po_targets.py --sections 4

   gmat's time is the median of ``--repeats`` calls of ``port(1, p, d)`` in
   one R session (the graph drawn once by ``rgraph``, not timed); spdgraph's
   is the median of at least 7 ``sample`` calls (normalized, as gmat's are).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

PAPER_D = [0.0025, 0.005, 0.025, 0.05, 0.25, 0.5]


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def one_big(p: int, d: float, rows: bool) -> None:
    """Child process: one matrix, print wall time, peak RSS (GB) and the hash of its bits."""
    import spdgraph
    from spdgraph._kernels.po import dispatch as _po_dispatch

    if rows:
        _po_dispatch.kernel_for = lambda ptr: "rows"  # the row-by-row kernel
    g = spdgraph.graphs.erdos_renyi(p, d, seed=1)
    spdgraph.sample(spdgraph.graphs.erdos_renyi(300, 0.01, seed=1), "po", seed=0)  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    m = spdgraph.sample(g, "po", seed=2, normalize=False).values
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux
    print(f"{wall:.3f} {cpu:.3f} {peak:.3f} {hashlib.sha256(m.tobytes()).hexdigest()[:16]}")


def _run_big(
    p: int, d: float, threads: int, rows: bool = False
) -> tuple[float, float, float, str]:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--one", str(p), str(d)] + (["--rows"] if rows else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    wall, cpu, peak, digest = out.split()[-4:]
    return float(wall), float(cpu), float(peak), digest


_BATCH_CODE = """
import statistics, time, spdgraph
g = spdgraph.graphs.erdos_renyi(100, 0.05, seed=1)
spdgraph.sample(g, "po", size=50, seed=1)
walls, cpus = [], []
for _ in range({repeats}):
    t0, c0 = time.perf_counter(), time.process_time()
    spdgraph.sample(g, "po", size=1000, seed=5)
    walls.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
print(statistics.median(walls), statistics.median(cpus))
"""


def _batch_time(src: str | None, repeats: int, threads: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``sample(size=1000)`` in a fresh process.

    ``src``: another checkout's directory; ``threads``: ``NUMBA_NUM_THREADS``.
    """
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    cwd = None
    if src is not None:
        # ``python -c`` puts the working directory first on sys.path: run the child in
        # ``src`` itself, or a checkout in the current directory would shadow it
        cwd = env["PYTHONPATH"] = os.path.abspath(src)
    code = _BATCH_CODE.format(repeats=repeats) + "print(spdgraph.__file__)\n"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    wall, cpu, where = out.stdout.split()[-3:]
    if src is not None and not where.startswith(os.path.abspath(src)):
        raise RuntimeError(f"the baseline imported {where}, not the package in {src}")
    return float(wall), float(cpu)


def _gmat_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(["Rscript", "-e", "library(gmat)"], capture_output=True)
    return probe.returncode == 0


def _gmat_time(p: int, d: float, repeats: int) -> float:
    """Median seconds of ``gmat::port(1, p, d)`` (graph drawn once by gmat, not timed)."""
    code = (
        f"library(gmat); set.seed(1); ug <- rgraph({p}, {d}); "
        f"t <- replicate({repeats}, system.time(port(1, {p}, {d}, ug = ug))[['elapsed']]); "
        "cat(median(t))"
    )
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def _section_p1000(spdgraph, repeats: int) -> None:
    print("\n1. p = 1000: one matrix vs one Q @ Q.T (default BLAS threads), target <= 30x")
    q = np.random.default_rng(0).standard_normal((1000, 1000))
    print(f"{'d':>7} {'po (s)':>8} {'Q@Q.T (ms)':>11} {'ratio':>6}")
    for d in PAPER_D:
        g = spdgraph.graphs.erdos_renyi(1000, d, seed=1)
        t_po = _median(lambda g=g: spdgraph.sample(g, "po", seed=3, normalize=False), repeats)
        t_qq = _median(lambda: q @ q.T, max(repeats, 11))
        print(f"{d:7.4f} {t_po:8.3f} {t_qq * 1e3:11.2f} {t_po / t_qq:6.1f}", flush=True)


def _section_big(rows_baseline: bool) -> None:
    print("\n2. large sparse graphs, fresh process per call (target 5000: < 15 s; "
          "10,000: < 120 s, < 3 GB)")  # fmt: skip
    print(
        f"{'p':>6} {'d':>8} {'threads':>7} {'wall (s)':>9} {'cpu (s)':>8} "
        f"{'peak (GB)':>9} {'sha256':>17}"
    )
    cases = [(5000, 0.001, (1, 2)), (10000, 5 / 9999, (2, 1))]
    for p, d, thread_counts in cases:
        for threads in thread_counts:
            wall, cpu, peak, digest = _run_big(p, d, threads)
            row = f"{p:6d} {d:8.5f} {threads:7d} {wall:9.1f} {cpu:8.1f} {peak:9.2f}"
            print(f"{row} {digest:>17}", flush=True)
    if rows_baseline:
        wall, cpu, peak, _ = _run_big(5000, 0.001, 1, rows=True)
        print(f"  5000 row-by-row kernel (previous path): {wall:.1f} s, cpu {cpu:.1f} s")


def _section_batch(baseline_src: str | None, repeats: int, rounds: int = 3) -> None:
    print("\n3. batch size=1000, p = 100, d = 0.05 (target >= 2000 matrices/s)")
    print("   fresh processes, this checkout and the baseline alternating; medians over rounds")
    labels = [("this checkout", None)]
    if baseline_src is None:
        print("   baseline: skipped (give --baseline-src, e.g. a `git archive` of main)")
    else:
        labels.append(("baseline", baseline_src))
    print(f"{'code':>14} {'threads':>7} {'wall (s)':>9} {'cpu (s)':>8} {'matrices/s':>11}")
    for threads in (1, 2):
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in labels}
        for _ in range(rounds):
            for label, src in labels:
                runs[label].append(_batch_time(src, repeats, threads))
        for label, _ in labels:
            wall = statistics.median(w for w, _ in runs[label])
            cpu = statistics.median(c for _, c in runs[label])
            row = f"{label:>14} {threads:7d} {wall:9.3f} {cpu:8.3f} {1000 / wall:11.0f}"
            print(row, flush=True)


def _section_gmat(spdgraph, repeats: int) -> None:
    print("\n4. p = 400 against gmat's port (R), target >= 100x")
    if not _gmat_available():
        print("skipped: Rscript or the gmat package is not installed (see the module docstring)")
        return
    print(f"{'d':>7} {'gmat (s)':>9} {'po (ms)':>8} {'ratio':>6}")
    for d in PAPER_D:
        g = spdgraph.graphs.erdos_renyi(400, d, seed=1)
        t_po = _median(lambda g=g: spdgraph.sample(g, "po", seed=3), max(repeats, 7))
        t_gmat = _gmat_time(400, d, repeats)
        print(f"{d:7.4f} {t_gmat:9.3f} {t_po * 1e3:8.1f} {t_gmat / t_po:6.0f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-big", action="store_true", help="skip p = 5000 and 10,000")
    parser.add_argument("--rows-baseline", action="store_true", help="time main's path at 5000")
    parser.add_argument(
        "--baseline-src",
        help="directory holding another spdgraph package (e.g. main) for the batch baseline",
    )
    parser.add_argument("--sections", default="1,2,3,4", help="which sections to run, e.g. 3,4")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one_big(int(args.one[0]), float(args.one[1]), args.rows)
        return 0
    import spdgraph

    sections = {int(s) for s in args.sections.split(",")}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; medians of "
          f"{args.repeats} runs")  # fmt: skip
    spdgraph.sample(spdgraph.graphs.erdos_renyi(300, 0.01, seed=1), "po", seed=0)  # warm-up
    if 1 in sections:
        _section_p1000(spdgraph, args.repeats)
    if 2 in sections and not args.skip_big:
        _section_big(args.rows_baseline)
    if 3 in sections:
        _section_batch(args.baseline_src, args.repeats)
    if 4 in sections:
        _section_gmat(spdgraph, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
