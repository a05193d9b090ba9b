"""portable=True for ``uniform`` and ``port_chol``: a plain-Python reference and the default.

The SHA-256 of both methods under the emulated machines is in
``tests/kernels/test_portable.py`` (``_HASH_SCRIPT``); here, the values.
"""

from __future__ import annotations

import copy
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import po_reference, random_adjacency

import spdgraph
from spdgraph._kernels import chol_uniform as ku
from spdgraph.plugins._builtin.gen_uniform import (
    DEFAULT_BURN_IN,
    DEFAULT_STEP,
    chordal_cover,
    generate_port_chol_batch,
    generate_uniform_batch,
)


def _reference_row(rng, k, power, sampler, burn_in=DEFAULT_BURN_IN, step=DEFAULT_STEP):
    """One hemisphere row, the draws in the sampler's order, in plain Python floats."""

    def on_hemisphere(pole2, direction):
        norm = math.sqrt(sum(v * v for v in direction))
        scale = math.sqrt(1.0 - pole2) / norm
        return [v * scale for v in direction] + [math.sqrt(pole2)]

    if sampler == "exact":
        pole2 = rng.beta((power + 1.0) / 2.0, (k - 1) / 2.0)
        return on_hemisphere(pole2, rng.standard_normal(k - 1).tolist())
    x = on_hemisphere((power + 1.0) / (power + k), rng.standard_normal(k - 1).tolist())
    noise = rng.standard_normal((burn_in, k)) * (step / math.sqrt(k * (1.0 + power)))
    for u, move in zip(rng.random(burn_in).tolist(), noise.tolist(), strict=True):
        prop = [a + b for a, b in zip(x, move, strict=True)]
        norm = math.sqrt(sum(v * v for v in prop))
        pole = prop[-1] / norm
        # the Metropolis-Hastings rule for the density x[-1]^power (gmat's mh_sphere)
        if pole > 0.0 and u <= (pole / x[-1]) ** power:
            x = [v / norm for v in prop]
    return x


def _reference_factor(pattern, order, rng, sampler):
    """``F`` in node order with ``F F^T`` uniform on the chordal pattern (see chol_uniform)."""
    p = pattern.shape[0]
    factor = np.zeros((p, p))
    for r in range(p):
        node = order[r]
        earlier = [order[c] for c in range(r) if pattern[node, order[c]]]
        later = sum(1 for c in range(r + 1, p) if pattern[node, order[c]])
        k = len(earlier) + 1
        row = [1.0] if k == 1 else _reference_row(rng, k, later + 1.0, sampler)
        factor[node, earlier] = row[:-1]
        factor[node, node] = row[-1]
    return factor


def _reference_uniform(adjacency, rng, sampler):
    order = ku.perfect_elimination_order(adjacency)
    factor = _reference_factor(adjacency, order, rng, sampler)
    m = factor @ factor.T
    d = np.sqrt(np.diag(m))
    m = m / np.outer(d, d)
    m[~adjacency & ~np.eye(len(m), dtype=bool)] = 0.0
    return m


def _chordal(adjacency):
    graph = nx.from_numpy_array(adjacency.astype(int))
    cover = nx.complete_to_chordal_graph(graph)[0]
    return nx.to_numpy_array(cover, nodelist=range(len(adjacency)), dtype=bool)


def _check(m, adjacency):
    """Exact +0.0 on the non-edges, exact symmetry, positive definite."""
    outside = ~adjacency & ~np.eye(adjacency.shape[0], dtype=bool)
    assert np.all(m[..., outside] == 0) and not np.signbit(m[..., outside]).any()
    assert np.array_equal(m, np.swapaxes(m, -1, -2))
    assert np.all(np.linalg.eigvalsh(m) > 0)


_SAMPLERS = st.sampled_from(["mh", "exact"])


