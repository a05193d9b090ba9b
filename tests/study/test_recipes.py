"""docs/architecture.md's study recipes, done as the recipes say: a learner kind, a metric.

Each test touches only what its recipe names: a learner kind is one object
returned by a ``spdgraph_learner_kinds`` hook (here a plugin registered at
run time); a metric is one function given to ``register_metric``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from types import ModuleType

import numpy as np
import pytest

import spdgraph
import spdgraph.study
from spdgraph.errors import InvalidOptionError
from spdgraph.plugins.hookspecs import offering
from spdgraph.plugins.learners import LearnerKind
from spdgraph.validation import metric_names, register_metric, resolve_metric

# ---- a learner kind: a toy persistent bridge, as a Julia one would be ----------------

#: The "other language": a Python process reading one JSON request per line, answering one.
_LOOP = r"""
import json, sys, time
import numpy as np
for line in sys.stdin:
    req = json.loads(line)
    x = np.array(req["x"])
    rng = np.random.default_rng(req["seed"])
    t0 = time.perf_counter()
    try:
        out = eval(req["code"], {"np": np, "x": x, "rng": rng})
        reply = {"ok": np.asarray(out, dtype=float).tolist(), "seconds": time.perf_counter() - t0}
    except Exception as exc:
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(reply), flush=True)
"""


class ToyBridge:
    """One process per worker, started by the first fit and reused (``persistent``)."""

    process: subprocess.Popen[str] | None = None
    started = 0
    lock = threading.Lock()

    @classmethod
    def fit(cls, entry, x, labels, seed):
        with cls.lock:
            if cls.process is None or cls.process.poll() is not None:
                cls.process = subprocess.Popen(
                    [sys.executable, "-c", _LOOP], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                cls.started += 1
            request = {"code": entry["toy"], "x": x.tolist(),
                       "seed": int(seed.generate_state(1)[0])}  # fmt: skip
            cls.process.stdin.write(json.dumps(request) + "\n")
            cls.process.stdin.flush()
            reply = json.loads(cls.process.stdout.readline())
        if "error" in reply:
            raise RuntimeError(reply["error"])  # the study fails this entry only
        return np.array(reply["ok"]), reply["seconds"]

    @classmethod
    def close(cls):
        if cls.process is not None:
            cls.process.stdin.close()
            cls.process.wait(timeout=10)
            cls.process = None


def _check_toy(entry):
    if not isinstance(entry["toy"], str) or not entry["toy"].strip():
        raise InvalidOptionError(f"learner {entry['name']!r}: toy must be code (a string).")


TOY = LearnerKind("toy", "toy", ToyBridge.fit, _check_toy, persistent=True)


@pytest.fixture
def toy_kind(request):
    """The toy kind registered at run time, as a plugin module offering it would be."""
    pm = spdgraph.get_plugin_manager()
    plugin = ModuleType("toy_kind_plugin")  # a plugin module offering the kind
    plugin.spdgraph_learner_kinds = offering(TOY)  # type: ignore[attr-defined]
    pm.register(plugin, name="toy-kind")
    request.addfinalizer(ToyBridge.close)
    request.addfinalizer(lambda: pm.unregister(plugin))
    return TOY


def test_a_learner_kind_registered_at_run_time_runs_a_study(toy_kind, tmp_path):
    assert spdgraph.study.learner_kinds()["toy"] is toy_kind
    spec = {
        "seed": 3,
        "repeats": 2,
        "grid": {"family": ["hub"], "p": [6], "n": [40, 80]},
        "learners": [
            {"name": "corr", "toy": "np.where(abs(np.corrcoef(x.T)) > 0.25, np.corrcoef(x.T), 0)"},
            {"name": "noise", "toy": "rng.standard_normal((x.shape[1],) * 2)"},
            {"name": "broken", "toy": "undefined_name"},
        ],
        "scores": {"metrics": ["tpr", "tdr"]},
    }
    with pytest.raises(spdgraph.study.StudyError, match="4 learner fit"):
        spdgraph.study.run(spec, tmp_path / "a", workers=1, plots=False)
    assert ToyBridge.started == 1  # one process for every fit of the worker
    import pandas as pd

    table = pd.read_csv(tmp_path / "a" / "results.csv")
    assert table.loc[table["learner"] == "corr", "value"].notna().all()
    assert set(table.loc[table["learner"] == "broken", "error"]) == {
        "RuntimeError: NameError: name 'undefined_name' is not defined"
    }
    # the learner seed reaches the kind: the same study gives the same bits
    spec_ok = {**spec, "learners": spec["learners"][:2]}
    first = spdgraph.study.run(spec_ok, tmp_path / "b", workers=1, plots=False).table
    again = spdgraph.study.run(spec_ok, tmp_path / "c", workers=1, plots=False).table
    assert first["value"].equals(again["value"])
    # checked at load time, by the kind
    with pytest.raises(InvalidOptionError, match="toy must be code"):
        spdgraph.study.load_study({**spec, "learners": [{"name": "t", "toy": 3}]})
    with pytest.raises(InvalidOptionError, match="give one of r, toy, not several"):
        spdgraph.study.load_study({**spec, "learners": [{"name": "t", "toy": "x", "r": "x"}]})


def test_without_the_plugin_the_key_is_unknown():
    spec = {"seed": 1, "grid": {"family": ["hub"], "p": [5], "n": [9]},
            "learners": [{"name": "t", "toy": "x"}]}  # fmt: skip
    with pytest.raises(InvalidOptionError, match="unknown keys \\['toy'\\]"):
        spdgraph.study.load_study(spec)


def test_a_kind_reusing_a_key_is_skipped_with_a_warning():
    pm = spdgraph.get_plugin_manager()

    class Clash:
        @spdgraph.hookimpl
        def spdgraph_learner_kinds(self):
            return [LearnerKind("mine", "r", ToyBridge.fit)]

    plugin = Clash()
    pm.register(plugin, name="clash")
    try:
        with pytest.warns(spdgraph.PluginWarning, match="'clash' is skipped.*registered twice"):
            kinds = spdgraph.study.learner_kinds()
        assert kinds["r"].name == "r"
    finally:
        pm.unregister(plugin)


# ---- a metric: one function, registered ------------------------------------------------


def missed_edges(truth, selected):
    """Edges of the truth the learner missed."""
    return float(np.sum(truth & ~selected) // 2)


def empty_graph(x):
    return np.zeros((x.shape[1], x.shape[1]))


def test_a_metric_registered_at_run_time_is_tabled_with_its_direction(tmp_path):
    metric = register_metric(missed_edges, name="recipe_missed", higher_is_better=False)
    assert "recipe_missed" in metric_names() and "recipe_missed" in metric_names("selection")
    assert resolve_metric("recipe_missed") is metric and metric.higher_is_better is False
    again = register_metric(missed_edges, name="recipe_missed", higher_is_better=False)
    assert again == metric  # the same function again: idempotent
    spec = {"seed": 2, "grid": {"family": ["hub"], "p": [8], "n": [60]},
            "learners": [{"name": "none", "function": empty_graph}],
            "scores": {"metrics": ["tpr", "recipe_missed"]}}  # fmt: skip
    table = spdgraph.study.run(spec, tmp_path, workers=1, plots=False).table
    rows = table.set_index("metric")["value"]
    truth = spdgraph.study.cell_data(tmp_path, {"n": 60}, spec)["adjacency"].isel(repeat=0)
    assert rows["recipe_missed"] == int(truth.values.sum()) // 2 > 0  # it missed every edge
    with pytest.raises(InvalidOptionError, match="taken by a built-in metric"):
        register_metric(missed_edges, name="tpr")
    with pytest.raises(InvalidOptionError, match="taken by"):
        register_metric(lambda t, s: 0.0, name="recipe_missed")


def test_every_table_metric_has_one_record_with_its_direction():
    from spdgraph.validation import METRICS

    names = metric_names()
    assert set(METRICS) <= set(names)
    assert {"roc_auc", "pr_auc", "seconds", "brier", "coverage"} <= set(names)
    assert resolve_metric("shd").higher_is_better is False
    assert resolve_metric("seconds").higher_is_better is False
    assert resolve_metric("roc_auc").higher_is_better is True
    assert resolve_metric("coverage").higher_is_better is None  # best near its nominal level
    assert metric_names("posterior") == ["brier", "stein_loss", "frobenius_relative", "coverage"]
    with pytest.raises(InvalidOptionError, match="source must be one of"):
        metric_names("nope")
    from spdgraph.validation import graph_scorer

    with pytest.raises(InvalidOptionError, match="not a function of the selected edges"):
        graph_scorer(np.eye(3, dtype=bool), "roc_auc")
