"""R and command-line learners in a study, fit times, failures per cell, report.html."""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
import textwrap
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph.study
from spdgraph.cli import main
from spdgraph.errors import InvalidOptionError, MissingDependencyError
from spdgraph.study import StudyError, load_study, run
from spdgraph.study._command import fit_command
from spdgraph.study._rbridge import LearnerFailure, RSession

ROOT = Path(__file__).resolve().parents[2]
HAS_R = shutil.which("Rscript") is not None
needs_r = pytest.mark.skipif(not HAS_R, reason="needs R (Rscript on PATH) for R learners")

BASE = {
    "name": "learners",
    "seed": 11,
    "repeats": 1,
    "grid": {"family": ["hub"], "p": [6], "n": [30, 60]},
    "scores": {"metrics": ["tpr", "tdr", "f1", "seconds"]},
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def ridge_pcor(x):
    """The reference Python learner: ridge partial correlations."""
    k = np.linalg.inv(np.cov(x, rowvar=False) + 0.1 * np.eye(x.shape[1]))
    d = np.sqrt(np.diag(k))
    return -k / np.outer(d, d)


SCRIPT = """
import sys
import time
import numpy as np

data, out = sys.argv[1], sys.argv[2]
if data.endswith(".npy"):
    x = np.load(data)
else:
    with open(data) as handle:
        labels = handle.readline().strip().split(",")
    x = np.loadtxt(data, delimiter=",", skiprows=1, ndmin=2)
    assert len(labels) == x.shape[1], labels
if x.shape[0] == 60 and "{fail}" == "error":
    sys.stderr.write("mine.py: the solver diverged\\n")
    sys.exit(3)
if x.shape[0] == 60 and "{fail}" == "hang":
    time.sleep(600)
k = np.linalg.inv(np.cov(x, rowvar=False) + 0.1 * np.eye(x.shape[1]))
d = np.sqrt(np.diag(k))
if out.endswith(".npy"):
    np.save(out, -k / np.outer(d, d))
else:
    np.savetxt(out, -k / np.outer(d, d), delimiter=",", fmt="%.17g")
"""


def _script(tmp_path: Path, fail: str = "") -> str:
    path = tmp_path / f"mine_{fail or 'ok'}.py"
    path.write_text(SCRIPT.replace("{fail}", fail))
    return str(path)


def _scores(table: pd.DataFrame, learner: str) -> pd.DataFrame:
    rows = table[(table["learner"] == learner) & (table["metric"] != "seconds")]
    return rows.drop(columns="learner").reset_index(drop=True)


# -- configuration ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("learner", "match"),
    [
        ({"name": "c", "command": ["x", "{data}"]}, "must contain {out}"),
        ({"name": "c", "command": "x {data} {out}"}, "list of strings"),
        ({"name": "r", "r": "  "}, "non-empty"),
        ({"name": "r", "r": "x", "command": ["a", "{data}", "{out}"]}, "give one of"),
        ({"name": "r", "r": "x", "packages": "huge"}, "list of R package names"),
        ({"name": "r", "r": "x", "packages": ["hu ge"]}, "list of R package names"),
        ({"name": "glasso", "packages": ["huge"]}, "belong to the learners given by r"),
        ({"name": "r", "r": "x", "timeout": 0}, "positive number of seconds"),
        ({"name": "glasso", "timeout": 5}, "R and command learners only"),
        ({"name": "r", "r": "x", "rule": "cut"}, "'threshold'"),
    ],
)
def test_bad_learner_entries_are_refused(learner, match):
    with pytest.raises(InvalidOptionError, match=match):
        load_study({**BASE, "learners": [learner]})


def test_seconds_is_a_default_metric():
    spec = {k: v for k, v in BASE.items() if k != "scores"}
    study = load_study({**spec, "learners": [{"name": "shrink"}]})
    assert "seconds" in study.metrics and "tpr" in study.metrics


def seeded_noise(x, seed=None, scale=1.0):
    """A function learner with a ``seed`` parameter: random edge scores from its seed."""
    p = x.shape[1]
    a = scale * np.random.default_rng(seed).standard_normal((p, p))
    return (a + a.T) / 2


