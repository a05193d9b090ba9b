"""The request: every argument checked before the graph is adapted or anything drawn."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.sampling._record import SampleCall
from spdgraph.sampling._request import build_request

DEFAULTS = dict(seed=0)


class Exploding:
    """A graph whose adaptation must never start."""


@pytest.mark.parametrize(
    ("override", "error"),
    [
        ({"kind": "banana"}, spdgraph.InvalidOptionError),
        ({"size": -1}, spdgraph.InvalidOptionError),
        ({"normalize": "yes"}, spdgraph.InvalidOptionError),
        ({"entries": "cauchy"}, spdgraph.InvalidOptionError),
        ({"min_eigenvalue": -1.0}, spdgraph.InvalidOptionError),
        ({"method_options": {"nope": 1}}, spdgraph.UnknownOptionError),
        ({"chunks": 0}, spdgraph.InvalidOptionError),
        ({"negative_share": 2.0}, spdgraph.InvalidOptionError),
    ],
)
def test_bad_arguments_fail_before_the_graph_is_touched(override, error):
    with pytest.raises(error):
        build_request(Exploding(), SampleCall("po", **{**DEFAULTS, **override}))


def test_unknown_method_before_the_graph():
    with pytest.raises(spdgraph.UnknownMethodError, match="known methods"):
        build_request(Exploding(), SampleCall("nope", **DEFAULTS))


def test_a_request_holds_everything_the_paths_need():
    request = build_request(nx.path_graph(4), SampleCall("po", **{**DEFAULTS, "size": 3}))
    assert (request.n, request.stacked, request.kind) == (3, True, "covariance")
    assert request.factors is None and request.root is not None
    assert len(request.rngs()) == 3
    assert request.attrs["method"] == "po" and request.attrs["seed"] == "0"
    assert request.options == {"residual_tolerance": 1e-8}


def test_explicit_factors_replace_the_streams():
    call = SampleCall("po", **{**DEFAULTS, "factor": np.eye(3)})
    request = build_request(nx.path_graph(3), call)
    assert request.rngs() is None and request.factors.shape == (1, 3, 3)
    assert request.attrs["factor"] == "given"


def test_a_bad_seed_is_refused_before_the_graph_is_read(monkeypatch):
    import scipy.sparse

    from spdgraph.sampling import _request

    def never(graph):
        raise AssertionError("the graph must not be adapted")

    monkeypatch.setattr(_request, "adapt_graph", never)
    with pytest.raises(spdgraph.InvalidOptionError, match="seed"):
        spdgraph.sample(scipy.sparse.eye(13648, format="csr"), seed="stop")
