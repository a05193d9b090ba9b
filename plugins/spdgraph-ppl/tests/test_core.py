"""The PPL-free core: transform, log-Jacobian, density, normalizing constant, data, SBC."""

import networkx as nx
import numpy as np
import pytest
import scipy.special
import scipy.stats
import xarray as xr
from ppl_helpers import (
    DECOMPOSABLE_EDGES,
    decomposable,
    free_k,
    graphs,
    numerical_log_jacobian,
    random_spd,
)
from spdgraph_ppl import (
    SBCModel,
    data_matrix,
    exact_posterior,
    free_entries,
    free_to_phi,
    free_to_precision,
    from_free_entries,
    graph_structure,
    gwishart_logp,
    log_jacobian,
    log_normalizer,
    precision_to_free,
    prior_draws,
    rank_uniformity,
    sbc,
)

import spdgraph


@pytest.mark.parametrize("name", sorted(graphs()))
def test_transform_roundtrip_exact_zeros_and_spd(name):
    g = graphs()[name]
    s = graph_structure(g)
    rng = np.random.default_rng(0)
    nonedge = ~s.adjacency & ~np.eye(s.p, dtype=bool)
    for _ in range(20):
        u = rng.normal(scale=0.8, size=s.n_free)
        k = free_to_precision(u, g)
        assert np.all(k[nonedge] == 0.0)
        assert np.array_equal(k, k.T)
        assert np.linalg.eigvalsh(k).min() > 0
        # K_free matches Phi^T Phi on the free entries (the mask changes only non-edges);
        # Phi is in the transform's order
        phi = free_to_phi(u, g)
        inv = s.inverse_order
        gram = (phi.T @ phi)[np.ix_(inv, inv)]
        np.testing.assert_allclose(free_k(gram, s), free_k(k, s), rtol=1e-13, atol=1e-13)
        # the zeros set on the non-edges move K by rounding, amplified by its conditioning
        np.testing.assert_allclose(precision_to_free(k, g), u, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("name", sorted(graphs()))
def test_log_jacobian_matches_finite_differences(name):
    """p log 2 + sum (nu_i + 2) u_i against the determinant of a numerical Jacobian."""
    g = graphs()[name]
    s = graph_structure(g)
    rng = np.random.default_rng(1)
    for _ in range(3):
        u = rng.normal(scale=0.5, size=s.n_free)
        assert log_jacobian(u, g) == pytest.approx(numerical_log_jacobian(u, g), abs=1e-6)


def _ordered_graph(nodes, edges):
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    return g


def test_log_jacobian_depends_on_node_order():
    """nu_i counts later neighbours: a star with its hub first or last differs."""
    hub_first = graph_structure(_ordered_graph([0, 1, 2, 3], [(0, 1), (0, 2), (0, 3)]))
    hub_last = graph_structure(_ordered_graph([1, 2, 3, 0], [(0, 1), (0, 2), (0, 3)]))
    assert hub_first.nu.tolist() == [3, 0, 0, 0]
    assert hub_last.nu.tolist() == [1, 1, 1, 0]
    u = np.array([0.3, -0.2, 0.1, 0.4, 0.5, -0.5, 0.2])
    for s in (hub_first, hub_last):
        assert log_jacobian(u, s) == pytest.approx(numerical_log_jacobian(u, s), abs=1e-6)


@pytest.mark.parametrize(("p", "b", "seed"), [(2, 3.0, 0), (4, 3.0, 1), (5, 7.5, 2)])
def test_complete_graph_logp_is_scipy_wishart(p, b, seed):
    d = random_spd(p, seed)
    ks = scipy.stats.wishart(df=b + p - 1, scale=np.linalg.inv(d)).rvs(
        5, random_state=np.random.default_rng(seed)
    )
    for k in ks:
        value, normalized = gwishart_logp(k, b, d, nx.complete_graph(p))
        assert normalized
        expected = scipy.stats.wishart(df=b + p - 1, scale=np.linalg.inv(d)).logpdf(k)
        assert value == pytest.approx(expected, abs=1e-8)


def test_empty_graph_constant_is_product_of_gammas():
    d = np.diag([0.5, 2.0, 3.0])
    k = np.diag([1.5, 0.2, 4.0])
    value, normalized = gwishart_logp(k, 3.5, d, nx.empty_graph(3))
    expected = sum(
        scipy.stats.gamma(a=3.5 / 2, scale=2 / d[j, j]).logpdf(k[j, j]) for j in range(3)
    )
    assert normalized and value == pytest.approx(expected, abs=1e-10)


def _row_law_logpdf(phi, b, d, s):
    """Log density of Phi's free entries in a perfect elimination order (independent rows):
    Phi_ii^2 ~ chi2(b + nu_i) / s_i, Phi_{i,N} | Phi_ii ~ N(-Phi_ii A^-1 c, A^-1)."""
    out = 0.0
    for i in range(s.p):
        nbrs = np.flatnonzero(np.triu(s.adjacency, 1)[i])
        if nbrs.size:
            a = d[np.ix_(nbrs, nbrs)]
            c = d[nbrs, i]
            a_inv_c = np.linalg.solve(a, c)
            schur = d[i, i] - c @ a_inv_c
            out += scipy.stats.multivariate_normal(-phi[i, i] * a_inv_c, np.linalg.inv(a)).logpdf(
                phi[i, nbrs]
            )
        else:
            schur = d[i, i]
        x = phi[i, i] ** 2 * schur
        out += scipy.stats.chi2(b + nbrs.size).logpdf(x) + np.log(2 * phi[i, i] * schur)
    return out


def test_decomposable_normalizing_constant_from_the_row_factorization():
    """In a perfect elimination order the rows of Phi are independent with known laws
    (chi-square and Gaussian); their log density must equal the normalized G-Wishart
    log density of K plus log |dK/dPhi| = p log 2 + sum (nu_i + 1) log Phi_ii. This
    checks the clique/separator constant, independently of the samplers."""
    g = decomposable()
    s = graph_structure(g)
    assert s.elimination_order is not None
    rng = np.random.default_rng(5)
    for b in (3.0, 6.5):
        d = random_spd(s.p, 7)
        for _ in range(4):
            u = rng.normal(scale=0.5, size=s.n_free)
            phi = free_to_phi(u, s)
            k = free_to_precision(u, s)
            assert np.all(phi[np.triu(~s.adjacency, 1)] == 0)  # no fill-in in this order
            value, normalized = gwishart_logp(k, b, d, s)
            log_j = s.p * np.log(2) + np.sum((s.nu + 1) * np.log(np.diag(phi)))
            assert normalized
            assert value + log_j == pytest.approx(_row_law_logpdf(phi, b, d, s), abs=1e-9)


def test_normalizing_constant_does_not_depend_on_node_order():
    """Node i of the decomposable graph becomes row perm[i] (not an elimination order)."""
    perm = np.array([3, 0, 4, 1, 2])
    edges = [(int(perm[i]), int(perm[j])) for i, j in DECOMPOSABLE_EDGES]
    s2 = graph_structure(_ordered_graph(range(5), edges))
    d = random_spd(5, 8)
    d2 = np.empty_like(d)
    d2[np.ix_(perm, perm)] = d
    assert log_normalizer(4.0, d, decomposable()) == pytest.approx(
        log_normalizer(4.0, d2, s2), abs=1e-10
    )
    k = prior_draws(decomposable(), 4.0, d, size=1, seed=1)[0]
    k2 = np.empty_like(k)
    k2[np.ix_(perm, perm)] = k
    assert gwishart_logp(k, 4.0, d, decomposable())[0] == pytest.approx(
        gwishart_logp(k2, 4.0, d2, s2)[0], abs=1e-9
    )


def test_cliques_separators_and_non_decomposable_flag():
    s = graph_structure(decomposable())
    cliques, seps = s.cliques_and_separators
    assert [c.tolist() for c in cliques] == [[0, 1, 2], [1, 2, 3], [3, 4]]
    assert sorted(c.tolist() for c in seps) == [[1, 2], [3]]
    cycle = nx.cycle_graph(5)
    k = free_to_precision(np.zeros(10), cycle)
    value, normalized = gwishart_logp(k, 3.0, None, cycle)
    assert not normalized
    assert value == pytest.approx(0.5 * np.linalg.slogdet(k)[1] - np.trace(k) / 2)
    assert log_normalizer(3.0, None, cycle) is None
    with pytest.raises(spdgraph.InvalidOptionError, match="decomposable"):
        graph_structure(cycle).cliques_and_separators  # noqa: B018


def test_logp_outside_support_is_minus_inf():
    g = nx.path_graph(3)
    k = np.array([[2.0, 0.5, 0.1], [0.5, 2.0, 0.5], [0.1, 0.5, 2.0]])
    assert gwishart_logp(k, 3.0, None, g)[0] == -np.inf
    k[0, 2] = k[2, 0] = 0.0
    assert np.isfinite(gwishart_logp(k, 3.0, None, g)[0])
    k[1, 1] = -1.0
    assert gwishart_logp(k, 3.0, None, g)[0] == -np.inf


def test_data_matrix_accepts_spd_draw_output_in_any_node_order():
    g = decomposable(labels=list("abcde"))
    k = spdgraph.sample(
        g, "gwishart", kind="precision", normalize=False, seed=1, algorithm="chordal"
    )
    data = k.spd.draw(7, seed=2)
    assert data.dims == ("obs", "node")
    x, obs = data_matrix(data, g)
    np.testing.assert_array_equal(x, data.values)
    shuffled = data.isel(node=[4, 2, 0, 1, 3]).transpose("node", "obs")
    x2, _ = data_matrix(shuffled, g)
    np.testing.assert_array_equal(x2, data.values)
    assert obs.tolist() == list(range(7))
    bad = data.assign_coords(node=list("vwxyz"))
    with pytest.raises(ValueError, match="node labels"):
        data_matrix(bad, g)
    with pytest.raises(ValueError, match=r"\(n, 5\)"):
        data_matrix(np.zeros((3, 4)), g)
    with pytest.raises(ValueError, match="NaN"):
        data_matrix(np.full((3, 5), np.nan), g)


def test_exact_posterior_is_gwishart_with_updated_parameters():
    """W_G(b + n, D + X^T X): with X^T X = c I and D = I, every diagonal entry of K on the
    empty graph is Gamma((b + n)/2, rate (1 + c)/2); mean checked within 4.5 SE."""
    g = nx.empty_graph(3)
    x = np.sqrt(2.0) * np.eye(3)  # n = 3, X^T X = 2 I
    post = exact_posterior(x, g, b=3.0, size=4000, seed=3)
    assert post.dims == ("draw", "node", "node_2")
    law = scipy.stats.gamma(a=(3.0 + 3) / 2, scale=2 / 3.0)
    for j in range(3):
        v = post.values[:, j, j]
        assert abs(v.mean() - law.mean()) < 4.5 * law.std() / np.sqrt(v.size)
    with pytest.raises(spdgraph.InvalidOptionError, match="decomposable"):
        exact_posterior(np.zeros((2, 5)), nx.cycle_graph(5))


def test_prior_draws_exact_zeros_and_free_entries_roundtrip():
    g = decomposable()
    s = graph_structure(g)
    k = prior_draws(g, 3.0, random_spd(5, 1), size=3, seed=0)
    assert np.all(k[:, ~s.adjacency & ~np.eye(5, dtype=bool)] == 0)
    np.testing.assert_array_equal(from_free_entries(free_entries(k, s), s), k)


def _normal_sbc_model(scale):
    """Conjugate normal mean (prior N(0, 1), 4 observations N(mu, 1)): posterior
    N(sum y / 5, 1 / 5). ``scale`` < 1 makes the 'posterior' too narrow."""
    return SBCModel(
        draw_prior=lambda rng: {"mu": rng.normal(size=2)},
        draw_data=lambda rng, t: rng.normal(t["mu"], 1.0, size=(4, 2)),
        fit=lambda y, seed: {
            "mu": np.random.default_rng(seed).normal(
                y.sum(axis=0) / 5, scale * np.sqrt(1 / 5), size=(19, 2)
            )
        },
        dims={"mu": ("component",)},
    )


def test_sbc_uniform_for_exact_posterior_and_detects_a_narrow_one():
    good = sbc(_normal_sbc_model(1.0), n_simulations=300, seed=4)
    assert isinstance(good.ranks, xr.Dataset)
    assert good.ranks["mu"].dims == ("simulation", "component")
    assert good.ranks.attrs["n_draws"] == 19
    assert int(good.ranks["mu"].max()) <= 19
    assert good.min_pvalue > 1e-3
    bad = sbc(_normal_sbc_model(0.5), n_simulations=300, seed=4)
    assert bad.min_pvalue < 1e-6


def test_rank_uniformity_bins():
    ranks = xr.Dataset({"x": ("simulation", np.arange(100) % 10)}, attrs={"n_draws": 9})
    out = rank_uniformity(ranks)
    assert out.attrs["n_bins"] == 10
    assert float(out["x_chi2"]) == 0.0
    with pytest.raises(ValueError, match="divide"):
        rank_uniformity(ranks, n_bins=3)
    assert float(rank_uniformity(ranks, n_bins=5)["x_pvalue"]) == pytest.approx(1.0)
    piled = xr.Dataset({"x": ("simulation", np.zeros(100, dtype=int))}, attrs={"n_draws": 9})
    assert float(rank_uniformity(piled)["x_pvalue"]) == pytest.approx(
        scipy.special.chdtrc(9, 900.0)
    )


def test_compare_to_exact_flags_a_shift_and_passes_exact_draws():
    pytest.importorskip("arviz")
    from spdgraph_ppl import compare_to_exact

    g = decomposable()
    exact = prior_draws(g, 5.0, None, size=4000, seed=1)
    same = prior_draws(g, 5.0, None, size=2000, seed=2).reshape(2, 1000, 5, 5)
    table = compare_to_exact(same, exact, g)
    assert table.sizes["entry"] == 11
    assert table["entry"].values[0] == "K[0,0]" and table["entry"].values[5] == "K[0,1]"
    assert float(np.abs(table["z_mean"]).max()) < 4.5
    assert float(np.abs(table["z_var"]).max()) < 4.5
    assert float(table["ess"].min()) > 1000  # independent draws
    assert table["z_cov"].dims == ("entry", "entry_2")
    assert float(np.abs(table["z_cov"]).max()) < 4.5
    np.testing.assert_allclose(np.diag(table["cov_exact"].values), table["var_exact"].values)
    np.testing.assert_allclose(np.diag(table["cov_mcmc"].values), table["var_mcmc"].values)
    scaled = compare_to_exact(same * 1.1, exact, g)
    assert float(np.abs(scaled["z_mean"]).max()) > 6
    wider = compare_to_exact(same * 1.3, exact, g)  # second moments x 1.69
    assert float(np.abs(wider["z_cov"]).max()) > 6
