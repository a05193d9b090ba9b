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
        (["graph", "erdos_renyi", "--p", 5], "needs --d"),
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