def test_function_learner_with_a_seed_parameter_gets_the_learner_seed():
    from spdgraph.study._kinds import FUNCTION

    def _estimate(entry, x, seed):
        return FUNCTION.fit(entry, x, [], seed)

    x = np.zeros((5, 4))
    entry = {"name": "noise", "function": seeded_noise, "options": {"scale": 2.0}}
    first, _ = _estimate(entry, x, np.random.SeedSequence(1, spawn_key=(2,)))
    again, _ = _estimate(entry, x, np.random.SeedSequence(1, spawn_key=(2,)))
    other, _ = _estimate(entry, x, np.random.SeedSequence(1, spawn_key=(3,)))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    np.testing.assert_array_equal(
        first, seeded_noise(x, np.random.SeedSequence(1, spawn_key=(2,)), 2.0)
    )
    # a seed among the options wins; a function without a seed parameter gets none
    pinned = {**entry, "options": {"seed": 5}}
    np.testing.assert_array_equal(
        _estimate(pinned, x, np.random.SeedSequence(9))[0], seeded_noise(x, 5)
    )
    plain, _ = _estimate(
        {"name": "ridge", "function": ridge_pcor}, np.eye(4)[[0, 1, 2, 3, 0, 1]], None
    )
    assert plain.shape == (4, 4)


def test_threshold_rule_selects_probabilities_above_the_cutoff():
    from spdgraph.validation import select_edges

    probs = np.array([[0, 0.7, 0.5], [0.7, 0, 0.2], [0.5, 0.2, 0]])
    assert select_edges(probs, "threshold", 0.5).sum() == 2  # 0.5 itself is not above


# -- command-line learners -------------------------------------------------------------------
@pytest.mark.parametrize("ext", ["", ".npy"])
def test_command_learner_scores_like_the_same_python_learner(tmp_path, ext):
    command = [sys.executable, _script(tmp_path), "{data}" + ext, "{out}" + ext]
    spec = {**BASE, "learners": [
        {"name": "cmd", "command": command, "rule": "lfdr"},
        {"name": "py", "function": ridge_pcor, "rule": "lfdr"},
    ]}  # fmt: skip
    result = run(spec, tmp_path / "out", workers=1, plots=False)
    pd.testing.assert_frame_equal(_scores(result.table, "cmd"), _scores(result.table, "py"))
    seconds = result.table[result.table["metric"] == "seconds"]
    assert len(seconds) == 4 and (seconds["value"] > 0).all()


@pytest.mark.integration  # waits out a hung learner's timeout
def test_command_learner_failure_and_hang_fail_their_cell_only(tmp_path):
    for fail, match in (("error", "exited with status 3: mine.py: the solver diverged"),
                        ("hang", "did not finish within timeout = 15 s")):  # fmt: skip
        command = [sys.executable, _script(tmp_path, fail), "{data}", "{out}"]
        spec = {**BASE, "learners": [{"name": "cmd", "command": command, "timeout": 15}]}
        out = tmp_path / fail
        with pytest.raises(StudyError, match="1 learner fit") as info:
            run(spec, out, workers=1, plots=False)
        assert match in str(info.value)
        assert [f["coords"]["n"] for f in info.value.failures] == [60]
        assert len(list((out / "cells").glob("*.json"))) == 2  # stored, the fit marked failed
        stored = json.loads((out / "failures.json").read_text())
        assert len(stored) == 1 and match in stored[0]["error"]
        page = (out / "report.html").read_text()
        failed = page[page.index("Failed fits") :]
        assert re.search(r"<td[^>]*>60</td>", failed) and html.escape(match) in failed


def test_command_learner_that_writes_nothing_is_a_clear_failure(tmp_path):
    entry = {"name": "noop", "command": [sys.executable, "-c", "pass", "{data}", "{out}"]}
    with pytest.raises(LearnerFailure, match="wrote no result"):
        fit_command(entry, np.zeros((5, 3)), ["a", "b", "c"])


