"""PyMC front end: GWishart logp, transform, forward draws, ggm_model, exact-vs-NUTS, SBC."""

import networkx as nx
import numpy as np
import pytest
import scipy.stats
from ppl_helpers import decomposable, ggm_problem, graphs, random_spd

pm = pytest.importorskip("pymc")
pt = pytest.importorskip("pytensor.tensor")
import pytensor  # noqa: E402
from pytensor.gradient import jacobian  # noqa: E402
from spdgraph_ppl import (  # noqa: E402
    compare_to_exact,
    free_to_precision,
    graph_structure,
    gwishart_logp,
    precision_to_free,
    sbc,
)
from spdgraph_ppl.pymc import GraphCholeskyTransform, GWishart, ggm_model, sbc_model  # noqa: E402

from spdgraph import sample  # noqa: E402


@pytest.mark.parametrize(("p", "b", "seed"), [(3, 3.0, 0), (5, 6.5, 1)])
def test_complete_graph_logp_is_scipy_wishart(p, b, seed):
    d = random_spd(p, seed)
    law = scipy.stats.wishart(df=b + p - 1, scale=np.linalg.inv(d))
    ks = law.rvs(3, random_state=np.random.default_rng(seed))
    value = pt.matrix("k")
    logp = pytensor.function(
        [value], pm.logp(GWishart.dist(graph=nx.complete_graph(p), b=b, D=d), value)
    )
    for k in ks:
        assert float(logp(k)) == pytest.approx(law.logpdf(k), abs=1e-8)


@pytest.mark.parametrize("name", ["cycle5", "decomposable5", "empty3"])
def test_logp_matches_numpy_reference(name):
    g = graphs()[name]
    s = graph_structure(g)
    d = random_spd(s.p, 3)
    k = free_to_precision(np.random.default_rng(2).normal(scale=0.4, size=s.n_free), s)
    expected, normalized = gwishart_logp(k, 4.0, d, s)
    got = pm.logp(GWishart.dist(graph=g, b=4.0, D=d), k).eval()
    assert float(got) == pytest.approx(expected, abs=1e-9)
    assert normalized == s.decomposable
    bad = k.copy()
    i, j = (
        np.argwhere(~s.adjacency & ~np.eye(s.p, dtype=bool))[0]
        if not s.adjacency.all()
        else (0, 0)
    )
    bad[i, j] = bad[j, i] = 1e-3
    assert float(pm.logp(GWishart.dist(graph=g, b=4.0, D=d), bad).eval()) == -np.inf


# one graph with edges by default (decomposable5, cheap); the others in the long run (-m slow)
@pytest.mark.parametrize(
    "name",
    [
        name if name == "decomposable5" else pytest.param(name, marks=pytest.mark.slow)
        for name in sorted(graphs())
    ],
)
def test_transform_log_jac_det_matches_autodiff(name):
    """log_jac_det against log |det| of PyTensor's Jacobian of backward on the free K entries."""
    g = graphs()[name]
    s = graph_structure(g)
    tr = GraphCholeskyTransform(g)
    u = pt.vector("u")
    k = tr.backward(u)
    rows, cols = s.edges
    idx = np.arange(s.p)
    k_free = pt.concatenate([k[idx, idx], k[rows, cols]])
    jac = jacobian(k_free, u)
    f = pytensor.function([u], [k, pt.linalg.slogdet(jac)[1], tr.log_jac_det(u)])
    rng = np.random.default_rng(4)
    for _ in range(3):
        u0 = rng.normal(scale=0.5, size=s.n_free)
        k0, autodiff, formula = f(u0)
        assert float(formula) == pytest.approx(float(autodiff), abs=1e-8)
        np.testing.assert_allclose(k0, free_to_precision(u0, s), rtol=1e-12, atol=1e-12)
        assert np.all(k0[~s.adjacency & ~np.eye(s.p, dtype=bool)] == 0)
    kk = free_to_precision(u0, s)
    np.testing.assert_allclose(
        tr.forward(pt.as_tensor_variable(kk)).eval(),
        precision_to_free(kk, s),
        rtol=1e-10,
        atol=1e-10,
    )


