"""The command line never shows a traceback; spdgraph reads back its own CSV."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph
from spdgraph.cli import main


def _one_line_exit_2(capsys, argv):
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("spdgraph: error:"), err
    return err[0]


def test_a_file_without_node_dims_is_one_line(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    path = tmp_path / "one_var_1d.nc"
    xr.DataArray(np.arange(3.0), dims=("x",), name="v").to_netcdf(path)
    message = _one_line_exit_2(capsys, ["draw", path, "--n-obs", 3, "-o", tmp_path / "d.nc"])
    assert "dims" in message


def test_a_bad_ordinal_marginal_is_one_line(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    saved = tmp_path / "m.nc"
    spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=1), saved)
    argv = ["draw", saved, "--n-obs", 3, "--marginals", "ordinal(foo=1)", "-o", tmp_path / "x.nc"]
    assert "ordinal takes" in _one_line_exit_2(capsys, argv)


def test_spdgraph_reads_back_its_own_csv(tmp_path, capsys):
    folder = tmp_path / "st2"
    argv = ["sample", "--graph-family", "hub", "--graph-option", "p=6", "--seed", "1"]
    assert main([*argv, "--size", "2", "--format", "csv", "-o", str(folder)]) == 0
    pytest.importorskip("netCDF4")
    again = ["sample", str(folder / "adjacency.csv"), "--seed", "1", "-o", str(tmp_path / "a.nc")]
    assert main(again) == 0  # the header row is the labels, not a row of the matrix
    graph = spdgraph.adapt_graph(spdgraph.read_graph(folder / "adjacency.csv"))
    stack = spdgraph.io.read_tables(folder)
    assert graph.labels == stack["node"].values.tolist() == list(range(6))
    np.testing.assert_array_equal(graph.adjacency, stack["adjacency"].values)
    capsys.readouterr()
    assert main(["info", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "CSV tables" in out and "check: ok" in out


def test_an_existing_output_is_replaced_only_with_overwrite(tmp_path, capsys):
    unrelated = tmp_path / "notes.txt"
    unrelated.write_text("keep me")
    argv = ["graph", "hub", "--p", "6", "-o", unrelated]
    assert "--overwrite" in _one_line_exit_2(capsys, argv)
    assert unrelated.read_text() == "keep me"
    assert main([str(a) for a in [*argv, "--overwrite"]]) == 0
    assert unrelated.read_text() != "keep me"
