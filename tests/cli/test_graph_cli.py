"""``spdgraph graph``: every family to every graph format, read back the same; clear errors."""

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph import cli
from spdgraph.graphs import FAMILIES


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _adjacency(graph):
    """What spdgraph makes of a graph object (read_graph's result): adjacency and labels."""
    data = spdgraph.adapt_graph(graph)
    return data.adjacency, list(data.labels)


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".graphml", ".gml", ".npy"])
def test_written_graph_reads_back_identical(suffix, tmp_path, capsys):
    path = tmp_path / f"g{suffix}"
    argv = ["graph", "cluster", "--p", 15, "--n-groups", 3, "--prob", 0.6, "--seed", 4]
    code, out, err = _run([*argv, "-o", path], capsys)
    assert code == 0, err
    assert "wrote cluster graph (p = 15" in out and "seed 4" in out
    expected = spdgraph.graphs.cluster(15, 3, 0.6, seed=4)
    adjacency, labels = _adjacency(spdgraph.read_graph(path))
    want = nx.to_numpy_array(expected, nodelist=range(15), dtype=bool)
    np.testing.assert_array_equal(adjacency, want)
    assert [int(x) for x in labels] == list(range(15))


def test_edge_list_records_family_and_keeps_isolated_nodes(tmp_path, capsys):
    path = tmp_path / "l.txt"
    assert _run(["graph", "lattice", "--p", 8, "--shape", "2x3", "-o", path], capsys)[0] == 0
    text = path.read_text()
    assert text.startswith('# spdgraph graph lattice\n# parameters {"p": 8, "shape": [2, 3]}')
    g = spdgraph.read_graph(path)
    assert list(g.nodes) == list(range(8)) and g.degree[7] == 0
    assert {frozenset(e) for e in g.edges} == {
        frozenset(e) for e in spdgraph.graphs.lattice(8, (2, 3)).edges
    }


@pytest.mark.parametrize("family", [*sorted(FAMILIES), "random", "scale-free"])
def test_every_family_from_the_command_line_then_sample(family, tmp_path, capsys):
    path, out_nc = tmp_path / "g.txt", tmp_path / "m.nc"
    argv = ["graph", family, "--p", 16, "-o", path]
    if family == "erdos_renyi":
        argv += ["--d", 0.2]
    if family in ("erdos_renyi", "random", "cluster", "scale_free", "scale-free", "small_world"):
        argv += ["--seed", 1]
    code, _out, err = _run(argv, capsys)
    assert code == 0, err
    assert _run(["sample", path, "--seed", 2, "-o", out_nc], capsys)[0] == 0
    cov = spdgraph.open(out_nc)
    assert cov.sizes["node"] == 16


def test_random_is_huges_default_density(tmp_path, capsys):
    path = tmp_path / "r.txt"
    assert _run(["graph", "random", "--p", 30, "--seed", 5, "-o", path], capsys)[0] == 0
    g = spdgraph.read_graph(path)
    reference = spdgraph.graphs.erdos_renyi(30, 0.1, seed=5)
    assert {frozenset(e) for e in g.edges} == {frozenset(e) for e in reference.edges}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["graph", "huber", "--p", 5], "unknown graph family 'huber'; known families: ar1"),
        (["graph", "band", "--p", 5, "--n-hubs", 2], "--n-hubs does not apply to graph family"),
        (["graph", "band", "--p", 5, "--seed", 2], "'band' is not random; drop --seed"),
        (["graph", "hub", "--p", 5, "--seed", 2], "'hub' is not random; drop --seed"),
        (["graph", "hub", "--p", 5, "--n-hubs", 9], "n_hubs must be an integer >= 1 and <= 5"),
        (["graph", "cluster", "--p", 5, "--prob", 2], r"prob must be a probability in [0, 1]"),
        (["graph", "lattice", "--p", 7], "pass shape=(rows, cols)"),
    ],
)
def test_bad_family_or_option_is_one_line_exit_2(argv, message, tmp_path, capsys):
    path = tmp_path / "g.txt"
    code, _out, err = _run([*argv, "-o", path], capsys)
    assert code == 2
    assert err.startswith("spdgraph: error: ") and err.count("\n") == 1
    assert message in err
    assert not path.exists()


