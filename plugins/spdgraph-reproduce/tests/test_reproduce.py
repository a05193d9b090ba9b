"""spdgraph_reproduce and `spdgraph reproduce` at tiny sizes.

Tests that run studies or process pools are marked ``integration`` (they run in
the default suite and in CI).
"""

import json
import os

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from spdgraph_reproduce import CellError, condition_number, link_strength, run_study, studies

import spdgraph
from spdgraph.cli import main
from spdgraph.graphs import erdos_renyi

pytest.importorskip("matplotlib")

TINY_RATIO = {"p": (8, 12), "d": (0.05, 0.5), "graphs": 2, "matrices": 2}


def _reference_R(m, adjacency):
    best = 0.0
    p = m.shape[0]
    for i in range(p):
        for j in range(i + 1, p):
            if adjacency[i, j] and m[i, j] != 0:
                best = max(best, abs(m[i, j]) / m[i, i])
    return best


def test_link_strength_matches_definition():
    g = erdos_renyi(15, 0.3, seed=0)
    adj = spdgraph.adapt_graph(g).adjacency
    for method in ("po", "dd"):
        m = spdgraph.sample(g, method, seed=1, normalize=False, entries="uniform").values
        assert link_strength(m, adj) == pytest.approx(_reference_R(m, adj), rel=1e-15)
    assert link_strength(np.eye(4), np.zeros((4, 4), bool)) == 0.0
    assert condition_number(np.diag([1.0, 10.0])) == pytest.approx(10.0)


@pytest.mark.integration
def test_ratio_study_tiny(tmp_path):
    res = run_study("ratio", tmp_path, seed=1, progress=False, **TINY_RATIO)
    assert res.computed == 2 * 2 * 2 * 2 and res.skipped == 0
    df = pd.read_csv(tmp_path / "ratio.csv")
    assert len(df) == res.computed * 4
    assert set(df["setting"]) == {"paper", "gmat"} and set(df["method"]) == {"po", "dd"}
    ds = xr.load_dataset(tmp_path / "ratio.nc")
    assert ds["R"].dims == ("setting", "p", "d", "method", "graph", "matrix")
    assert int(ds.attrs["seed"]) == 1
    # normalized setting has unit diagonal, so R is the largest |m_ij| there; DD at
    # d = 0.5 is far weaker than PO
    dense = df[(df["d"] == 0.5) & (df["setting"] == "paper")]
    assert dense[dense.method == "dd"]["R"].mean() < dense[dense.method == "po"]["R"].mean()
    for name in ("fig2_ratio_paper.png", "fig3_ratio_extremes_gmat.png"):
        assert (tmp_path / name).stat().st_size > 1000
    assert res.summary.loc[("paper", 0.5, 12), ("mean", "po")] > 0
    assert (tmp_path / "ratio_summary.csv").exists()


@pytest.mark.integration
def test_ratio_results_do_not_depend_on_grid_or_order(tmp_path):
    a = run_study("ratio", tmp_path / "a", seed=3, progress=False, figures=False, **TINY_RATIO)
    b = run_study(
        "ratio",
        tmp_path / "b",
        seed=3,
        progress=False,
        figures=False,
        p=(12,),
        d=(0.5,),
        graphs=2,
        matrices=2,
    )
    key = ["setting", "p", "d", "method", "graph", "matrix"]
    sub = a.data[(a.data.p == 12) & (a.data.d == 0.5)].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(sub, b.data.sort_values(key).reset_index(drop=True))


@pytest.mark.integration
def test_resume_does_not_recompute(tmp_path):
    first = run_study("ratio", tmp_path, seed=1, progress=False, figures=False, **TINY_RATIO)
    cells = sorted((tmp_path / "ratio" / "cells").glob("*.json"))
    mtimes = [c.stat().st_mtime_ns for c in cells]
    again = run_study("ratio", tmp_path, seed=1, progress=False, figures=False, **TINY_RATIO)
    assert again.computed == 0 and again.skipped == first.computed
    assert [c.stat().st_mtime_ns for c in cells] == mtimes
    pd.testing.assert_frame_equal(first.data, again.data)
    # a different configuration (seed) is not mistaken for a finished cell
    other = run_study("ratio", tmp_path, seed=2, progress=False, figures=False, **TINY_RATIO)
    assert other.computed == first.computed


