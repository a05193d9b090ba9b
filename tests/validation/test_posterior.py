"""posterior_scores: Bayesian output scored against the truth (slow references inline)."""

from __future__ import annotations

import types

import networkx as nx
import numpy as np
import pytest
import scipy.stats
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.validation import PosteriorScores, posterior_scores

DIMS = ("chain", "draw", "node", "node_2")


def _truth(p=6, seed=1):
    return spdgraph.sample(nx.cycle_graph(p), "po", kind="precision", seed=seed)


def _wishart_posterior(k, n=400, chains=2, draws=300, seed=0):
    """The exact conjugate posterior of K under a Wishart prior (complete graph)."""
    rng = np.random.default_rng(seed)
    p = k.shape[0]
    x = rng.multivariate_normal(np.zeros(p), np.linalg.inv(k.values), size=n)
    scale = np.linalg.inv(np.eye(p) + x.T @ x)
    w = scipy.stats.wishart(df=n + p + 2, scale=scale).rvs(chains * draws, random_state=rng)
    return xr.DataArray(
        w.reshape(chains, draws, p, p),
        dims=DIMS,
        coords={"node": k["node"].values, "node_2": k["node"].values},
    )


def test_perfect_posterior_scores_perfectly():
    k = _truth()
    draws = xr.DataArray(np.broadcast_to(k.values, (2, 10, 6, 6)).copy(), dims=DIMS)
    result = posterior_scores(draws, k)
    assert isinstance(result, PosteriorScores)
    assert result.inclusion_from == "exact zeros"
    assert result["roc_auc"] == 1.0 and result["pr_auc"] == 1.0 and result["brier"] == 0.0
    assert result["frobenius"] == pytest.approx(0.0, abs=1e-12)
    assert result["stein_loss"] == pytest.approx(0.0, abs=1e-10)
    assert result["coverage"] == 1.0 and result["n_draws"] == 20


def test_losses_and_coverage_match_a_slow_reference():
    k = _truth()
    post = _wishart_posterior(k)
    result = posterior_scores(post, k, credible=0.8)
    values = post.values.reshape(-1, 6, 6)
    mean = values.mean(axis=0)
    sigma = np.linalg.inv(k.values)
    stein = np.trace(mean @ sigma) - np.log(np.linalg.det(mean @ sigma)) - 6
    assert result["stein_loss"] == pytest.approx(stein, rel=1e-9)
    assert result["frobenius"] == pytest.approx(np.sqrt(((mean - k.values) ** 2).sum()))
    covered, n = 0, 0
    for i in range(6):
        for j in range(i + 1, 6):
            rho = [-m[i, j] / np.sqrt(m[i, i] * m[j, j]) for m in values]
            lo, hi = np.quantile(rho, [0.1, 0.9])
            truth = -k.values[i, j] / np.sqrt(k.values[i, i] * k.values[j, j])
            covered += lo <= truth <= hi
            n += 1
    assert result["coverage"] == covered / n
    assert result.inclusion_from == "probability of direction"
    # a consistent posterior with n = 400 separates the cycle's strong edges
    assert result["roc_auc"] > 0.9
    assert set(result.pairs.columns) >= {"node", "node_2", "edge", "inclusion", "covered"}
    assert len(result.pairs) == 15 and result.calibration["n_pairs"].sum() == 15


def test_node_labels_are_aligned_to_the_truth():
    k = _truth()
    post = _wishart_posterior(k)
    order = [3, 0, 5, 1, 4, 2]
    shuffled = post.isel(node=order, node_2=order)
    a = posterior_scores(post, k).scores
    b = posterior_scores(shuffled, k).scores
    np.testing.assert_allclose(a["value"], b["value"], rtol=1e-12)
    with pytest.raises(spdgraph.InvalidOptionError, match="labels"):
        posterior_scores(post.assign_coords(node=list("abcdef"), node_2=list("abcdef")), k)


