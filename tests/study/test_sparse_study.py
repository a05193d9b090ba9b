"""Sparse studies (``sparse = true``): sparse truths, data through files, sparse results.

The reference for every score is the same study run dense on the same data: the
sparse study's simulations densified (``_dense_simulation``) and scored by the
dense path, which the rest of tests/study checks.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

import spdgraph.study._cell as cell_module
import spdgraph.study._output as output_module
from spdgraph.errors import InvalidOptionError
from spdgraph.study import load_study, run
from spdgraph.study._cell import compute_cell
from spdgraph.study._command import fit_command
from spdgraph.study._contain import SCRATCH, LearnerContext, LearnerFailure, in_context

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")

#: A command learner: reads ``{data}.npy``, writes the pairs of correlation above 0.3
#: with their correlation as an edge list ``i j score`` (an unsorted, duplicated pair too).
EDGE_LIST_LEARNER = """
import sys
import numpy as np
x = np.load(sys.argv[1])
c = np.corrcoef(x.T)
i, j = np.nonzero(np.triu(np.abs(c) > 0.3, 1))
with open(sys.argv[2], "w") as out:
    for a, b in zip(i, j):
        out.write(f"{b},{a},{float(c[a, b])!r}\\n")
    if len(i):
        out.write(f"{i[0]} {j[0]} {float(c[i[0], j[0]])!r}\\n")
