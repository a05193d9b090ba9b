"""Related graphs (spdgraph.graphs.related_graphs) and the `group` dimension of sample/draw."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import InvalidOptionError, MatrixError
from spdgraph.graphs import related_graphs, shared_edges
from spdgraph.io import save_csv
from spdgraph.seeds import group_root


def edge_set(g: nx.Graph) -> set[frozenset]:
    return {frozenset(e) for e in g.edges}


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(4, 12),
    k=st.integers(1, 4),
    n_add=st.integers(0, 3),
    n_remove=st.integers(0, 3),
    mode=st.sampled_from(["group", "time"]),
    seed=st.integers(0, 1000),
)
def test_related_graphs_differ_by_the_requested_edits(p, k, n_add, n_remove, mode, seed):
    base = nx.gnp_random_graph(p, 0.5, seed=seed)
    n_edges, n_pairs = base.number_of_edges(), p * (p - 1) // 2
    worst = k if mode == "time" else 1
    if n_remove * worst > n_edges or n_add * worst > n_pairs - n_edges:
        return
    graphs = related_graphs(base, k, n_add=n_add, n_remove=n_remove, mode=mode, seed=seed)
    assert len(graphs) == k and all(list(g.nodes) == list(base.nodes) for g in graphs)
    again = related_graphs(base, k, n_add=n_add, n_remove=n_remove, mode=mode, seed=seed)
    assert [edge_set(g) for g in graphs] == [edge_set(g) for g in again]
    if mode == "group":
        for g in graphs:
            assert len(edge_set(base) - edge_set(g)) == n_remove
            assert len(edge_set(g) - edge_set(base)) == n_add
    else:
        assert edge_set(graphs[0]) == edge_set(base)
        for prev, nxt in itertools.pairwise(graphs):
            assert len(edge_set(prev) - edge_set(nxt)) == n_remove
            assert len(edge_set(nxt) - edge_set(prev)) == n_add
    assert shared_edges(graphs) == set.intersection(*(edge_set(g) for g in graphs))


def test_related_graphs_refuse_bad_input():
    with pytest.raises(InvalidOptionError, match="cannot remove"):
        related_graphs(nx.path_graph(3), 2, n_remove=3)
    with pytest.raises(InvalidOptionError, match="cannot add"):
        related_graphs(nx.complete_graph(3), 2, n_add=1)
    with pytest.raises(InvalidOptionError, match="mode"):
        related_graphs(nx.path_graph(3), 2, mode="tree")
    with pytest.raises(InvalidOptionError, match="n_graphs"):
        related_graphs(nx.path_graph(3), 0)
    with pytest.raises(InvalidOptionError, match="networkx"):
        related_graphs(np.eye(3), 2)


@pytest.fixture(scope="module")
def graphs():
    base = nx.relabel_nodes(nx.cycle_graph(7), {i: f"n{i}" for i in range(7)})
    return related_graphs(base, 3, n_add=2, n_remove=2, seed=4)


@pytest.mark.parametrize("size", [None, 2])
def test_sample_a_sequence_gives_a_group_dim(graphs, size):
    da = spdgraph.sample(graphs, seed=9, size=size, kind="precision")
    lead = ("group",) if size is None else ("group", "sample")
    assert da.dims == (*lead, "node", "node_2") and da.attrs["groups"] == 3
    assert da["adjacency"].dims == ("group", "node", "node_2")
    root = np.random.SeedSequence(9)
    for k, g in enumerate(graphs):
        alone = spdgraph.sample(g, seed=group_root(root, k), size=size, kind="precision")
        np.testing.assert_array_equal(da.isel(group=k).values, alone.values)
        np.testing.assert_array_equal(
            da["adjacency"].values[k], nx.to_numpy_array(g, weight=None).astype(bool)
        )
        da.isel(group=k).spd.check()
    assert "min_eigenvalue" not in da.attrs  # the achieved spectrum only with a target
    targeted = spdgraph.sample(graphs, seed=9, size=size, kind="precision", condition_number=50)
    assert len(targeted.attrs["condition_number"]) == 3 * (size or 1)
    np.testing.assert_allclose(targeted.attrs["condition_number"], 50, rtol=1e-6)


def test_groups_round_trip_and_draw_per_group(graphs, tmp_path):
    da = spdgraph.sample(graphs, seed=1, kind="precision")
    path = spdgraph.save(da, tmp_path / "g.nc")
    assert spdgraph.open(path).identical(da)
    x = da.spd.draw(50, seed=2)
    assert x.dims == ("group", "obs", "node")
    root = np.random.SeedSequence(2)
    for k in range(3):
        alone = da.isel(group=k).spd.draw(50, seed=group_root(root, k))
        np.testing.assert_array_equal(x.values[k], alone.values)
    with pytest.raises(MatrixError, match="select one group"):
        da.spd.inverse()


def test_group_requests_are_checked(graphs):
    with pytest.raises(InvalidOptionError, match="empty"):
        spdgraph.sample([], seed=0)
    with pytest.raises(InvalidOptionError, match="same order"):
        spdgraph.sample([nx.path_graph(3), nx.path_graph([2, 1, 0])], seed=0)
    with pytest.raises(InvalidOptionError, match="factor"):
        spdgraph.sample(graphs, seed=0, factor=np.eye(7))


def test_lazy_groups_equal_eager(graphs):
    pytest.importorskip("dask")
    eager = spdgraph.sample(graphs, seed=3, size=4)
    lazy = spdgraph.sample(graphs, seed=3, size=4, chunks=2)
    np.testing.assert_array_equal(lazy.values, eager.values)


def test_score_table_per_group(graphs):
    from spdgraph.validation import score_table

    prec = spdgraph.sample(graphs, seed=0, kind="precision")
    x = prec.spd.draw(150, seed=1)
    table = score_table(x, prec, ["shrink", "ridge"], seed=0)
    assert table.shape[0] == 6 and set(table["learner"]) == {"shrink", "ridge"}
    assert table.groupby("group")["n_true"].first().tolist() == [
        g.number_of_edges() for g in graphs
    ]
    again = score_table(x, list(graphs), ["shrink", "ridge"], seed=0)
    pd.testing.assert_frame_equal(table, again)
    with pytest.raises(InvalidOptionError):
        score_table(x.values, prec)


def test_group_csv_and_cli(graphs, tmp_path, capsys):
    da = spdgraph.sample(graphs, seed=1)
    folder = save_csv(da, tmp_path / "groups")
    for k in range(3):
        np.testing.assert_array_equal(
            pd.read_csv(f"{folder}/group_{k}.csv").to_numpy(), da.values[k]
        )
        np.testing.assert_array_equal(
            pd.read_csv(f"{folder}/adjacency_{k}.csv").to_numpy().astype(bool),
            da["adjacency"].values[k],
        )
    base = tmp_path / "base.txt"
    base.write_text("a b\nb c\nc d\nd e\ne a\n")
    out = tmp_path / "rel.nc"
    gdir = tmp_path / "graphs"
    gdir.mkdir()
    argv = ["related", str(base), "-k", "3", "--n-add", "1", "--n-remove", "1", "--seed", "5"]
    assert main([*argv, "-o", str(out), "--graphs-dir", str(gdir)]) == 0
    saved = spdgraph.open(out)
    expected = related_graphs(spdgraph.read_graph(base), 3, n_add=1, n_remove=1, seed=5)
    np.testing.assert_array_equal(saved.values, spdgraph.sample(expected, seed=5).values)
    read_back = spdgraph.read_graph(gdir / "group_2.csv")
    assert edge_set(nx.from_pandas_adjacency(read_back)) == edge_set(expected[2])
    data = tmp_path / "data"
    assert (
        main(
            ["draw", str(out), "--n-obs", "10", "--seed", "1", "-o", str(data), "--format", "csv"]
        )
        == 0
    )
    assert sorted(p.name for p in data.iterdir()) == ["group_0.csv", "group_1.csv", "group_2.csv"]
    assert "for 3 matrices" in capsys.readouterr().out