def test_inclusion_probabilities_brier_and_calibration():
    k = _truth()
    truth = (k.values != 0) & ~np.eye(6, dtype=bool)
    half = posterior_scores(xr.DataArray(np.where(np.eye(6) == 1, 0, 0.5)), k)
    assert half["brier"] == 0.25 and np.isnan(half["stein_loss"])
    assert half["roc_auc"] == 0.5
    exact = posterior_scores(truth.astype(float), k, kind="inclusion")
    assert exact["brier"] == 0.0 and exact["roc_auc"] == 1.0
    table = exact.calibration
    assert table.loc[table["upper"] == 1.0, "edge_rate"].item() == 1.0
    assert table.loc[table["lower"] == 0.0, "edge_rate"].item() == 0.0
    # 0/1 graph draws with chain/draw dims are averaged into probabilities
    graphs = np.stack([truth, truth, np.zeros_like(truth), truth]).astype(float)
    averaged = posterior_scores(xr.DataArray(graphs[None], dims=DIMS), k, kind="inclusion")
    assert averaged.pairs.loc[averaged.pairs["edge"], "inclusion"].eq(0.75).all()


def test_inference_data_and_datatree_and_dataset():
    k = _truth()
    post = _wishart_posterior(k)
    expected = posterior_scores(post, k).scores["value"]
    ds = xr.Dataset({"K": post, "sigma": post.isel(node=0, node_2=0)})
    idata_like = types.SimpleNamespace(posterior=ds)
    np.testing.assert_array_equal(posterior_scores(idata_like, k).scores["value"], expected)
    tree = xr.DataTree.from_dict({"posterior": ds})
    np.testing.assert_array_equal(posterior_scores(tree, k).scores["value"], expected)
    np.testing.assert_array_equal(posterior_scores(ds, k, var_name="K").scores["value"], expected)
    with pytest.raises(spdgraph.InvalidOptionError, match="no variable"):
        posterior_scores(ds, k, var_name="L")


def test_arviz_inference_data():
    az = pytest.importorskip("arviz")
    k = _truth()
    post = _wishart_posterior(k)
    try:  # ArviZ < 1: groups as keywords; ArviZ 1 (DataTree): one dict of groups
        idata = az.from_dict(posterior={"K": post.values})
    except TypeError:
        idata = az.from_dict({"posterior": {"K": post.values}})
    result = posterior_scores(idata, k, var_name="K")
    assert result["n_draws"] == 600


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(credible=1.0), "credible"),
        (dict(bins=0), "bins"),
        (dict(kind="cov"), "kind"),
    ],
)
def test_bad_options(bad, match):
    k = _truth()
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        posterior_scores(_wishart_posterior(k, draws=5), k, **bad)


def test_bad_inputs_are_named():
    k = _truth()
    post = _wishart_posterior(k, draws=5)
    with pytest.raises(spdgraph.InvalidOptionError, match="truth has 6 nodes"):
        posterior_scores(post.isel(node=slice(0, 5), node_2=slice(0, 5)), k)
    with pytest.raises(spdgraph.InvalidOptionError, match="covariance"):
        posterior_scores(post, spdgraph.sample(nx.cycle_graph(6), "po", seed=1))
    with pytest.raises(spdgraph.InvalidOptionError, match="sample dims"):
        posterior_scores(xr.DataArray(k.values), k, kind="precision")
    with pytest.raises(spdgraph.InvalidOptionError, match="besides chain/draw"):
        posterior_scores(post.expand_dims(model=2), k)
    with pytest.raises(spdgraph.InvalidOptionError, match="InferenceData"):
        posterior_scores([1, 2], k)


@settings(max_examples=15, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**31 - 1))
def test_scores_are_bounded_on_random_graphs(p, seed):
    g = nx.gnp_random_graph(p, 0.5, seed=seed)
    k = spdgraph.sample(g, "po", kind="precision", seed=seed)
    post = _wishart_posterior(k, n=50, draws=40, seed=seed)
    result = posterior_scores(post, k)
    table = result.scores.set_index("metric")["value"]
    for name in ("brier", "coverage", "coverage_edges", "coverage_non_edges"):
        assert np.isnan(table[name]) or 0.0 <= table[name] <= 1.0
    assert table["stein_loss"] >= 0.0 and table["frobenius"] >= 0.0
    assert np.isnan(table["roc_auc"]) or 0.0 <= table["roc_auc"] <= 1.0