def test_draw_prior_predictive_dims_and_exact_zeros():
    g = decomposable(labels=list("abcde"))
    s = graph_structure(g)
    draws = pm.draw(GWishart.dist(graph=g, b=3.0, size=50), random_seed=1)
    assert draws.shape == (50, 5, 5)
    assert np.all(draws[:, ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
    assert np.all(np.linalg.eigvalsh(draws) > 0)
    x = np.random.default_rng(0).normal(size=(8, 5))
    with ggm_model(x, g):
        prior = pm.sample_prior_predictive(draws=20, random_seed=2)
    k = prior.prior["K"]
    assert k.dims == ("chain", "draw", "node", "node_2")
    assert k["node"].values.tolist() == list("abcde")
    assert np.all(k.values[..., ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
    assert prior.prior_predictive["X"].dims == ("chain", "draw", "obs", "node")


@pytest.mark.slow
def test_forward_draws_are_the_exact_sampler():
    """pm.draw goes through spdgraph: complete graph mean (b + p - 1) D^-1 within 4.5 SE."""
    p, b, n = 3, 4.0, 3000
    d = random_spd(p, 6)
    k = pm.draw(GWishart.dist(graph=nx.complete_graph(p), b=b, D=d, size=n), random_seed=3)
    dof, cov = b + p - 1, np.linalg.inv(d)
    var = dof * (cov**2 + np.outer(np.diag(cov), np.diag(cov)))
    z = (k.mean(axis=0) - dof * cov) / np.sqrt(var / n)
    assert np.abs(z).max() < 4.5


def test_coords_in_a_model_and_conflicts():
    g = nx.path_graph(["x", "y", "z"])
    with pm.Model() as model:
        GWishart("K", graph=g)
    assert model.coords["node"] == ("x", "y", "z")
    with pm.Model(coords={"node": ["u", "v", "w"]}), pytest.raises(ValueError, match="labels"):
        GWishart("K", graph=g)
    with pytest.raises(ValueError, match="b > 2"):
        GWishart.dist(graph=g, b=2.0)


@pytest.mark.slow
def test_ggm_model_accepts_spd_draw_output():
    g = decomposable(labels=list("abcde"))
    k = sample(g, "gwishart", kind="precision", normalize=False, seed=1, algorithm="chordal")
    data = k.spd.draw(6, seed=2).isel(node=[4, 3, 2, 1, 0])
    model = ggm_model(data, g)
    np.testing.assert_array_equal(model["X_data"].get_value(), data.sel(node=list("abcde")).values)
    assert model.named_vars_to_dims["X"] == ("obs", "node")
    point = model.initial_point()
    assert np.isfinite(model.compile_logp()(point))


@pytest.mark.integration
def test_nuts_posterior_matches_exact_conjugate_posterior():
    """Every free entry's posterior mean and variance within 4 Monte Carlo SE of the exact
    W_G(b + n, D + X^T X) (22 comparisons; fixed seeds)."""
    g, d, x, exact = ggm_problem()
    s = graph_structure(g)
    with ggm_model(x, g, b=3.0, D=d):
        idata = pm.sample(
            draws=1000,
            tune=600,
            chains=2,
            random_seed=24,
            progressbar=False,
            compute_convergence_checks=False,
        )
    assert np.all(idata.posterior["K"].values[..., ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
    table = compare_to_exact(idata.posterior["K"], exact, g)
    print(table[["mean_mcmc", "mean_exact", "z_mean", "var_mcmc", "var_exact", "z_var", "ess"]]
          .to_dataframe().round(3).to_string())  # fmt: skip
    z_mean, z_var, ess = table["z_mean"].values, table["z_var"].values, table["ess"].values
    assert ess.min() > 300, ess
    assert np.abs(z_mean).max() < 4.0, z_mean
    assert np.abs(z_var).max() < 4.0, z_var
    z_cov = table["z_cov"].values[np.triu_indices(table.sizes["entry"], 1)]
    print(f"largest |z| of the {z_cov.size} covariances: {np.abs(z_cov).max():.2f}")
    assert np.abs(z_cov).max() < 4.5, z_cov  # 55 pairs: Bonferroni at ~1e-3


@pytest.mark.slow
@pytest.mark.integration
def test_sbc_pymc_ranks_uniform():
    """SBC (Talts et al. 2018) on a 3-node path: 100 simulations, 19 thinned draws, chi-square
    of the ranks of every free entry (Bonferroni-adjusted smallest p-value > 1e-3). Slow
    (each PyMC fit pays pm.sample's set-up and PyTensor's per-operation overhead): run with
    ``-m slow``."""
    result = sbc(
        sbc_model(nx.path_graph(3), b=3.0, n_obs=8, draws=95, tune=200, thin=5),
        n_simulations=100,
        seed=5,
    )
    assert result.ranks["K_free"].shape == (100, 5)
    assert result.ranks.attrs["n_draws"] == 19
    print(f"SBC min Bonferroni-adjusted p-value: {result.min_pvalue:.3g}")
    assert result.min_pvalue > 1e-3, result.uniformity


def test_ggm_model_holds_blas_to_one_thread_inside_its_context():
    """pm.sample inside ``with ggm_model(...)`` runs with one BLAS thread (issue 47: the
    docs example was 10x slower with OpenBLAS's default threads); limits restored after."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    if not blas():
        pytest.skip("no BLAS library visible to threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas()
        model = ggm_model(np.zeros((5, 3)), nx.path_graph(3))
        assert blas() == before
        with model:
            assert set(blas()) == {1}
            with model:
                assert set(blas()) == {1}
            assert set(blas()) == {1}
        assert blas() == before