def test_unparsable_values_are_usage_errors(tmp_path, capsys):
    for bad in (["--p", "x"], ["--p", 5, "--prob", "a,b"], ["--p", 5, "--shape", "2y3"]):
        code, _, err = _run(["graph", "cluster", *bad, "-o", tmp_path / "g.txt"], capsys)
        assert code == 2 and "error: argument" in err


def test_missing_folder_is_a_file_error(tmp_path, capsys):
    code, _, err = _run(["graph", "ar1", "--p", 4, "-o", tmp_path / "no" / "g.txt"], capsys)
    assert code == 2 and "does not exist" in err


def test_sample_graph_family_equals_graph_then_sample(tmp_path, capsys):
    graph, via_file, direct = tmp_path / "g.txt", tmp_path / "a.nc", tmp_path / "b.nc"
    argv = ["graph", "cluster", "--p", 20, "--n-groups", 2, "--prob", 0.4, "--seed", 3]
    assert _run([*argv, "-o", graph], capsys)[0] == 0
    common = ["--method", "huge", "--kind", "precision", "--seed", 1]
    assert _run(["sample", graph, *common, "-o", via_file], capsys)[0] == 0
    family = ["--graph-family", "cluster", "--graph-option", "p=20"]
    family += ["--graph-option", "n_groups=2", "--graph-option", "prob=0.4", "--graph-seed", 3]
    code, _, err = _run(["sample", *family, *common, "-o", direct], capsys)
    assert code == 0, err
    a, b = spdgraph.open(via_file), spdgraph.open(direct)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a["adjacency"].values, b["adjacency"].values)


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give either a GRAPH file or --graph-family"),
        (["g.txt", "--graph-family", "hub"], "give either a GRAPH file or --graph-family"),
        (["g.txt", "--graph-seed", 1], "go with --graph-family"),
        (["--graph-family", "hub"], "needs --graph-option p=P"),
        (
            ["--graph-family", "hub", "--graph-option", "p=9", "--graph-option", "bandwidth=2"],
            "--graph-option bandwidth=... does not apply to graph family 'hub'",
        ),
        (
            ["--graph-family", "band", "--graph-option", "p=9", "--graph-seed", 1],
            "drop --graph-seed",
        ),
        (["--graph-family", "hub", "--graph-option", "p=0"], "p must be an integer >= 1"),
        (
            ["--graph-family", "cluster", "--graph-option", "p=9", "--graph-option", "seed=1"],
            "give the graph's seed with --graph-seed",
        ),
    ],
)
def test_sample_graph_family_errors(argv, message, tmp_path, capsys):
    (tmp_path / "g.txt").write_text("0 1\n")
    argv = [tmp_path / a if a == "g.txt" else a for a in argv]
    code, _, err = _run(["sample", *argv, "-o", tmp_path / "m.nc"], capsys)
    assert code == 2 and err.count("\n") == 1 and message in err
    assert not (tmp_path / "m.nc").exists()


def test_simulate_takes_the_family_positionally(tmp_path, capsys):
    """``spdgraph simulate band ...`` as ``spdgraph graph band ...``; ``--graph`` still works."""
    from spdgraph.cli import main

    positional, flagged = tmp_path / "a.nc", tmp_path / "b.nc"
    args = ["--p", "8", "--n", "3", "--seed", "2", "--method", "dd"]
    assert main(["simulate", "band", *args, "-o", str(positional)]) == 0
    assert main(["simulate", "--graph", "band", *args, "-o", str(flagged)]) == 0
    assert main(["simulate", "band", "--graph", "band", *args, "-o", str(tmp_path / "c.nc")]) == 0
    a, b = spdgraph.open(positional), spdgraph.open(flagged)
    assert a["precision"].values.tobytes() == b["precision"].values.tobytes()
    assert main(["simulate", "band", "--graph", "hub", *args, "-o", str(tmp_path / "d.nc")]) == 2
    assert "given twice" in capsys.readouterr().err
    assert main(["simulate", *args, "-o", str(tmp_path / "e.nc")]) == 2
    assert "needs a graph" in capsys.readouterr().err