"""


def correlation_scores(x):
    """A Python learner returning sparse edge scores: correlations above 0.2 in absolute
    value, as a scipy.sparse array."""
    c = np.corrcoef(np.asarray(x).T)
    c[np.abs(c) <= 0.2] = 0.0
    return sparse.csr_array(c)


def _spec(tmp_path: Path, *, sparse_truth: bool, learners: list | None = None) -> dict:
    script = tmp_path / "edges.py"
    script.write_text(EDGE_LIST_LEARNER)
    return {
        "name": "sparse",
        "seed": 11,
        "repeats": 2,
        "sparse": sparse_truth,
        "grid": {"family": ["band", "random"], "p": [60], "n": [80], "method": ["dd"]},
        "learners": learners
        or [
            {"name": "mb"},
            {"name": "corr", "function": correlation_scores},
            {
                "name": "edges",
                "command": [sys.executable, str(script), "{data}.npy", "{out}.edges"],
            },
        ],
        "scores": {"metrics": ["tpr", "tdr", "f1", "mcc", "shd", "fpr"]},
    }


def _dense_simulation(sim):
    """A sparse simulation with every sparse variable densified (the dense reference)."""
    import xarray as xr

    variables = {
        name: (v.copy(data=v.data.todense()) if hasattr(v.data, "todense") else v)
        for name, v in sim.data_vars.items()
    }
    return xr.Dataset(variables, attrs=sim.attrs)


def _values(table):
    rows = table[table["metric"] != "seconds"]
    return rows.set_index(["family", "repeat", "learner", "metric"])["value"].sort_index()


def test_a_sparse_study_scores_as_the_same_study_run_dense(tmp_path, monkeypatch):
    spec = _spec(tmp_path, sparse_truth=True)
    result = run(spec, tmp_path / "sparse", workers=1, plots=False)
    table = result.table
    assert set(table["status"]) == {"ok"}, table[table["status"] != "ok"]["error"].tolist()
    assert {"roc_auc", "pr_auc"} <= set(table["metric"])  # the scores give curves
    assert set(table[table["learner"] == "mb"]["metric"]) >= {"tpr", "f1"}

    sparse_study, sparse_simulate = load_study(spec), cell_module.simulate_cell
    monkeypatch.setattr(  # the same study dense: the same simulations, densified
        cell_module,
        "simulate_cell",
        lambda study, coords, seed: _dense_simulation(sparse_simulate(sparse_study, coords, seed)),
    )
    dense = run({**spec, "sparse": False}, tmp_path / "dense", workers=1, plots=False)
    assert set(dense.table["status"]) == {"ok"}
    mine, theirs = _values(table), _values(dense.table)
    assert mine.index.equals(theirs.index)
    np.testing.assert_array_equal(mine.to_numpy(), theirs.to_numpy())  # every metric, bit for bit
    order = ["family", "repeat", "learner", "point"]
    np.testing.assert_array_equal(
        result.curves.sort_values(order)[["fpr", "tpr", "tdr"]].to_numpy(),
        dense.curves.sort_values(order)[["fpr", "tpr", "tdr"]].to_numpy(),
    )


def test_a_sparse_study_hands_the_data_over_as_a_read_only_memory_map_then_removes_it(tmp_path):
    seen = []

    def spy(x):
        seen.append((type(x), getattr(x, "filename", None), x.flags.writeable))
        return sparse.csr_array(x.shape[1:] * 2)  # selects nothing

    study = load_study(
        {**_spec(tmp_path, sparse_truth=True, learners=[{"name": "spy", "function": spy}]),
         "repeats": 1}
    )  # fmt: skip
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    coords = study.cells()[0]
    payload = in_context(context, lambda c: compute_cell(study, c), coords)
    ((kind, filename, writeable),) = seen
    assert kind is np.memmap and not writeable
    assert Path(filename).parent.parent == tmp_path / SCRATCH and Path(filename).suffix == ".npy"
    assert not (tmp_path / SCRATCH).exists() or not any((tmp_path / SCRATCH).rglob("*.npy"))
    assert payload["entries"][0]["status"] == "selected nothing"
    assert set(payload["timings"]) == {"simulate", "files", "fits", "scoring"}
    assert len(json.dumps(payload)) < 20_000  # scores only: what a cluster's client receives


@pytest.mark.parametrize("method", ["po", "uniform"])
def test_a_method_without_a_sparse_construction_is_refused_by_name(tmp_path, method):
    spec = {**_spec(tmp_path, sparse_truth=True), "learners": [{"name": "mb"}]}
    spec["grid"] = {**spec["grid"], "method": ["dd", method]}
    with pytest.raises(InvalidOptionError, match=rf"method '{method}' cannot build a sparse"):
        load_study(spec)
    spec["sparse"] = False
    assert load_study(spec).grid["method"] == ["dd", method]  # dense: fine


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"sparse": 1}, "sparse must be true or false"),
        ({"grid": {"family": ["band"], "p": [10**6 + 1], "n": [5], "method": ["dd"]}}, "p must"),
        (
            {"grid": {"family": ["band"], "p": [9], "n": [5], "data": ["t"], "method": ["dd"]}},
            "Gaussian data",
        ),
    ],
)
def test_a_sparse_study_refuses_what_sparse_truths_cannot_take(tmp_path, change, match):
    spec = {**_spec(tmp_path, sparse_truth=True), "learners": [{"name": "mb"}], **change}
    with pytest.raises(InvalidOptionError, match=match):
        load_study(spec)


@pytest.mark.parametrize("axis", ["sparse", "kind", "seed"])
def test_a_key_the_study_sets_for_every_cell_is_refused_as_a_grid_axis(tmp_path, axis):
    spec = {**_spec(tmp_path, sparse_truth=True), "learners": [{"name": "mb"}]}
    spec["grid"] = {**spec["grid"], axis: [False, True] if axis == "sparse" else ["a", "b"]}
    with pytest.raises(InvalidOptionError, match=rf"'{axis}' cannot be a grid axis"):
        load_study(spec)


def dense_matrix(x):
    """A learner returning a dense p x p array."""
    return np.corrcoef(np.asarray(x).T)


def test_a_dense_result_over_the_cells_budget_is_refused_with_the_learners_name(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(output_module, "dense_budget", lambda: 1000)  # 60 x 60 floats: 28,800
    script = tmp_path / "dense.py"
    script.write_text("import sys, numpy as np\nnp.save(sys.argv[1], np.eye(60))\n")
    spec = _spec(tmp_path, sparse_truth=False)
    spec["learners"] = [
        {"name": "big", "function": dense_matrix},
        {"name": "bignpy", "command": [sys.executable, str(script), "{out}.npy", "{data}"]},
        {"name": "mb"},
    ]
    spec["grid"] = {**spec["grid"], "family": ["band"]}
    spec["repeats"] = 1
    with pytest.raises(Exception, match="2 learner fit"):
        run(spec, tmp_path / "out", workers=1, plots=False)
    table = json.loads((tmp_path / "out" / "failures.json").read_text())
    errors = {row["learner"]: row["error"] for row in table}
    assert set(errors) == {"big", "bignpy"}  # mb returns a sparse selection: scored
    for name, error in errors.items():
        assert f"'{name}'" in error and "dense 60 x 60 result in cell family=band" in error
        assert "more than the 1,000" in error and "scipy.sparse" in error


def test_a_command_learner_writes_an_edge_list(tmp_path):
    script = tmp_path / "edges.py"
    script.write_text(EDGE_LIST_LEARNER)
    x = np.random.default_rng(3).normal(size=(30, 8))
    x[:, 1] += x[:, 0]
    entry = {"name": "edges", "command": [sys.executable, str(script), "{data}.npy",
                                          "{out}.edges"]}  # fmt: skip
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    got, _ = in_context(context, lambda c: fit_command(entry, x, list("abcdefgh")), {})
    c = np.corrcoef(x.T)
    want = np.triu(np.where(np.abs(c) > 0.3, c, 0.0), 1)  # the score of each pair i < j
    want += want.T
    assert sparse.issparse(got) and got.shape == (8, 8)
    np.testing.assert_array_equal(got.toarray(), want)


@pytest.mark.parametrize(
    ("text", "match"),
    [("0 9\n", "outside 0..7"), ("0 1 2 3\n", "4 columns"), ("0 1 nan\n", "NaN")],
)
def test_a_bad_edge_list_is_refused(tmp_path, text, match):
    path = tmp_path / "out.edges"
    path.write_text(text)
    with pytest.raises(LearnerFailure, match=match):
        output_module.read_result(path, 8)


@needs_r
@pytest.mark.parametrize(
    "code",
    [
        "m <- Matrix::Matrix(0, ncol(x), ncol(x), sparse = TRUE); m[1, 2] <- 0.5; m[2, 3] <- 1;"
        " Matrix::forceSymmetric(m, 'U')",
        "cbind(c(1, 3), c(2, 2))",  # a two-column edge list, nodes from 1
    ],
)
def test_an_r_learner_returns_a_sparse_matrix_or_an_edge_list(tmp_path, code):
    from spdgraph.study._rbridge import fit_r

    x = np.random.default_rng(1).normal(size=(10, 4))
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    entry = {"name": "sp", "r": code}
    got, _ = in_context(context, lambda c: fit_r(entry, x, list("abcd")), {})
    assert sparse.issparse(got)
    want = np.zeros((4, 4))
    want[0, 1] = want[1, 0] = 0.5 if "Matrix" in code else 1.0
    want[1, 2] = want[2, 1] = 1.0
    np.testing.assert_array_equal(got.toarray(), want)


@needs_r
def test_an_r_learner_dense_result_over_budget_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from spdgraph.study._rbridge import fit_r

    monkeypatch.setattr(output_module, "dense_budget", lambda: 100)
    x = np.random.default_rng(1).normal(size=(10, 4))
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    entry = {"name": "dense", "r": "cor(x)"}
    with pytest.raises(LearnerFailure, match=r"R learner 'dense' gives a dense 4 x 4 result"):
        in_context(context, lambda c: fit_r(entry, x, list("abcd")), {})
    monkeypatch.setattr(output_module, "dense_budget", lambda: None)  # the next fit works
    got, _ = in_context(context, lambda c: fit_r(entry, x, list("abcd")), {})
    np.testing.assert_allclose(got, np.corrcoef(x.T), rtol=1e-12)


@pytest.mark.integration  # a dask LocalCluster
def test_a_sparse_study_on_a_local_cluster_gives_the_same_scores(tmp_path):
    pytest.importorskip("distributed")
    script = tmp_path / "edges.py"
    script.write_text(EDGE_LIST_LEARNER)
    spec = _spec(tmp_path, sparse_truth=True)
    del spec["learners"][1]  # a function of this test module: not importable on the workers
    here = run(spec, tmp_path / "here", workers=1, plots=False).table
    there = run(spec, tmp_path / "there", workers=2, scheduler="local", plots=False).table
    assert set(there["status"]) == {"ok"}
    np.testing.assert_array_equal(_values(here).to_numpy(), _values(there).to_numpy())
    again = run(spec, tmp_path / "there", workers=2, scheduler="local", plots=False)
    assert (again.computed, again.skipped) == (0, 2)  # resumed


def test_the_command_lines_sparse_flag_checks_the_methods_before_any_cell(tmp_path, capsys):
    from spdgraph.cli import main

    toml = tmp_path / "s.toml"
    toml.write_text(
        'seed = 1\n[grid]\nfamily = ["band"]\np = [20]\nn = [30]\nmethod = ["dd", "po"]\n'
        '[[learners]]\nname = "mb"\n'
    )
    out = tmp_path / "out"
    assert main(["study", "run", str(toml), "-o", str(out), "--workers", "1", "--sparse"]) == 2
    assert "method 'po' cannot build a sparse truth" in capsys.readouterr().err
    assert not (out / "cells").exists()
