"""Check: NUTS under the G-Wishart prior vs the default ``gwishart`` sampler (Lenkoski).

On graphs where no exact sampler exists (a cycle, not decomposable) and on the
graph without edges (where Lenkoski's joint law is known to be wrong), draw
W_G(3, I) with NumPyro's NUTS on ``spdgraph_ppl.numpyro.GWishart`` (4 chains)
and with ``spdgraph.sample(..., "gwishart")`` (Lenkoski 2013, as BDgraph), and
print per free entry of K the z-scores of the means and variances
(``spdgraph_ppl.compare_to_exact``, NUTS error from its ESS) and the largest
difference between the two correlation matrices of the free entries.

    python benchmarks/check_ppl_nondecomposable.py [--draws 5000] [--reference 40000]

Needs ``pip install "./plugins/spdgraph-ppl[numpyro]"``.
"""

from __future__ import annotations

import argparse

import networkx as nx
import numpy as np


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=5000)
    parser.add_argument("--reference", type=int, default=40000)
    args = parser.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    import numpyro
    from numpyro.infer import MCMC, NUTS
    from spdgraph_ppl import compare_to_exact, free_entries, graph_structure, prior_draws
    from spdgraph_ppl.numpyro import GWishart

    graphs = {
        "cycle C5": nx.cycle_graph(5),
        "cycle C4 + pendant": nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (3, 4)]),
        "no edges (p = 4)": nx.empty_graph(4),
    }
    for name, g in graphs.items():
        s = graph_structure(g)

        def model(s=s) -> None:
            numpyro.sample("K", GWishart(s, 3.0))

        mcmc = MCMC(
            NUTS(model),
            num_warmup=1000,
            num_samples=args.draws,
            num_chains=4,
            chain_method="sequential",
            progress_bar=False,
        )
        mcmc.run(jax.random.PRNGKey(0))
        nuts = np.asarray(mcmc.get_samples(group_by_chain=True)["K"])
        ref = prior_draws(s, 3.0, None, size=args.reference, seed=1, algorithm="lenkoski")
        table = compare_to_exact(nuts, ref, s)
        corr_n = np.corrcoef(free_entries(nuts.reshape(-1, s.p, s.p), s).T)
        corr_r = np.corrcoef(free_entries(ref, s).T)
        iu = np.triu_indices(s.n_free, 1)
        diff = np.abs(corr_n - corr_r)[iu]
        worst = int(np.argmax(diff))
        labels = table["entry"].values
        print(
            f"\n{name}: NUTS ({4 * args.draws} draws, min ESS "
            f"{float(table['ess'].min()):.0f}) vs Lenkoski ({args.reference} draws)"
        )
        print(
            table.to_dataframe()[
                ["mean_mcmc", "mean_exact", "z_mean", "var_mcmc", "var_exact", "z_var"]
            ]
            .rename(
                columns={
                    "mean_mcmc": "mean_nuts",
                    "mean_exact": "mean_lenkoski",
                    "var_mcmc": "var_nuts",
                    "var_exact": "var_lenkoski",
                }
            )
            .round(3)
            .to_string()
        )
        print(
            f"largest |corr_nuts - corr_lenkoski| between free entries: {diff[worst]:.3f} "
            f"({labels[iu[0][worst]]} with {labels[iu[1][worst]]}: NUTS "
            f"{corr_n[iu][worst]:.3f}, Lenkoski {corr_r[iu][worst]:.3f})"
        )


if __name__ == "__main__":
    main()
