"""Saved simulations under hostile conditions (issue 49, items 1 and 2).

Every simulation saved to ``.nc``/``.zarr`` carries digests checked on open,
eager or lazy; every failed write is a FileError naming the path and the cause,
leaves the old output whole and no temporary, in the API and the CLI alike.
"""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from fulldisk import fill, small_disk

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.io._digests import DIGESTS
from spdgraph.simulation import open_simulation, save_simulation

FORMATS = ["sim.nc", "sim.zarr"]


@pytest.fixture(scope="module")
def sim():
    return spdgraph.simulate("hub", n=200, p=12, seed=4, size=40)


def _needs(name):
    pytest.importorskip("netCDF4" if name.endswith(".nc") else "zarr")


def _hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("name", FORMATS)
def test_a_saved_simulation_round_trips_eager_and_lazy(tmp_path, sim, name):
    _needs(name)
    pytest.importorskip("dask")
    path = save_simulation(sim, tmp_path / name)
    assert open_simulation(path).identical(sim)
    lazy = open_simulation(path, chunks=7)
    assert lazy["precision"].chunks is not None and lazy.load().identical(sim)
    assert _hidden(tmp_path) == []


def _edit(path, name, variable, index, value):
    if name.endswith(".nc"):
        import netCDF4

        with netCDF4.Dataset(path, "a") as nc:
            nc.variables[variable][index] = value
    else:
        import zarr

        array = zarr.open_array(path / variable, mode="r+")
        array[index] = value


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize(
    ("variable", "index", "value"),
    [("precision", (3, 0, 0), 7.5), ("data", (10, 2), 0.25), ("adjacency", (0, 5), None)],
)
def test_an_edited_simulation_is_refused_eager_and_lazy(
    tmp_path, sim, name, variable, index, value
):
    _needs(name)
    pytest.importorskip("dask")
    path = save_simulation(sim, tmp_path / name)
    if value is None:  # flip an entry of the graph
        value = not bool(sim[variable].values[index])
    _edit(path, name, variable, index, value)
    with pytest.raises(FileError, match=f"'{variable}'.*changed since it was saved"):
        open_simulation(path)
    with pytest.raises(FileError, match="changed since it was saved"):
        # the graph (a coordinate) is checked at open, the values block by block as read
        open_simulation(path, chunks=5).load()


@pytest.mark.parametrize("name", FORMATS)
def test_a_simulation_without_digests_is_refused_unless_verify_false(tmp_path, sim, name):
    _needs(name)
    path = save_simulation(sim, tmp_path / name)
    if name.endswith(".nc"):
        import netCDF4

        with netCDF4.Dataset(path, "a") as nc:
            nc.delncattr(DIGESTS)
    else:
        import zarr

        group = zarr.open_group(path, mode="r+")
        del group.attrs[DIGESTS]
    _edit(path, name, "adjacency", (0, 7), True)
    with pytest.raises(FileError, match="verify=False"):
        open_simulation(path)
    assert bool(open_simulation(path, verify=False)["adjacency"][0, 7])


@pytest.mark.parametrize("name", FORMATS)
def test_bad_destinations_are_file_errors_before_any_write(tmp_path, sim, name):
    _needs(name)
    with pytest.raises(FileError, match="got int"):
        save_simulation(sim, 12)
    with pytest.raises(FileError, match="too long"):
        save_simulation(sim, tmp_path / ("x" * 300 + name))
    with pytest.raises(FileError, match="does not exist"):
        save_simulation(sim, tmp_path / "missing" / name)
    old = save_simulation(sim, tmp_path / name)
    with pytest.raises(FileError, match="exists; pass overwrite=True"):
        save_simulation(sim, old)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "ro"
        locked.mkdir()
        locked.chmod(0o500)
        with pytest.raises(FileError, match=r"permission|read-only"):
            save_simulation(sim, locked / name)
    assert _hidden(tmp_path) == []


def test_nul_and_surrogate_labels_are_refused_naming_the_label(tmp_path):
    pytest.importorskip("netCDF4")
    graph = nx.relabel_nodes(nx.path_graph(3), {0: "a\0b", 1: "b", 2: "c"})
    sim = spdgraph.simulate(graph, n=4, seed=0)
    with pytest.raises(InvalidOptionError, match=r"NUL"):
        save_simulation(sim, tmp_path / "s.nc")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", FORMATS)
def test_a_full_disk_leaves_the_old_simulation_whole_and_no_temporary(tmp_path, name, capsys):
    _needs(name)
    small = spdgraph.simulate("hub", n=20, p=8, seed=1)
    big = spdgraph.simulate("hub", n=20, p=40, seed=2, size=200)  # ~5 MB: does not fit
    with small_disk(tmp_path / "disk", "1m") as disk:
        path = save_simulation(small, disk / name)
        before = open_simulation(path)
        with pytest.raises(FileError) as info:
            save_simulation(big, path, overwrite=True)
        assert str(path) in str(info.value) and "full disk" in str(info.value).replace(
            "no space left on the device", "full disk"
        )
        assert _hidden(disk) == []
        assert open_simulation(path).identical(before)
        # the CLI: exit 2, one line, the old output whole
        fill(disk)
        args = ["simulate", "--graph", "hub", "--p", "8", "--n", "20", "--seed", "1"]
        assert main([*args, "-o", str(path), "--overwrite"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and str(path) in err
        assert _hidden(disk) == []
        (disk / "filler").unlink()
        assert open_simulation(path).identical(before)


def test_the_cli_refuses_bad_outputs_in_one_line(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    args = ["simulate", "--graph", "hub", "--p", "6", "--n", "5", "--seed", "1", "-o"]
    assert main([*args, str(tmp_path / ("y" * 300 + ".nc"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "too long" in err
    assert main([*args, str(tmp_path / "no" / "s.nc")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert _hidden(tmp_path) == []


def test_the_digests_do_not_change_what_simulate_returns(sim):
    assert DIGESTS not in sim.attrs
    np.testing.assert_array_equal(sim["adjacency"].values, sim["adjacency"].values.T)
