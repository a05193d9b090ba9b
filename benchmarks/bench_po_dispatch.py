"""The three PO kernels side by side: the measurements behind ``_po_dispatch.kernel_for``.

    python benchmarks/bench_po_dispatch.py [--repeats 3] [--cases 1000:0.005,1000:0.25]

For each ``p:d`` (an ``erdos_renyi(p, d, seed=1)`` graph, a standard normal
factor), with one BLAS thread: the two ratios the rule looks at (the sparse
blocked kernel's Gram work ``sum_i i |K_i|^2 / sum_i i^2`` against
``BLOCKED_BELOW``, and the Cholesky work ``sum_i |K_i|^3 / sum_i
min(|K_i|, |J_i|)^3`` against ``INVERSE_GRAM_BELOW``), the kernel the rule
picks, the median time of each kernel with one thread (the sparse blocked
kernel only where its work ratio is below 3; ``inverse_gram`` also with 2
threads), the time of the row-by-row kernel divided by the fastest, and the
largest difference of each blocked result from the row-by-row one relative
to the diagonal (they must be certified and agree to 1e-10, the conformance
level: different algorithms differ by ~eps cond(Q)^2 on a badly conditioned
draw; the factor of p = 1000, d = 0.002 has cond 2.5e5 and a 1e-11 difference). Cases are
interleaved kernel by kernel, so a busy machine slows all columns alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

DEFAULT = (
    "500:0.01,500:0.05,500:0.25,500:0.5,1000:0.002,1000:0.01,1000:0.03,1000:0.05,"
    "1000:0.25,1000:0.45,1000:0.5,2000:0.01,2000:0.03,2000:0.05"
)


def _scaled_diff(a: np.ndarray, b: np.ndarray) -> float:
    d = np.sqrt(np.abs(np.diag(b)))
    return float(np.max(np.abs(a - b) / np.outer(d, d)))


def _row(spdgraph, p: int, d: float, repeats: int) -> str:
    """One table row for ``erdos_renyi(p, d, seed=1)``."""
    from spdgraph._kernels.po import blocked as _po_blocked
    from spdgraph._kernels.po import dispatch as _po_dispatch
    from spdgraph._kernels.po import fast as po_fast
    from spdgraph._kernels.po import inverse_gram as _po_inverse_gram

    adjacency = spdgraph.adapt_graph(spdgraph.graphs.erdos_renyi(p, d, seed=1)).adjacency
    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    factor = np.random.default_rng(2).standard_normal((p, p))
    ptr, idx = _po_blocked.earlier_neighbours(adjacency)
    k = np.diff(ptr).astype(np.float64)
    i = np.arange(p, dtype=np.float64)
    gram_ratio = float((i * k * k).sum() / (i * i).sum())
    small = np.minimum(k, i - k)
    chol_ratio = float((k**3).sum() / max((small**3).sum(), 1.0))
    outs = {name: np.empty((p, p)) for name in ("blocked", "inverse_gram")}

    kernels = {
        "rows": lambda: po_fast.po_matrix_checked(
            adjacency, po_fast.lower_coordinates(factor), factor
        ),
        "inverse_gram": lambda: _po_inverse_gram.po_inverse_gram_into(
            adjacency, factor, ptr, idx, outs["inverse_gram"], 1
        ),
        "inverse_gram 2 thr": lambda: _po_inverse_gram.po_inverse_gram_into(
            adjacency, factor, ptr, idx, outs["inverse_gram"], 2
        ),
    }
    if gram_ratio < 3.0:
        kernels["blocked"] = lambda: _po_blocked.po_blocked_into(
            adjacency, factor, ptr, idx, outs["blocked"], 1
        )
    times: dict[str, list[float]] = {name: [] for name in kernels}
    with po_fast.one_blas_thread():
        reference = kernels["rows"]()
        notes = []
        for name in ("blocked", "inverse_gram"):
            if name in kernels:
                certified = kernels[name]() is not None  # the residual, None if refused
                diff = _scaled_diff(outs[name], reference)
                notes.append(f"{diff:.1e}" + ("" if certified and diff <= 1e-10 else " (BAD)"))
            else:
                notes.append("-")
        for _ in range(repeats):
            for name, fn in kernels.items():
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    med = {name: statistics.median(v) for name, v in times.items()}
    one_thread = {n: t for n, t in med.items() if not n.endswith("thr")}
    fastest = min(one_thread, key=one_thread.get)
    cell = {n: f"{med[n]:.3f}" if n in med else "-" for n in ["blocked", *kernels]}
    return (
        f"| {p} | {d} | {gram_ratio:.3f} | {chol_ratio:.2f} | {_po_dispatch.kernel_for(ptr)} | "
        f"{cell['blocked']} | {cell['inverse_gram']} | {cell['inverse_gram 2 thr']} | "
        f"{cell['rows']} | {fastest} | {med['rows'] / one_thread[fastest]:.2f} | "
        f"{notes[0]} | {notes[1]} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the table (one row per ``p:d`` case)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default=DEFAULT, help="comma-separated p:d pairs")
    args = parser.parse_args(argv)
    import spdgraph

    for d in (0.005, 0.1, 0.6):  # compile every kernel
        spdgraph.sample(spdgraph.graphs.erdos_renyi(300, d, seed=1), "po", seed=0)
    print(
        "| p | d | Gram work ratio | Cholesky work ratio | rule picks | blocked (s) "
        "| inverse_gram (s) | inverse_gram 2 thr (s) | rows (s) | fastest (1 thr) "
        "| rows / fastest | diff blocked | diff inverse_gram |"
    )
    print("| --- " * 13 + "|")
    for case in args.cases.split(","):
        p_text, d_text = case.split(":")
        print(_row(spdgraph, int(p_text), float(d_text), args.repeats), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
