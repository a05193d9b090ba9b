"""The gwishart plugin: discovery, exactness, options, and its law (statistical tests).

Statistical tests use fixed seeds (deterministic) and thresholds stated in each
test; with independent seeds their false-alarm rate would be below 1e-3.
"""

from importlib.metadata import entry_points

import networkx as nx
import numpy as np
import pytest
import scipy.stats
from spdgraph_gwishart import GWishartLenkoskiWarning, gwishart, wishart_bartlett

import spdgraph

# a decomposable graph whose node order 0..4 is a perfect elimination ordering
DECOMPOSABLE = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 4)]


def _adjacency(p, edges):
    a = np.zeros((p, p), dtype=bool)
    for i, j in edges:
        a[i, j] = a[j, i] = True
    return a


def _draws(adjacency, n, seed, **options):
    da = spdgraph.sample(
        adjacency, "gwishart", size=n, seed=seed, kind="precision", normalize=False, **options
    )
    return da.values


# ----------------------------------------------------------------------- slow references


def lenkoski_reference(adjacency, sigma, tol=1e-13, max_iter=100_000):
    """Lenkoski's step 2 and 3, literally, with numpy (no speed tricks)."""
    p = sigma.shape[0]
    w = sigma.copy()
    for _ in range(max_iter):
        before = w.copy()
        for j in range(p):
            n = np.flatnonzero(adjacency[j])
            others = [i for i in range(p) if i != j]
            if n.size == 0:
                w[others, j] = 0.0
                w[j, others] = 0.0
                continue
            beta = np.linalg.solve(w[np.ix_(n, n)], sigma[n, j])
            col = w[:, n] @ beta
            w[others, j] = col[others]
            w[j, others] = col[others]
        if np.abs(w - before).max() <= tol * np.diag(sigma).max():
            break
    return np.linalg.inv(w)


def decomposable_reference(adjacency, b, d_diag, rng):
    """Independent exact sampler for a decomposable graph in perfect elimination order.

    Roverato (2002) / Atay-Kayis & Massam (2005): for D = I, K = Phi^T Phi with Phi
    upper triangular, zero off the edges, Phi_ij ~ N(0, 1) on edges i < j and
    Phi_ii^2 ~ chi2(b + nu_i), nu_i = number of neighbours j > i. A diagonal D is
    handled by K = D^-1/2 K' D^-1/2 (tr(D K) = tr(K'), same pattern, constant Jacobian).
    """
    p = adjacency.shape[0]
    upper = np.triu(adjacency, 1)
    phi = np.zeros((p, p))
    for i in range(p):
        phi[i, i] = np.sqrt(rng.chisquare(b + upper[i].sum()))
        for j in range(i + 1, p):
            if upper[i, j]:
                phi[i, j] = rng.standard_normal()
    k = phi.T @ phi
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(np.abs(k[nonedge]) < 1e-12), "node order is not a perfect elimination order"
    k[nonedge] = 0.0
    s = 1 / np.sqrt(d_diag)
    return k * np.outer(s, s)


# ----------------------------------------------------------------------- discovery, exactness


def test_discovered_through_entry_point_only():
    names = {ep.name: ep.value for ep in entry_points(group="spdgraph")}
    assert names.get("gwishart") == "spdgraph_gwishart.plugin"
    spdgraph.reset_plugin_manager()
    assert "gwishart" in spdgraph.methods()


def test_exact_zeros_symmetry_pd_and_reproducible():
    g = nx.cycle_graph(7)  # not decomposable
    g.add_edge(0, 3)
    adjacency = nx.to_numpy_array(g, dtype=bool)
    k = _draws(adjacency, 5, seed=2)
    nonedge = ~adjacency & ~np.eye(7, dtype=bool)
    assert np.all(k[:, nonedge] == 0.0)
    assert np.array_equal(k, np.swapaxes(k, 1, 2))
    np.linalg.cholesky(k)
    np.testing.assert_array_equal(k, _draws(adjacency, 5, seed=2))
    np.testing.assert_array_equal(k[0], _draws(adjacency, 1, seed=2)[0])


def test_kernel_matches_slow_reference():
    for p, d in [(6, 0.4), (12, 0.3), (20, 0.15)]:
        adjacency = nx.to_numpy_array(nx.gnp_random_graph(p, d, seed=p), dtype=bool)
        with pytest.warns(GWishartLenkoskiWarning):
            k = gwishart(
                adjacency, rng=np.random.default_rng(p), entries=None, b=4.0, algorithm="lenkoski"
            )
        k0 = wishart_bartlett(np.random.default_rng(p), 4.0, np.eye(p))
        ref = lenkoski_reference(adjacency, np.linalg.inv(k0))
        scale = np.sqrt(np.outer(np.diag(ref), np.diag(ref)))
        assert np.abs(k - ref).max() / scale.max() < 1e-8