def test_a_failing_cell_raises_cell_error_and_the_others_are_kept(tmp_path, monkeypatch):
    """The cells run on spdgraph.study.run_cells; its StudyError becomes the plugin's CellError."""
    real = spdgraph.sample

    def flaky(graph, method, **kw):
        if graph.number_of_nodes() == 12 and method == "dd":
            raise RuntimeError("boom")
        return real(graph, method, **kw)

    monkeypatch.setattr(spdgraph, "sample", flaky)
    kw = dict(seed=1, progress=False, figures=False, settings=("paper",), **TINY_RATIO)
    with pytest.raises(CellError, match=r"ratio: 2 of 8 cells failed.*p=12.*boom") as info:
        run_study("ratio", tmp_path, **kw)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert len(list((tmp_path / "ratio" / "cells").glob("*.json"))) == 6
    monkeypatch.setattr(spdgraph, "sample", real)
    rest = run_study("ratio", tmp_path, **kw)
    assert (rest.computed, rest.skipped) == (2, 6)


@pytest.mark.integration
def test_condition_study_tiny(tmp_path):
    res = run_study(
        "condition", tmp_path, progress=False, p=(6, 10), d=(0.05, 0.5), graphs=1, matrices=2
    )
    assert set(res.data["setting"]) == {"paper"}
    assert (res.data["cond"] >= 1).all()
    assert (tmp_path / "fig1_condition_po.png").exists()


@pytest.mark.integration
def test_timing_study_tiny(tmp_path):
    res = run_study(
        "timing", tmp_path, progress=False, p=(5, 8), d=(0.5,), batch=3, methods=["po", "dd"]
    )
    assert set(res.data["method"]) == {"po", "dd"} and (res.data["seconds"] > 0).all()
    assert (tmp_path / "fig4_timing.png").exists()
    ds = xr.load_dataset(tmp_path / "timing.nc")
    assert ds["seconds"].dims == ("method", "p", "d")


@pytest.mark.integration
def test_timing_study_default_methods_all_run(tmp_path):
    """By default the timing study times TIMING_GENERATORS, not every registered
    method (``dag`` needs a DAG and ``uniform`` a chordal graph: the README's
    ``reproduce all --quick`` failed on them)."""
    from spdgraph_reproduce.studies import TIMING_GENERATORS, timing_generators

    assert {"dag", "uniform"} <= set(spdgraph.methods())
    res = run_study("timing", tmp_path, progress=False, p=(5,), d=(0.5,), batch=2)
    expected = [m for m in TIMING_GENERATORS if m in spdgraph.methods()]
    assert timing_generators() == expected
    assert set(res.data["method"]) == set(expected) and (res.data["seconds"] > 0).all()


@pytest.mark.integration
def test_kramer_study_tiny(tmp_path):
    res = run_study(
        "kramer",
        tmp_path,
        progress=False,
        p=12,
        n=(40,),
        d=(0.25,),
        reps=1,
        methods=["po", "dd"],
    )
    df = res.data
    assert set(df["learner"]) == {"lasso", "adalasso", "ridge", "pls", "shrink", "glasso"}
    assert len(df) == 2 * 6
    assert df["tpr"].between(0, 1).all()
    empty = df["n_selected"] == 0
    assert df.loc[empty, "tdr"].isna().all() and df.loc[~empty, "tdr"].between(0, 1).all()
    ds = xr.load_dataset(tmp_path / "kramer.nc")
    assert ds["tpr"].dims == ("generator", "d", "n", "rep", "learner")
    assert (tmp_path / "fig5_kramer_d0.25.png").exists()


def test_kramer_generators_default_is_explicit():
    gens = studies.kramer_generators()
    known = spdgraph.methods()
    assert gens == [m for m in studies.KRAMER_GENERATORS if m in known]
    assert gens[:2] == ["po", "dd"]
    if "gwishart" in known:
        assert gens == ["po", "dd", "gwishart"]
    # other plugins' generators (the example plugin's) take part only when requested
    extra = [m for m in known if m not in studies.KRAMER_GENERATORS]
    assert not set(extra) & set(gens)
    if extra:
        assert studies.kramer_generators([extra[0], "po"]) == [extra[0], "po"]
    with pytest.raises(spdgraph.UnknownMethodError):
        studies.kramer_generators(["nope"])


