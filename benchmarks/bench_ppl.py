"""Benchmark: NUTS (PyMC, NumPyro) on a Bayesian GGM against exact conjugate draws.

On a decomposable graph (a band of width 2, chordal) with p in {10, 30},
n = 2p observations from an exact prior draw, prior W_G(3, I):

* exact: draws per second of the conjugate posterior W_G(b + n, D + X^T X)
  (``spdgraph_ppl.exact_posterior``, the chordal sampler; independent draws, so
  ESS = number of draws);
* NumPyro: compile time (first call of the jitted ``nuts_fitter``) and, on a
  second call, sampling time and ESS/s (smallest and median ArviZ bulk ESS over
  the free entries of K), one chain of ``--tune`` + ``--draws``;
* PyMC: compile time (model + NUTS step) and the time of ``pm.sample`` with that
  step (one chain, same lengths), ESS/s likewise;
* one BLAS thread throughout (threadpoolctl);
* the largest |z| of the NUTS means and variances against the exact draws
  (``spdgraph_ppl.compare_to_exact``).

    python benchmarks/bench_ppl.py [--sizes 10 30] [--draws 1000] [--tune 1000]

Needs ``pip install "./plugins/spdgraph-ppl[pymc,numpyro]"``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def problem(p: int, seed: int = 0):
    import spdgraph
    from spdgraph.graphs import band

    g = band(p, 2)
    truth = spdgraph.sample(
        g, "gwishart", kind="precision", normalize=False, seed=seed, algorithm="chordal"
    )
    x = truth.spd.draw(2 * p, seed=seed + 1)
    return g, np.asarray(x.values)


def ess_summary(k: np.ndarray, g) -> tuple[float, float]:
    import arviz as az
    from spdgraph_ppl import free_entries, graph_structure

    free = free_entries(k, graph_structure(g))  # (chain, draw, m)
    ess = [float(az.ess(free[..., t], method="bulk")) for t in range(free.shape[-1])]
    return min(ess), float(np.median(ess))


def bench_exact(g, x, n_draws: int) -> tuple[float, np.ndarray]:
    from spdgraph_ppl import exact_posterior

    exact_posterior(x, g, size=10, seed=0)  # warm-up
    start = time.perf_counter()
    draws = exact_posterior(x, g, size=n_draws, seed=1).values
    return n_draws / (time.perf_counter() - start), draws


def bench_numpyro(g, x, draws: int, tune: int) -> dict[str, float | np.ndarray]:
    import jax

    jax.config.update("jax_enable_x64", True)
    from spdgraph_ppl.numpyro import nuts_fitter

    start = time.perf_counter()
    fit = nuts_fitter(g, 3.0, None, n_obs=x.shape[0], draws=draws, tune=tune)
    fit(jax.random.PRNGKey(0), x).block_until_ready()
    compile_s = time.perf_counter() - start  # includes one full run
    start = time.perf_counter()
    k = np.asarray(fit(jax.random.PRNGKey(1), x).block_until_ready())
    run_s = time.perf_counter() - start
    ess_min, ess_med = ess_summary(k[None], g)
    return {
        "compile": compile_s - run_s,
        "run": run_s,
        "ess_min": ess_min,
        "ess_med": ess_med,
        "draws": k[None],
    }


def bench_pymc(g, x, draws: int, tune: int) -> dict[str, float | np.ndarray]:
    import logging

    import pymc as pm
    from spdgraph_ppl.pymc import ggm_model

    logging.getLogger("pymc").setLevel(logging.ERROR)
    start = time.perf_counter()
    model = ggm_model(x, g, b=3.0)
    with model:
        step = pm.NUTS()
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    with model:
        trace = pm.sample(
            draws=draws,
            tune=tune,
            chains=1,
            step=step,
            random_seed=1,
            progressbar=False,
            compute_convergence_checks=False,
            return_inferencedata=False,
        )
    run_s = time.perf_counter() - start
    k = trace.get_values("K")[None]
    ess_min, ess_med = ess_summary(k, g)
    return {"compile": compile_s, "run": run_s, "ess_min": ess_min, "ess_med": ess_med, "draws": k}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--exact-draws", type=int, default=20000)
    parser.add_argument("--skip", nargs="*", default=[], choices=["pymc", "numpyro"])
    args = parser.parse_args(argv)
    from spdgraph_ppl import compare_to_exact
    from threadpoolctl import threadpool_limits

    # small matrices: one BLAS thread for every sampler (OpenBLAS threads on shared cores
    # slow PyMC's NUTS down by orders of magnitude)
    threadpool_limits(limits=1, user_api="blas")

    print(
        f"one chain, {args.tune} tune + {args.draws} draws; ESS = ArviZ bulk ESS over the "
        "free entries of K (min / median)"
    )
    header = (
        f"{'p':>3} {'sampler':>8} {'compile s':>10} {'run s':>8} {'ESS min':>8} "
        f"{'ESS med':>8} {'ESS/s min':>10} {'max|z| mean':>12} {'max|z| var':>11}"
    )
    print(header)
    for p in args.sizes:
        g, x = problem(p)
        rate, exact = bench_exact(g, x, args.exact_draws)
        print(
            f"{p:>3} {'exact':>8} {'-':>10} {args.exact_draws / rate:>8.3f} "
            f"{args.exact_draws:>8} {args.exact_draws:>8} {rate:>10.0f} {'-':>12} {'-':>11}"
        )
        for name, bench in (("numpyro", bench_numpyro), ("pymc", bench_pymc)):
            if name in args.skip:
                continue
            r = bench(g, x, args.draws, args.tune)
            table = compare_to_exact(r["draws"], exact, g)
            print(
                f"{p:>3} {name:>8} {r['compile']:>10.1f} {r['run']:>8.1f} "
                f"{r['ess_min']:>8.0f} {r['ess_med']:>8.0f} {r['ess_min'] / r['run']:>10.1f} "
                f"{float(np.abs(table['z_mean']).max()):>12.2f} "
                f"{float(np.abs(table['z_var']).max()):>11.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