def test_complete_graph_is_the_bartlett_draw():
    adjacency = ~np.eye(4, dtype=bool)
    d = np.array([[2.0, 0.5, 0, 0], [0.5, 1.0, 0, 0], [0, 0, 1.0, 0.2], [0, 0, 0.2, 3.0]])
    with pytest.warns(GWishartLenkoskiWarning):
        k = gwishart(
            adjacency, rng=np.random.default_rng(5), entries=None, b=3.5, D=d, algorithm="lenkoski"
        )
    np.testing.assert_array_equal(k, wishart_bartlett(np.random.default_rng(5), 3.5, d))


# ----------------------------------------------------------------------- the law


def test_complete_graph_mean_is_wishart_mean():
    """E[K] = (b + p - 1) D^-1; each entry within 4.5 standard errors (Wishart variance)."""
    p, b, n = 4, 3.0, 4000
    rng = np.random.default_rng(1)
    a = rng.standard_normal((p, p))
    d = a @ a.T + p * np.eye(p)
    k = _draws(~np.eye(p, dtype=bool), n, seed=11, b=b, D=d)
    sigma = np.linalg.inv(d)
    dof = b + p - 1
    expected = dof * sigma
    var = dof * (sigma**2 + np.outer(np.diag(sigma), np.diag(sigma)))
    z = (k.mean(axis=0) - expected) / np.sqrt(var / n)
    assert np.abs(z).max() < 4.5, z


def test_empty_graph_diagonal_is_gamma():
    """No edges: K_jj ~ Gamma(shape b/2, scale 2/D_jj), independent; KS p-value > 1e-3."""
    d_diag = np.array([1.0, 0.5, 2.0, 4.0])
    b = 3.0
    k = _draws(np.zeros((4, 4), dtype=bool), 2000, seed=3, b=b, D=np.diag(d_diag))
    assert np.all(k[:, ~np.eye(4, dtype=bool)] == 0)
    for j in range(4):
        law = scipy.stats.gamma(a=b / 2, scale=2 / d_diag[j])
        assert scipy.stats.kstest(k[:, j, j], law.cdf).pvalue > 1e-3


@pytest.mark.filterwarnings("ignore::spdgraph_gwishart.GWishartLenkoskiWarning")
@pytest.mark.parametrize(("algorithm", "independent"), [("auto", True), ("lenkoski", False)])
def test_empty_graph_diagonal_entries_independent(algorithm, independent):
    """Under W_G the diagonal of an edgeless graph is independent. Lenkoski's sampler (as
    BDgraph) returns 1 / diag(Sigma) of one inverse-Wishart draw, whose entries are
    correlated (Tjelmeland & Kvaloy 2025, arXiv:2505.24400): the negative control."""
    k = _draws(np.zeros((4, 4), dtype=bool), 2000, seed=3, algorithm=algorithm)
    corr = np.corrcoef(np.log(k[:, np.arange(4), np.arange(4)]).T)
    # independent entries: sample correlations within 4.5 / sqrt(n) of 0
    assert (np.abs(corr[np.triu_indices(4, 1)]).max() < 4.5 / np.sqrt(2000)) == independent


def test_decomposable_graph_matches_independent_sampler():
    """Two-sample KS tests on entries of K, entries of K^-1 and log det; each p > 1e-3."""
    p, b, n = 5, 3.0, 3000
    adjacency = _adjacency(p, DECOMPOSABLE)
    d_diag = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    ours = _draws(adjacency, n, seed=21, b=b, D=np.diag(d_diag))
    rng = np.random.default_rng(22)
    ref = np.stack([decomposable_reference(adjacency, b, d_diag, rng) for _ in range(n)])
    functionals = {
        "K00": lambda k: k[:, 0, 0],
        "K01": lambda k: k[:, 0, 1],
        "K12": lambda k: k[:, 1, 2],
        "K33": lambda k: k[:, 3, 3],
        "K34": lambda k: k[:, 3, 4],
        "K44": lambda k: k[:, 4, 4],
        "Sigma04": lambda k: np.linalg.inv(k)[:, 0, 4],
        "Sigma22": lambda k: np.linalg.inv(k)[:, 2, 2],
        "logdet": lambda k: np.linalg.slogdet(k)[1],
    }
    for name, f in functionals.items():
        pvalue = scipy.stats.ks_2samp(f(ours), f(ref)).pvalue
        assert pvalue > 1e-3, (name, pvalue)


