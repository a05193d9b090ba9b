"""Benchmark: spdgraph's certified graphical lasso against scikit-learn's ``graphical_lasso``.

On standardized data (p = 100) drawn from a PO truth (d = 0.25, the issue 15
setting) at each ``--n``, the sample correlation ``S`` and ``--rhos``
penalties log-spaced from ``max |S_ij|`` down to 0.01 of it, each penalty
solved cold by

* ``sklearn``: ``sklearn.covariance.graphical_lasso(S, alpha=rho)`` (mode
  "cd", its defaults: tol 1e-4, max_iter 100; diagonal not penalized);
* ``spdgraph, same objective``: ``graphical_lasso(S, rho,
  penalize_diagonal=False)``, certified to KKT <= 1e-8 rho or NumericalError;
* ``spdgraph, default``: ``graphical_lasso(S, rho)`` (diagonal penalized, as
  R's glasso and the learner ``"glasso"``).

Prints seconds, the relative KKT violation (``glasso_kkt / rho``, for
scikit-learn's symmetrized precision) and the number of edges, "fail" where
a solver raised, and the time ratio sklearn / spdgraph on the same objective
(measured in the same run; the machine is shared, so read ratios, not
seconds).

    python benchmarks/bench_glasso.py [--n 100 200] [--rhos 8] [--method po]

(``--method dd``: a well-conditioned diagonally dominant truth, where
scikit-learn solves too.)
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import spdgraph
from spdgraph.errors import NumericalError
from spdgraph.graphs import erdos_renyi
from spdgraph.validation import (
    draw_gaussian,
    glasso_kkt,
    glasso_penalties,
    graphical_lasso,
    standardize,
)


def _sklearn(s, rho):
    from sklearn.covariance import graphical_lasso as sk_glasso

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, prec = sk_glasso(s, alpha=rho)
    except (ArithmeticError, ValueError, FloatingPointError):
        return time.perf_counter() - t0, None
    prec = (prec + prec.T) / 2
    return time.perf_counter() - t0, prec


def _ours(s, rho, penalize_diagonal):
    t0 = time.perf_counter()
    try:
        prec = graphical_lasso(s, rho, penalize_diagonal=penalize_diagonal).precision
    except NumericalError:
        return time.perf_counter() - t0, None
    return time.perf_counter() - t0, prec


def _cell(s, rho, t, prec, penalize_diagonal):
    if prec is None:
        return f"{t:>7.2f} {'fail':>9} {'':>5}"
    kkt = glasso_kkt(s, prec, rho, penalize_diagonal=penalize_diagonal) / rho
    return f"{t:>7.2f} {kkt:>9.1e} {np.count_nonzero(np.triu(prec, 1)):>5}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--rhos", type=int, default=8)
    parser.add_argument("--p", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--method", default="po", help="truth generator (po, dd, ...)")
    args = parser.parse_args(argv)
    graph = erdos_renyi(args.p, 0.25, seed=args.seed)
    prec = spdgraph.sample(graph, args.method, seed=args.seed, kind="precision").values
    graphical_lasso(np.array([[1.0, 0.5], [0.5, 1.0]]), 0.1)  # warm-up (Numba cache)
    head = f"{'s':>7} {'KKT/rho':>9} {'edges':>5}"
    print(f"p = {args.p}, {args.method} truth d = 0.25, seed {args.seed}; cold solve per penalty")
    print(
        f"{'n':>4} {'rho':>7} | sklearn {head} | ours, same obj {head} | "
        f"ours, default {head} | ratio"
    )
    for n in args.n:
        x = standardize(draw_gaussian(prec, n, seed=100 + args.seed))
        s = x.T @ x / n
        totals = [0.0, 0.0]
        for rho in glasso_penalties(s, n, args.rhos):
            t_sk, p_sk = _sklearn(s, rho)
            t_same, p_same = _ours(s, rho, False)
            t_def, p_def = _ours(s, rho, True)
            both = p_sk is not None and p_same is not None
            ratio = f"{t_sk / t_same:>5.1f}x" if both else "    -"
            if both:
                totals[0] += t_sk
                totals[1] += t_same
            print(
                f"{n:>4} {rho:>7.4f} | {_cell(s, rho, t_sk, p_sk, False)} | "
                f"{_cell(s, rho, t_same, p_same, False)} | {_cell(s, rho, t_def, p_def, True)} | "
                f"{ratio}",
                flush=True,
            )
        if totals[1] > 0:
            print(f"{n:>4} where both solve: sklearn / ours = {totals[0] / totals[1]:.2f}x")


if __name__ == "__main__":
    main()
