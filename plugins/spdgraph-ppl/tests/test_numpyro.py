"""NumPyro front end: GWishart log_prob, constraint and transform, sample, ggm_model,
exact-vs-NUTS and SBC."""

import networkx as nx
import numpy as np
import pytest
import scipy.stats
from ppl_helpers import decomposable, ggm_problem, graphs, random_spd

jax = pytest.importorskip("jax")
numpyro = pytest.importorskip("numpyro")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from numpyro.distributions.transforms import biject_to  # noqa: E402
from numpyro.infer import MCMC, NUTS, Predictive  # noqa: E402
from spdgraph_ppl import (  # noqa: E402
    compare_to_exact,
    free_entries,
    free_to_precision,
    graph_structure,
    gwishart_logp,
    precision_to_free,
    sbc,
)
from spdgraph_ppl.numpyro import (  # noqa: E402
    GraphCholeskyTransform,
    GraphPrecisionConstraint,
    GWishart,
    ggm_model,
    sbc_model,
)


@pytest.mark.parametrize(("p", "b", "seed"), [(3, 3.0, 0), (5, 6.5, 1)])
def test_complete_graph_log_prob_is_scipy_wishart(p, b, seed):
    d = random_spd(p, seed)
    law = scipy.stats.wishart(df=b + p - 1, scale=np.linalg.inv(d))
    ks = law.rvs(3, random_state=np.random.default_rng(seed))
    got = GWishart(nx.complete_graph(p), b, d).log_prob(jnp.asarray(ks))
    np.testing.assert_allclose(np.asarray(got), law.logpdf(np.moveaxis(ks, 0, -1)), atol=1e-8)


@pytest.mark.parametrize("name", ["cycle5", "decomposable5", "empty3"])
def test_log_prob_matches_numpy_reference(name):
    g = graphs()[name]
    s = graph_structure(g)
    d = random_spd(s.p, 3)
    k = free_to_precision(np.random.default_rng(2).normal(scale=0.4, size=s.n_free), s)
    expected, normalized = gwishart_logp(k, 4.0, d, s)
    dist = GWishart(g, 4.0, d)
    assert float(dist.log_prob(jnp.asarray(k))) == pytest.approx(expected, abs=1e-9)
    assert dist.is_normalized == normalized == s.decomposable
    assert bool(dist.support(jnp.asarray(k)))
    if not s.adjacency.all():
        i, j = np.argwhere(~s.adjacency & ~np.eye(s.p, dtype=bool))[0]
        bad = k.copy()
        bad[i, j] = bad[j, i] = 1e-3
        assert float(dist.log_prob(jnp.asarray(bad))) == -np.inf
        assert not bool(dist.support(jnp.asarray(bad)))


# one graph with edges by default (decomposable5, cheap); the others in the long run (-m slow)
@pytest.mark.parametrize(
    "name",
    [
        name if name == "decomposable5" else pytest.param(name, marks=pytest.mark.slow)
        for name in sorted(graphs())
    ],
)
def test_transform_log_abs_det_jacobian_matches_jax_autodiff(name):
    g = graphs()[name]
    s = graph_structure(g)
    tr = biject_to(GraphPrecisionConstraint(g))
    assert isinstance(tr, GraphCholeskyTransform)
    rows, cols = s.edges
    idx = np.arange(s.p)

    def k_free(u):
        k = tr(u)
        return jnp.concatenate([k[idx, idx], k[rows, cols]])

    rng = np.random.default_rng(4)
    for _ in range(3):
        u = jnp.asarray(rng.normal(scale=0.5, size=s.n_free))
        autodiff = jnp.linalg.slogdet(jax.jacfwd(k_free)(u))[1]
        k = tr(u)
        assert float(tr.log_abs_det_jacobian(u, k)) == pytest.approx(float(autodiff), abs=1e-8)
        np.testing.assert_allclose(np.asarray(k), free_to_precision(np.asarray(u), s), atol=1e-12)
        assert np.all(np.asarray(k)[~s.adjacency & ~np.eye(s.p, dtype=bool)] == 0)
        np.testing.assert_allclose(
            np.asarray(tr.inv(k)), precision_to_free(np.asarray(k), s), atol=1e-10
        )
    batch = jnp.asarray(rng.normal(scale=0.5, size=(2, 3, s.n_free)))
    assert tr(batch).shape == (2, 3, s.p, s.p)
    assert tr.forward_shape((2, s.n_free)) == (2, s.p, s.p)
    assert tr.inverse_shape((2, s.p, s.p)) == (2, s.n_free)


