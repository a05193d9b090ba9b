"""The truth's kind travels and is enforced: no precision-graph learner scored on a covariance."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

pytest.importorskip("sklearn")

import spdgraph
from spdgraph.errors import InvalidOptionError, SpdgraphError
from spdgraph.validation import (
    LEARNER_GRAPHS,
    draw_gaussian,
    graph_scorer,
    posterior_scores,
    score,
    score_table,
)

G = nx.cycle_graph(8)


@pytest.fixture(scope="module")
def cov():
    return spdgraph.sample(G, "po", seed=5)  # the default kind: covariance


@pytest.fixture(scope="module")
def prec():
    return spdgraph.sample(G, "po", seed=5, kind="precision")


def _marginal(x):
    """A covariance-graph learner: sample correlations beyond 5 standard errors."""
    c = np.corrcoef(x, rowvar=False)
    return np.abs(c) > 5.0 / np.sqrt(x.shape[0])


def test_every_builtin_learner_declares_the_precision_graph():
    assert set(LEARNER_GRAPHS.values()) == {"precision"}
    assert set(LEARNER_GRAPHS) == {"lasso", "adalasso", "ridge", "pls", "shrink", "glasso", "mb"}


@pytest.mark.parametrize("learner", ["glasso", "lasso", "shrink"])
def test_precision_learner_against_a_covariance_truth_is_refused(cov, learner):
    # the measured case: score(x, cov, "glasso") scored against the covariance's zeros
    x = cov.spd.draw(100, seed=1)
    with pytest.raises(SpdgraphError, match='kind="precision"') as err:
        score(x, cov, learner)
    assert 'graph_of="covariance"' in str(err.value)
    # the data alone say it too (truth given as a plain graph)
    with pytest.raises(InvalidOptionError, match="covariance"):
        score(x, G, learner)
    # and the matrix alone (plain numpy data)
    with pytest.raises(InvalidOptionError, match="covariance"):
        score(np.asarray(x.values), cov, learner)


def test_a_correlation_truth_is_a_covariance_graph(cov):
    corr = cov.spd.correlation()
    with pytest.raises(InvalidOptionError, match='kind="precision"'):
        score(cov.spd.draw(50, seed=1), corr, "shrink")


def test_covariance_graph_learner_is_accepted_on_a_covariance_truth(cov, prec):
    x = cov.spd.draw(2000, seed=2)
    s = score(x, cov, _marginal, graph_of="covariance")
    assert s.graph_of == "covariance" and s.n_true == 8
    assert s.tdr == 1.0 and s.tpr >= 0.5  # the covariance graph is what it sees

    def declared(x):
        return _marginal(x)

    declared.graph_of = "covariance"  # type: ignore[attr-defined]
    assert score(x, cov, declared).selected.tolist() == s.selected.tolist()
    # a covariance-graph learner against a precision truth is refused the other way
    with pytest.raises(InvalidOptionError, match='kind="covariance"'):
        score(prec.spd.draw(100, seed=1), prec, declared)


def test_builtin_learner_cannot_claim_the_covariance_graph(cov):
    with pytest.raises(InvalidOptionError, match="estimates the precision graph"):
        score(cov.spd.draw(50, seed=1), cov, "glasso", graph_of="covariance")
    with pytest.raises(InvalidOptionError, match="graph_of must be"):
        score(cov.spd.draw(50, seed=1), cov, _marginal, graph_of="correlation")


def test_truth_and_data_of_different_kinds_are_refused(cov, prec):
    with pytest.raises(InvalidOptionError, match="drawn from a covariance"):
        score(cov.spd.draw(50, seed=1), prec, "shrink")


def test_precision_truth_scores_and_carries_its_graph(prec):
    s = score(prec.spd.draw(400, seed=3), prec, "shrink", seed=0)
    assert s.graph_of == "precision" and s.as_dict()["graph_of"] == "precision"


@pytest.mark.parametrize("as_array", [True, False])
def test_a_matrix_passed_as_data_is_refused(prec, as_array):
    # the measured case: score(prec, G) returned TPR 0.44 on a 34 x 34 precision
    data = np.asarray(prec.values) if as_array else prec
    with pytest.raises(InvalidOptionError, match="observations"):
        score(data, G, "shrink")


def test_square_data_that_are_observations_are_accepted(prec):
    x = draw_gaussian(prec.values, 8, seed=4)  # n = p observations: not symmetric
    assert score(x, G, "shrink", seed=0).n_true == 8


def test_graph_scorer_refuses_a_covariance_truth(cov):
    with pytest.raises(InvalidOptionError, match='kind="precision"'):
        graph_scorer(cov, "f1")
    scorer = graph_scorer(cov, "f1", graph_of="covariance")

    class Fitted:
        adjacency_ = nx.to_numpy_array(G) != 0

    assert scorer(Fitted()) == 1.0


def test_posterior_scores_refuses_a_correlation_truth(cov, prec):
    draws = np.broadcast_to(prec.values, (1, 4, 8, 8))
    with pytest.raises(InvalidOptionError, match="correlation matrix"):
        posterior_scores(draws, cov.spd.correlation(), kind="precision")


def test_score_table_and_cli_refuse_a_covariance_truth(tmp_path, cov, capsys):
    from spdgraph.cli import main

    data = cov.spd.draw(60, seed=1)
    with pytest.raises(InvalidOptionError, match='kind="precision"'):
        score_table(data, cov, "glasso")
    spdgraph.save(cov, tmp_path / "truth.nc")
    spdgraph.save(data, tmp_path / "data.nc")
    argv = ["score", str(tmp_path / "data.nc"), str(tmp_path / "truth.nc"), "--learner", "glasso"]
    assert main(argv) != 0
    assert 'kind="precision"' in capsys.readouterr().err


def test_score_repr_is_short(prec):
    s = score(prec.spd.draw(200, seed=3), prec, "shrink", seed=0)
    text = repr(s)
    assert "selected=<8 x 8 bool>" in text and "True" not in text and len(text) < 250
