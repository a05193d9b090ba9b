"""Data beyond the Gaussian: copula marginals, discretization, mixed types, MCAR."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.marginals import Ordinal


@pytest.fixture(scope="module")
def cov():
    return spdgraph.sample(nx.cycle_graph(["a", "b", "c", "d", "e"]), seed=3)


@pytest.fixture(scope="module")
def prec():
    return spdgraph.sample(nx.path_graph(4), seed=5, kind="precision", normalize=False)


def normal_scores(x: np.ndarray) -> np.ndarray:
    ranks = stats.rankdata(x, axis=0)
    return special.ndtri(ranks / (x.shape[0] + 1))


def test_no_marginals_gives_todays_bits(cov):
    plain = cov.spd.draw(50, seed=7)
    gauss = cov.spd.draw(50, seed=7, marginals="gaussian")
    np.testing.assert_array_equal(plain.values, gauss.values)
    assert "marginals" not in plain.attrs and "missing_rate" not in plain.attrs


@pytest.mark.parametrize(
    "dist", [stats.t(df=4), stats.lognorm(0.8), stats.expon(scale=2.0), stats.gamma(2.5)]
)
def test_copula_marginals_pass_ks_and_keep_latent_ranks(cov, dist):
    latent = cov.spd.draw(3000, seed=11).values
    x = cov.spd.draw(3000, seed=11, marginals=dist).values
    for j in range(x.shape[1]):
        assert stats.kstest(x[:, j], dist.cdf).pvalue > 1e-3
    # monotone maps: the ranks (hence the normal scores) are those of the latent Gaussian
    np.testing.assert_array_equal(stats.rankdata(x, axis=0), stats.rankdata(latent, axis=0))


def test_shared_marginal_is_recorded_once(cov):
    """One marginal for every node: one attr value, readable at any p."""
    x = cov.spd.draw(5, seed=1, marginals=stats.t(5))
    assert x.attrs["marginals"] == "t(5)" and x.attrs["data_types"] == "continuous"


def test_normal_scores_recover_the_latent_correlation(cov):
    x = cov.spd.draw(20_000, seed=2, marginals=stats.lognorm(1.5)).values
    corr = np.corrcoef(normal_scores(x).T)
    np.testing.assert_allclose(corr, cov.spd.correlation().values, atol=0.03)


def test_precision_input_is_standardized_by_its_inverse(prec):
    x = prec.spd.draw(4000, seed=1, marginals=stats.norm(loc=10, scale=2)).values
    np.testing.assert_allclose(x.mean(axis=0), 10, atol=0.15)
    np.testing.assert_allclose(x.std(axis=0), 2, rtol=0.05)


def test_discrete_types_have_their_marginals(cov):
    specs = [stats.poisson(3), stats.nbinom(5, 0.4), stats.bernoulli(0.3), "binary", "gaussian"]
    x = cov.spd.draw(4000, seed=4, marginals=specs)
    assert x.attrs["data_types"] == "count,count,binary,binary,gaussian"
    v = x.values
    for j, dist in enumerate(specs[:3]):
        assert np.array_equal(v[:, j], np.round(v[:, j]))
        k = np.arange(0, 40)
        observed = np.array([(v[:, j] == kk).mean() for kk in k])
        np.testing.assert_allclose(observed, dist.pmf(k), atol=0.03)
    assert set(np.unique(v[:, 3])) == {0.0, 1.0}
    assert abs(v[:, 3].mean() - 0.5) < 0.03


def test_ordinal_cut_points_and_category_counts(cov):
    o = Ordinal(cuts=[-1.0, 0.5])
    x = cov.spd.draw(6000, seed=9, marginals={"b": o, "c": Ordinal(n_categories=4)}).values
    expected = np.diff(special.ndtr([-np.inf, -1.0, 0.5, np.inf]))
    observed = np.array([(x[:, 1] == k).mean() for k in range(3)])
    np.testing.assert_allclose(observed, expected, atol=0.02)
    np.testing.assert_allclose([(x[:, 2] == k).mean() for k in range(4)], 0.25, atol=0.02)
    latent = cov.spd.draw(6000, seed=9).values
    np.testing.assert_array_equal(x[:, 0], latent[:, 0])  # unnamed nodes stay Gaussian
    np.testing.assert_array_equal(
        x[:, 1], (latent[:, 1] >= -1.0).astype(int) + (latent[:, 1] >= 0.5)
    )
    assert Ordinal(probabilities=[0.2, 0.8]).cuts == pytest.approx((special.ndtri(0.2),))


def test_missing_completely_at_random(cov):
    full = cov.spd.draw(5000, seed=3, marginals=stats.t(5))
    holes = cov.spd.draw(5000, seed=3, marginals=stats.t(5), missing=0.15)
    mask = np.isnan(holes.values)
    assert abs(mask.mean() - 0.15) < 0.01
    np.testing.assert_array_equal(holes.values[~mask], full.values[~mask])
    again = cov.spd.draw(5000, seed=3, marginals=stats.t(5), missing=0.15)
    np.testing.assert_array_equal(np.isnan(again.values), mask)
    assert holes.attrs["missing_rate"] == 0.15


def test_stack_rows_do_not_depend_on_the_stack(cov):
    stack = spdgraph.sample(nx.path_graph(3), size=3, seed=1)
    both = stack.spd.draw(30, seed=2, marginals=stats.expon(), missing=0.2).values
    one = stack.isel(sample=[2]).spd.draw(30, seed=2, marginals=stats.expon(), missing=0.2)
    np.testing.assert_array_equal(both[2], one.values[0])


@pytest.mark.parametrize(
    ("marginals", "missing", "match"),
    [
        ("weibull", 0.0, "frozen scipy.stats"),
        ([stats.t(3)] * 2, 0.0, "lists 2 specs"),
        ({"zz": "binary"}, 0.0, "not a node"),
        (None, 1.0, "missing must be"),
        (None, -0.1, "missing must be"),
        (stats.t, 0.0, "frozen scipy.stats"),
    ],
)
def test_bad_marginals_are_refused(cov, marginals, missing, match):
    with pytest.raises(InvalidOptionError, match=match):
        cov.spd.draw(5, seed=0, marginals=marginals, missing=missing)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"cuts": [1.0, 0.0]},
        {"n_categories": 1},
        {"probabilities": [0.5, 0.6]},
        {"cuts": [0.0], "n_categories": 3},
    ],
)
def test_bad_ordinal_is_refused(kwargs):
    with pytest.raises(InvalidOptionError):
        Ordinal(**kwargs)


@settings(max_examples=20, deadline=None)
@given(
    p=st.integers(2, 7),
    density=st.floats(0.1, 0.9),
    seed=st.integers(0, 2**16),
    rate=st.sampled_from([0.0, 0.3]),
)
def test_copula_is_a_monotone_map_of_the_gaussian(p, density, seed, rate):
    g = nx.gnp_random_graph(p, density, seed=seed)
    cov = spdgraph.sample(g, seed=seed)
    latent = cov.spd.draw(40, seed=seed).values
    x = cov.spd.draw(40, seed=seed, marginals=stats.gamma(2.0), missing=rate).values
    reference = stats.gamma(2.0).ppf(special.ndtr(latent / np.sqrt(np.diag(cov.values))))
    keep = ~np.isnan(x)
    np.testing.assert_allclose(x[keep], reference[keep], rtol=1e-10)
