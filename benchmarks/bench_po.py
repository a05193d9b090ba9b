"""Benchmark of ``method="po"``: the compiled kernel against its baselines.

For every (p, d) it prints the median time, over repeated runs, of

* ``floor1`` / ``floorN``: one ``Q @ Q.T`` of a p x p matrix (no method can
  beat forming the product) with one BLAS thread / BLAS's default threads;
* ``po``: one PO matrix by the generator spdgraph uses (draw the factor, QR,
  Numba kernel, product, residual check, exact zeros);
* ``numpy``: the readable NumPy version (``spdgraph._kernels.po.householder``: a
  Householder QR per row), where it finishes under ``--cap`` seconds; once a
  single run is above the cap, or the cell's time predicted from the
  previous p as ``O(p^4)`` is, the cell and the larger p of that density
  are skipped (shown as ``>cap``; the ratio is then a lower bound);
* ``dd``: one diagonal-dominance matrix;

and the ratios ``po/floor1``, ``po/floorN`` and ``numpy/po``. All in the same
run, one matrix per call, after a warm-up call (the first-call cost is
measured by ``benchmarks/first_call.py``). ``po`` limits BLAS to one thread
itself (see ``po_fast.one_blas_thread``); ``numpy``, ``dd`` and ``floor1``
run with one BLAS thread too, so that the comparison is core for core and not
distorted by OpenBLAS's threads on a busy machine.

Run ``python benchmarks/bench_po.py`` for the full table (the paper's
densities, p up to 2000; tens of minutes on 2 cores), ``--quick`` for a
subset, or choose ``--p`` / ``--d`` / ``--repeats``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import time

import numpy as np
from threadpoolctl import threadpool_limits

import spdgraph
from spdgraph._kernels.po import householder as po_numpy
from spdgraph.plugins._builtin.gen_dd import generate_dd
from spdgraph.plugins._builtin.gen_po import generate_po
from spdgraph.sampling._core import resolve_entries

FULL_P = [100, 200, 500, 1000, 2000]
FULL_D = [0.0025, 0.005, 0.025, 0.05, 0.25, 0.5]


def _median_time(fn, repeats: int, cap: float | None = None) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs (one run if it is above ``cap``)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if cap is not None and times[-1] > cap / repeats:
            break
    return statistics.median(times)


def _environment() -> str:
    try:
        load = os.getloadavg()
        load_txt = f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"
    except OSError:
        load_txt = "load average unknown"
    import numba

    try:
        uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        uptime = ""
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {load_txt}; "
        f"numpy {np.__version__}, numba {numba.__version__}, "
        f"numba threads {numba.get_num_threads()}, spdgraph {spdgraph.__version__}\n"
        f"uptime: {uptime}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=None, help="matrix sizes")
    parser.add_argument("--d", type=float, nargs="+", default=None, help="edge densities")
    parser.add_argument("--repeats", type=int, default=5, help="runs per cell (median)")
    parser.add_argument(
        "--cap", type=float, default=30.0, help="seconds above which NumPy po is skipped"
    )
    parser.add_argument("--no-numpy", action="store_true", help="skip the NumPy version")
    parser.add_argument(
        "--quick", action="store_true", help="p in {100, 200, 500}, 3 repeats, 10 s cap"
    )
    parser.add_argument("--entries", default="normal", choices=["normal", "uniform"])
    args = parser.parse_args(argv)
    ps = args.p or ([100, 200, 500] if args.quick else FULL_P)
    ds = args.d or FULL_D
    repeats = 3 if args.quick and args.repeats == 5 else args.repeats
    cap = 10.0 if args.quick and args.cap == 30.0 else args.cap
    entries, _ = resolve_entries(args.entries)

    print(_environment())
    print(f"entries {args.entries}, median of {repeats} runs, one matrix per call, times in ms")
    # warm-up: compile or load the cached kernels
    warm = spdgraph.adapt_graph(spdgraph.graphs.erdos_renyi(20, 0.3, seed=0)).adjacency
    generate_po(warm, rng=np.random.default_rng(0), entries=entries)

    header = (
        f"{'p':>5} {'d':>7} {'floor1':>8} {'floorN':>8} {'po':>10} {'po/floor1':>9} "
        f"{'po/floorN':>9} {'numpy':>11} {'numpy/po':>9} {'dd':>8}"
    )
    print(header)
    print("-" * len(header))
    numpy_skipped: set[float] = set()
    numpy_last: dict[float, tuple[int, float]] = {}
    for p in ps:
        q = np.random.default_rng(p).standard_normal((p, p))
        floor_n = _median_time(lambda q=q: q @ q.T, max(repeats, 11))
        with threadpool_limits(1):
            floor = _median_time(lambda q=q: q @ q.T, max(repeats, 11))
        for d in ds:
            adjacency = spdgraph.adapt_graph(
                spdgraph.graphs.erdos_renyi(p, d, seed=int(p * 1e4 + d * 1e4))
            ).adjacency
            rng = np.random.default_rng([p, int(d * 1e4)])
            t_po = _median_time(
                lambda a=adjacency, g=rng: generate_po(a, rng=g, entries=entries), repeats
            )
            with threadpool_limits(1):
                t_dd = _median_time(
                    lambda a=adjacency, g=rng: generate_dd(a, rng=g, entries=entries), repeats
                )
            if args.no_numpy:
                numpy_txt, ratio_txt = "-", "-"
            elif d in numpy_skipped or (
                d in numpy_last and numpy_last[d][1] * (p / numpy_last[d][0]) ** 4 > cap  # O(p^4)
            ):
                numpy_skipped.add(d)
                numpy_txt, ratio_txt = ">cap", f">{cap / t_po:.0f}"
            else:

                def run_numpy(a=adjacency, g=rng, p=p):
                    f = entries(g, (p, p))
                    po_numpy.gram_matrix(po_numpy.partial_orthogonalize(a, f))

                with threadpool_limits(1):
                    t_np = _median_time(run_numpy, repeats, cap=cap)
                numpy_last[d] = (p, t_np)
                if t_np > cap:
                    numpy_skipped.add(d)
                numpy_txt, ratio_txt = f"{t_np * 1e3:11.1f}", f"{t_np / t_po:9.1f}"
            print(
                f"{p:5d} {d:7.4f} {floor * 1e3:8.2f} {floor_n * 1e3:8.2f} {t_po * 1e3:10.1f} "
                f"{t_po / floor:9.1f} {t_po / floor_n:9.1f} "
                f"{numpy_txt:>11} {ratio_txt:>9} {t_dd * 1e3:8.2f}",
                flush=True,
            )
    print(_environment().splitlines()[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
