"""One door to disk: a format registered at run time is written by every writer.

``spdgraph.save`` (an array and a Dataset), ``save_simulation`` and ``spdgraph
simulate -o x.toy``, and a study's results all go through the ``FileFormat``
table and ``spdgraph.io``'s one atomic writer, and ``spdgraph.open`` reads back
what each wrote.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph
import spdgraph.study
from spdgraph.cli import main
from spdgraph.io import check_dataset_format, save_dataset, write_atomically
from spdgraph.simulation import save_simulation

MAGIC = b"TOY1\n"


def _save(obj: xr.DataArray | xr.Dataset, path: Path) -> None:
    path.write_bytes(MAGIC + json.dumps(obj.to_dict(data="list")).encode())


def _open(path: Path) -> xr.DataArray | xr.Dataset:
    content = json.loads(path.read_bytes()[len(MAGIC) :])
    return (xr.Dataset if "data_vars" in content else xr.DataArray).from_dict(content)


def _is_toy(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(len(MAGIC)) == MAGIC


def _toy(name: str, **capabilities) -> spdgraph.FileFormat:
    """A JSON format named ``name`` (suffix ``.name``) with the ``capabilities`` given."""
    return spdgraph.FileFormat(
        name=name, suffixes=(f".{name}",), save=_save, open=_open, **capabilities
    )


class ToyFormat:
    """A format registered at run time: arrays and Datasets as JSON."""

    @spdgraph.hookimpl
    def spdgraph_file_formats(self):
        return [
            _toy("toy", recognises=_is_toy, save_dataset=_save),
            _toy("flat"),  # single arrays only: no save_dataset
        ]


@pytest.fixture
def toy():
    pm = spdgraph.get_plugin_manager()
    pm.register(ToyFormat(), name="toy-format")
    try:
        yield
    finally:
        pm.unregister(name="toy-format")


def _same_simulation(back: xr.Dataset, sim: xr.Dataset) -> None:
    assert isinstance(back, xr.Dataset)
    for name in ("precision", "covariance", "adjacency", "data"):
        np.testing.assert_array_equal(back[name].values, sim[name].values)
    assert back.attrs["seed"] == sim.attrs["seed"]


def test_spdgraph_save_writes_an_array_and_a_dataset_in_the_toy_format(tmp_path, toy):
    cov = spdgraph.sample(nx.path_graph(["a", "b", "c"]), size=2, seed=1)
    assert spdgraph.open(spdgraph.save(cov, tmp_path / "m.toy")).identical(cov)
    sim = spdgraph.simulate("band", n=4, p=5, seed=2)
    path = spdgraph.save(sim, tmp_path / "sim.toy")
    assert _is_toy(path)
    _same_simulation(spdgraph.open(path), sim)


def test_save_simulation_writes_the_toy_format(tmp_path, toy):
    sim = spdgraph.simulate("hub", n=6, p=8, seed=3)
    path = save_simulation(sim, tmp_path / "sim.toy")
    assert spdgraph.io.format_for_reading(path).name == "toy"
    _same_simulation(spdgraph.open(path), sim)
    with pytest.raises(spdgraph.FileError, match="exists; pass overwrite=True"):
        save_simulation(sim, path)
    # by name, whatever the suffix
    named = save_simulation(sim, tmp_path / "named.out", format="toy")
    _same_simulation(spdgraph.open(named), sim)


def test_spdgraph_simulate_cli_writes_the_toy_format(tmp_path, toy, capsys):
    out = tmp_path / "x.toy"
    argv = ["simulate", "--graph", "band", "--p", "5", "--n", "3", "--seed", "1", "-o", str(out)]
    assert main(argv) == 0
    back = spdgraph.open(out)
    _same_simulation(back, spdgraph.simulate("band", n=3, p=5, seed=1))
    assert main(argv) == 2  # an existing output: the CLI's one refusal
    assert "--overwrite" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0
    assert main([*argv[:-1], str(tmp_path / "y.data"), "--format", "toy"]) == 0
    assert _is_toy(tmp_path / "y.data")


def test_a_study_writes_its_results_in_the_toy_format(tmp_path, toy):
    spec = {
        "seed": 1,
        "grid": {"family": ["hub"], "p": [8], "n": [40]},
        "learners": [{"name": "shrink"}],
        "scores": {"metrics": ["tpr", "tdr"]},
    }
    result = spdgraph.study.run(
        spec, tmp_path / "study", workers=1, plots=False, results_format="toy"
    )
    path = tmp_path / "study" / "results.toy"
    assert path in result.files
    back = spdgraph.open(path)
    assert isinstance(back, xr.Dataset)
    np.testing.assert_array_equal(back["value"].values, result.table["value"].values)
    assert list(back["metric"].values) == list(result.table["metric"])


def test_a_format_for_single_arrays_is_refused_for_datasets_before_any_work(tmp_path, toy):
    sim = spdgraph.simulate("band", n=2, p=4, seed=0)
    with pytest.raises(spdgraph.FileError, match=r"holds single arrays.*toy \(\.toy\)"):
        save_simulation(sim, tmp_path / "s.flat")
    with pytest.raises(spdgraph.FileError, match="holds single arrays"):
        check_dataset_format(tmp_path / "results", "flat")
    spec = {"seed": 1, "grid": {"family": ["hub"], "p": [8], "n": [40]},
            "learners": [{"name": "shrink"}]}  # fmt: skip
    with pytest.raises(spdgraph.FileError, match="holds single arrays"):
        spdgraph.study.run(spec, tmp_path / "study", workers=1, plots=False, results_format="flat")
    assert not (tmp_path / "study" / "cells").exists()  # refused before any cell ran
    assert not list(tmp_path.glob("s.flat*"))


def test_the_built_in_formats_hold_a_simulation(tmp_path):
    sim = spdgraph.simulate("band", n=3, p=4, seed=0)
    folder = save_simulation(sim, tmp_path / "sim")  # no registered suffix: CSV tables
    assert sorted(os.listdir(folder)) == [
        "adjacency.csv",
        "attributes.csv",
        "covariance.csv",
        "data.csv",
        "partial_correlation.csv",
        "precision.csv",
    ]
    for name in ("netcdf", "zarr", "csv"):
        assert spdgraph.io.file_formats()[name].save_dataset is not None


def test_write_atomically_refuses_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "t.txt"
    write_atomically(target, lambda tmp: tmp.write_text("one"))
    with pytest.raises(spdgraph.FileError, match="exists; pass overwrite=True"):
        write_atomically(target, lambda tmp: tmp.write_text("two"), overwrite=False)

    def failing(tmp: Path) -> None:
        tmp.write_text("half")
        raise ValueError("the writer failed")

    with pytest.raises(ValueError, match="the writer failed"):
        write_atomically(target, failing)
    assert target.read_text() == "one"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]  # no temporary left
    with pytest.raises(spdgraph.FileError, match="does not exist"):
        write_atomically(tmp_path / "missing" / "t.txt", lambda tmp: tmp.write_text("x"))
    with pytest.raises(spdgraph.FileError, match="is a directory"):
        write_atomically(tmp_path, lambda tmp: tmp.write_text("x"))


def test_save_dataset_goes_through_the_door(tmp_path):
    ds = xr.Dataset({"a": ("row", np.arange(3.0))})
    with pytest.raises(spdgraph.FileError, match="cannot tell the file format"):
        save_dataset(ds, tmp_path / "x.unknown")
    path = save_dataset(ds, tmp_path / "x.csv")
    assert sorted(os.listdir(path)) == ["attributes.csv", "table.csv"]
    assert (path / "table.csv").read_text().splitlines() == ["row,a", "0,0.0", "1,1.0", "2,2.0"]


def test_figures_go_through_the_door(tmp_path, capsys, monkeypatch):
    """``spdgraph info --plot`` and ``demo --plot`` save through ``save_figure``: the
    destination checked first, a failed figure leaves an existing file untouched."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    matrix = spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=0), tmp_path / "m.nc")
    picture = tmp_path / "m.png"
    assert main(["info", str(matrix), "--plot", str(picture)]) == 0
    assert picture.read_bytes()[:4] == b"\x89PNG"
    assert main(["info", str(matrix), "--plot", str(tmp_path / "missing" / "m.png")]) == 2
    assert "does not exist" in capsys.readouterr().err

    def broken(self, *args, **kwargs):
        Path(args[0].name).write_bytes(b"half")  # a half-written temporary, then a failure
        raise RuntimeError("the renderer failed")

    before = picture.read_bytes()
    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="the renderer failed"):
        main(["info", str(matrix), "--plot", str(picture)])
    assert picture.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.nc", "m.png"]


