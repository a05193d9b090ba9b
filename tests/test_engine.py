"""The engine: every generator's output is checked and the plugin named."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.sampling import _engine as _engine
from spdgraph.sampling._adapt import adapt_graph
from spdgraph.sampling._entries import resolve_entries
from spdgraph.seeds import child_generator, seed_sequence

GRAPH = adapt_graph(nx.path_graph(4))


def _gen(function, batch=None):
    return spdgraph.Generator("broken", function, "test", batch_function=batch)


def _block(gen, n=2, **kw):
    root = seed_sequence(0)
    sampler, _ = resolve_entries("normal")
    return _engine.generate_block(
        GRAPH,
        gen,
        "my-plugin",
        rngs=[child_generator(root, k) for k in range(n)],
        factors=None,
        entries=sampler,
        options={},
        normalize=kw.pop("normalize", False),
        **kw,
    )


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
    root = seed_sequence(3)
    sampler, _ = resolve_entries("normal")
    block, lmin, lmax = _engine.generate_block(
        GRAPH,
        gen,
        plugin,
        rngs=[child_generator(root, k) for k in range(3)],
        factors=None,
        entries=sampler,
        options=gen.defaults,
        normalize=True,
        return_spectrum=True,
    )
    assert np.all(np.diagonal(block, axis1=1, axis2=2) == 1.0)
    np.testing.assert_allclose(lmin, np.linalg.eigvalsh(block)[:, 0])
    np.testing.assert_allclose(lmax, np.linalg.eigvalsh(block)[:, -1])
