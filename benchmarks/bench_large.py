"""Graphs of a million nodes (issue 46): the sparse path's time and peak memory.

Each row runs in a fresh child process (so its peak resident memory is its own,
``ru_maxrss``); the graph is built with scipy.sparse before the clock starts,
the numba kernels are compiled on a small graph first. Rows:

* ``dd`` precision, Erdős–Rényi p = 10**6, mean degree 5 (target < 10 s, < 2 GB);
* ``huge`` (``unit_variance=False``) on the same graph (target < 30 s, < 3 GB);
  not diagonally dominant and its Cholesky factor would fill in, so its proof
  is the randomized one (the row prints the certificate);
* ``huge`` on ``band(10**6, 2)``: lambda_min by shift-invert (to 1e-14), the
  proof by CHOLMOD;
* ``gwishart`` on ``band(10**6, 2)`` (decomposable: clique by clique, no fill;
  target < 30 s; needs the spdgraph-gwishart plugin);
* n = 100 exact draws from a band precision, p = 10**6 (target < 30 s);
* ``simulate("band", p=10**6, n=100, method="dd", sparse=True)`` (< 60 s);
* p = 10**7 (issue 56): ``dd`` precision on Erdős–Rényi, mean degree 5 (target
  < 2.5 GB peak), and ``simulate(band(10**7, 2), n=20, method="dd", sparse=True)``
  (target < 6 GB peak, the 1.6 GB of data included), each in its own process;
* p = 10,000, mean degree 5: ``dd`` sparse against scikit-learn's
  ``make_sparse_spd_matrix(sparse_format="csr")`` in the same run (>= 100x),
  medians of ``--repeat`` runs.

Usage::

    python benchmarks/bench_large.py            # every row
    python benchmarks/bench_large.py --quick    # p = 10**5 instead of 10**6
    python benchmarks/bench_large.py --rows dd-1e7 simulate-1e7   # some rows only

Every row reports its result's stored entries and the bytes per stored entry:
the peak resident memory of the call (on Linux the high-water mark reset
before it, ``VmHWM`` after it minus ``VmRSS`` before it: the graph and the
compiled kernels excluded; elsewhere ``ru_maxrss`` after minus before) over the
stored entries of the result (a ``simulate`` row: its data excluded, the
precision's entries counted).
The memory model of the sparse layout (``spdgraph/sampling/_memory.py``,
``BYTES_PER_ENTRY``) is fitted to these figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np, scipy.sparse as sp
import spdgraph

row, p = sys.argv[1], int(sys.argv[2])

def erdos_renyi(p, degree=5.0, seed=0):
    rng = np.random.default_rng(seed)
    m = int(degree * p / 2)
    r, c = rng.integers(0, p, m), rng.integers(0, p, m)
    keep = r != c
    a = sp.coo_array((np.ones(keep.sum(), bool), (r[keep], c[keep])), shape=(p, p)).tocsr()
    return sp.csr_array((a + a.T) != 0)

def band(p, k):
    diagonals = [np.ones(p - d) for d in range(1, k + 1)]
    upper = sp.diags_array(diagonals, offsets=list(range(1, k + 1)), shape=(p, p))
    return sp.csr_array((upper + upper.T) != 0)

# compile the kernels first (not counted)
small = band(50, 2)
spdgraph.sample(small, "dd", seed=1, sparse=True, kind="precision").spd.draw(2, seed=1)
spdgraph.sample(small, "huge", seed=1, sparse=True, kind="precision", unit_variance=False)
if row == "gwishart-band":
    spdgraph.sample(small, "gwishart", seed=1, sparse=True, kind="precision")
out = {}
if row == "sklearn":
    from sklearn.datasets import make_sparse_spd_matrix
    graph = None
else:
    banded = ("gwishart-band", "draws", "huge-band", "simulate-1e7")
    if row == "dd-1e7":  # the library's own graph build (issue 56's measurement)
        graph = spdgraph.graphs.erdos_renyi(p, 5.0 / p, seed=0, backend="scipy")
    else:
        graph = band(p, 2) if row in banded else erdos_renyi(p)

def status(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":"))  # KiB

built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the graph's build included
try:  # Linux: reset the high-water mark, so the call's own peak is measured
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    resident = status("VmRSS")
except OSError:  # elsewhere: the peak so far (the graph's build included)
    resident = None
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    if row in ("dd", "dd-1e7"):
        da = spdgraph.sample(graph, "dd", seed=1, sparse=True, kind="precision")
        out["stored"] = int(da.data.nnz)
        out["certificate"] = da.attrs["certificate"]
    elif row == "gwishart-band":
        da = spdgraph.sample(graph, "gwishart", seed=1, sparse=True, kind="precision")
        out["stored"] = int(da.data.nnz)
        out["certificate"] = da.attrs["certificate"]
    elif row in ("huge", "huge-band"):
        da = spdgraph.sample(graph, "huge", seed=1, sparse=True, kind="precision",
                             unit_variance=False)
        out["stored"] = int(da.data.nnz)
        out["certificate"] = da.attrs["certificate"]
    elif row == "draws":
        da = spdgraph.sample(graph, "dd", seed=1, sparse=True, kind="precision")
        start = time.perf_counter()  # the draws alone
        x = da.spd.draw(100, seed=2)
        out["factor_entries"] = int(x.attrs["factor_entries"])
        out["stored"], out["data_bytes"] = int(da.data.nnz), int(x.data.nbytes)
    elif row in ("simulate", "simulate-1e7"):
        truth = "band" if row == "simulate" else graph
        sim = spdgraph.simulate(truth, p=p if row == "simulate" else None,
                                n=100 if row == "simulate" else 20, method="dd",
                                sparse=True, seed=1)
        out["omitted"] = "covariance" not in sim
        out["stored"] = int(sim["precision"].data.nnz)
        out["data_bytes"] = int(sim["data"].data.nbytes)
    elif row == "dd-small":
        spdgraph.sample(graph, "dd", seed=1, sparse=True, kind="precision")
    elif row == "sklearn":
        make_sparse_spd_matrix(n_dim=p, alpha=1 - 5.0 / p, sparse_format="csr", random_state=1)
    out["ok"] = True
except Exception as exc:  # a refusal is a result of the row
    out["ok"] = False
    out["error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
out["seconds"] = time.perf_counter() - start
after = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, before, built)
out["peak_gb"] = after / 2**20
if out.get("stored"):  # KiB; the call's peak resident memory above what it started with
    added = ((status("VmHWM") - resident) if resident is not None else (after - before))
    added = added * 1024 - out.get("data_bytes", 0)
    out["bytes_per_entry"] = added / out["stored"]
print(json.dumps(out))
"""


