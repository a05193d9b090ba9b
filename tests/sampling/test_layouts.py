"""One request for every layout: the same bad argument gets the same message, dense,
stacked, lazy or sparse, because ``build_request`` is the only place it is checked."""

from __future__ import annotations

import networkx as nx
import pytest

import spdgraph
from spdgraph.parameters import SAMPLE_PARAMETERS
from spdgraph.sampling._record import SampleCall
from spdgraph.sampling._request import build_request

G = nx.cycle_graph(6)

#: Every layout a call can take (the method is one each layout accepts).
LAYOUTS = {
    "dense": {"method": "dd"},
    "stacked": {"method": "dd", "size": 2},
    "lazy": {"method": "dd", "size": 2, "chunks": 1},
    "sparse": {"method": "dd", "sparse": True},
}

BAD = [
    {"size": -1},
    {"size": 2.5},
    {"kind": "correlation"},
    {"normalize": "yes"},
    {"portable": 1},
    {"progress": "sometimes"},
    {"uncertified": "ignore"},
    {"max_redraws": -1},
    {"certificate": "maybe"},
    {"negative_share": 1.5},
    {"complete": "no"},
    {"seed": -3},
    {"entries": "cauchy"},
    {"min_eigenvalue": -1.0},
    {"tolerance": 1},  # a misspelt option: the hint names the methods that have one
]


def _message(layout: str, bad: dict) -> tuple[type, str]:
    kwargs = {**LAYOUTS[layout], **bad}
    with pytest.raises(spdgraph.SpdgraphError) as info:
        spdgraph.sample(G, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("bad", BAD, ids=lambda bad: next(iter(bad)))
def test_a_bad_argument_gets_one_message_whatever_the_layout(bad):
    pytest.importorskip("dask")
    pytest.importorskip("sparse")
    messages = {layout: _message(layout, bad) for layout in LAYOUTS}
    assert len(set(messages.values())) == 1, messages


def test_the_sparse_layout_gives_the_cross_method_option_hint():
    """Today's sparse path checked options without the hint naming the method that has it."""
    dense = _message("dense", {"residual_tolerance": 1e-6})
    sparse = _message("sparse", {"residual_tolerance": 1e-6})
    assert dense == sparse and "'po'" in sparse[1]


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_layout_is_a_field_of_the_request(layout):
    pytest.importorskip("dask")
    pytest.importorskip("sparse")
    arguments = {k: v for k, v in LAYOUTS[layout].items() if k != "method"}
    request = build_request(G, SampleCall("dd", seed=1, **arguments))
    assert request.layout == ("dense" if layout == "stacked" else layout)
    assert set(request.arguments) == set(SAMPLE_PARAMETERS)  # every value, table-checked


def test_what_the_sparse_layout_cannot_do_is_refused_before_the_graph():
    class Exploding:
        """A graph whose reading must never start."""

    for extra, word in [({"min_eigenvalue": 0.1}, "min_eigenvalue"), ({"method": "po"}, "po")]:
        call = SampleCall(extra.pop("method", "dd"), seed=1, sparse=True, **extra)
        with pytest.raises(spdgraph.InvalidOptionError, match=word):
            build_request(Exploding(), call)


def test_related_graphs_refuse_the_sparse_layout_in_the_request():
    with pytest.raises(spdgraph.InvalidOptionError, match="takes one graph"):
        spdgraph.sample([G, G], "dd", sparse=True, seed=1)
