"""The engine: every generator's output is checked and the plugin named."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from reference import engine_request

import spdgraph
from spdgraph.sampling import _engine as _engine
from spdgraph.sampling._adapt import adapt_graph

GRAPH = adapt_graph(nx.path_graph(4))


def _gen(function, batch=None):
    return spdgraph.Generator("broken", function, "test", batch_function=batch)


def _block(gen, n=2, **kw):
    request, rngs = engine_request(nx.path_graph(4), gen, n=n, **kw)
    return _engine.generate_block(request, rngs=rngs, factors=None).values


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda a: [[1.0]], "not a numpy array"),
        (lambda a: np.eye(3), r"shape \(3, 3\)"),
        (lambda a: np.eye(4, dtype=np.float32), "dtype float32"),
        (lambda a: np.full((4, 4), np.nan), "non-finite"),
        (lambda a: np.eye(4) + np.triu(a * 0.1, 1), "not exactly symmetric"),
        (lambda a: np.eye(4) + 0.01 * ~np.eye(4, dtype=bool), "not an edge"),
        (lambda a: -np.eye(4), "not positive definite"),
    ],
)
def test_each_defect_is_named_with_the_plugin(make, match):
    gen = _gen(lambda adjacency, *, rng, entries: make(adjacency.astype(float)))
    with pytest.raises(spdgraph.GeneratorOutputError, match=match) as info:
        _block(gen)
    assert "'my-plugin'" in str(info.value)


def test_batch_function_of_the_wrong_shape():
    gen = _gen(None, batch=lambda adjacency, *, rngs, entries: np.zeros((1, 4, 4)))
    with pytest.raises(spdgraph.GeneratorOutputError, match=r"expected \(2, 4, 4\)"):
        _block(gen)


def test_normalization_and_spectrum():
    gen, plugin = spdgraph.plugins.find_generator("po")
    kw = dict(n=3, seed=3, normalize=True, options=gen.defaults)
    request, rngs = engine_request(nx.path_graph(4), gen, plugin, **kw)
    plain_block = _engine.generate_block(request, rngs=rngs, factors=None)
    assert plain_block.lmin is None and plain_block.lmax is None  # no target: not computed
    block = plain_block.values
    assert np.all(np.diagonal(block, axis1=1, axis2=2) == 1.0)
    request, rngs = engine_request(nx.path_graph(4), gen, plugin, condition_number=5.0, **kw)
    controlled = _engine.generate_block(request, rngs=rngs, factors=None)
    np.testing.assert_allclose(controlled.lmin, np.linalg.eigvalsh(controlled.values)[:, 0])
    np.testing.assert_allclose(controlled.lmax, np.linalg.eigvalsh(controlled.values)[:, -1])
