"""The floor of ``po``'s dense kernel on this machine, measured piece by piece.

    python benchmarks/bench_dense_floor.py [--repeats 5] [--cases 400:0.5,1000:0.5]

Issue 37 asks for p = 400, d = 0.5 at 100x gmat's ``port`` and p = 1000,
d = 0.5 within 30x one ``Q @ Q.T``, and, where a target is missed, the
floor of the design and why. This script measures that floor for each case
(``p:d``), all in one process and one run:

* ``factor``, ``finish``, ``products``: CPU seconds of the dense kernel's
  three kinds of work (``spdgraph._kernels.po.dense``: the factor tasks,
  gather and ``dpotrf``; the in-order finishing of the rows; the per-block
  ``dtrmm``), the kernel run on **one** thread, so that nothing contends;
  medians of ``--repeats`` runs. ``flops``: the factorizations' ``n³/3``
  summed over the rows, and their rate.
* ``rest``: the part of one ``spdgraph.sample`` call outside the kernel
  (the adapter, the draws, the core's checks, the labelled result), a
  median of two-thread calls minus the kernel's wall time in the same calls.
* ``floor``: ``rest + max(finish, (factor + finish + products) / 2)``, the
  time of a call if the kernel's work were split perfectly over the two
  cores with no contention and no coordination; ``sample``: the measured
  median of the same call (two threads).
* the ratios the targets use, for ``floor`` and ``sample``: against one
  ``Q @ Q.T`` (p = 1000, BLAS's default threads, timed in the same run) and,
  when ``Rscript`` and gmat are installed (see ``bench_po_targets.py``),
  against ``gmat::port(1, p, d)`` (which crashes from about p = 1000: it keeps
  ``p x p`` work arrays on the C stack).

The kernel's private functions are wrapped in place to time them; nothing
is changed in what they compute.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_po_targets import _gmat_available, _gmat_time


def _timed(module: Any, name: str, totals: dict[str, float], key: str) -> Callable[[], None]:
    """Wrap ``module.name`` so that its calls add their seconds to ``totals[key]``."""
    real = getattr(module, name)

    def wrapper(*args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args)
        finally:
            totals[key] = totals.get(key, 0.0) + time.perf_counter() - t0

    setattr(module, name, wrapper)
    return lambda: setattr(module, name, real)


def _pieces(p: int, d: float, repeats: int) -> tuple[dict[str, float], float]:
    """Median one-thread seconds of the kernel's three kinds of work; the factorizations' flops."""
    import networkx as nx

    import spdgraph
    from spdgraph._kernels.blas import one_blas_thread
    from spdgraph._kernels.po import blocked, dense

    adjacency = nx.to_numpy_array(spdgraph.graphs.erdos_renyi(p, d, seed=1), dtype=bool)
    coordinates = np.empty((p, p))
    factor = np.random.default_rng(0).standard_normal((p, p))
    blocked.lower_coordinates_into(factor, coordinates, 1)
    jptr, jidx = dense.non_neighbours(adjacency)
    runs: dict[str, list[float]] = {"factor": [], "finish": [], "products": []}
    restores = []
    totals: dict[str, float] = {}
    try:
        restores.append(_timed(dense, "_factor_row", totals, "factor"))
        restores.append(_timed(dense, "_finish_rows", totals, "finish"))
        restores.append(_timed(dense, "_mirror_block", totals, "finish"))
        restores.append(_timed(dense, "times_lower_transposed", totals, "products"))
        with one_blas_thread():
            dense._process(coordinates.copy(), jptr, jidx, 1)  # compile, warm
            for _ in range(repeats):
                totals.clear()
                dense._process(coordinates.copy(), jptr, jidx, 1)
                for key in runs:
                    runs[key].append(totals.get(key, 0.0))
    finally:
        for restore in restores:
            restore()
    # |J0| per row: the non-neighbours before the previous block
    block = dense.BLOCK
    flops = 0.0
    for i in range(p):
        h = max(i // block * block - block, 0)
        row = jidx[jptr[i] : jptr[i + 1]]
        n0 = int((row < h).sum()) if row.size < i else 0
        flops += n0**3 / 3
    return {key: statistics.median(v) for key, v in runs.items()}, flops


def _sample_and_rest(p: int, d: float, repeats: int) -> tuple[float, float]:
    """Median seconds of one ``sample`` call and of its part outside the kernel (two threads)."""
    import spdgraph
    from spdgraph._kernels.po import dense

    g = spdgraph.graphs.erdos_renyi(p, d, seed=1)
    spdgraph.sample(g, "po", seed=3)
    calls, rests = [], []
    totals: dict[str, float] = {}
    restore = _timed(dense, "_process", totals, "kernel")
    try:
        for _ in range(max(repeats, 7)):
            totals.clear()
            t0 = time.perf_counter()
            spdgraph.sample(g, "po", seed=3)
            calls.append(time.perf_counter() - t0)
            rests.append(calls[-1] - totals["kernel"])
    finally:
        restore()
    return statistics.median(calls), statistics.median(rests)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default="400:0.5,1000:0.5", help="p:d pairs, comma-separated")
    args = parser.parse_args(argv)
    cases = [(int(c.split(":")[0]), float(c.split(":")[1])) for c in args.cases.split(",")]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"medians of {args.repeats} runs; seconds unless marked")  # fmt: skip
    q = np.random.default_rng(0).standard_normal((1000, 1000))
    gmat = _gmat_available()
    head = f"{'p':>5} {'d':>5} {'factor':>7} {'GF/s':>5} {'finish':>7} {'products':>8} {'rest':>6}"
    print(head + f" {'floor':>6} {'sample':>7} {'QQ ms':>6} {'floor/QQ':>8} {'sample/QQ':>9}"
          + (f" {'gmat':>6} {'gmat/floor':>10} {'gmat/sample':>11}" if gmat else ""))  # fmt: skip
    for p, d in cases:
        pieces, flops = _pieces(p, d, args.repeats)
        call, rest = _sample_and_rest(p, d, args.repeats)
        work = pieces["factor"] + pieces["finish"] + pieces["products"]
        floor = rest + max(pieces["finish"], work / 2)
        t_qq = statistics.median(_time_once(lambda: q @ q.T) for _ in range(11))
        line = (
            f"{p:5d} {d:5.2f} {pieces['factor']:7.3f} {flops / pieces['factor'] / 1e9:5.1f} "
            f"{pieces['finish']:7.3f} {pieces['products']:8.3f} {rest:6.3f} {floor:6.3f} "
            f"{call:7.3f} {t_qq * 1e3:6.1f} {floor / t_qq:8.1f} {call / t_qq:9.1f}"
        )
        if gmat:
            try:  # gmat keeps p x p work arrays on the C stack: it crashes at p = 1000
                t_gmat = _gmat_time(p, d, max(args.repeats, 3))
                line += f" {t_gmat:6.2f} {t_gmat / floor:10.0f} {t_gmat / call:11.0f}"
            except subprocess.CalledProcessError:
                line += f" {'crashed':>6}"
        print(line, flush=True)
    return 0


def _time_once(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    raise SystemExit(main())