def test_reference_sampler_detects_a_wrong_law():
    """The comparison has power: b = 4 against b = 3 is rejected."""
    adjacency = _adjacency(5, DECOMPOSABLE)
    ours = _draws(adjacency, 3000, seed=21, b=4.0)
    rng = np.random.default_rng(22)
    ref = np.stack([decomposable_reference(adjacency, 3.0, np.ones(5), rng) for _ in range(3000)])
    assert scipy.stats.ks_2samp(ours[:, 0, 0], ref[:, 0, 0]).pvalue < 1e-6


@pytest.mark.slow
def test_complete_graph_mean_large():
    p, b, n = 12, 5.0, 40_000
    k = _draws(~np.eye(p, dtype=bool), n, seed=7, b=b)
    z = (k.mean(axis=0) - (b + p - 1) * np.eye(p)) / np.sqrt((b + p - 1) * (np.eye(p) + 1.0) / n)
    assert np.abs(z).max() < 5.0


# ----------------------------------------------------------------------- options and errors


def test_options_recorded_serializably():
    adjacency = _adjacency(5, DECOMPOSABLE)
    d = np.diag([1.0, 2.0, 3.0, 4.0, 5.0])
    da = spdgraph.sample(adjacency, "gwishart", seed=0, D=d, b=4)
    import json

    options = json.loads(da.attrs["method_options"])
    assert options["b"] == 4 and options["tol"] == 1e-12
    assert options["D"].startswith("ndarray(shape=(5, 5), dtype=float64, sha256=")
    da2 = spdgraph.sample(adjacency, "gwishart", seed=0, D=2.0)
    assert json.loads(da2.attrs["method_options"])["D"] == 2.0
    assert (
        json.loads(spdgraph.sample(adjacency, "gwishart", seed=0).attrs["method_options"])["D"]
        is None
    )


def test_scalar_d_is_scaled_identity():
    adjacency = _adjacency(5, DECOMPOSABLE)
    a = _draws(adjacency, 2, seed=4, D=2.0)
    b = _draws(adjacency, 2, seed=4, D=2.0 * np.eye(5))
    np.testing.assert_array_equal(a, b)


def test_not_converged_is_a_clear_error():
    adjacency = nx.to_numpy_array(nx.cycle_graph(8), dtype=bool)
    with (
        pytest.raises(spdgraph.NumericalError, match="did not converge in max_iter=1"),
        pytest.warns(GWishartLenkoskiWarning),
    ):
        spdgraph.sample(adjacency, "gwishart", seed=0, max_iter=1, algorithm="lenkoski")


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"b": 2.0}, "option b .* must be a number > 2 and <= 1e\\+12; got 2.0"),
        ({"b": "3"}, "must be a number > 2 and <= 1e\\+12; got '3' \\(it has the wrong type\\)"),
        ({"D": np.eye(3)}, "must be 5 x 5"),
        ({"D": -np.eye(5)}, "positive definite"),
        ({"D": np.triu(np.ones((5, 5)))}, "symmetric"),
        ({"D": 0.0}, "D \\(a scalar"),
        ({"D": "identity"}, "D must be None"),
        ({"max_iter": 0}, "option max_iter .* must be an integer >= 1; got 0"),
        ({"max_iter": 10.0}, "option max_iter .* must be an integer >= 1; got 10.0"),
        ({"tol": -1.0}, "option tol .* must be a number > 0"),
        ({"algorithm": 3}, "option algorithm .* must be one of 'auto', 'chordal', .*; got 3"),
        ({"b": 1e308}, "option b .* must be a number > 2 and <= 1e\\+12; got 1e\\+308"),
        ({"b": float("nan")}, "option b"),
        ({"D": 1e-308 * np.eye(5)}, "D must have diagonal entries between 1e-100"),
        ({"D": 1e-308}, "option D \\(a scalar"),
        ({"D": 1e300}, "option D \\(a scalar"),
        ({"D": np.full((5, 5), np.nan)}, "D holds NaN or inf"),
        ({"D": np.ones((5, 5)) + 1e-14 * np.eye(5)}, "D must be positive definite"),
        ({"min_acceptance": 2.0}, "option min_acceptance"),
        ({"burn_in": 0}, "option burn_in"),
    ],
)
def test_bad_options(options, match):
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        spdgraph.sample(_adjacency(5, DECOMPOSABLE), "gwishart", seed=0, **options)


