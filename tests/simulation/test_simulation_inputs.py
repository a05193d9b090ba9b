"""A simulation is a first-class input (issue 47): open, info, draw, score read it."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import FileError
from spdgraph.simulation import open_simulation, save_simulation, simulate
from spdgraph.validation import score, score_table


@pytest.fixture(scope="module")
def sim() -> xr.Dataset:
    return simulate("hub", n=120, p=12, seed=1)


@pytest.mark.parametrize("name", ["precision", "covariance", "partial_correlation"])
def test_each_matrix_variable_carries_the_graph(sim, name):
    graph = sim[name].spd.graph()
    assert graph.number_of_edges() == sim.attrs["n_edges"]
    np.testing.assert_array_equal(
        nx.to_numpy_array(graph, nodelist=list(sim["node"].values), weight=None) != 0,
        sim["adjacency"].values,
    )
    assert "adjacency" in sim.coords and "adjacency" not in sim.data_vars


def test_score_takes_a_simulation_as_data_and_truth(sim):
    plain = score(sim["data"], sim["precision"], "shrink", seed=0)
    assert score(sim["data"], sim, "shrink", seed=0).selected.tolist() == plain.selected.tolist()
    assert score(sim, sim, "shrink", seed=0).n_true == plain.n_true == sim.attrs["n_edges"]
    # the covariance carries the precision's graph (graph_kind): a valid truth as well
    assert score(sim["data"], sim["covariance"], "shrink", seed=0).n_true == plain.n_true
    table = score_table(sim, sim, "shrink", seed=0)
    assert table["n_true"].tolist() == [plain.n_true]


def test_score_table_takes_a_related_stacked_simulation():
    related = {"n_graphs": 2, "n_add": 1, "n_remove": 1}
    sims = simulate("hub", n=40, p=10, size=2, related=related, seed=3)
    table = score_table(sims, sims, "shrink", seed=0)
    assert len(table) == 4 and set(table["group"]) == {0, 1}
    for g in (0, 1):
        edges = int(np.triu(sims["adjacency"].isel(group=g).values, 1).sum())
        assert set(table[table["group"] == g]["n_true"]) == {edges}


@pytest.mark.parametrize("suffix", [".nc", "", ".zarr"])
def test_open_reads_a_saved_simulation(tmp_path, sim, suffix):
    pytest.importorskip("netCDF4" if suffix == ".nc" else "pandas")
    if suffix == ".zarr":
        pytest.importorskip("zarr")
    path = save_simulation(sim, tmp_path / f"sim{suffix}")
    back = spdgraph.open(path)
    assert isinstance(back, xr.Dataset)
    for name in ("precision", "covariance", "partial_correlation", "data"):
        np.testing.assert_array_equal(back[name].values, sim[name].values)
    np.testing.assert_array_equal(back["adjacency"].values, sim["adjacency"].values)
    assert back["precision"].spd.graph().number_of_edges() == sim.attrs["n_edges"]
    assert str(back.attrs["kind"]) == "precision"
    assert score(back, back, "shrink", seed=0).n_true == sim.attrs["n_edges"]


def test_a_file_with_the_graph_as_a_variable_still_opens(tmp_path, sim):
    pytest.importorskip("netCDF4")
    path = tmp_path / "old.nc"
    sim.reset_coords("adjacency").to_netcdf(path)  # as simulate wrote it before issue 47
    # written by spdgraph without digests (before issue 49): opened only when asked to
    with pytest.raises(FileError, match="verify=False"):
        open_simulation(path)
    back = open_simulation(path, verify=False)
    assert "adjacency" in back.coords and back["adjacency"].dtype == bool
    assert back["precision"].spd.graph().number_of_edges() == sim.attrs["n_edges"]


def test_open_simulation_refuses_a_matrix_file(tmp_path, sim):
    pytest.importorskip("netCDF4")
    path = spdgraph.save(sim["precision"], tmp_path / "prec.nc")
    with pytest.raises(FileError, match="not a simulation"):
        open_simulation(path)
    assert isinstance(spdgraph.open(path), xr.DataArray)  # a matrix file opens as before


@pytest.mark.parametrize("suffix", [".nc", ""])
def test_info_draw_and_score_read_a_simulate_file(tmp_path, capsys, suffix):
    pytest.importorskip("netCDF4")
    path = str(tmp_path / f"sim{suffix}")
    args = ["--graph", "hub", "--p", "12", "--n", "60", "--seed", "1", "-o", path]
    assert main(["simulate", *args]) == 0
    assert main(["info", path]) == 0
    out = capsys.readouterr().out
    assert "spdgraph simulation" in out and "check: ok" in out
    drawn = str(tmp_path / "d.nc")
    assert main(["draw", path, "--n-obs", "7", "--seed", "2", "-o", drawn]) == 0
    assert spdgraph.open(drawn).sizes["obs"] == 7
    capsys.readouterr()
    assert main(["score", path, path, "--learner", "shrink"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[0].startswith("learner,") and len(rows) == 2
    assert main(["score", drawn, path, "--learner", "shrink"]) == 0


def test_an_option_of_another_method_names_that_method():
    from spdgraph.errors import UnknownOptionError

    with pytest.raises(UnknownOptionError, match=r"'v' is an option of method='huge'"):
        simulate("random", n=20, p=10, v=0.3)
    with pytest.raises(UnknownOptionError) as caught:
        simulate("random", n=20, p=10, bogus=1)
    assert "is an option of" not in str(caught.value)  # no method declares it: no hint
    assert simulate("random", n=20, p=10, v=0.3, method="huge", seed=0).attrs["method"] == "huge"


def test_every_help_text_is_plain_text(capsys):
    import re

    from spdgraph.cli import build_parser
    from spdgraph.cli._options import plain_text

    parser = build_parser()
    texts = [parser.format_help()]
    for action in parser._actions:
        for sub in (getattr(action, "choices", None) or {}).values():
            if hasattr(sub, "format_help"):
                texts.append(sub.format_help())
    assert len(texts) > 5
    for text in texts:
        assert not re.search(r":[a-z]+:`|``", text), text[:200]
    assert main(["simulate", "--help"]) == 0
    assert "spdgraph.simulate" in capsys.readouterr().out
    assert plain_text(":class:`~spdgraph.io.Format` and ``x``") == "Format and x"


def test_a_related_stacked_simulation_round_trips_through_a_csv_folder(tmp_path):
    related = {"n_graphs": 2, "n_add": 1, "n_remove": 1}
    sims = simulate("hub", n=30, p=10, size=2, related=related, seed=1)
    back = spdgraph.open(save_simulation(sims, tmp_path / "related"))
    for name in ("precision", "data"):
        np.testing.assert_allclose(back[name].values, sims[name].values, rtol=1e-15)
    np.testing.assert_array_equal(back["adjacency"].values, sims["adjacency"].values)
    assert back["adjacency"].dims == ("group", "node", "node_2")
    table = score_table(back, back, "shrink", seed=0)
    assert table["n_true"].tolist() == score_table(sims, sims, "shrink", seed=0)["n_true"].tolist()
