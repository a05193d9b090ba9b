"""Figure of docs/ppl.md: SBC rank ECDFs of the NumPyro G-Wishart GGM.

    python docs/figures/plot_sbc_ecdf.py    # writes docs/figures/sbc_ecdf.png

Needs ``pip install "./plugins/spdgraph-ppl[numpyro]" matplotlib``.
"""

from pathlib import Path


def main() -> None:
    import jax
    import matplotlib

    matplotlib.use("Agg")
    import networkx as nx
    from spdgraph_ppl import sbc
    from spdgraph_ppl.numpyro import sbc_model
    from spdgraph_ppl.sbc import plot_rank_ecdf

    jax.config.update("jax_enable_x64", True)
    result = sbc(
        sbc_model(nx.path_graph(3), b=3.0, n_obs=8, draws=198, tune=300, thin=2),
        n_simulations=200,
        seed=6,
    )
    ax = plot_rank_ecdf(result, "K_free")
    ax.set_title(
        "SBC, NumPyro NUTS, 3-node path: 5 free entries of K, 200 simulations\n"
        f"chi-square of the ranks: smallest Bonferroni-adjusted p = {result.min_pvalue:.2f}",
        fontsize="small",
    )
    ax.figure.tight_layout()
    ax.figure.savefig(Path(__file__).with_name("sbc_ecdf.png"), dpi=120)


if __name__ == "__main__":
    main()
