"""Method names are case-insensitive with a "did you mean"; intended kinds; `spdgraph methods`."""

from __future__ import annotations

import networkx as nx
import pytest

import spdgraph
from spdgraph.errors import TooLargeError, UnknownMethodError


def test_method_names_are_case_insensitive():
    g = nx.path_graph(4)
    upper = spdgraph.sample(g, "PO", seed=1)  # the measured case: "PO" failed
    assert upper.attrs["method"] == "po"
    assert (upper.values == spdgraph.sample(g, "po", seed=1).values).all()
    assert spdgraph.sample(g, "Port_Chol", seed=1).attrs["method"] == "port_chol"


@pytest.mark.parametrize(
    ("typo", "meant"), [("unifrom", "uniform"), ("p0", "po"), ("hgue", "huge")]
)
def test_a_near_miss_gets_a_suggestion(typo, meant):
    with pytest.raises(UnknownMethodError, match=f"Did you mean '{meant}'"):
        spdgraph.sample(nx.path_graph(4), typo, seed=1)
    with pytest.raises(UnknownMethodError) as err:
        spdgraph.sample(nx.path_graph(4), "completely-different", seed=1)
    assert "Did you mean" not in str(err.value) and "known methods" in str(err.value)


def test_gwishart_declares_its_intended_kind(monkeypatch):
    pytest.importorskip("spdgraph_gwishart")
    from spdgraph.plugins import find_generator
    from spdgraph.sampling import _request

    monkeypatch.setattr(_request, "_KIND_NOTES_SHOWN", set())  # the note warns once a process

    spec, _ = find_generator("gwishart")
    assert spec.intended_kind == "precision"
    with pytest.warns(UserWarning, match="kind='precision'"):
        cov = spdgraph.sample(nx.cycle_graph(5), "gwishart", seed=1)
    assert "precision" in cov.attrs["kind_note"]


def test_methods_lists_options_in_columns_that_survive_long_names(capsys):
    from spdgraph.cli import main

    assert main(["methods"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines if line and not line.startswith(" ")]
    assert {"po", "huge", "port_chol"} <= set(names)
    heads = [line for line in lines if line and not line[0].isspace()]
    starts = {len(line) - len(line.split(maxsplit=1)[1]) for line in heads}
    assert len(starts) == 1  # every description starts in one column
    width = starts.pop()
    assert width >= max(map(len, names)) + 2
    po = lines[[line.split()[0] if line[:1] != " " else "" for line in lines].index("po") + 1]
    assert po.strip().startswith("options: residual_tolerance=1e-08") and "portable" in po
    huge = "\n".join(lines)
    assert "intended kind: precision" in huge


def test_erdos_renyi_refusal_names_the_graph_not_an_all_pairs_draw(monkeypatch):
    import spdgraph._machine

    # issue 46: no draw over all node pairs any more; the guard counts nodes and edges
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: 8 * 2**30)
    g = spdgraph.graphs.erdos_renyi(100000, 3e-5, seed=1, backend="scipy")
    assert g.shape == (100000, 100000) and 0 < g.nnz < 10 * 100000 * 3
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: 32 * 2**20)
    with pytest.raises(TooLargeError, match="a networkx graph of 100,000 nodes") as info:
        spdgraph.graphs.erdos_renyi(100000, 3e-5)
    assert "node pairs" not in str(info.value)