@settings(max_examples=15, deadline=None)
@given(p=st.integers(1, 9), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31), sampler=_SAMPLERS)
def test_portable_uniform_is_the_plain_python_reference(p, d, seed, sampler):
    adjacency = _chordal(random_adjacency(p, d, np.random.default_rng(seed)))
    rng = np.random.default_rng(seed)
    expected = _reference_uniform(adjacency, copy.deepcopy(rng), sampler)
    (found,) = generate_uniform_batch(
        adjacency, rngs=[rng], entries=None, portable=True, sampler=sampler
    )
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)
    _check(found, adjacency)


@settings(max_examples=15, deadline=None)
@given(p=st.integers(1, 9), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31), sampler=_SAMPLERS)
def test_portable_port_chol_is_the_plain_python_reference(p, d, seed, sampler):
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    cover, order = chordal_cover(adjacency, "min_degree")
    factor = _reference_factor(cover, order, copy.deepcopy(rng), sampler)
    expected = po_reference(adjacency, factor)
    (found,) = generate_port_chol_batch(
        adjacency, rngs=[rng], entries=None, portable=True, sampler=sampler
    )
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    _check(found, adjacency)


@settings(max_examples=20, deadline=None)
@given(
    p=st.integers(1, 30),
    d=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31),
    sampler=_SAMPLERS,
    chordal=st.booleans(),
)
def test_portable_agrees_with_the_default_and_repeats_its_bits(p, d, seed, sampler, chordal):
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    method = "uniform" if chordal else "port_chol"
    if chordal:
        adjacency = _chordal(adjacency)
    kw = {"seed": seed, "size": 2, "sampler": sampler, "normalize": bool(seed % 2)}
    a = spdgraph.sample(adjacency, method, portable=True, **kw).values
    b = spdgraph.sample(adjacency, method, **kw).values
    scale = np.abs(np.diagonal(b, axis1=-2, axis2=-1)).max()
    assert np.abs(a - b).max() <= 1e-10 * scale
    _check(a, adjacency)
    again = spdgraph.sample(adjacency, method, portable=True, **kw).values
    assert again.tobytes() == a.tobytes()


@pytest.mark.parametrize("p", [1, 2, 3, 25])
def test_portable_onion_agrees_with_the_default(p):
    g = nx.complete_graph(p)
    kw = {"seed": 4, "size": 3, "sampler": "onion"}
    a = spdgraph.sample(g, "uniform", portable=True, **kw).values
    b = spdgraph.sample(g, "uniform", **kw).values
    assert np.abs(a - b).max() <= 1e-12
    _check(a, np.ones((p, p), dtype=bool))


def test_a_stack_is_its_matrices_one_by_one():
    g = spdgraph.graphs.erdos_renyi(30, 0.2, seed=2)
    for method in ("uniform", "port_chol"):
        graph = nx.complete_to_chordal_graph(g)[0] if method == "uniform" else g
        stack = spdgraph.sample(graph, method, seed=6, size=3, portable=True).values
        one = spdgraph.sample(graph, method, seed=6, portable=True).values
        assert stack[0].tobytes() == one.tobytes()


@settings(max_examples=200, deadline=None)
@given(
    base=st.floats(1e-3, 10.0),
    exponent=st.integers(0, 300),
    start=st.floats(0.05, 1.0),
)
def test_the_portable_mh_test_is_the_logarithmic_one(base, exponent, start):
    """One step from the same state: both kernels take the same decision (away from ties)."""
    x0 = np.array([0.6, 0.0, 0.8])
    noise = np.array([[0.0, start - 0.6, base - 0.8]])  # the proposal's direction
    prop = x0 + noise[0]
    ratio = (prop[2] / np.linalg.norm(prop)) / x0[2]
    bound = exponent * math.log(ratio)
    for u in (0.3, 0.7, 0.999):
        if abs(math.log(u) - bound) < 1e-9:
            continue  # a tie to rounding: either decision is right
        portable, moved = ku.mh_hemisphere_portable(x0, noise, np.array([u]), float(exponent))
        default, moved_too = ku.mh_hemisphere(x0, noise, np.log([u]), float(exponent))
        assert moved == moved_too and portable.tolist() == default.tolist()