def test_bad_arguments(tmp_path):
    with pytest.raises(spdgraph.InvalidOptionError, match="unknown study"):
        run_study("nope", tmp_path)
    with pytest.raises(spdgraph.InvalidOptionError, match="seed"):
        run_study("ratio", tmp_path, seed=-1)
    with pytest.raises(spdgraph.InvalidOptionError, match="setting"):
        run_study("ratio", tmp_path, settings=("nope",))
    with pytest.raises(spdgraph.InvalidOptionError, match="unknown option"):
        run_study("timing", tmp_path, graphs=3)
    assert not any(tmp_path.iterdir())


@pytest.mark.integration
def test_ratio_single_setting(tmp_path):
    res = run_study(
        "ratio",
        tmp_path,
        progress=False,
        figures=False,
        p=(6,),
        d=(0.5,),
        graphs=1,
        matrices=2,
        settings=("gmat",),
    )
    assert set(res.data["setting"]) == {"gmat"}
    # unit diagonal: R is the largest |m_ij| on an edge
    assert res.data["R"].between(0, 1).all()


@pytest.mark.integration
def test_dask_scheduler(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1) as client:
        res = run_study(
            "ratio",
            tmp_path,
            seed=1,
            scheduler=client,
            progress=False,
            figures=False,
            **TINY_RATIO,
        )
    local = run_study(
        "ratio", tmp_path / "local", seed=1, progress=False, figures=False, **TINY_RATIO
    )
    pd.testing.assert_frame_equal(res.data, local.data)


