"""The R bridge's overhead per fit: an R learner against a Python learner doing the same.

Run: ``python benchmarks/bench_r_bridge.py [--fits 30]`` (needs ``Rscript``).

Both learners return a p x p matrix of zeros (R: ``matrix(0, ncol(x),
ncol(x))``; Python: ``np.zeros((p, p))``), called the way a study's cell
calls them (:func:`spdgraph.study._cell._timed`, in a cell's context: each R
fit in its scratch folder, what it started in the background killed after
it): the data sent to the worker's persistent R process as little-endian
float64, on the pipe below 1 MiB and through a file in the fit's scratch
folder from 1 MiB, the result read back. The R process is started and the
learner defined before timing (a study pays that once per worker); each
size then times ``--fits`` fits of each learner, round robin so a change in
the machine's load hits both alike.
"overhead" is the median R fit minus the median Python fit, in ms: the
issue's target is under 50 ms per fit. The last column is R's own clock for
the snippet alone (what the study records as ``seconds``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from spdgraph.study._cell import _timed
from spdgraph.study._contain import LearnerContext, in_context
from spdgraph.study._rbridge import _session

SIZES = [(100, 20), (500, 100), (2000, 200), (5000, 500)]


def zeros(x: np.ndarray) -> np.ndarray:
    return np.zeros((x.shape[1], x.shape[1]))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:  # a study's folder: fits use its scratch
        context = LearnerContext(scratch_root=os.path.join(folder, ".scratch"))
        in_context(context, lambda coords: _table(), {"cell": 1})


def _table() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fits", type=int, default=30)
    args = parser.parse_args()
    r_entry = {"name": "r-zeros", "r": "matrix(0, ncol(x), ncol(x))"}
    py_entry = {"name": "py-zeros", "function": zeros}
    seed = np.random.SeedSequence(1)
    print(f"median of {args.fits} fits per size, times in ms (BLAS on one thread both sides)")
    print(f"{'n':>6} {'p':>5} {'MB data':>8} {'python':>9} {'R':>9} {'overhead':>9} "
          f"{'R/python':>9} {'R clock':>8}")  # fmt: skip
    print("-" * 70)
    for n, p in SIZES:
        x = np.random.default_rng(n).normal(size=(n, p))
        labels = [f"V{j}" for j in range(p)]
        _timed(r_entry, x, labels, seed)  # start R, define the learner: paid once
        r_times, py_times, r_clock = [], [], []
        for _ in range(args.fits):
            start = time.perf_counter()
            value, _, seconds = _timed(r_entry, x, labels, seed)
            r_times.append(time.perf_counter() - start)
            r_clock.append(seconds)
            assert value.shape == (p, p) and not value.any()
            start = time.perf_counter()
            _timed(py_entry, x, labels, seed)
            py_times.append(time.perf_counter() - start)
        r_ms = statistics.median(r_times) * 1e3
        py_ms = statistics.median(py_times) * 1e3
        print(
            f"{n:>6} {p:>5} {x.nbytes / 1e6:>8.2f} {py_ms:>9.3f} {r_ms:>9.3f} "
            f"{r_ms - py_ms:>9.3f} {r_ms / py_ms:>9.0f} {statistics.median(r_clock) * 1e3:>8.1f}"
        )
    _session().close()


if __name__ == "__main__":
    main()