def _variables(path: Path) -> list[str]:
    if not _is_toy(path):
        return []
    content = json.loads(path.read_bytes()[len(MAGIC) :])
    return [*content.get("data_vars", {}), *content.get("coords", {})]


def _open_dataset(path: Path, chunks) -> xr.Dataset:
    ds = _open(path)
    assert isinstance(ds, xr.Dataset)
    return ds if chunks is None else ds.chunk({d: n for d, n in chunks.items() if d in ds.dims})


class CapableToy:
    """The toy format declaring what it holds and opening its Datasets itself."""

    @spdgraph.hookimpl
    def spdgraph_file_formats(self):
        return [
            _toy(
                "cap",
                recognises=_is_toy,
                save_dataset=_save,
                variables=_variables,
                open_dataset=_open_dataset,
            )
        ]


@pytest.fixture
def capable():
    pm = spdgraph.get_plugin_manager()
    pm.register(CapableToy(), name="capable-format")
    try:
        yield spdgraph.io.file_formats()["cap"]
    finally:
        pm.unregister(name="capable-format")


def test_a_format_says_what_it_holds_and_opens_its_datasets(tmp_path, capable):
    """No name is tested: a simulation in the new format is told apart by ``variables``,
    opened by its ``open_dataset`` (eagerly or lazily) and verified by its digests."""
    assert capable.holds_datasets and not capable.holds_sparse and capable.keeps_digests
    sim = spdgraph.simulate("band", n=4, p=5, seed=2)
    path = save_simulation(sim, tmp_path / "sim.cap")
    assert spdgraph.io.simulation_file(path)
    _same_simulation(spdgraph.open(path), sim)
    lazy = spdgraph.open(path, chunks=2)
    assert lazy["data"].chunks is not None
    _same_simulation(lazy.load(), sim)
    # an edited value fails the digests the core stamped, as for netCDF
    content = json.loads(path.read_bytes()[len(MAGIC) :])
    content["data_vars"]["precision"]["data"][0][0] += 1.0
    path.write_bytes(MAGIC + json.dumps(content).encode())
    with pytest.raises(spdgraph.FileError, match="precision"):
        spdgraph.open(path)


def test_a_sparse_result_is_refused_by_a_format_without_holds_sparse(tmp_path, capable):
    pytest.importorskip("sparse")
    band = spdgraph.graphs.band(12, 1, backend="scipy")
    prec = spdgraph.sample(band, "dd", kind="precision", sparse=True, seed=1)
    sim = spdgraph.simulate("band", n=4, p=12, method="dd", sparse=True, seed=1)
    for obj in (prec, sim):
        with pytest.raises(spdgraph.FileError, match=r"keeps it sparse: netcdf \(\.nc, \.nc4\)"):
            spdgraph.save(obj, tmp_path / "x.cap")
    argv = ["simulate", "band", "--p", "12", "--n", "4", "--method", "dd", "--sparse"]
    assert main([*argv[:1], "--graph", *argv[1:], "-o", str(tmp_path / "y.cap")]) == 2
    assert list(tmp_path.iterdir()) == []  # refused before anything was written
