"""A study's entries: failures per (cell, learner, repeat), reruns, warnings, output kinds."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import spdgraph.study
from spdgraph.cli import main
from spdgraph.errors import InvalidOptionError
from spdgraph.study import run

BASE = {
    "name": "entries",
    "seed": 5,
    "repeats": 2,
    "grid": {"family": ["hub"], "p": [6], "n": [30, 60]},
    "scores": {"metrics": ["tpr", "tdr", "seconds"]},
}
CALLS: list[str] = []
BROKEN = {"on": True}


def good(x):
    CALLS.append("good")
    c = np.corrcoef(x, rowvar=False)
    return np.where(np.abs(c) > 0.2, c, 0.0)


def flaky(x):
    CALLS.append("flaky")
    if BROKEN["on"] and x.shape[0] == 60:
        raise RuntimeError("flaky broke\non two lines")
    return np.eye(x.shape[1])


def noisy(x):
    warnings.warn("noisy's own warning", RuntimeWarning, stacklevel=1)
    warnings.warn("noisy's second warning", UserWarning, stacklevel=1)
    return np.corrcoef(x, rowvar=False)


def float_selection(x):
    c = np.corrcoef(x, rowvar=False)
    return (np.abs(c) > 0.3).astype(float)  # as R's as.matrix(sel$refit) comes back


def _cell_files(folder: Path) -> list[dict]:
    return [json.loads(f.read_text()) for f in sorted((folder / "cells").glob("*.json"))]


def test_a_failing_learner_fails_its_own_entries_and_a_rerun_computes_only_them(tmp_path):
    CALLS.clear()
    BROKEN["on"] = True
    spec = {**BASE, "learners": [{"name": "good", "function": good},
                                 {"name": "flaky", "function": flaky}]}  # fmt: skip
    with pytest.raises(spdgraph.study.StudyError, match="2 learner fit") as info:
        run(spec, tmp_path, workers=1, plots=False)
    assert CALLS.count("good") == 4 and CALLS.count("flaky") == 4
    failed_fits = {(f["learner"], f["repeat"]) for f in info.value.failures}
    assert failed_fits == {("flaky", 0), ("flaky", 1)}
    table = pd.read_csv(tmp_path / "results.csv")
    assert list(table.columns) == [*spec["grid"], "method", "data", "repeat", "learner",
                                   "metric", "value", "status", "warnings", "error"]  # fmt: skip
    failed = table[table["status"] == "failed"]
    assert set(failed["learner"]) == {"flaky"} and set(failed["n"]) == {60}
    assert set(failed["metric"]) == {"tpr", "tdr", "seconds"} and failed["value"].isna().all()
    assert set(failed["error"]) == {"RuntimeError: flaky broke on two lines"}  # one line
    scored = table[(table["learner"] == "good") & table["metric"].isin(["tpr", "tdr", "seconds"])]
    assert len(scored) == 12 and scored["value"].notna().all()
    stored = json.loads((tmp_path / "failures.json").read_text())
    assert {(f["learner"], f["repeat"]) for f in stored} == {("flaky", 0), ("flaky", 1)}
    # the rerun, the learner fixed: only its two failed entries are computed
    CALLS.clear()
    BROKEN["on"] = False
    result = run(spec, tmp_path, workers=1, plots=False)
    assert CALLS == ["flaky", "flaky"]
    assert set(result.table["status"]) <= {"ok", "selected nothing"}
    assert json.loads((tmp_path / "failures.json").read_text()) == []
    # nothing left to do: nothing computed
    CALLS.clear()
    run(spec, tmp_path, workers=1, plots=False)
    assert CALLS == []


def test_a_changed_learner_or_a_new_repeat_computes_only_what_is_new(tmp_path):
    CALLS.clear()
    BROKEN["on"] = False
    spec = {**BASE, "learners": [{"name": "good", "function": good},
                                 {"name": "flaky", "function": flaky}]}  # fmt: skip
    first = run(spec, tmp_path, workers=1, plots=False).table
    CALLS.clear()
    edited = {"name": "flaky", "function": flaky, "options": {}}
    changed = {**spec, "learners": [spec["learners"][0], edited]}
    run(changed, tmp_path, workers=1, plots=False)
    assert CALLS == ["flaky"] * 4  # the other learner's entries are reused
    CALLS.clear()
    more = run({**changed, "repeats": 3}, tmp_path, workers=1, plots=False).table
    assert CALLS == ["good", "flaky"] * 2  # repeat 2 of each cell only
    kept = more[(more["repeat"] < 2) & (more["metric"] != "seconds")].reset_index(drop=True)
    same = first[first["metric"] != "seconds"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, same, check_dtype=False)  # the same bits
    reused = (more["learner"] == "good") & (more["repeat"] < 2)
    assert more.loc[reused, "value"].tolist() == first.loc[first["learner"] == "good",
                                                           "value"].tolist()  # fmt: skip


def test_a_missing_or_hanging_command_fails_its_entries_only(tmp_path):
    spec = {**BASE, "repeats": 1, "grid": {**BASE["grid"], "n": [30]}, "learners": [
        {"name": "good", "function": good},
        {"name": "missing", "command": ["spdgraph-no-such-learner", "{data}", "{out}"]},
        {"name": "hangs", "command": [sys.executable, "-c", "import time; time.sleep(60)",
                                      "{data}", "{out}"], "timeout": 1},
    ]}  # fmt: skip
    with pytest.raises(spdgraph.study.StudyError, match="2 learner fit"):
        run(spec, tmp_path, workers=1, plots=False)
    table = pd.read_csv(tmp_path / "results.csv")
    status = table.groupby("learner")["status"].first().to_dict()
    assert status["missing"] == status["hangs"] == "failed" and status["good"] != "failed"
    assert table.loc[table["learner"] == "good", "value"].notna().all()
    # the CLI says something failed: exit status 2
    toml = tmp_path / "s.toml"
    toml.write_text(
        'seed = 5\n[grid]\nfamily = ["hub"]\np = [6]\nn = [30]\n[[learners]]\nname = "shrink"\n'
        '[[learners]]\nname = "missing"\ncommand = ["spdgraph-no-such-learner", "{data}", '
        '"{out}"]\n'
    )
    assert main(["study", "run", str(toml), "-o", str(tmp_path / "cli"), "--workers", "1",
                 "--no-plots"]) == 2  # fmt: skip


def test_warnings_in_a_cell_are_counted_not_printed(tmp_path, recwarn):
    spec = {**BASE, "repeats": 1, "learners": [{"name": "noisy", "function": noisy},
                                                {"name": "good", "function": good}]}  # fmt: skip
    table = run(spec, tmp_path, workers=1, plots=False).table
    assert not [w for w in recwarn if "noisy" in str(w.message)]  # none escaped
    counts = table.groupby("learner")["warnings"].first().to_dict()
    assert counts["noisy"] >= 2 and counts["good"] == 0
    entries = [e for cell in _cell_files(tmp_path) for e in cell["entries"]]
    noisy_messages = [m for e in entries if e["learner"] == "noisy" for m in e["messages"]]
    assert "RuntimeWarning: noisy's own warning" in noisy_messages
    assert "UserWarning: noisy's second warning" in noisy_messages


def test_a_zero_one_result_is_a_selection_and_output_declares_a_kind(tmp_path):
    spec = {**BASE, "repeats": 1, "grid": {**BASE["grid"], "n": [60]}, "learners": [
        {"name": "auto", "function": float_selection},
        {"name": "declared", "function": good, "output": "selection"},
        {"name": "scores", "function": float_selection, "output": "scores"},
        {"name": "empty", "function": lambda x: np.zeros((x.shape[1],) * 2)},
    ]}  # fmt: skip
    table = run(spec, tmp_path, workers=1, plots=False).table
    metrics = table.groupby("learner")["metric"].agg(set).to_dict()
    assert "roc_auc" not in metrics["auto"] and "roc_auc" not in metrics["declared"]
    assert {"roc_auc", "pr_auc"} <= metrics["scores"]
    assert set(table.loc[table["learner"] == "empty", "status"]) == {"selected nothing"}
    with pytest.raises(InvalidOptionError, match="output must be one of"):
        spdgraph.study.load_study({**spec, "learners": [{"name": "shrink", "output": "edges"}]})


def test_non_finite_results_fail_the_entry_naming_the_learner(tmp_path):
    spec = {**BASE, "repeats": 1, "grid": {**BASE["grid"], "n": [30]},
            "learners": [{"name": "nan", "function": lambda x: np.full((6, 6), np.nan)}],
            }  # fmt: skip
    with pytest.raises(spdgraph.study.StudyError, match="learner 'nan' returned 36 non-finite"):
        run(spec, tmp_path, workers=1, plots=False)