def test_sample_is_spdgraph_exact_draw_and_jit_vmap_work():
    p, b, n = 3, 4.0, 3000
    d = random_spd(p, 6)
    k = np.asarray(GWishart(nx.complete_graph(p), b, d).sample(jax.random.PRNGKey(3), (n,)))
    dof, cov = b + p - 1, np.linalg.inv(d)
    var = dof * (cov**2 + np.outer(np.diag(cov), np.diag(cov)))
    z = (k.mean(axis=0) - dof * cov) / np.sqrt(var / n)
    assert np.abs(z).max() < 4.5
    g = decomposable()
    s = graph_structure(g)
    dist = GWishart(g, 3.0)
    jitted = jax.jit(lambda key: dist.sample(key, (4,)))(jax.random.PRNGKey(0))
    vmapped = jax.vmap(lambda key: dist.sample(key))(jax.random.split(jax.random.PRNGKey(0), 3))
    for draws in (np.asarray(jitted), np.asarray(vmapped)):
        assert np.all(draws[:, ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
        assert np.all(np.linalg.eigvalsh(draws) > 0)
    a = dist.sample(jax.random.PRNGKey(7))
    assert np.array_equal(np.asarray(a), np.asarray(dist.sample(jax.random.PRNGKey(7))))
    assert not np.array_equal(np.asarray(a), np.asarray(dist.sample(jax.random.PRNGKey(8))))


def test_ggm_model_predictive_and_dataarray_input():
    from spdgraph import sample

    g = decomposable(labels=list("abcde"))
    k = sample(g, "gwishart", kind="precision", normalize=False, seed=1, algorithm="chordal")
    data = k.spd.draw(6, seed=2).isel(node=[4, 3, 2, 1, 0])
    model = ggm_model(data, g)
    assert model.coords["node"] == list("abcde")
    prior = Predictive(model, num_samples=5)(jax.random.PRNGKey(0), X=None, n_obs=6)
    assert prior["K"].shape == (5, 5, 5) and prior["X"].shape == (5, 6, 5)
    s = graph_structure(g)
    assert np.all(np.asarray(prior["K"])[:, ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)


@pytest.mark.integration
def test_nuts_posterior_matches_exact_conjugate_posterior():
    """Every free entry's posterior mean and variance within 4 Monte Carlo SE of the exact
    W_G(b + n, D + X^T X) (the same problem as the PyMC test)."""
    import arviz as az

    g, d, x, exact = ggm_problem()
    s = graph_structure(g)
    mcmc = MCMC(
        NUTS(ggm_model(x, g, b=3.0, D=d)),
        num_warmup=600,
        num_samples=1000,
        num_chains=2,
        chain_method="sequential",
        progress_bar=False,
    )
    mcmc.run(jax.random.PRNGKey(24))
    k = np.asarray(mcmc.get_samples(group_by_chain=True)["K"])
    assert np.all(k[..., ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
    table = compare_to_exact(k, exact, g)
    print(table[["mean_mcmc", "mean_exact", "z_mean", "var_mcmc", "var_exact", "z_var", "ess"]]
          .to_dataframe().round(3).to_string())  # fmt: skip
    z_mean, z_var, ess = table["z_mean"].values, table["z_var"].values, table["ess"].values
    assert ess.min() > 300, ess
    assert np.abs(z_mean).max() < 4.0, z_mean
    assert np.abs(z_var).max() < 4.0, z_var
    z_cov = table["z_cov"].values[np.triu_indices(table.sizes["entry"], 1)]
    print(f"largest |z| of the {z_cov.size} covariances: {np.abs(z_cov).max():.2f}")
    assert np.abs(z_cov).max() < 4.5, z_cov  # 55 pairs: Bonferroni at ~1e-3
    idata = az.from_numpyro(mcmc, coords=ggm_model(x, g).coords, dims=ggm_model(x, g).dims)
    assert idata.posterior["K"].dims == ("chain", "draw", "node", "node_2")


@pytest.mark.integration
def test_sbc_numpyro_ranks_uniform():
    """SBC (Talts et al. 2018) on a 3-node path: 200 simulations, 99 thinned draws each,
    chi-square (20 bins) of the ranks of every free entry (Bonferroni-adjusted smallest
    p-value > 1e-3)."""
    result = sbc(
        sbc_model(nx.path_graph(3), b=3.0, n_obs=8, draws=198, tune=300, thin=2),
        n_simulations=200,
        seed=6,
    )
    assert result.ranks["K_free"].shape == (200, 5)
    assert result.ranks.attrs["n_draws"] == 99
    assert result.uniformity.attrs["n_bins"] == 20
    print(f"SBC min Bonferroni-adjusted p-value: {result.min_pvalue:.3g}")
    assert result.min_pvalue > 1e-3, result.uniformity


@pytest.mark.integration
def test_sbc_detects_a_wrong_posterior():
    """The same SBC with the prior's b misstated in the fitted model (b = 6 instead of 3):
    ranks are not uniform (Bonferroni-adjusted smallest p-value < 1e-3)."""
    from spdgraph_ppl import SBCModel, graph_structure
    from spdgraph_ppl.numpyro import nuts_fitter
    from spdgraph_ppl.sbc import sbc_data, sbc_prior

    s = graph_structure(nx.path_graph(3))
    run = nuts_fitter(s, 6.0, None, n_obs=2, draws=198, tune=300)
    model = SBCModel(
        draw_prior=sbc_prior(s, 3.0, np.eye(3)),
        draw_data=sbc_data(s, 2),
        fit=lambda x, seed: {
            "K_free": free_entries(np.asarray(run(jax.random.PRNGKey(seed), x))[::2], s)
        },
    )
    assert sbc(model, n_simulations=200, seed=7).min_pvalue < 1e-3


@pytest.mark.slow
@pytest.mark.integration
def test_nuts_second_moments_on_a_tree_match_the_exact_posterior():
    """Issue 47: on a held-out 6-node tree the variance of K[5,5] came out 9% low (z -3.05).
    The tree's node order had fill-in in the old transform; the transform now works in a
    perfect elimination order (no completed entries). Means, variances and every
    covariance of the 11 free entries within Monte Carlo error (ESS-based), 4 chains x
    2500 draws against 40,000 exact draws."""
    import networkx as nx
    from spdgraph_ppl import exact_posterior

    from spdgraph import sample

    tree = nx.random_labeled_tree(6, seed=11)
    g = nx.Graph()
    g.add_nodes_from(range(6))
    g.add_edges_from(tree.edges)
    truth = sample(g, "gwishart", kind="precision", normalize=False, seed=1)
    x = truth.spd.draw(15, seed=2).values
    exact = exact_posterior(x, g, b=3.0, size=40_000, seed=3)
    mcmc = MCMC(
        NUTS(ggm_model(x, g, b=3.0)),
        num_warmup=1000,
        num_samples=2500,
        num_chains=4,
        chain_method="sequential",
        progress_bar=False,
    )
    mcmc.run(jax.random.PRNGKey(5))
    table = compare_to_exact(np.asarray(mcmc.get_samples(group_by_chain=True)["K"]), exact, g)
    z_cov = table["z_cov"].values[np.triu_indices(table.sizes["entry"], 1)]
    print(table[["var_mcmc", "var_exact", "z_var", "ess"]].to_dataframe().round(3).to_string())
    worst = [float(np.abs(v).max()) for v in (table["z_mean"], table["z_var"], z_cov)]
    print("largest |z| of means, variances, covariances:", np.round(worst, 2))
    assert np.abs(table["z_mean"].values).max() < 4.0
    assert np.abs(table["z_var"].values).max() < 4.0
    assert np.abs(z_cov).max() < 4.5
