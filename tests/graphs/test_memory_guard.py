"""Graph families refuse, before building anything, a graph that cannot fit in memory."""

from __future__ import annotations

import networkx as nx
import pytest

import spdgraph
import spdgraph._machine
import spdgraph.sampling
from spdgraph.cli import main
from spdgraph.graphs import _common

FAMILIES = [
    ("hub", lambda p: spdgraph.graphs.hub(p)),
    ("band", lambda p: spdgraph.graphs.band(p, 3)),
    ("ar1", lambda p: spdgraph.graphs.ar1(p)),
    ("ar2", lambda p: spdgraph.graphs.ar2(p)),
    ("circle", lambda p: spdgraph.graphs.circle(p)),
    ("lattice", lambda p: spdgraph.graphs.lattice(p, shape=(2, p // 2))),
    ("star", lambda p: spdgraph.graphs.star(p)),
    ("scale_free", lambda p: spdgraph.graphs.scale_free(p, seed=1)),
    ("small_world", lambda p: spdgraph.graphs.small_world(p, 2, 0.1, seed=1)),
    ("erdos_renyi", lambda p: spdgraph.graphs.erdos_renyi(p, 0.01, seed=1)),
    ("cluster", lambda p: spdgraph.graphs.cluster(p, 4, seed=1)),
]


def _limit(monkeypatch, nbytes):
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: nbytes)


@pytest.mark.parametrize(("name", "make"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_a_family_refuses_what_does_not_fit_and_names_the_largest_p(monkeypatch, name, make):
    _limit(monkeypatch, 2 * 2**20)  # 2 MiB
    with pytest.raises(spdgraph.TooLargeError, match=f"graph family '{name}'") as info:
        make(20_000)
    message = str(info.value)
    assert "use fewer nodes (at most about" in message
    largest = int(message.rsplit("at most about ", 1)[1].split(" ")[0].replace(",", ""))
    assert 1 <= largest < 20_000
    # the largest p it names is accepted under the same limit
    if largest >= 40:
        assert isinstance(make(largest), nx.Graph)


def test_the_estimate_covers_what_a_graph_really_takes():
    """The per-node and per-edge bytes are not below what networkx takes (tracemalloc)."""
    import tracemalloc

    for make, edges in ((lambda: spdgraph.graphs.band(20_000, 5), 5 * 20_000),):
        tracemalloc.start()
        graph = make()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert graph.number_of_edges() <= edges
        estimate = _common.NETWORKX_BYTES_PER_NODE * 20_000
        estimate += _common.NETWORKX_BYTES_PER_EDGE * edges
        assert peak <= estimate <= 3 * peak


def test_unbounded_memory_is_no_limit(monkeypatch):
    _limit(monkeypatch, None)
    assert spdgraph.graphs.ar1(10).number_of_edges() == 9


def test_cli_refuses_a_family_too_large_to_sample_before_building_it(monkeypatch, capsys):
    built = []
    monkeypatch.setattr(_common, "make_graph", lambda *a, **k: built.append(a))
    code = main(["sample", "--graph-family", "ar1", "--graph-option", "p=200000", "-o", "x.nc"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "200000 x 200000" in err[0]
    assert built == []  # refused from p alone


def test_estimate_need_and_check_need_agree_with_sample(monkeypatch):
    graph = nx.path_graph(300)
    need = spdgraph.sampling.estimate_need(graph, "po", size=3)
    assert need.p == 300 and need.matrices == 3
    assert spdgraph.sampling.estimate_need(graph, "dd").bytes < need.bytes
    from spdgraph.sampling import _memory

    monkeypatch.setattr(_memory, "available_memory", lambda: need.bytes - 1)
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sampling.check_need(300, "po", size=3)
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sample(graph, "po", size=3, seed=1)
    monkeypatch.setattr(_memory, "available_memory", lambda: need.bytes)
    spdgraph.sampling.check_need(300, "po", size=3)
    assert spdgraph.sample(graph, "po", size=3, seed=1).sizes["sample"] == 3
