"""spdgraph.validation: learners, shrinkage closed form, local fdr, score()."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import spdgraph
import spdgraph.validation as sv
from spdgraph.graphs import erdos_renyi

pytest.importorskip("sklearn")


# ----------------------------------------------------------------- shrinkage


def _reference_intensity(x):
    """Schäfer-Strimmer lambda* by explicit loops over pairs and observations."""
    x = np.asarray(x, float)
    n, p = x.shape
    xs = (x - x.mean(0)) / x.std(0, ddof=1)
    num = den = 0.0
    for i in range(p):
        for j in range(p):
            if i == j:
                continue
            w = np.array([xs[k, i] * xs[k, j] for k in range(n)])
            wbar = w.mean()
            r = n / (n - 1) * wbar
            var = n / (n - 1) ** 3 * np.sum((w - wbar) ** 2)
            num += var
            den += r * r
    return min(1.0, max(0.0, num / den))


@pytest.mark.parametrize("shape", [(10, 3), (25, 6), (8, 12)])
def test_shrinkage_intensity_matches_closed_form(shape):
    x = np.random.default_rng(shape[1]).normal(size=shape)
    lam, r = sv.shrinkage_intensity(x)
    assert lam == pytest.approx(_reference_intensity(x), rel=1e-12)
    np.testing.assert_allclose(r, np.corrcoef(x.T), atol=1e-12)


def test_shrink_pcor_is_scaled_inverse_of_shrunk_correlation():
    x = np.random.default_rng(0).normal(size=(15, 5))
    lam = _reference_intensity(x)
    rstar = lam * np.eye(5) + (1 - lam) * np.corrcoef(x.T)
    om = np.linalg.inv(rstar)
    expected = -om / np.sqrt(np.outer(np.diag(om), np.diag(om)))
    np.fill_diagonal(expected, 1.0)
    np.testing.assert_allclose(sv.shrink_pcor(x), expected, atol=1e-12)


def test_collinear_data_and_constant_column():
    t = np.linspace(0, 1, 10)
    x = np.column_stack([t, 2 * t + 1, -t])
    lam, r = sv.shrinkage_intensity(x)
    assert lam == pytest.approx(_reference_intensity(x)) and np.allclose(np.abs(r), 1)
    with pytest.raises(spdgraph.InvalidOptionError, match="constant"):
        sv.shrink_pcor(np.column_stack([t, np.ones(10)]))


# ----------------------------------------------------------------- local fdr


def _null_r(rng, kappa, size):
    return np.sqrt(rng.beta(0.5, (kappa - 1) / 2, size)) * rng.choice([-1, 1], size)


def test_null_density_integrates_to_one_and_matches_sample_correlations():
    from scipy import integrate

    for kappa in (5.0, 40.0):
        assert integrate.quad(sv.correlation_null_pdf, -1, 1, args=(kappa,))[0] == pytest.approx(1)
    # sample correlation of n independent normal pairs has kappa = n - 1
    rng = np.random.default_rng(0)
    n = 30
    r = np.array([np.corrcoef(rng.normal(size=(2, n)))[0, 1] for _ in range(3000)])
    res = sv.local_fdr(r)
    assert res.kappa == pytest.approx(n - 1, rel=0.15)
    assert res.eta0 > 0.95
    assert np.mean(res.lfdr < 0.2) < 0.01


@pytest.mark.parametrize("kappa,eta0", [(20.0, 0.9), (60.0, 0.8)])
def test_lfdr_on_simulated_mixture(kappa, eta0):
    rng = np.random.default_rng(int(kappa))
    m = 2000
    m0 = int(eta0 * m)
    alt = rng.uniform(0.6, 0.9, m - m0) * rng.choice([-1, 1], m - m0)
    r = np.concatenate([_null_r(rng, kappa, m0), alt])
    res = sv.local_fdr(r)
    assert res.kappa == pytest.approx(kappa, rel=0.25)
    assert res.eta0 == pytest.approx(eta0, abs=0.08)
    sel = res.lfdr < 0.2
    power = sel[m0:].mean()
    fdr = sel[:m0].sum() / max(sel.sum(), 1)
    assert power > 0.9 and fdr < 0.1
    # lfdr is monotone in |r|
    order = np.argsort(np.abs(r))
    assert np.all(np.diff(res.lfdr[order]) <= 1e-12)


def test_grenander_is_the_slope_of_the_least_concave_majorant():
    x = np.array([0.1, 0.1, 0.2, 0.6, 1.0])
    g = sv.grenander(x)
    # ECDF knots (0,0), (.1,.4), (.2,.6), (.6,.8), (1,1): slopes 4, 2, .5, .5 (concave already)
    np.testing.assert_allclose(g, [4, 4, 2, 0.5, 0.5])
    # a non-concave ECDF gets pooled: knots (0,0),(.5,.5),(.6,1) -> LCM slope 1/0.6
    np.testing.assert_allclose(sv.grenander(np.array([0.5, 0.6])), [1 / 0.6, 1 / 0.6])


def test_local_fdr_rejects_bad_input():
    with pytest.raises(spdgraph.InvalidOptionError, match="at least 10"):
        sv.local_fdr(np.zeros(3))
    with pytest.raises(spdgraph.InvalidOptionError, match="non-finite"):
        sv.local_fdr(np.full(20, np.nan))


# ----------------------------------------------------------------- learners


def test_coefficients_to_pcor_rule():
    b = np.array([[0, 0.5, 0.2, 3.0], [0.18, 0, -1, 2.0], [-0.3, 0.1, 0, 0], [1, 1, 0, 0]])
    rho = sv.coefficients_to_pcor(b)
    assert rho[0, 1] == pytest.approx(0.3) and rho[1, 0] == pytest.approx(0.3)
    assert rho[0, 2] == 0 and rho[1, 2] == 0  # signs disagree
    assert rho[0, 3] == 1.0 and rho[1, 3] == 1.0  # capped
    assert np.all(np.diag(rho) == 1)


def test_pls_truncation_matches_separate_fits():
    from sklearn.cross_decomposition import PLSRegression

    rng = np.random.default_rng(3)
    z = rng.normal(size=(40, 7))
    z -= z.mean(0)
    y = z @ rng.normal(size=7) + rng.normal(size=40)
    y -= y.mean()
    coefs = sv.pls_coefficients(z, y, 5)
    for k in range(1, 6):
        ref = PLSRegression(n_components=k, scale=False).fit(z, y).coef_.ravel()
        np.testing.assert_allclose(coefs[:, k - 1], ref, atol=1e-10)


@pytest.fixture(scope="module")
def strong_data():
    """A 6-cycle whose every partial correlation is at least 0.2 (the first such seed)."""
    g = nx.cycle_graph(6)
    edges = nx.to_numpy_array(g, dtype=bool)
    for seed in range(100):
        prec = spdgraph.sample(g, "po", seed=seed, kind="precision")
        if np.abs(prec.spd.partial_correlation().values[edges]).min() >= 0.2:
            break
    else:
        pytest.fail("no seed below 100 gives a 6-cycle with partial correlations >= 0.2")
    return g, sv.draw_gaussian(prec.values, 400, seed=6)


@pytest.mark.parametrize("learner", sv.BUILTIN_LEARNERS)
def test_every_learner_finds_a_strong_cycle(strong_data, learner):
    g, x = strong_data
    if learner == "glasso":  # StARS (the default) keeps stable edges: TDR well above chance
        # (huge's rule on huge's grid selects 6 edges, 4 true, here; the variant before
        # issue 47, its grid's top taken from the subsamples, kept the 6 true ones)
        stars = sv.score(x, g, learner, seed=1)
        assert stars.tdr >= 0.6 and stars.n_selected <= 2 * stars.n_true
    s = sv.score(x, g, learner, seed=1, **({"criterion": "cv"} if learner == "glasso" else {}))
    assert s.n_true == 6
    assert s.tpr >= 0.8, (learner, s)
    # a penalty chosen by held-out likelihood keeps extra weak edges (the known
    # over-selection of CV for the graphical lasso): 13 of 15 pairs here, all 6 true
    assert s.tdr >= (0.4 if learner == "glasso" else 0.5), (learner, s)


def test_fit_learners_is_seeded_and_symmetric(strong_data):
    _, x = strong_data
    a = sv.fit_learners(x, ["lasso", "adalasso", "ridge", "pls"], seed=3)
    b = sv.fit_learners(x, ["pls", "ridge", "adalasso", "lasso"], seed=3)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
        np.testing.assert_array_equal(a[name], a[name].T)
    # adalasso alone equals adalasso computed together with lasso
    np.testing.assert_array_equal(
        sv.fit_learners(x, ["adalasso"], seed=3)["adalasso"], a["adalasso"]
    )
    with pytest.raises(spdgraph.InvalidOptionError, match="unknown learner"):
        sv.fit_learners(x, ["bogus"])


def test_draw_gaussian_covariance():
    prec = np.array([[2.0, 0.8, 0], [0.8, 1.5, -0.3], [0, -0.3, 1.0]])
    x = sv.draw_gaussian(prec, 100_000, seed=1)
    np.testing.assert_allclose(np.cov(x.T), np.linalg.inv(prec), atol=0.02)
    np.testing.assert_array_equal(x, sv.draw_gaussian(prec, 100_000, seed=1))
    with pytest.raises(spdgraph.NumericalError):
        sv.draw_gaussian(-np.eye(2), 5)


# ----------------------------------------------------------------- score()


def test_score_with_custom_callable_and_missing_tdr(strong_data):
    g, x = strong_data
    truth = nx.to_numpy_array(g, dtype=bool)
    perfect = sv.score(x, g, lambda data: truth)
    assert (perfect.tpr, perfect.tdr, perfect.n_selected) == (1.0, 1.0, 6)
    nothing = sv.score(x, g, lambda data: np.eye(data.shape[1]))
    assert nothing.n_selected == 0 and math.isnan(nothing.tdr) and nothing.tpr == 0.0
    half = sv.score(x, g, lambda data: np.where(truth, 0.5, 0.0) + np.eye(6), rule="nonzero")
    assert half.tpr == 1.0


@pytest.mark.filterwarnings("ignore:graphical_lasso")
def test_score_with_sklearn_estimator_and_labelled_dataarray():
    import xarray as xr
    from sklearn.covariance import GraphicalLasso

    g = nx.relabel_nodes(nx.path_graph(5), {i: f"g{i}" for i in range(5)})
    prec = spdgraph.sample(g, "po", seed=2, kind="precision")
    x = sv.draw_gaussian(prec.values, 500, seed=3)
    labels = list(prec.node.values)
    da = xr.DataArray(x, dims=("obs", "node"), coords={"node": labels})
    s1 = sv.score(da, g, GraphicalLasso(alpha=0.05), seed=0)
    s2 = sv.score(da.isel(node=[4, 2, 0, 1, 3]), prec, GraphicalLasso(alpha=0.05), seed=0)
    assert s1.as_dict() == {**s2.as_dict(), "learner": s1.learner}
    assert s1.tpr == 1.0 and s1.learner == "GraphicalLasso"


def test_score_errors():
    g = nx.path_graph(4)
    x = np.random.default_rng(0).normal(size=(20, 4))
    with pytest.raises(spdgraph.InvalidOptionError, match="columns"):
        sv.score(x[:, :3], g, "shrink")
    with pytest.raises(spdgraph.InvalidOptionError, match="unknown learner"):
        sv.score(x, g, "nope")
    with pytest.raises(spdgraph.InvalidOptionError, match="learner must be"):
        sv.score(x, g, 42)
    with pytest.raises(spdgraph.GraphTypeError):
        sv.score(x, object(), "shrink")


def test_score_on_er_graph_is_reproducible():
    g = erdos_renyi(15, 0.2, seed=1)
    prec = spdgraph.sample(g, "dd", seed=1, kind="precision")
    x = sv.draw_gaussian(prec.values, 60, seed=2)
    a = sv.score(x, g, "lasso", seed=4)
    b = sv.score(x, g, "lasso", seed=4)
    assert a.as_dict() == b.as_dict()


# ---------------------------------------------------------------- exact lasso path


def _centred_problem(seed: int, n: int, q: int, signal: int = 3):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, q)) + 0.6 * rng.normal(size=(n, 1))  # correlated columns
    beta = np.zeros(q)
    beta[:signal] = rng.choice([-1.0, 1.0], size=min(signal, q)) * rng.uniform(0.3, 1.0)
    y = z @ beta + 0.5 * rng.normal(size=n)
    z -= z.mean(axis=0)
    y -= y.mean()
    return z, y


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(8, 40),
    q=st.integers(1, 12),
)
@example(seed=16663689, n=11, q=8)  # a LARS drop step: the dropped coefficient is exactly 0
def test_lasso_path_matches_reference_coordinate_descent(seed, n, q):
    from reference import lasso_reference

    z, y = _centred_problem(seed, n, q)
    alpha_max = np.max(np.abs(z.T @ y)) / n
    alphas = alpha_max * np.logspace(0.0, -2.0, 12)
    path = sv.lasso_path(z.T @ z, z.T @ y, n, alphas)
    for k, alpha in enumerate(alphas):
        ref = lasso_reference(z, y, alpha)
        np.testing.assert_allclose(path[:, k], ref, atol=1e-7)
        # the support agrees wherever the reference is clearly away from the kink
        clear = (np.abs(ref) > 1e-6) | (np.abs(z.T @ (y - z @ ref)) < 0.999 * alpha * n)
        assert np.array_equal((path[:, k] != 0)[clear], (ref != 0)[clear])
    assert np.all(path[:, 0] == 0)  # at alpha_max nothing enters


def test_lasso_path_agrees_with_sklearn_lasso_path_when_q_exceeds_n():
    from sklearn.linear_model import lasso_path as sk_lasso_path

    z, y = _centred_problem(7, 20, 40, signal=5)
    n = z.shape[0]
    alphas = np.max(np.abs(z.T @ y)) / n * np.logspace(0.0, -2.0, 30)
    ours = sv.lasso_path(z.T @ z, z.T @ y, n, alphas)
    _, theirs, _ = sk_lasso_path(z, y, alphas=alphas, tol=1e-14, max_iter=1_000_000)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    assert np.all((ours != 0).sum(axis=0) <= n)


def test_lasso_path_edge_cases():
    z, y = _centred_problem(1, 30, 4)
    empty = sv.lasso_path(np.zeros((0, 0)), np.zeros(0), 30, np.array([1.0]))
    assert empty.shape == (0, 1)
    zero_y = sv.lasso_path(z.T @ z, np.zeros(4), 30, np.array([1.0, 0.1]))
    assert np.all(zero_y == 0)
    # penalties in any order, each solved independently of the others
    alphas = np.array([0.05, 0.5, 0.01])
    a = sv.lasso_path(z.T @ z, z.T @ y, 30, alphas)
    b = np.column_stack([sv.lasso_path(z.T @ z, z.T @ y, 30, np.array([v]))[:, 0] for v in alphas])
    np.testing.assert_allclose(a, b, atol=1e-10)


def test_lasso_path_falls_back_to_coordinate_descent(monkeypatch):
    import sklearn.linear_model

    z, y = _centred_problem(3, 25, 10, signal=4)
    n = z.shape[0]
    alphas = np.max(np.abs(z.T @ y)) / n * np.array([0.3, 1.0, 0.01, 0.1])  # any order
    exact = sv.lasso_path(z.T @ z, z.T @ y, n, alphas)

    def broken(*args, **kwargs):
        raise OverflowError("int too large to convert to float")  # as sklearn's LARS can

    monkeypatch.setattr(sklearn.linear_model, "lars_path_gram", broken)
    fallback = sv.lasso_path(z.T @ z, z.T @ y, n, alphas)
    np.testing.assert_allclose(fallback, exact, atol=1e-8)
    assert np.array_equal(fallback != 0, exact != 0)
    assert np.all(fallback[:, 1] == 0)

    def nonfinite(xy, gram, **kwargs):
        return np.array([1.0, np.nan]), np.array([0]), np.full((gram.shape[0], 2), np.nan)

    monkeypatch.setattr(sklearn.linear_model, "lars_path_gram", nonfinite)
    np.testing.assert_allclose(sv.lasso_path(z.T @ z, z.T @ y, n, alphas), exact, atol=1e-8)
