"""Every cell's data at hand: spdgraph.study.cell_data, spdgraph study data, R scripts."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import spdgraph
import spdgraph.study
from spdgraph.cli import main
from spdgraph.errors import InvalidOptionError, SpdgraphError
from spdgraph.study import cell_data, cell_key, cell_seed, run

SEEN: list[np.ndarray] = []

SPEC = {
    "name": "data",
    "seed": 21,
    "repeats": 2,
    "grid": {"family": ["hub", "random"], "p": [6], "n": [25]},
    "scores": {"metrics": ["tpr", "tdr"]},
}


def recording(x):
    """A learner that keeps what it was given."""
    SEEN.append(np.array(x, copy=True))
    return np.corrcoef(x, rowvar=False)


def test_cell_data_gives_the_exact_data_and_truth_each_repeat_gave_the_learners(tmp_path):
    SEEN.clear()
    spec = {**SPEC, "learners": [{"name": "rec", "function": recording}]}
    run(spec, tmp_path, workers=1, plots=False)
    cells = spdgraph.study.load_study(spec).cells()
    for k, coords in enumerate(cells):
        for by in (coords, cell_key(coords), cell_key(coords) + ".json"):
            ds = cell_data(tmp_path, by, spec)
            assert ds.sizes["repeat"] == 2 and ds.attrs["cell"] == cell_key(coords)
            for r in range(2):  # bit for bit what the learner saw
                np.testing.assert_array_equal(ds["data"].isel(repeat=r).values, SEEN[2 * k + r])
        # the truth: repeat r is spdgraph.simulate from the cell's stream (…, r)
        from spdgraph.seeds import sub_root

        root = cell_seed(SPEC["seed"], coords)
        sim = spdgraph.simulate(coords["family"], 25, p=6, seed=sub_root(root, 1))
        np.testing.assert_array_equal(ds["adjacency"].isel(repeat=1).values, sim["adjacency"])
        np.testing.assert_array_equal(ds["precision"].isel(repeat=1).values, sim["precision"])
    ds = cell_data(tmp_path, "family=random,n=25", spec)
    assert json.loads(ds.attrs["coords"])["family"] == "random"
    assert ds["adjacency"].dims == ("repeat", "node", "node_2")
    assert len(ds.attrs["learner_seeds"]) == 2


def test_cell_data_refuses_unknown_unstored_or_changed_cells(tmp_path):
    run({**SPEC, "learners": [{"name": "shrink"}]}, tmp_path, workers=1, plots=False)
    with pytest.raises(InvalidOptionError, match="names 2 cells"):
        cell_data(tmp_path, {"n": 25})
    with pytest.raises(InvalidOptionError, match="no axis 'q'"):
        cell_data(tmp_path, {"q": 1})
    with pytest.raises(InvalidOptionError, match="not a study folder"):
        cell_data(tmp_path / "nothing", {"family": "hub"})
    cell = next((tmp_path / "cells").glob("family=hub*.json"))
    payload = json.loads(cell.read_text())
    payload["data"][1]["digest"] = "0" * 64  # as if another version had simulated it
    from spdgraph.study._store import cell_digest

    payload["digest"] = cell_digest(payload)
    cell.write_text(json.dumps(payload))
    with pytest.raises(SpdgraphError, match=r"repeat 1 of cell family=hub.*other data"):
        cell_data(tmp_path, {"family": "hub"})
    cell.unlink()
    with pytest.raises(InvalidOptionError, match="run the study first"):
        cell_data(tmp_path, {"family": "hub"})


def test_cli_writes_a_cell_as_netcdf_and_csv(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    out = tmp_path / "study"
    run({**SPEC, "learners": [{"name": "shrink"}]}, out, workers=1, plots=False)
    args = ["study", "data", str(out), "--cell", "family=hub", "-o", str(tmp_path / "c.nc")]
    assert main(args) == 0
    back = spdgraph.open(tmp_path / "c.nc")
    np.testing.assert_array_equal(back["data"].values, cell_data(out, {"family": "hub"})["data"])
    assert main(args) == 2  # exists: refused without --overwrite
    assert main([*args, "--overwrite"]) == 0
    csv = ["study", "data", str(out), "--cell", "family=hub", "-o", str(tmp_path / "c.csv")]
    assert main(csv) == 0
    data = pd.read_csv(tmp_path / "c-repeat1.csv" / "data.csv")
    ds = cell_data(out, {"family": "hub"})
    np.testing.assert_array_equal(data.to_numpy(), ds["data"].isel(repeat=1).values)
    assert main([*args[:-1], str(tmp_path / "d.nc"), "--r-script", "shrink"]) == 2
    assert "not an R learner" in capsys.readouterr().err
    assert not (tmp_path / "d.nc").exists()


HUGE_MB = (
    "sel <- huge::huge.select(huge::huge(x, method = 'mb', verbose = FALSE),\n"
    "  criterion = 'stars', stars.subsample.ratio = 0.8, rep.num = 5, verbose = FALSE)\n"
    "as.matrix(sel$refit)"
)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R (Rscript on PATH)")
def test_the_r_script_reproduces_the_stored_graph(tmp_path):
    """StARS subsamples with R's generator: the script's set.seed must be the study's."""
    from spdgraph.study._rbridge import check_r

    try:
        check_r(["huge"])
    except SpdgraphError as exc:
        pytest.skip(f"needs R's huge: {exc}")
    spec = {**SPEC, "repeats": 2, "grid": {"family": ["hub"], "p": [8], "n": [40]},
            "scores": {"metrics": ["tpr", "tdr", "shd"]},
            "learners": [{"name": "mb", "r": HUGE_MB, "packages": ["huge"]}]}  # fmt: skip
    table = run(spec, tmp_path / "s", workers=1, plots=False).table
    for repeat in (0, 1):
        script = spdgraph.study.r_script(
            tmp_path / "s", {"family": "hub"}, "mb", tmp_path / f"mb{repeat}.R", repeat=repeat
        )
        done = subprocess.run(["Rscript", str(script)], capture_output=True, text=True,
                              cwd=tmp_path.parent, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        result = np.fromfile(tmp_path / f"mb{repeat}-result.bin", dtype="<f8").reshape(8, 8).T
        assert set(np.unique(result)) <= {0.0, 1.0}
        ds = cell_data(tmp_path / "s", {"family": "hub"})
        truth = ds["adjacency"].isel(repeat=repeat).values.astype(bool)
        from spdgraph.validation import score_selection

        scored = score_selection(result != 0, truth).metrics()
        stored = table[table["repeat"] == repeat].set_index("metric")["value"]
        for metric in ("tpr", "shd"):
            assert scored[metric] == stored[metric]
        # and the very matrix the study's bridge returned for that fit
        from spdgraph.study._rbridge import fit_r

        x = np.asarray(ds["data"].isel(repeat=repeat).values)
        labels = [str(v) for v in ds["node"].values]
        from spdgraph.seeds import sub_root
        from spdgraph.study._cell import LEARNER_DOMAIN

        seed = sub_root(cell_seed(21, json.loads(ds.attrs["coords"])), repeat, LEARNER_DOMAIN)
        again, _ = fit_r(spec["learners"][0], x, labels, seed)
        np.testing.assert_array_equal(again, result)


def test_r_script_refuses_a_learner_that_is_not_r(tmp_path):
    run({**SPEC, "learners": [{"name": "shrink"}]}, tmp_path, workers=1, plots=False)
    with pytest.raises(InvalidOptionError, match="not an R learner"):
        spdgraph.study.r_script(tmp_path, {"family": "hub"}, "shrink", tmp_path / "x.R")
    assert not (tmp_path / "x.R").exists() and not Path(tmp_path / "x.bin").exists()