# -- R learners ------------------------------------------------------------------------------
def test_no_r_is_a_clear_error_before_any_cell(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    spec = {**BASE, "learners": [{"name": "r0", "r": "matrix(0, ncol(x), ncol(x))"}]}
    with pytest.raises(MissingDependencyError, match="Rscript is not on PATH"):
        run(spec, tmp_path / "out", workers=1, plots=False)
    assert not (tmp_path / "out" / "cells").exists()


@needs_r
def test_r_session_round_trip_and_errors():
    session = RSession()
    try:
        x = _dyadic(np.random.default_rng(3), (40, 5))
        labels = ["a", "b", "c", "d", "e"]
        value, seconds = session.fit("crossprod(x)", x, labels)
        # what crosses the bridge, exactly: x^T x of these data is exact in any order of
        # summation, so R's (any BLAS) and numpy's are the same bits
        np.testing.assert_array_equal(value, x.T @ x)
        assert seconds >= 0
        value, _ = session.fit("diag(ncol(x)) * match('d', colnames(x))", x, labels)
        assert value[0, 0] == 4.0  # the column names are the node labels
        with pytest.raises(LearnerFailure, match="Error: boom"):
            session.fit("stop('boom')", x, labels)
        with pytest.raises(LearnerFailure, match="expected a 5 x 5 matrix"):
            session.fit("1:3", x, labels)
        pid = session.proc.pid
        value, _ = session.fit("print('chatty'); x[1:5, ]", x, labels)  # printing is harmless
        np.testing.assert_array_equal(value, x[:5])
        assert session.proc.pid == pid  # one R process across fits
    finally:
        session.close()


@needs_r
def test_r_learner_scores_like_python_and_resumes(tmp_path):
    snippet = """
    k <- solve(cov(x) + 0.1 * diag(ncol(x)))
    d <- sqrt(diag(k))
    -k / outer(d, d)
    """
    pids = tmp_path / "pids.txt"
    log_pid = f"cat(Sys.getpid(), '\\n', file = {str(pids)!r}, append = TRUE); diag(ncol(x))"
    spec = {**BASE, "grid": {**BASE["grid"], "n": [30, 60, 90]}, "learners": [
        {"name": "r-ridge", "r": textwrap.dedent(snippet), "rule": "lfdr"},
        {"name": "py", "function": ridge_pcor, "rule": "lfdr"},
        {"name": "pid", "r": log_pid},
    ]}  # fmt: skip
    first = run(spec, tmp_path, workers=1, plots=False)
    pd.testing.assert_frame_equal(_scores(first.table, "r-ridge"), _scores(first.table, "py"))
    assert len(pids.read_text().split()) == 3 and len(set(pids.read_text().split())) == 1
    stored = json.loads((tmp_path / "study.json").read_text())
    assert stored["r"]["R"].startswith("R version") and stored["blas_threads"] == 1
    again = run(spec, tmp_path, workers=1, plots=False)
    assert (again.computed, again.skipped) == (0, 3)
    pd.testing.assert_frame_equal(again.table, first.table)


@needs_r
def test_missing_r_package_is_named_before_any_cell(tmp_path):
    spec = {**BASE, "learners": [{"name": "r", "r": "x", "packages": ["notAnRPackage42"]}]}
    with pytest.raises(MissingDependencyError, match=r"'notAnRPackage42'.*install\.packages"):
        run(spec, tmp_path, workers=1, plots=False)
    assert not (tmp_path / "cells").exists()


@pytest.mark.integration  # waits out a hung learner's timeout
@needs_r
def test_r_error_and_hung_fit_fail_their_cell_and_the_rest_finish(tmp_path):
    snippet = """
    if (nrow(x) == 60 && MODE == "error") stop("the model is singular")
    if (nrow(x) == 60 && MODE == "hang") Sys.sleep(600)
    matrix(0, ncol(x), ncol(x))
    """
    for mode, match in (("error", "Error: the model is singular"),
                        ("hang", "did not finish within timeout = 5 s")):  # fmt: skip
        code = textwrap.dedent(snippet).replace("MODE", repr(mode))
        spec = {**BASE, "grid": {**BASE["grid"], "n": [30, 60, 90]},
                "learners": [{"name": "r", "r": code, "timeout": 5}]}  # fmt: skip
        with pytest.raises(StudyError, match="1 learner fit") as info:
            run(spec, tmp_path / mode, workers=1, plots=False)
        assert match in str(info.value) and "R learner 'r'" in str(info.value)
        assert len(list((tmp_path / mode / "cells").glob("*.json"))) == 3  # all stored
        table = pd.read_csv(tmp_path / mode / "results.csv")
        failed = table[table["status"] == "failed"]
        assert set(failed["n"]) == {60} and all(match in e for e in failed["error"])


# -- the report ------------------------------------------------------------------------------
class _Report(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.images: list[str] = []
        self.cells: list[tuple[str, str, float]] = []
        self._metric = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append(a.get("data-metric") or a.get("class") or "")
            self._metric = a.get("data-metric", "")
        if tag == "img":
            self.images.append(a["src"])
        if tag == "td" and "data-mean" in a:
            self.cells.append((self._metric, a["data-learner"], float(a["data-mean"])))


def test_report_is_self_contained_and_matches_results_csv(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    spec = {**BASE, "repeats": 2, "learners": [{"name": "shrink"}, {"name": "ridge"}]}
    run(spec, tmp_path, workers=1, plots=True)
    page = (tmp_path / "report.html").read_text()
    parsed = _Report()
    parsed.feed(page)
    assert {"tpr", "tdr", "f1", "seconds", "roc_auc", "pr_auc"} <= set(parsed.tables)
    assert len(parsed.images) == 3 and all(
        src.startswith("data:image/png;base64,") for src in parsed.images
    )
    assert "http://" not in page and "https://" not in page  # nothing fetched to view it
    results = pd.read_csv(tmp_path / "results.csv")
    means = results.groupby(["metric", "learner", "n"])["value"].mean()
    assert len(parsed.cells) == 6 * 2 * 2  # metrics x learners x cells
    by_key: dict[tuple[str, str], list[float]] = {}
    for metric, learner, mean in parsed.cells:
        by_key.setdefault((metric, learner), []).append(mean)
    for (metric, learner), values in by_key.items():
        np.testing.assert_allclose(values, means[(metric, learner)].to_numpy(), rtol=1e-12)
    # spdgraph study report DIR rebuilds the same page from the stored cells
    (tmp_path / "report.html").unlink()
    assert main(["study", "report", str(tmp_path)]) == 0
    rebuilt = _Report()
    rebuilt.feed((tmp_path / "report.html").read_text())
    by_metric = [(m, learner) for m, learner, _ in rebuilt.cells]
    assert by_metric == [(m, learner) for m, learner, _ in parsed.cells]
    assert [c[2] for c in rebuilt.cells] == [c[2] for c in parsed.cells]


def test_report_of_a_folder_without_cells_says_so(tmp_path):
    with pytest.raises(InvalidOptionError, match="not a study folder"):
        spdgraph.study.report(tmp_path)
    spec = {**BASE, "learners": [{"name": "py", "function": ridge_pcor}]}
    run(spec, tmp_path, workers=1, plots=False)
    with pytest.raises(InvalidOptionError, match="pass the study"):
        spdgraph.study.report(tmp_path)  # a Python object is not in study.json
    assert spdgraph.study.report(tmp_path, spec, plots=False).is_file()


def test_study_r_example_parses_and_names_its_packages():
    study = load_study(ROOT / "examples" / "study-r.toml")
    kinds = {e["name"]: next(k for k in ("r", "command", "estimator", "name") if k in e)
             for e in study.learners}  # fmt: skip
    assert {"r", "command", "estimator", "name"} == set(kinds.values())
    assert study.r_packages() == ["BDgraph", "glasso", "huge"]


# -- Bayesian learners -----------------------------------------------------------------------


def wishart_draws(x):
    """Conjugate Wishart posterior of K on the complete graph: 200 precision draws."""
    from scipy.stats import wishart

    n, p = x.shape
    scale = np.linalg.inv(x.T @ x + np.eye(p))
    return wishart(df=n + p, scale=scale).rvs(size=200, random_state=np.random.default_rng(5))


def test_posterior_draws_are_scored_with_posterior_scores(tmp_path):
    from spdgraph.study._entry import CREDIBLE_CUTOFF
    from spdgraph.validation import metric_names

    POSTERIOR_METRICS = metric_names("posterior")
    from spdgraph.validation import posterior_scores, score_selection

    spec = {**BASE, "learners": [{"name": "wishart", "function": wishart_draws}]}
    table = run(spec, tmp_path, workers=1, plots=False).table
    assert set(POSTERIOR_METRICS) <= set(table["metric"])
    # the same by hand for the n = 30 cell
    import xarray as xr

    from spdgraph import simulate
    from spdgraph.seeds import sub_root

    coords = {"family": "hub", "p": 6, "n": 30, "method": "po", "data": "gaussian"}
    sim = simulate("hub", 30, p=6, seed=sub_root(spdgraph.study.cell_seed(11, coords), 0))

    draws = wishart_draws(np.asarray(sim["data"].values))
    ref = posterior_scores(xr.DataArray(draws, dims=("draw", "node", "node_2")),
                           np.asarray(sim["precision"].values))  # fmt: skip
    got = table[table["n"] == 30].set_index("metric")["value"]
    for metric in (*POSTERIOR_METRICS, "roc_auc"):
        assert got[metric] == pytest.approx(ref[metric], rel=1e-12)
    # continuous draws: probabilities of direction, selected when a 95% interval excludes 0
    assert ref.inclusion_from == "probability of direction"
    inclusion = np.zeros((6, 6))
    inclusion[np.triu_indices(6, 1)] = ref.pairs["inclusion"]
    selected = (inclusion + inclusion.T) > CREDIBLE_CUTOFF
    truth = np.asarray(sim["adjacency"].values, dtype=bool)
    assert got["tpr"] == score_selection(selected, truth).metrics()["tpr"]


def test_default_cutoff_of_draws_follows_what_their_scores_are():
    """Exact zeros give inclusion probabilities (cutoff 0.5); continuous draws 0.95."""
    from types import SimpleNamespace

    from spdgraph import simulate
    from spdgraph.study._entry import CREDIBLE_CUTOFF, _posterior
    from spdgraph.study._entry import posterior_metrics as _metrics

    POSTERIOR_METRICS = _metrics()

    sim = simulate("hub", 40, p=6, seed=3)
    study = SimpleNamespace(kind="precision")
    draws = wishart_draws(np.asarray(sim["data"].values))
    _, extra, cutoff = _posterior(study, {"name": "w"}, draws, sim)
    assert cutoff == CREDIBLE_CUTOFF == 0.95 and set(extra) == set(POSTERIOR_METRICS)
    sparse = draws * np.asarray(sim["adjacency"].values | np.eye(6, dtype=bool))
    sparse[::2] = draws[::2] * np.eye(6)  # half of the draws: the empty graph
    scores, _, cutoff = _posterior(study, {"name": "w"}, sparse, sim)
    assert cutoff == 0.5
    edges = np.asarray(sim["adjacency"].values, dtype=bool)
    np.testing.assert_allclose(scores[edges], 0.5)
    np.testing.assert_array_equal(scores[~edges], 0.0)


@needs_r
def test_r_fits_are_seeded_whatever_ran_before():
    session = RSession()
    try:
        x = np.zeros((5, 3))
        code = "matrix(runif(9), 3, 3)"
        first, _ = session.fit(code, x, ["a", "b", "c"], seed=5)
        session.fit(code, x, ["a", "b", "c"], seed=9)  # moves R's generator on
        again, _ = session.fit(code, x, ["a", "b", "c"], seed=5)
        other, _ = session.fit(code, x, ["a", "b", "c"], seed=6)
        np.testing.assert_array_equal(first, again)
        assert not np.array_equal(first, other)
    finally:
        session.close()


def test_study_bayes_example_parses():
    study = load_study(ROOT / "examples" / "study-bayes.toml")
    rules = {e["name"]: e.get("rule") for e in study.learners}
    assert "threshold" in rules.values()


@needs_r
@pytest.mark.integration
def test_study_r_example_runs_every_kind_of_learner(tmp_path):
    """examples/study-r.toml on one cell: R, Python and command-line learners in one table."""
    import tomllib

    spec = tomllib.loads((ROOT / "examples" / "study-r.toml").read_text())
    spec["grid"] = {**spec["grid"], "family": ["hub"], "n": [100]}
    spec["repeats"] = 1
    result = run(spec, tmp_path, workers=1, plots=False)
    names = [e["name"] for e in spec["learners"]]
    seconds = result.table[result.table["metric"] == "seconds"]
    assert sorted(seconds["learner"]) == sorted(names)
    assert (seconds["value"] >= 0).all()
    f1 = result.table[result.table["metric"] == "f1"].set_index("learner")["value"]
    assert f1.notna().all() and (f1 > 0).any()
    assert set(json.loads((tmp_path / "study.json").read_text())["r"]) == {
        "R", "BDgraph", "glasso", "huge",
    }  # fmt: skip
    assert (tmp_path / "report.html").is_file()


def _dyadic(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Normal data rounded to multiples of 2^-6: every partial sum of x^T x is a multiple of
    2^-12 below 2^40 (for fewer than 2^20 rows), so it is exact in floating point."""
    x = np.round(rng.normal(size=shape) * 64) / 64
    assert shape[0] < 2**20 and np.abs(x).max() < 2**7
    return x


@pytest.fixture(scope="module")
def r_session():
    session = RSession()
    yield session
    session.close()


@needs_r
@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    p=st.integers(1, 7),
    extra=st.integers(0, 5),
)
def test_r_bridge_passes_every_double_exactly(r_session, data, p, extra):
    """Any float64 (subnormal, huge, negative zero) reaches R and comes back bit for bit."""
    n = p + extra
    finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
    x = np.array(data.draw(st.lists(finite, min_size=n * p, max_size=n * p))).reshape(n, p)
    labels = [f"n{j}é" for j in range(p)]
    back, _ = r_session.fit("matrix(x[seq_len(ncol(x)^2)], ncol(x))", x, labels)
    expected = x.flatten(order="F")[: p * p].reshape((p, p), order="F")
    np.testing.assert_array_equal(back.view(np.int64), expected.view(np.int64))
    wanted = "c(" + ", ".join(f'"{label}"' for label in labels) + ")"
    names, _ = r_session.fit(f"diag(ncol(x)) * sum(colnames(x) == {wanted})", x, labels)
    assert names[0, 0] == p  # the node labels arrive as column names, UTF-8 intact


@needs_r
def test_big_data_go_through_a_file_that_is_removed(r_session, tmp_path):
    from spdgraph.study import _rbridge
    from spdgraph.study._contain import LearnerContext, in_context

    root = tmp_path / ".scratch"
    x = _dyadic(np.random.default_rng(2), (_rbridge.FILE_BYTES // (8 * 40) + 1, 40))
    labels = [f"v{j}" for j in range(40)]
    snippet = 'stopifnot(file.exists("data.bin")); crossprod(x)'  # R works in the fit's folder

    def fit(coords):
        return r_session.fit(snippet, x, labels, learner="big")

    back, _ = in_context(LearnerContext(scratch_root=str(root)), fit, {"i": 1})
    # every entry of the file reaches R: on these data x^T x is exact in any order of
    # summation, so R's (any BLAS) and numpy's are the same bits
    np.testing.assert_array_equal(back, x.T @ x)

    def head(coords):
        snippet = "x[c(1:20, (nrow(x) - 19):nrow(x)), ]"
        return r_session.fit(snippet, x, labels, learner="big")

    rows, _ = in_context(LearnerContext(scratch_root=str(root)), head, {"i": 1})
    np.testing.assert_array_equal(rows, np.concatenate([x[:20], x[-20:]]))  # order, bits
    assert not list(root.rglob("*"))  # the file and the fit's folder are gone after the fit