def test_unknown_option_named_by_core():
    with pytest.raises(spdgraph.UnknownOptionError, match="gwishart"):
        spdgraph.sample(_adjacency(5, DECOMPOSABLE), "gwishart", seed=0, df=3)


def test_spectrum_control_and_diagnostics_work_on_gwishart():
    adjacency = nx.to_numpy_array(nx.cycle_graph(6), dtype=bool)
    da = spdgraph.sample(adjacency, "gwishart", seed=1, kind="precision", condition_number=5.0)
    assert da.attrs["condition_number"] == pytest.approx(5.0, rel=1e-8)
    ds = spdgraph.diagnostics(da)
    assert ds["max_abs_nonedge"].item() == 0.0


# ----------------------------------------------------------------------- both algorithms


@pytest.mark.filterwarnings("ignore::spdgraph_gwishart.GWishartLenkoskiWarning")
@pytest.mark.parametrize("algorithm", ["lenkoski", "chordal", "exact"])
def test_clique_marginals_are_inverse_wishart_means(algorithm):
    """Decomposable G: Sigma_CC ~ IW(b, D_CC) on each clique C, so E[Sigma_CC] = D_CC/(b-2).

    A property of the law, independent of both samplers; every clique entry within
    4.5 standard errors (b = 8: finite fourth moments).
    """
    p, b, n = 5, 8.0, 3000
    adjacency = _adjacency(p, DECOMPOSABLE)
    d = np.diag([1.0, 2.0, 0.5, 1.0, 3.0]) + 0.3 * _adjacency(p, [(0, 1), (2, 3)])
    k = _draws(adjacency, n, seed=31, b=b, D=d, algorithm=algorithm)
    sigma = np.linalg.inv(k)
    for clique in ([0, 1, 2], [1, 2, 3], [3, 4]):
        block = sigma[:, clique][:, :, clique]
        se = block.std(axis=0) / np.sqrt(n)
        z = (block.mean(axis=0) - d[np.ix_(clique, clique)] / (b - 2)) / se
        assert np.abs(z).max() < 4.5, (clique, z)


def test_chordal_empty_graph_exact_joint_law():
    d_diag = np.array([1.0, 0.5, 2.0, 4.0])
    k = _draws(np.zeros((4, 4), dtype=bool), 2000, seed=3, D=np.diag(d_diag), algorithm="chordal")
    for j in range(4):
        law = scipy.stats.gamma(a=3.0 / 2, scale=2 / d_diag[j])
        assert scipy.stats.kstest(k[:, j, j], law.cdf).pvalue > 1e-3
    corr = np.corrcoef(np.log(k[:, np.arange(4), np.arange(4)]).T)
    assert np.abs(corr[np.triu_indices(4, 1)]).max() < 4.5 / np.sqrt(2000)


def test_chordal_complete_graph_mean():
    p, b, n = 4, 3.0, 4000
    k = _draws(~np.eye(p, dtype=bool), n, seed=12, b=b, D=2.0, algorithm="chordal")
    dof = b + p - 1
    expected = dof * np.eye(p) / 2.0
    var = dof * (np.eye(p) + 1.0) / 4.0
    z = (k.mean(axis=0) - expected) / np.sqrt(var / n)
    assert np.abs(z).max() < 4.5, z


def test_chordal_on_relabelled_graph_matches_reference_in_elimination_order():
    """The plugin finds its own elimination order: relabel nodes, compare laws by KS."""
    p, b, n = 5, 3.0, 3000
    perm = np.array([3, 0, 4, 1, 2])  # node perm[i] of the relabelled graph is node i
    base = _adjacency(p, DECOMPOSABLE)
    relabelled = np.zeros_like(base)
    relabelled[np.ix_(perm, perm)] = base
    ours = _draws(relabelled, n, seed=41, b=b, algorithm="chordal")
    ours = ours[:, perm][:, :, perm]  # back to the reference's numbering
    nonedge = ~base & ~np.eye(p, dtype=bool)
    assert np.all(ours[:, nonedge] == 0)
    rng = np.random.default_rng(42)
    ref = np.stack([decomposable_reference(base, b, np.ones(p), rng) for _ in range(n)])
    for i, j in [(0, 0), (0, 1), (1, 2), (3, 3), (3, 4), (4, 4)]:
        assert scipy.stats.ks_2samp(ours[:, i, j], ref[:, i, j]).pvalue > 1e-3, (i, j)
    logdet = scipy.stats.ks_2samp(np.linalg.slogdet(ours)[1], np.linalg.slogdet(ref)[1])
    assert logdet.pvalue > 1e-3


