"""Benchmark: spdgraph's exact lasso path against scikit-learn's coordinate descent.

The node-wise lasso of the Krämer study fits, for each of p = 100 nodes and
each of 5 CV folds, a 100-penalty path (λmin/λmax = 0.01 if n < p - 1 else
1e-4). This script takes the first training fold (80 % of the rows) of a
data set drawn from a PO model (d = 0.25, unit diagonal) and, for
``--nodes`` nodes, times

* ``sklearn``: ``sklearn.linear_model.lasso_path`` on the centred training
  data with its defaults (coordinate descent, duality-gap tol 1e-4,
  max_iter 1000): what spdgraph used before;
* ``exact``: ``spdgraph.validation.lasso_path`` on the fold's Gram matrix
  (LARS homotopy, exact path), including slicing the node's Gram block out of
  the fold's cross-product matrix (which the study computes once per fold
  for all nodes; that one product is timed separately and amortized).

Prints the median seconds per path over the nodes, the ratio sklearn / exact
(measured in the same run), and how far the tolerance-1e-4 solution is from
the exact one: the largest coefficient difference and the mean number of
(coefficient, penalty) pairs per path whose zero pattern differs.

    python benchmarks/bench_lasso.py [--n 25 100 200] [--nodes 10]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import spdgraph
from spdgraph.graphs import erdos_renyi
from spdgraph.validation import draw_gaussian, lasso_path, standardize


def main(argv: list[str] | None = None) -> None:
    from sklearn.linear_model import lasso_path as sk_lasso_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[25, 100, 200])
    parser.add_argument("--nodes", type=int, default=10)
    parser.add_argument("--p", type=int, default=100)
    args = parser.parse_args(argv)
    p = args.p
    graph = erdos_renyi(p, 0.25, seed=1)
    prec = spdgraph.sample(graph, "po", seed=2, kind="precision").values
    lasso_path(np.eye(2), np.ones(2), 10, np.array([0.1]))  # warm-up (imports)
    print(f"p = {p}, PO truth d = 0.25; median over {args.nodes} nodes of one fold's path")
    print(
        f"{'n':>5} {'sklearn CD (s)':>15} {'exact (s)':>10} {'ratio':>7} "
        f"{'Gram/fold (s)':>14} {'max |diff|':>11} {'support diffs':>14}"
    )
    warnings.simplefilter("ignore")  # ConvergenceWarning of the CD solver
    for n in args.n:
        x = standardize(draw_gaussian(prec, n, seed=np.random.default_rng(3)))
        train = x[: n - n // 5]
        nt = train.shape[0]
        t0 = time.perf_counter()
        xc = train - train.mean(axis=0)
        cross = xc.T @ xc
        t_gram = time.perf_counter() - t0
        eps = 0.01 if n < p - 1 else 1e-4
        t_sk, t_ex, diffs, supports = [], [], [], []
        for i in range(args.nodes):
            others = np.r_[0:i, i + 1 : p]
            z, y = xc[:, others], xc[:, i]
            alphas = np.max(np.abs(z.T @ y)) / nt * np.logspace(0.0, np.log10(eps), 100)
            t0 = time.perf_counter()
            _, cd, _ = sk_lasso_path(z, y, alphas=alphas)
            t_sk.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            exact = lasso_path(cross[np.ix_(others, others)], cross[others, i], nt, alphas)
            t_ex.append(time.perf_counter() - t0)
            diffs.append(float(np.abs(cd - exact).max()))
            supports.append(int(((cd != 0) != (exact != 0)).sum()))
        sk, ex = statistics.median(t_sk), statistics.median(t_ex)
        print(
            f"{n:>5} {sk:>15.4f} {ex:>10.4f} {sk / ex:>6.1f}x {t_gram:>14.5f} "
            f"{max(diffs):>11.3g} {statistics.mean(supports):>14.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