def run(row: str, p: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, row, str(p)], capture_output=True, text=True, check=False
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = done.stderr.strip().splitlines()[-1:]
        return {"ok": False, "error": " ".join(tail) or "no output", "seconds": float("nan")}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="p = 10**5 instead of 10**6")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the p = 10,000 rows")
    parser.add_argument("--rows", nargs="*", help="run only these rows (names as in the code)")
    args = parser.parse_args()
    p = 10**5 if args.quick else 10**6
    sizes = {"dd-1e7": 10**7, "simulate-1e7": 10**7}
    targets = {
        "dd": ("dd precision, ER mean degree 5", "< 10 s, < 2 GB"),
        "huge": ("huge precision, ER mean degree 5", "< 30 s, < 3 GB"),
        "huge-band": ("huge precision, band(p, 2)", "(no target)"),
        "gwishart-band": ("gwishart precision, band(p, 2)", "< 30 s"),
        "draws": ("100 exact draws, band(p, 2) precision", "< 30 s"),
        "simulate": ('simulate("band", n=100, dd, sparse)', "< 60 s"),
        "dd-1e7": ("dd precision, ER mean degree 5", "< 2.5 GB"),
        "simulate-1e7": ("simulate(band(p, 2), n=20, dd, sparse)", "< 6 GB"),
    }
    print(
        f"{'row':44} {'p':>11} {'seconds':>8} {'peak GB':>8} {'stored':>12} {'B/entry':>8}"
        "  target / result"
    )
    for row, (label, target) in targets.items():
        if args.rows and row not in args.rows:
            continue
        size = (10**5 if args.quick else sizes[row]) if row in sizes else p
        r = run(row, size)
        extra = r.get("certificate") or r.get("error") or ""
        if "factor_entries" in r:
            extra = f"factor entries {r['factor_entries']:,}"
        stored = r.get("stored")
        per_entry = r.get("bytes_per_entry")
        print(
            f"{label:44} {size:>11,} {r['seconds']:>8.2f} {r.get('peak_gb', 0):>8.2f} "
            f"{stored or 0:>12,} {per_entry if per_entry is not None else float('nan'):>8.1f}"
            f"  {target}; {'ok' if r['ok'] else 'REFUSED'} {extra}"
        )
    if args.rows and not {"dd-small", "sklearn"} & set(args.rows):
        return
    small = 10_000
    ours = [run("dd-small", small)["seconds"] for _ in range(args.repeat)]
    theirs = [run("sklearn", small)["seconds"] for _ in range(args.repeat)]
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"{'dd sparse vs make_sparse_spd_matrix (csr)':44} {small:>9,} {a:>8.3f} "
        f"{'':>8}  sklearn {b:.2f} s: {b / a:,.0f}x (target >= 100x)"
    )


if __name__ == "__main__":
    main()