def test_chordal_errors():
    cycle = nx.to_numpy_array(nx.cycle_graph(5), dtype=bool)
    with pytest.raises(spdgraph.InvalidOptionError, match="chordal"):
        spdgraph.sample(cycle, "gwishart", seed=0, algorithm="chordal")
    with pytest.raises(spdgraph.InvalidOptionError, match=r"'auto', 'chordal', .*; got 'wang'"):
        spdgraph.sample(_adjacency(5, DECOMPOSABLE), "gwishart", seed=0, algorithm="wang")


def _random_spd(p, seed):
    a = np.random.default_rng(seed).standard_normal((p, p + 2))
    return a @ a.T / (p + 2) + 0.2 * np.eye(p)


def test_chordal_general_d_complete_graph_is_scipy_wishart():
    """Complete graph, full SPD D: W(b + p - 1, D^-1). Mean and variance of every entry
    within 4.5 standard errors of Wishart's, and KS against scipy's draws (p > 1e-3)."""
    p, b, n = 4, 3.5, 4000
    d = _random_spd(p, 5)
    k = _draws(~np.eye(p, dtype=bool), n, seed=13, b=b, D=d, algorithm="chordal")
    dof, s = b + p - 1, np.linalg.inv(d)
    var = dof * (s**2 + np.outer(np.diag(s), np.diag(s)))
    z = (k.mean(axis=0) - dof * s) / np.sqrt(var / n)
    assert np.abs(z).max() < 4.5, z
    ref = scipy.stats.wishart(df=dof, scale=s).rvs(n, random_state=np.random.default_rng(14))
    for i, j in [(0, 0), (0, 1), (1, 3), (2, 2), (2, 3)]:
        assert scipy.stats.ks_2samp(k[:, i, j], ref[:, i, j]).pvalue > 1e-3, (i, j)
    logdet = scipy.stats.ks_2samp(np.linalg.slogdet(k)[1], np.linalg.slogdet(ref)[1])
    assert logdet.pvalue > 1e-3


def test_chordal_general_d_decomposable_clique_marginals_and_zeros():
    """Decomposable G, full SPD D (nonzero also on non-edges), nodes not in elimination
    order: exact zeros; on every clique C, Sigma_CC ~ IW(b, D_CC), so
    E[Sigma_CC] = D_CC / (b - 2) (4.5 standard errors) and each Sigma_jj is inverse gamma
    (shape b / 2, scale D_jj / 2; KS p > 1e-3)."""
    p, b, n = 5, 7.0, 3000
    adjacency = _adjacency(p, DECOMPOSABLE)
    d = _random_spd(p, 9)
    perm = np.array([2, 4, 0, 3, 1])  # a node order that is not an elimination order
    relabelled = np.zeros_like(adjacency)
    relabelled[np.ix_(perm, perm)] = adjacency
    d_rel = np.empty_like(d)
    d_rel[np.ix_(perm, perm)] = d
    k = _draws(relabelled, n, seed=32, b=b, D=d_rel, algorithm="chordal")[:, perm][:, :, perm]
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(k[:, nonedge] == 0)
    sigma = np.linalg.inv(k)
    for clique in ([0, 1, 2], [1, 2, 3], [3, 4]):
        block = sigma[:, clique][:, :, clique]
        se = block.std(axis=0) / np.sqrt(n)
        z = (block.mean(axis=0) - d[np.ix_(clique, clique)] / (b - 2)) / se
        assert np.abs(z).max() < 4.5, (clique, z)
        # Sigma_CC ~ IW with df b + |C| - 1 (scipy's), scale D_CC: each diagonal entry
        # is inverse gamma with shape (b + |C| - 1 - |C| + 1) / 2 = b / 2, scale D_jj / 2
        for t, j in enumerate(clique):
            law = scipy.stats.invgamma(a=b / 2, scale=d[j, j] / 2)
            assert scipy.stats.kstest(block[:, t, t], law.cdf).pvalue > 1e-3, (clique, j)


def test_chordal_general_path_agrees_with_diagonal_path():
    """A diagonal D through the general (Schur complement) path: same random numbers,
    same draw to rounding as the diagonal path."""
    from spdgraph_gwishart.chordal import chordal_gwishart

    adjacency = _adjacency(5, DECOMPOSABLE)
    diag = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    a = chordal_gwishart(adjacency, np.random.default_rng(7), 3.0, diag)
    full = np.diag(diag) + 1e-300 * _adjacency(5, [(0, 1)])  # not diagonal: general path
    c = chordal_gwishart(adjacency, np.random.default_rng(7), 3.0, full)
    np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
