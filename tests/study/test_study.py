"""spdgraph.study: TOML studies, cell seeding, resuming, schedulers, tables, CLI."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import spdgraph.study
from spdgraph.cli import main
from spdgraph.errors import InvalidOptionError
from spdgraph.study import cell_seed, load_study, run

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "name": "tiny",
    "seed": 7,
    "repeats": 2,
    "grid": {"family": ["hub", "AR(1)"], "p": [8], "n": [30, 60]},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["tpr", "tdr", "f1"]},
}
TINY_TOML = """
name = "tiny"
seed = 7
repeats = 2
[grid]
family = ["hub", "AR(1)"]
p = [8]
n = [30, 60]
[[learners]]
name = "shrink"
[scores]
metrics = ["tpr", "tdr", "f1"]
"""


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn convergence, empty means
        yield


def _cells(folder: Path) -> int:
    return len(list((folder / "cells").glob("*.json")))


@pytest.mark.integration
def test_small_example_runs_and_resumes(tmp_path):
    study = load_study(ROOT / "examples" / "study-small.toml")
    first = run(study, tmp_path, workers=1)
    n_cells = len(study.cells())
    assert (first.computed, first.skipped) == (n_cells, 0)
    rows = n_cells * study.repeats * len(study.learners) * (len(study.metrics) + 2)
    assert len(first.table) == rows  # + roc_auc and pr_auc: every learner gives scores
    for name in ("results.csv", "results.nc", "curves.csv", "plots/metrics.png"):
        assert (tmp_path / name).is_file()
    assert (tmp_path / "plots" / "roc_pr.png").is_file()
    back = pd.read_csv(tmp_path / "results.csv")
    assert list(back.columns) == [*study.grid, "repeat", "learner", "metric", "value",
                                  "status", "warnings", "error"]  # fmt: skip
    again = run(study, tmp_path, workers=1)
    assert (again.computed, again.skipped) == (0, n_cells)  # resumed: nothing recomputed
    pd.testing.assert_frame_equal(again.table, first.table)


def test_interrupted_study_continues(tmp_path):
    done: list[dict] = []

    def stop_after_two(coords):
        done.append(coords)
        if len(done) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(TINY, tmp_path, workers=1, plots=False, on_cell=stop_after_two)
    assert _cells(tmp_path) == 2
    assert not list((tmp_path / "cells").glob("*.tmp"))  # nothing half-written
    rest = run(TINY, tmp_path, workers=1, plots=False)
    assert (rest.computed, rest.skipped) == (2, 2)
    fresh = run(TINY, tmp_path / "fresh", workers=1, plots=False)
    pd.testing.assert_frame_equal(rest.table, fresh.table)  # same bits either way


def test_cell_result_does_not_depend_on_other_cells(tmp_path):
    full = run(TINY, tmp_path / "full", workers=1, plots=False).table
    part = dict(TINY, grid={"family": ["AR(1)"], "p": [8], "n": [60]})
    one = run(part, tmp_path / "part", workers=1, plots=False).table
    mask = (full["family"] == "AR(1)") & (full["n"] == 60)
    pd.testing.assert_frame_equal(full[mask].reset_index(drop=True), one)
    a = cell_seed(7, {"family": "hub", "n": 30})
    assert a.spawn_key != cell_seed(7, {"family": "hub", "n": 60}).spawn_key
    assert a.spawn_key != cell_seed(7, {"family": "hub", "n": "30"}).spawn_key


def test_changed_configuration_recomputes_and_corrupt_cells_are_redone(tmp_path):
    run(TINY, tmp_path, workers=1, plots=False)
    more = dict(TINY, grid={**TINY["grid"], "n": [30, 60, 90]})
    assert run(more, tmp_path, workers=1, plots=False).computed == 2  # only the new cells
    other_seed = dict(more, seed=8)
    assert run(other_seed, tmp_path, workers=1, plots=False).computed == 6
    victim = next((tmp_path / "cells").glob("*.json"))
    victim.write_text("{not json")
    assert run(other_seed, tmp_path, workers=1, plots=False).computed == 1


def test_custom_learners_function_and_estimator(tmp_path):
    def threshold(x, cut=0.3):
        pc = np.corrcoef(x, rowvar=False)
        return np.where(np.abs(pc) > cut, pc, 0.0)

    spec = dict(
        TINY,
        repeats=1,
        learners=[
            {"name": "thr", "function": threshold, "options": {"cut": 0.25}},
            {"name": "sk", "estimator": "sklearn.covariance:GraphicalLasso",
             "options": {"alpha": 0.1}},
        ],
    )  # fmt: skip
    table = run(spec, tmp_path, workers=1, plots=False).table
    assert set(table["learner"]) == {"thr", "sk"}
    values = table.set_index(["family", "n", "learner", "metric"])["value"]
    assert 0.0 <= values.loc[("AR(1)", 60, "sk", "tpr")] <= 1.0
    assert "roc_auc" in set(table["metric"])


def test_configuration_errors(tmp_path):
    bad = [
        ({**TINY, "colour": 1}, "unknown study keys"),
        ({k: v for k, v in TINY.items() if k != "seed"}, "needs a seed"),
        ({**TINY, "learners": [{"name": "magic"}]}, "not built in"),
        ({**TINY, "learners": [{"name": "x", "function": "nosuch.module:f"}]}, "cannot import"),
        ({**TINY, "scores": {"metrics": ["accuracy"]}}, "unknown metric"),
        ({**TINY, "grid": {"family": ["wheel"], "p": [5], "n": [5]}}, "unknown graph family"),
        ({**TINY, "grid": {"family": ["hub"], "p": [5]}}, "needs the axis 'n'"),
        ({**TINY, "repeats": 0}, "repeats"),
    ]
    for spec, match in bad:
        with pytest.raises(InvalidOptionError, match=match):
            run(spec, tmp_path, workers=1, plots=False)
    with pytest.raises(InvalidOptionError, match="does not exist"):
        load_study(tmp_path / "missing.toml")


def test_failing_cell_is_reported_and_others_stored(tmp_path):
    def broken(x):
        if x.shape[0] == 60:
            raise RuntimeError("learner exploded")
        return np.eye(x.shape[1])

    spec = dict(TINY, learners=[{"name": "b", "function": broken}])
    with pytest.raises(spdgraph.study.StudyError, match="4 learner fit"):
        run(spec, tmp_path, workers=1, plots=False)
    assert _cells(tmp_path) == 4  # every cell stored, its failed fits marked
    table = pd.read_csv(tmp_path / "results.csv")
    failed = table[table["status"] == "failed"]
    assert set(failed["n"]) == {60} and failed["value"].isna().all()
    assert (failed["error"] == "RuntimeError: learner exploded").all()
    assert set(table.loc[table["n"] == 30, "status"]) <= {"ok", "selected nothing"}


def test_cli_runs_and_resumes(tmp_path, capsys):
    toml = tmp_path / "tiny.toml"
    toml.write_text(TINY_TOML)
    out = tmp_path / "out"
    args = ["study", "run", str(toml), "-o", str(out), "--workers", "1", "--no-plots"]
    assert main(args) == 0
    assert "4 cells computed, 0 reused" in capsys.readouterr().out
    assert main(args) == 0
    assert "0 cells computed, 4 reused" in capsys.readouterr().out
    stored = json.loads((out / "study.json").read_text())
    assert stored["seed"] == 7 and stored["grid"]["family"] == ["hub", "AR(1)"]
    assert main(["study", "run", str(tmp_path / "nope.toml"), "-o", str(out)]) == 2


@pytest.mark.integration
def test_local_processes_and_local_cluster_give_the_same_bits(tmp_path):
    pytest.importorskip("distributed")
    serial = run(TINY, tmp_path / "serial", workers=1, plots=False)
    pool = run(TINY, tmp_path / "pool", workers=2, plots=False)
    cluster = run(TINY, tmp_path / "cluster", workers=2, scheduler="local", plots=False)
    assert pool.computed == cluster.computed == 4
    pd.testing.assert_frame_equal(serial.table, pool.table)
    pd.testing.assert_frame_equal(serial.table, cluster.table)
    pd.testing.assert_frame_equal(serial.curves, cluster.curves)


def test_paper_example_loads_and_its_cells_simulate():
    from spdgraph.study._cell import simulate_cell as _simulation

    study = load_study(ROOT / "examples" / "study-paper.toml")
    cells = study.cells()
    assert len(cells) == 32 and study.repeats == 20
    assert {c["d"] for c in cells} == {0.25, 0.05}
    sim = _simulation(study, cells[0], cell_seed(study.seed, cells[0]))
    assert sim.attrs["graph_family"] == "erdos_renyi" and '"d": 0.25' in sim.attrs[
        "graph_parameters"
    ]  # fmt: skip
