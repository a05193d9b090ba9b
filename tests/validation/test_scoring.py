"""Scoring like the field: confusion counts, F1/MCC/SHD, ROC/PR curves, sklearn scorer."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sklearn")
from sklearn import metrics
from sklearn.base import BaseEstimator

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.validation import (
    confusion,
    curve_areas,
    edge_metrics,
    graph_scorer,
    learner_path,
    path_table,
    score,
)


def random_case(p: int, seed: int, ties: bool):
    rng = np.random.default_rng(seed)
    truth = nx.to_numpy_array(nx.gnp_random_graph(p, 0.4, seed=seed)).astype(bool)
    scores = rng.normal(size=(p, p)) + 1.5 * truth
    if ties:
        scores = np.round(scores)
    scores = (scores + scores.T) / 2
    return truth, scores


def upper(m: np.ndarray) -> np.ndarray:
    return m[np.triu_indices(m.shape[0], 1)]


@settings(max_examples=40, deadline=None)
@given(p=st.integers(3, 12), seed=st.integers(0, 10_000), ties=st.booleans())
def test_metrics_match_scikit_learn(p, seed, ties):
    truth, scores = random_case(p, seed, ties)
    selected = np.abs(scores) > 1.0
    tp, fp, fn, tn = confusion(selected, truth)
    y, s = upper(truth), upper(selected)
    assert (tp, fp, fn, tn) == (
        int(np.sum(y & s)),
        int(np.sum(~y & s)),
        int(np.sum(y & ~s)),
        int(np.sum(~y & ~s)),
    )
    got = edge_metrics(tp, fp, fn, tn)
    if s.any() and y.any():
        assert got["f1"] == pytest.approx(metrics.f1_score(y, s))
        assert got["tdr"] == pytest.approx(metrics.precision_score(y, s))
        assert got["tpr"] == pytest.approx(metrics.recall_score(y, s))
    if 0 < s.sum() < s.size and 0 < y.sum() < y.size:
        assert got["mcc"] == pytest.approx(metrics.matthews_corrcoef(y, s))
    assert got["shd"] == int(np.sum(y != s))


@settings(max_examples=40, deadline=None)
@given(p=st.integers(3, 12), seed=st.integers(0, 10_000), ties=st.booleans())
def test_score_sweep_matches_a_slow_threshold_loop_and_sklearn_areas(p, seed, ties):
    truth, scores = random_case(p, seed, ties)
    table = path_table(scores, truth)
    s = np.abs(upper(scores))
    thresholds = [math.inf, *sorted(set(s[s != 0].tolist()), reverse=True)]
    slow = [confusion(np.abs(scores) >= t, truth) for t in thresholds]
    assert list(zip(table.tp, table.fp, table.fn, table.tn, strict=True)) == slow
    y = upper(truth)
    if 0 < y.sum() < y.size and (s != 0).all():
        areas = curve_areas(table)
        assert areas["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s))
        assert areas["pr_auc"] == pytest.approx(metrics.average_precision_score(y, s))


def test_path_of_estimates_and_bad_paths():
    g = nx.path_graph(4)
    empty, full = np.zeros((4, 4)), np.ones((4, 4))
    table = path_table([empty, nx.to_numpy_array(g), full], g)
    assert table["tp"].tolist() == [0, 3, 3] and table["shd"].tolist() == [3, 0, 3]
    assert math.isnan(table["tdr"][0])
    assert curve_areas(table) == {"roc_auc": 1.0, "pr_auc": 1.0}
    with pytest.raises(InvalidOptionError, match="shape"):
        path_table(np.zeros(4), g)
    with pytest.raises(InvalidOptionError, match="nodes"):
        path_table([np.zeros((3, 3))], g)
    with pytest.raises(InvalidOptionError, match="finite"):
        path_table(np.full((4, 4), np.nan), g)


def test_learner_path_on_a_strong_truth():
    g = nx.cycle_graph(8)
    prec = spdgraph.sample(g, seed=2, kind="precision")
    x = prec.spd.draw(400, seed=3).values
    path_or = learner_path(x, n_penalties=12)
    path_and = learner_path(x, n_penalties=12, rule="and")
    assert path_or.shape == (12, 8, 8) and not path_or[0].any()
    assert (path_and <= path_or).all()
    assert (path_or == path_or.transpose(0, 2, 1)).all()
    assert curve_areas(path_table(path_or, g))["roc_auc"] > 0.8
    with pytest.raises(InvalidOptionError):
        learner_path(x, rule="xor")
    with pytest.raises(InvalidOptionError):
        learner_path(x, n_penalties=1)


def test_score_metrics_agree_with_edge_metrics():
    g = nx.cycle_graph(7)
    # n = 500: enough data that the selection is not empty (an empty one has mcc NaN)
    x = spdgraph.sample(g, seed=1, kind="precision").spd.draw(500, seed=1).values
    s = score(x, g, "shrink", seed=0)
    truth = nx.to_numpy_array(g).astype(bool)
    assert s.metrics() == edge_metrics(*confusion(s.selected, truth))
    assert s.n_selected > 0
    assert s.as_dict()["mcc"] == s.metrics()["mcc"]


class FixedGraph(BaseEstimator):
    def __init__(self, adjacency=None):
        self.adjacency = adjacency

    def fit(self, x, y=None):
        self.adjacency_ = self.adjacency
        return self


def test_graph_scorer_picks_the_true_graph_in_a_grid_search():
    from sklearn.model_selection import GridSearchCV

    g = nx.path_graph(5)
    truth = nx.to_numpy_array(g)
    wrong = nx.to_numpy_array(nx.star_graph(4))
    x = np.random.default_rng(0).normal(size=(20, 5))
    for metric in ("f1", "mcc", "shd", "tpr"):
        search = GridSearchCV(
            FixedGraph(), {"adjacency": [wrong, truth]}, cv=2, scoring=graph_scorer(g, metric)
        ).fit(x)
        assert search.best_params_["adjacency"] is truth
    assert graph_scorer(g, "shd")(FixedGraph(wrong).fit(x)) == -6.0
    with pytest.raises(InvalidOptionError, match="metric"):
        graph_scorer(g, "auc")
    with pytest.raises(InvalidOptionError, match="fit it first"):
        graph_scorer(g)(FixedGraph())


def test_cli_score_prints_the_score_table(tmp_path, capsys):
    import io

    import pandas as pd

    from spdgraph.cli import main
    from spdgraph.graphs import related_graphs
    from spdgraph.validation import score_table

    graphs = related_graphs(nx.cycle_graph(8), 2, n_add=1, n_remove=1, seed=1)
    prec = spdgraph.sample(graphs, seed=2, kind="precision")
    data = prec.spd.draw(150, seed=3)
    spdgraph.save(prec, tmp_path / "truth.nc")
    spdgraph.save(data, tmp_path / "data.nc")
    argv = ["score", str(tmp_path / "data.nc"), str(tmp_path / "truth.nc"), "--seed", "0"]
    assert main([*argv, "--learner", "shrink", "--areas"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = score_table(data, prec, "shrink", seed=0)
    np.testing.assert_allclose(table["mcc"], expected["mcc"])
    assert (table["lasso_path_roc_auc"] > 0.5).all()
    assert main([*argv, "-o", str(tmp_path / "s.csv")]) == 0
    assert pd.read_csv(tmp_path / "s.csv")["learner"].tolist() == ["lasso", "lasso"]
