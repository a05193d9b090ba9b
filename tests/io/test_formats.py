"""File formats as plugins: the format table, recognition by content, a third-party format.

Every format (the built-in netCDF, Zarr and CSV included) is a ``spdgraph.FileFormat``
from the ``spdgraph_file_formats`` hook; ``spdgraph.save``/``open`` and every command
of the CLI find a format through that table only (issue 32, deliverable 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph
from spdgraph import io
from spdgraph.cli import main

pytest.importorskip("netCDF4")
pytest.importorskip("zarr")

MAGIC = b"TOY1\n"


def _toy_save(da: xr.DataArray, path: Path) -> None:
    path.write_bytes(MAGIC + json.dumps(da.to_dict(data="list")).encode())


def _toy_open(path: Path) -> xr.DataArray:
    raw = path.read_bytes()
    if not raw.startswith(MAGIC):
        raise spdgraph.FileError(f"{path} is not a toy file")
    return xr.DataArray.from_dict(json.loads(raw[len(MAGIC) :]))


def _toy_recognises(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(len(MAGIC)) == MAGIC


class ToyPlugin:
    """A third-party format defined here and registered at run time."""

    @spdgraph.hookimpl
    def spdgraph_file_formats(self):
        return [
            spdgraph.FileFormat(
                name="toy",
                suffixes=(".toy",),
                save=_toy_save,
                open=_toy_open,
                recognises=_toy_recognises,
                description="toy JSON",
            )
        ]


@pytest.fixture
def toy():
    pm = spdgraph.get_plugin_manager()
    pm.register(ToyPlugin(), name="toy-format")
    try:
        yield
    finally:
        pm.unregister(name="toy-format")


@pytest.fixture
def stack():
    return spdgraph.sample(nx.path_graph(["a", "b", "c", "d"]), size=3, seed=5)


def test_the_built_in_formats_come_from_the_hook():
    table = io.file_formats()
    assert list(table) == ["netcdf", "zarr", "csv"]
    pm = spdgraph.get_plugin_manager()
    for name, module in [("netcdf", "_netcdf"), ("zarr", "_zarr"), ("csv", "_csv")]:
        plugin = pm.get_plugin(f"spdgraph.io.{module}")
        assert plugin is not None
        assert [f.name for f in plugin.spdgraph_file_formats()] == [name]
    assert spdgraph.FileFormat is io.FileFormat


def test_a_third_party_format_round_trips_through_the_api(toy, stack, tmp_path):
    path = spdgraph.save(stack, tmp_path / "x.toy")
    assert path.read_bytes().startswith(MAGIC)
    back = spdgraph.open(path)
    assert back.values.tobytes() == stack.values.tobytes()
    assert back.identical(stack)
    assert [p.name for p in tmp_path.iterdir()] == ["x.toy"]  # no temporary left
    # recognised by content under any name
    (tmp_path / "renamed.dat").write_bytes(path.read_bytes())
    assert spdgraph.open(tmp_path / "renamed.dat").identical(stack)


def test_a_third_party_format_through_the_cli(toy, tmp_path, capsys):
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n2 3\n")
    out = tmp_path / "s.toy"
    assert main(["sample", str(graph), "--size", "2", "--seed", "3", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(MAGIC)
    expected = spdgraph.sample(nx.read_edgelist(graph, nodetype=int), size=2, seed=3)
    assert spdgraph.open(out).values.tobytes() == expected.values.tobytes()
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    assert "(toy JSON)" in capsys.readouterr().out
    data = tmp_path / "d.toy"
    assert main(["draw", str(out), "--n-obs", "5", "--seed", "1", "-o", str(data)]) == 0
    assert spdgraph.open(data).dims == ("sample", "obs", "node")


def test_without_the_plugin_the_suffix_is_unknown(stack, tmp_path):
    with pytest.raises(spdgraph.FileError, match=r"suffix '\.toy'.*csv \(\.csv\)"):
        spdgraph.save(stack, tmp_path / "x.toy")


@pytest.mark.parametrize("suffix", [".nc", ".zarr", ".csv"])
def test_every_built_in_format_is_recognised_by_content(stack, tmp_path, suffix):
    path = spdgraph.save(stack, tmp_path / f"m{suffix}")
    plain = tmp_path / "renamed"
    path.rename(plain)
    assert io.format_for_reading(plain).suffixes[0] == suffix
    back = spdgraph.open(plain)
    np.testing.assert_array_equal(back.values, stack.values)


@pytest.mark.parametrize("suffix", [".zarr", ".nc", ".csv"])
def test_info_reads_every_format_the_cli_writes(tmp_path, capsys, suffix):
    """Issue 38 item 3: `spdgraph sample g.txt -o s.zarr && spdgraph info s.zarr` exited 2."""
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    out = tmp_path / f"s{suffix}"
    assert main(["sample", str(graph), "--size", "2", "--seed", "1", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "check: ok" in text
    assert {".zarr": "(Zarr)", ".nc": "(netCDF)", ".csv": "(CSV tables)"}[suffix] in text


def test_o_csv_implies_csv_without_format(tmp_path):
    """Issue 34 item 7: -o x.csv was refused without --format csv."""
    graph = tmp_path / "g.txt"
    graph.write_text("a b\nb c\n")
    assert main(["sample", str(graph), "--seed", "2", "-o", str(tmp_path / "m.csv")]) == 0
    assert (tmp_path / "m.csv").read_text().splitlines()[0] == "a,b,c"
    assert main(["sample", str(graph), "--seed", "2", "-o", str(tmp_path / "folder")]) == 2
    argv = ["sample", str(graph), "--seed", "2", "--size", "2", "--format", "csv"]
    assert main([*argv, "-o", str(tmp_path / "folder")]) == 0
    assert sorted(p.name for p in (tmp_path / "folder").iterdir()) == [
        "adjacency.csv",
        "sample_0.csv",
        "sample_1.csv",
    ]


def test_info_on_a_graph_file_names_every_registered_format(toy, tmp_path, capsys):
    hub = tmp_path / "hub.txt"
    hub.write_text("0 1\n0 2\n")
    assert main(["info", str(hub)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for name in ("netcdf (.nc, .nc4)", "zarr (.zarr)", "csv (.csv)", "toy (.toy)"):
        assert name in err


def test_a_faulty_format_plugin_harms_only_itself(stack, tmp_path):
    class Clash:
        @spdgraph.hookimpl
        def spdgraph_file_formats(self):
            return [spdgraph.FileFormat("mine", (".nc",), _toy_save, _toy_open)]

    class Broken:
        @spdgraph.hookimpl
        def spdgraph_file_formats(self):
            raise RuntimeError("boom")

    pm = spdgraph.get_plugin_manager()
    pm.register(Clash(), name="clash-format")
    pm.register(Broken(), name="broken-format")
    try:
        with pytest.warns(spdgraph.PluginWarning) as caught:
            table = io.file_formats()
        assert list(table) == ["netcdf", "zarr", "csv"]
        text = " ".join(str(w.message) for w in caught)
        assert "suffix '.nc' is registered twice" in text and "boom" in text
        assert spdgraph.open(spdgraph.save(stack, tmp_path / "m.nc")).identical(stack)
    finally:
        pm.unregister(name="clash-format")
        pm.unregister(name="broken-format")


def test_the_cli_writes_no_temporary_csv_netcdf(tmp_path, capsys):
    """CSV is a format like the others: no temporary netCDF, no rewritten stdout."""
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n")
    out = tmp_path / "m.csv"
    assert main(["sample", str(graph), "--seed", "0", "-o", str(out)]) == 0
    assert capsys.readouterr().out.endswith(f"to {out}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "m.csv"]
