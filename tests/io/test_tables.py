"""CSV output (spdgraph.io.save_csv) and the CLI's --format csv, --marginals, --missing."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.io import save_csv
from spdgraph.marginals import parse_marginal


@pytest.fixture(scope="module")
def cov():
    return spdgraph.sample(nx.cycle_graph(["x", "y", "z", "w"]), seed=2)


def test_matrix_csv_reads_back_bit_for_bit(cov, tmp_path):
    path = save_csv(cov, tmp_path / "cov.csv")
    table = pd.read_csv(path)
    assert list(table.columns) == ["x", "y", "z", "w"]
    np.testing.assert_array_equal(table.to_numpy(), cov.values)


def test_stack_is_a_folder_with_the_graph(tmp_path):
    stack = spdgraph.sample(nx.path_graph(4), size=3, seed=0, kind="precision")
    folder = tmp_path / "stack"
    save_csv(stack, folder)
    for k in range(3):
        np.testing.assert_array_equal(
            pd.read_csv(folder / f"sample_{k}.csv").to_numpy(), stack.values[k]
        )
    adjacency = pd.read_csv(folder / "adjacency.csv").to_numpy()
    np.testing.assert_array_equal(adjacency.astype(bool), stack["adjacency"].values)
    save_csv(stack, folder)  # our own folder may be replaced


def test_data_with_missing_values_write_na(cov, tmp_path):
    x = cov.spd.draw(40, seed=1, missing=0.3)
    table = pd.read_csv(save_csv(x, tmp_path / "x.csv"))
    np.testing.assert_array_equal(np.isnan(table.to_numpy()), np.isnan(x.values))
    assert "NA" in (tmp_path / "x.csv").read_text()


def test_bad_targets_are_refused(cov, tmp_path):
    stack = spdgraph.sample(nx.path_graph(3), size=2, seed=0)
    with pytest.raises(FileError, match="goes to a folder"):
        save_csv(stack, tmp_path / "s.csv")
    with pytest.raises(FileError, match=r"\.csv file"):
        save_csv(cov, tmp_path / "cov.txt")
    with pytest.raises(FileError, match="does not exist"):
        save_csv(cov, tmp_path / "nope" / "cov.csv")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(FileError, match="other files"):
        save_csv(stack, tmp_path / "busy")
    with pytest.raises(InvalidOptionError):
        save_csv(cov.spd.adjacency().rename(node="a"), tmp_path / "a.csv")


@pytest.fixture()
def graph_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("a b\nb c\nc d\n")
    return path


def test_cli_sample_and_draw_as_csv(graph_file, tmp_path, capsys):
    out = tmp_path / "cov.csv"
    assert main(["sample", str(graph_file), "-o", str(out), "--seed", "4", "--format", "csv"]) == 0
    assert str(out) in capsys.readouterr().out
    expected = spdgraph.sample(spdgraph.read_graph(graph_file), seed=4)
    np.testing.assert_array_equal(pd.read_csv(out).to_numpy(), expected.values)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    nc = tmp_path / "m.nc"
    assert main(["sample", str(graph_file), "-o", str(nc), "--seed", "4", "--size", "2"]) == 0
    data = tmp_path / "data"
    argv = ["draw", str(nc), "--n-obs", "30", "--seed", "1", "-o", str(data), "--format", "csv"]
    argv += ["--marginals", "t(df=5)", "--marginal", "a=binary", "--missing", "0.1"]
    assert main(argv) == 0
    ref = spdgraph.open(nc).spd.draw(
        30, seed=1, marginals=["binary"] + [parse_marginal("t(df=5)")] * 3, missing=0.1
    )
    got = pd.read_csv(data / "sample_1.csv").to_numpy()
    np.testing.assert_array_equal(got, ref.values[1])


def test_cli_draw_netcdf_records_marginals(graph_file, tmp_path):
    nc = tmp_path / "m.nc"
    main(["sample", str(graph_file), "-o", str(nc), "--seed", "1"])
    out = tmp_path / "x.nc"
    assert (
        main(["draw", str(nc), "--n-obs", "5", "--marginal", "b=poisson(2)", "-o", str(out)]) == 0
    )
    assert spdgraph.open(out).attrs["data_types"] == "gaussian,count,gaussian,gaussian"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--marginals", "weibull"], "'weibull' names no marginal"),
        (["--marginals", "nosuch(1)"], "not a scipy.stats distribution"),
        (["--marginals", "t(df=x)"], "literals"),
        (["--marginal", "q=binary"], "not a node"),
        (["--missing", "1.5"], "missing must be"),
    ],
)
def test_cli_bad_marginals(graph_file, tmp_path, capsys, extra, message):
    nc = tmp_path / "m.nc"
    main(["sample", str(graph_file), "-o", str(nc), "--seed", "1"])
    assert main(["draw", str(nc), "--n-obs", "5", "-o", str(tmp_path / "x.nc"), *extra]) == 2
    assert message in capsys.readouterr().err
