"""Where the blocked PO kernel beats the row-by-row one: the measurements behind its dispatch rule.

    python benchmarks/bench_po_dispatch.py [--repeats 3] [--cases 1000:0.04,2000:0.05]

For each ``p:d`` (an ``erdos_renyi(p, d, seed=1)`` graph, a standard normal
factor), one BLAS thread: the rule's work ratio ``sum_i i |K_i|^2 / sum_i i^2``
against its bound ``c(p)`` (see ``_po_blocked.blocked_is_cheaper``), the path
the rule takes, the median time of the blocked kernel with 1 and 2 threads
and of the row-by-row kernel (``po_matrix_checked``), ``rows / blocked``
(1 thread; above 1: the blocked kernel is faster), and the largest
difference of the two results relative to the largest entry (they must agree
to 1e-12; the blocked one must be certified).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

DEFAULT = (
    "500:0.04,500:0.06,1000:0.025,1000:0.04,1000:0.05,1000:0.075,1400:0.04,2000:0.04,2000:0.05"
)


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _row(spdgraph, p: int, d: float, repeats: int) -> str:
    """One table row for ``erdos_renyi(p, d, seed=1)``."""
    from spdgraph._kernels import _po_blocked, po_fast

    adjacency = spdgraph.adapt_graph(spdgraph.graphs.erdos_renyi(p, d, seed=1)).adjacency
    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    factor = np.random.default_rng(2).standard_normal((p, p))
    ptr, idx = _po_blocked.earlier_neighbours(adjacency)
    k = np.diff(ptr).astype(np.float64)
    i = np.arange(p, dtype=np.float64)
    ratio = float((i * k * k).sum() / (i * i).sum())
    path = "blocked" if _po_blocked.blocked_is_cheaper(ptr) else "rows"
    out = np.empty((p, p))

    def rows() -> np.ndarray:
        return po_fast.po_matrix_checked(adjacency, po_fast.lower_coordinates(factor), factor)

    def blocked(threads: int) -> bool:
        return _po_blocked.po_blocked_into(adjacency, factor, ptr, idx, out, threads)

    with po_fast.one_blas_thread():
        certified = blocked(1)
        reference = rows()
        diff = float(np.abs(out - reference).max() / np.abs(reference).max())
        t1 = _median(lambda: blocked(1), repeats)
        t2 = _median(lambda: blocked(2), repeats)
        tr = _median(rows, repeats)
    flag = "" if certified and diff <= 1e-12 else " (NOT CERTIFIED / DISAGREE)"
    return (
        f"| {p} | {d} | {ratio:.2f} | {_po_blocked.work_bound(p):.2f} | {path} | {t1:.3f} | "
        f"{t2:.3f} | {tr:.3f} | {tr / t1:.2f} | {diff:.1e}{flag} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the table (one row per ``p:d`` case)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default=DEFAULT, help="comma-separated p:d pairs")
    args = parser.parse_args(argv)
    import spdgraph

    spdgraph.sample(spdgraph.graphs.erdos_renyi(300, 0.01, seed=1), "po", seed=0)  # compile
    print(
        "| p | d | work ratio | bound c(p) | path | blocked 1 thr (s) | 2 thr (s) | rows (s) "
        "| rows / blocked | rel. diff |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in args.cases.split(","):
        p_text, d_text = case.split(":")
        print(_row(spdgraph, int(p_text), float(d_text), args.repeats), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
