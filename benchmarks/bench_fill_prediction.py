"""The refusal of a factor that would not fit: predicted on a minor vs AMD on the whole (issue 46).

``plan_factor`` on ``0.3 A + 2 I``, ``A`` an Erdős–Rényi graph of mean degree 5
(``spdgraph.graphs.erdos_renyi(p, 5 / p, seed=0, backend="scipy")``), with an
8 GiB budget: both plans refuse it (the factor fills in nearly completely).

* ``minor``: the default plan, which contracts the pattern to a minor of
  ``PREDICTION_NODES`` nodes, orders that by AMD and refuses on its count
  (median of ``--repeat`` runs);
* ``full AMD``: the plan before the prediction (``predict=False``), AMD on the
  whole pattern then the exact count (run once at p = 10**6: about a minute;
  median of ``--repeat`` runs at smaller sizes).

The kernels are compiled before the clock starts. Usage::

    python benchmarks/bench_fill_prediction.py             # p = 3 * 10**5 and 10**6
    python benchmarks/bench_fill_prediction.py --quick     # p = 3 * 10**5 only
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy.sparse

import spdgraph
from spdgraph._kernels import sparse_cholesky
from spdgraph.errors import TooLargeError

BUDGET = 8 * 2**30


def _precision(p: int) -> scipy.sparse.csr_array:
    a = spdgraph.graphs.erdos_renyi(p, 5.0 / p, seed=0, backend="scipy")
    return scipy.sparse.csr_array(0.3 * a + 2.0 * scipy.sparse.eye_array(p))


def _time_refusal(matrix: scipy.sparse.csr_array, predict: bool) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        sparse_cholesky.plan_factor(matrix, budget_bytes=BUDGET, predict=predict)
    except TooLargeError as exc:
        return time.perf_counter() - start, str(exc)
    return time.perf_counter() - start, "ACCEPTED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="p = 3 * 10**5 only")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each timed row")
    args = parser.parse_args()
    # compile every kernel first (not counted)
    warm = _precision(30_000)
    for predict in (True, False):
        _time_refusal(warm, predict)
    sparse_cholesky.predict_fill(warm.indptr, warm.indices, nodes=2_000)
    sizes = [300_000] if args.quick else [300_000, 10**6]
    print(
        f"{'p':>9} {'minor s':>8} {'full AMD s':>11} {'ratio':>7} {'full runs':>9}  "
        "minor's refusal (start)"
    )
    for p in sizes:
        matrix = _precision(p)
        minor = [_time_refusal(matrix, predict=True) for _ in range(args.repeat)]
        full_runs = 1 if p >= 10**6 else args.repeat
        full = [_time_refusal(matrix, predict=False) for _ in range(full_runs)]
        a = statistics.median(t for t, _ in minor)
        b = statistics.median(t for t, _ in full)
        message = minor[0][1]
        found = message.find("predicted from")
        summary = message[found : found + 110] if found >= 0 else message[:110]
        print(
            f"{p:>9,} {a:>8.3f} {b:>11.2f} {b / a:>6.0f}x {full_runs:>9}  {summary}",
            flush=True,
        )
        spread = np.round([t for t, _ in minor], 3).tolist()
        print(f"{'':>9} minor runs: {spread}", flush=True)


if __name__ == "__main__":
    main()
