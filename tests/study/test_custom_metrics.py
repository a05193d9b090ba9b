"""A study metric of ones own, "module:function": scored, tabled and plotted like the built-ins."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.study import load_study, run
from spdgraph.validation import graph_scorer, resolve_metric

STUDY = {
    "name": "custom",
    "seed": 3,
    "grid": {"family": ["hub"], "p": [8], "n": [30, 60]},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["f1", "custom_metrics:jaccard", "custom_metrics:missed_edges"]},
}


def test_a_custom_metric_is_in_the_table_and_the_plot(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (figures.append(fig), close(fig)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty means in sparse cells
        result = run(STUDY, tmp_path, workers=1, plots=True)
    table = pd.read_csv(tmp_path / "results.csv")
    assert {"f1", "jaccard", "missed_edges"} <= set(table["metric"])
    wide = table.pivot_table(index=["n", "repeat", "learner"], columns="metric", values="value")
    # the reference: Jaccard = F1 / (2 - F1) for one selection against one truth
    f1 = wide["f1"].to_numpy()
    np.testing.assert_allclose(wide["jaccard"].to_numpy(), f1 / (2 - f1))
    assert (wide["missed_edges"] >= 0).all() and (wide["missed_edges"] % 1 == 0).all()
    assert set(result.table["metric"]) == set(table["metric"])
    titles = {ax.get_title() for fig in figures if fig is not None for ax in fig.axes}
    assert {"hub: F1", "hub: jaccard", "hub: missed_edges"} <= titles
    assert (tmp_path / "plots" / "metrics.png").stat().st_size > 0


def test_whether_higher_is_better_comes_from_the_function():
    assert resolve_metric("custom_metrics:jaccard").higher_is_better is True
    missed = resolve_metric("custom_metrics:missed_edges")
    assert (missed.name, missed.higher_is_better) == ("missed_edges", False)
    assert resolve_metric("fpr").higher_is_better is False


def test_graph_scorer_takes_a_custom_metric_with_its_sign():
    g = nx.path_graph(6)

    class Fitted:  # an estimator that selected the path minus one edge
        adjacency_ = nx.to_numpy_array(g, dtype=bool)
        adjacency_[0, 1] = adjacency_[1, 0] = False

    assert graph_scorer(g, "custom_metrics:missed_edges")(Fitted()) == -1.0
    assert graph_scorer(g, "custom_metrics:jaccard")(Fitted()) == pytest.approx(4 / 5)


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        ("accuracy", "unknown metric 'accuracy'"),
        ("custom_metrics:nosuch", "cannot import metric"),
        ("custom_metrics:f1", "named 'f1' like a built-in"),
        ("nosuch_module:f", "cannot import metric"),
    ],
)
def test_bad_metrics_are_refused_before_any_cell(metric, message, tmp_path):
    spec = {**STUDY, "scores": {"metrics": [metric]}}
    with pytest.raises(InvalidOptionError, match=message):
        run(spec, tmp_path, workers=1, plots=False)
    assert not (tmp_path / "cells").exists() or not list((tmp_path / "cells").iterdir())


def test_a_metric_that_returns_no_number_names_itself():
    metric = resolve_metric("custom_metrics:not_a_number")
    truth = np.zeros((3, 3), dtype=bool)
    with pytest.raises(InvalidOptionError, match="returned 'high'"):
        metric.value(truth, truth, {})


def test_the_config_keeps_the_path_and_the_fingerprint_changes():
    plain = load_study({**STUDY, "scores": {"metrics": ["f1"]}})
    custom = load_study(STUDY)
    assert custom.metrics == STUDY["scores"]["metrics"]
    assert plain.fingerprint() != custom.fingerprint()
    assert spdgraph.validation.METRICS  # the built-ins stay a closed, documented tuple