@pytest.mark.integration
def test_cli_reproduce(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["reproduce", "ratio", "--quick", "--out", str(out), "--max-p", "10"]
    assert main([*argv, "--d", "0.5", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "== ratio:" in text and "total" in text
    assert (out / "ratio.csv").exists() and (out / "fig2_ratio_paper.png").exists()
    assert main([*argv, "--d", "0.5", "--no-progress"]) == 0
    assert "0 cells computed" in capsys.readouterr().out
    assert main(["reproduce", "bogus"]) == 2  # a usage error, reported by argparse
    assert os.path.isdir(out / "ratio" / "cells")


@pytest.mark.integration
def test_cli_scheduler_address(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        argv = ["reproduce", "timing", "--quick", "--out", str(tmp_path), "--no-progress"]
        argv += ["--max-p", "10", "--d", "0.5", "--methods", "po", "dd", "--batch", "2"]
        assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    assert "== timing: 2 cells computed" in capsys.readouterr().out
    assert set(pd.read_csv(tmp_path / "timing.csv")["method"]) == {"po", "dd"}


def test_kramer_cell_records_a_failing_learner_as_missing(monkeypatch):
    import spdgraph.validation as sv

    real = sv.fit_learners

    def failing(x, learners, **kw):
        if "glasso" in learners:
            raise spdgraph.NumericalError("solver failed")
        return real(x, learners, **kw)

    monkeypatch.setattr(sv, "fit_learners", failing)
    config = {
        "seed": 1,
        "p": 8,
        "learners": ["shrink", "glasso"],
        "entries": "normal",
        "normalize": True,
        "cutoff": 0.2,
    }
    recs = studies.kramer_cell({"generator": "po", "d": 0.3, "n": 40, "rep": 0}, config)
    by = {r["learner"]: r for r in recs}
    assert np.isnan(by["glasso"]["tpr"]) and by["glasso"]["n_selected"] == -1
    assert 0 <= by["shrink"]["tpr"] <= 1


@pytest.mark.integration
def test_local_worker_processes_give_the_same_results(tmp_path):
    # two spawned worker processes vs one process: identical records
    pooled = run_study(
        "kramer",
        tmp_path / "pool",
        progress=False,
        figures=False,
        jobs=2,
        p=10,
        n=(30,),
        d=(0.3,),
        reps=2,
        methods=["po"],
        learners=["lasso", "shrink"],
    )
    serial = run_study(
        "kramer",
        tmp_path / "serial",
        progress=False,
        figures=False,
        p=10,
        n=(30,),
        d=(0.3,),
        reps=2,
        methods=["po"],
        learners=["lasso", "shrink"],
    )
    assert pooled.computed == 2
    cols = ["generator", "d", "n", "rep", "learner", "tpr", "tdr", "n_selected", "R"]
    pd.testing.assert_frame_equal(pooled.data[cols], serial.data[cols])


def test_jobs_argument_is_checked(tmp_path):
    with pytest.raises(spdgraph.InvalidOptionError, match="jobs must be a positive integer"):
        run_study("ratio", tmp_path, jobs=0, progress=False, **TINY_RATIO)
    with pytest.raises(spdgraph.InvalidOptionError, match="not both"):
        run_study("ratio", tmp_path, jobs=2, scheduler="tcp://x:1", progress=False, **TINY_RATIO)
    assert not (tmp_path / "ratio").exists()
    assert main(["reproduce", "ratio", "--jobs", "0", "--out", str(tmp_path)]) == 2


def test_ratio_cell_records_match_the_definitions():
    """The cells use spdgraph.diagnostics; it agrees bit for bit with R and kappa by hand."""
    from spdgraph.study import cell_seed

    config = {"seed": 5, "graphs": 2, "matrices": 2}
    for setting, method in (("paper", "po"), ("gmat", "dd")):
        params = {"setting": setting, "p": 12, "d": 0.3, "method": method}
        records = studies.ratio_cell(params, config)
        for g in range(2):
            graph = erdos_renyi(12, 0.3, seed=cell_seed(5, {"stream": "graph", "p": 12,
                                                             "d": 0.3, "graph": g}))  # fmt: skip
            adj = spdgraph.adapt_graph(graph).adjacency
            stack = spdgraph.sample(
                graph,
                method,
                size=2,
                seed=cell_seed(5, {**params, "graph": g}),
                kind="precision",
                **studies.SETTINGS[setting],
            ).values
            for k, m in enumerate(stack):
                eig = np.linalg.eigvalsh(m)
                record = records[2 * g + k]
                assert record["R"] == _reference_R(m, adj)
                assert record["cond"] == eig[-1] / eig[0]
                assert record["edges"] == graph.number_of_edges()


def test_summary_csv_is_tidy_and_cache_files_are_readable(tmp_path):
    import os
    import stat

    import pandas as pd

    pytest.importorskip("netCDF4")
    res = run_study("ratio", tmp_path, seed=1, progress=False, figures=False, **TINY_RATIO)
    table = pd.read_csv(tmp_path / "ratio_summary.csv")
    assert list(table.columns) == ["setting", "d", "p", "statistic", "method", "value"]
    assert set(table["statistic"]) == {"mean", "std"} and set(table["method"]) == {"dd", "po"}
    mask = os.umask(0)
    os.umask(mask)
    cells = list(tmp_path.rglob("*.nc")) + list(tmp_path.rglob("*.json"))
    assert len(cells) == 1 + res.computed
    for cell in cells:
        assert stat.S_IMODE(cell.stat().st_mode) == 0o666 & ~mask


@pytest.mark.integration
def test_kramer_cells_share_one_graph_across_generators_and_n(tmp_path):
    """The custom cell of the Krämer study: one Erdős–Rényi graph per (p, d, rep) for
    every generator and n, one truth matrix per generator for every n, data per n."""
    res = run_study(
        "kramer", tmp_path, progress=False, figures=False, p=12, n=(30, 60), d=(0.3,),
        reps=2, methods=["po", "dd"], learners=["shrink"],
    )  # fmt: skip
    df = res.data
    assert res.computed == 2 * 2 * 2
    for _, sub in df.groupby("rep"):
        assert sub["n_true"].nunique() == 1  # the same graph for po, dd, every n
        assert (sub.groupby("generator")["R"].nunique() == 1).all()  # one truth per generator
        assert sub.groupby("generator")["R"].first().nunique() == 2
    assert df.groupby("generator")["R"].nunique().eq(2).all()  # a new graph per rep
    stored = json.loads(next((tmp_path / "kramer" / "cells").glob("*.json")).read_text())
    assert set(stored["coords"]) == {"generator", "d", "n", "rep"}
    assert stored["result"][0]["learner"] == "shrink"
