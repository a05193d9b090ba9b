"""huge's lambda_min on the sparse path: shift-invert Lanczos against LOBPCG (issue 46).

For ``band(p, 2)`` and a square 2-D lattice (``side**2`` nodes) at each ``p``,
times, in the same run and process, the new ``smallest_adjacency_eigenvalue``
(shift-invert Lanczos on CHOLMOD factorizations of ``v A - s I``, with its proven
lower bound) and the old path (LOBPCG, 100 iterations from the same start),
medians of ``--repeat`` runs, one BLAS thread. The relative difference to a
reference where one exists: LAPACK's dense ``eigvalsh`` (the dense path's value)
up to ``--dense-max`` nodes, and the closed form for the lattice
(``0.3 * 4 cos(pi side / (side + 1))``) at every size.

Usage::

    python benchmarks/bench_huge_eigen.py                    # p = 1e4, 1e5, 1e6
    python benchmarks/bench_huge_eigen.py --sizes 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from spdgraph._kernels import sparse_eigen
from spdgraph._kernels.blas import one_blas_thread

V = 0.3


def band(p: int, k: int = 2) -> scipy.sparse.csr_array:
    diagonals = [np.ones(p - d) for d in range(1, k + 1)]
    upper = scipy.sparse.diags_array(diagonals, offsets=list(range(1, k + 1)), shape=(p, p))
    return scipy.sparse.csr_array(upper + upper.T)


def lattice(side: int) -> scipy.sparse.csr_array:
    path = scipy.sparse.diags_array([np.ones(side - 1)], offsets=[1], shape=(side, side))
    path = path + path.T
    eye = scipy.sparse.eye_array(side)
    return scipy.sparse.csr_array(scipy.sparse.kron(path, eye) + scipy.sparse.kron(eye, path))


def timed(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    seconds, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def relative(value: float, reference: float | None) -> str:
    return "" if reference is None else f"{abs(value - reference) / abs(reference):.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (median)")
    parser.add_argument("--dense-max", type=int, default=5000, help="dense reference up to")
    args = parser.parse_args()
    print(
        f"{'graph':10} {'p':>9} {'new s':>8} {'LOBPCG s':>9} {'ratio':>6} "
        f"{'new rel':>8} {'LOBPCG rel':>10} {'bound gap':>9}  method"
    )
    for p in args.sizes:
        side = round(p**0.5)
        for name, adjacency in (("band", band(p)), ("lattice", lattice(side))):
            weighted = scipy.sparse.csr_array(adjacency * V)
            n = weighted.shape[0]
            reference = None
            if name == "lattice":
                reference = V * 4 * np.cos(np.pi * side / (side + 1))
            elif n <= args.dense_max:
                with one_blas_thread():
                    reference = float(np.linalg.eigvalsh(weighted.toarray())[0])

            def new(w: Any = weighted) -> sparse_eigen.SmallestEigenvalue:
                return sparse_eigen.smallest_adjacency_eigenvalue(w)

            new_seconds, found = timed(new, args.repeat)

            def old(w: Any = weighted) -> float:
                with one_blas_thread():
                    return sparse_eigen._lobpcg_smallest(w, scipy.sparse.linalg)[0]

            old_seconds, old_value = timed(old, args.repeat)
            assert isinstance(found, sparse_eigen.SmallestEigenvalue)
            gap = (
                ""
                if found.lower_bound is None
                else f"{(found.value - found.lower_bound) / abs(found.value):.1e}"
            )
            print(
                f"{name:10} {n:>9,} {new_seconds:>8.2f} {old_seconds:>9.2f} "
                f"{new_seconds / old_seconds:>6.1f} {relative(found.value, reference):>8} "
                f"{relative(float(old_value), reference):>10} {gap:>9}  {found.method}",
                flush=True,
            )
            if reference is None:
                print(f"{'':10} {'':>9} new - LOBPCG, relative: "
                      f"{relative(found.value, float(old_value))}")  # fmt: skip


if __name__ == "__main__":
    main()
