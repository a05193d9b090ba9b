"""Spectrum control: min_eigenvalue / condition_number targets for every generator."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph import spectrum
from spdgraph.spectrum import RELATIVE_TOLERANCE

G = nx.erdos_renyi_graph(25, 0.3, seed=4)
ADJ = nx.to_numpy_array(G, dtype=bool)
NONEDGE = ~ADJ & ~np.eye(25, dtype=bool)


def _eig(m):
    w = np.linalg.eigvalsh(m)
    return w[..., 0], w[..., -1]


def _check_structure(m, normalized):
    assert np.array_equal(m, np.swapaxes(m, -1, -2))
    assert np.all(m[..., NONEDGE] == 0.0)
    if normalized:
        assert np.all(np.diagonal(m, axis1=-2, axis2=-1) == 1.0)
    np.linalg.cholesky(m)


@pytest.mark.parametrize("method", ["po", "dd", "huge"])
@pytest.mark.parametrize("k0", [1.5, 10.0, 1e4])
@pytest.mark.parametrize("normalize", [True, False])
def test_condition_number_target_met(method, k0, normalize):
    da = spdgraph.sample(G, method, seed=3, size=3, condition_number=k0, normalize=normalize)
    lo, hi = _eig(da.values)
    assert np.all(np.abs(hi / lo - k0) / k0 <= RELATIVE_TOLERANCE)
    _check_structure(da.values, normalize)
    assert da.attrs["condition_number_target"] == k0
    np.testing.assert_allclose(da.attrs["condition_number"], hi / lo, rtol=1e-12)


@pytest.mark.parametrize("method", ["po", "dd", "huge"])
@pytest.mark.parametrize("eps", [1e-3, 0.2, 0.9])
@pytest.mark.parametrize("normalize", [True, False])
def test_min_eigenvalue_target_met(method, eps, normalize):
    da = spdgraph.sample(G, method, seed=5, size=3, min_eigenvalue=eps, normalize=normalize)
    lo, _ = _eig(da.values)
    assert np.all(lo >= eps) and np.all(lo <= eps * (1 + RELATIVE_TOLERANCE))
    _check_structure(da.values, normalize)
    np.testing.assert_allclose(da.attrs["min_eigenvalue"], lo, rtol=1e-12)


def test_unit_diagonal_control_is_uniform_shrink_of_the_uncontrolled_matrix():
    """C = I + t (R - I): every off-diagonal entry scaled by the same t > 0."""
    r = spdgraph.sample(G, "po", seed=8).values
    for kw in ({"condition_number": 20.0}, {"min_eigenvalue": 0.5}):
        c = spdgraph.sample(G, "po", seed=8, **kw).values
        edge = ADJ & (r != 0)
        ratio = c[edge] / r[edge]
        assert ratio.min() > 0
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-13)
        # the closed form of spdgraph.spectrum, from the eigenvalues of R
        lo, hi = _eig(r)
        if "condition_number" in kw:
            t = (20.0 - 1) / (hi - 1 + 20.0 * (1 - lo))
        else:
            t = (1 - 0.5) / (1 - lo)
        assert ratio[0] == pytest.approx(t, rel=1e-9)


def test_raw_shifts_are_the_published_formulas():
    m = spdgraph.sample(G, "dd", seed=2, normalize=False).values
    lo, hi = _eig(m)
    eye = np.eye(25)
    cai = spdgraph.sample(G, "dd", seed=2, normalize=False, condition_number=30.0).values
    np.testing.assert_allclose(cai, m + (hi - 30.0 * lo) / (30.0 - 1) * eye, rtol=1e-13, atol=0)
    shifted = spdgraph.sample(G, "dd", seed=2, normalize=False, min_eigenvalue=0.25).values
    np.testing.assert_allclose(shifted, m + (0.25 - lo) * eye, rtol=1e-9, atol=1e-12)
    # off-diagonal entries untouched bit for bit
    off = ~np.eye(25, dtype=bool)
    assert np.array_equal(cai[off], m[off]) and np.array_equal(shifted[off], m[off])


def test_raw_both_targets_shift_then_scale():
    da = spdgraph.sample(
        G, "po", seed=1, normalize=False, condition_number=40.0, min_eigenvalue=0.01
    )
    lo, hi = _eig(da.values)
    assert hi / lo == pytest.approx(40.0, rel=RELATIVE_TOLERANCE)
    assert 0.01 <= lo <= 0.01 * (1 + RELATIVE_TOLERANCE)


def test_uncontrolled_calls_skip_the_spectrum(monkeypatch):
    # without a target no eigenvalue is computed (it costs more than the sampling)...
    calls = []
    real = spectrum.extreme_eigenvalues
    monkeypatch.setattr(spectrum, "extreme_eigenvalues", lambda b: calls.append(1) or real(b))
    one = spdgraph.sample(G, seed=0)
    assert calls == []
    assert "min_eigenvalue" not in one.attrs and "condition_number" not in one.attrs
    # ...the diagnostics compute it when asked
    lo, hi = _eig(one.values)
    ds = spdgraph.diagnostics(one)
    assert ds["min_eigenvalue"].item() == pytest.approx(lo, rel=1e-12)
    assert ds["condition_number"].item() == pytest.approx(hi / lo, rel=1e-12)


def test_controlled_calls_record_achieved_spectrum():
    one = spdgraph.sample(G, seed=0, min_eigenvalue=0.05)
    lo, hi = _eig(one.values)
    assert isinstance(one.attrs["min_eigenvalue"], float)
    assert one.attrs["min_eigenvalue"] == pytest.approx(lo, rel=1e-12)
    assert one.attrs["condition_number"] == pytest.approx(hi / lo, rel=1e-12)
    assert "condition_number_target" not in one.attrs
    stack = spdgraph.sample(G, seed=0, size=4, condition_number=9.0)
    assert isinstance(stack.attrs["condition_number"], list)
    assert len(stack.attrs["condition_number"]) == 4
    assert all(isinstance(x, float) for x in stack.attrs["min_eigenvalue"])
    assert spdgraph.sample(G, seed=0, size=0, condition_number=9.0).attrs["min_eigenvalue"] == []


def test_matrix_k_independent_of_size_with_control():
    a = spdgraph.sample(G, seed=6, size=3, condition_number=7.0).values
    b = spdgraph.sample(G, seed=6, condition_number=7.0).values
    np.testing.assert_array_equal(a[0], b)


def test_control_applies_to_plugin_generators(monkeypatch):
    """A generator registered at run time gets the same control (core step, no hook)."""

    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            def tridiag(adjacency, *, rng, entries):
                p = adjacency.shape[0]
                m = np.eye(p) * 3.0
                m[adjacency] = np.abs(entries(rng, (int(adjacency.sum()),))) * 0 + 1.0
                return m

            return [spdgraph.Generator("test-ones", tridiag, "test: ones on edges")]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="test-spectrum-plugin")
    try:
        path = nx.path_graph(8)
        da = spdgraph.sample(path, "test-ones", seed=0, condition_number=12.0)
        lo, hi = _eig(da.values)
        assert hi / lo == pytest.approx(12.0, rel=RELATIVE_TOLERANCE)
        assert da.values[0, 2] == 0.0 and da.values[0, 0] == 1.0
    finally:
        pm.unregister(name="test-spectrum-plugin")


def test_example_plugin_raw_min_eigenvalue():
    pytest.importorskip("spdgraph_example")
    spdgraph.reset_plugin_manager()
    da = spdgraph.sample(
        nx.path_graph(4), "example-scaled-identity", seed=0, normalize=False, min_eigenvalue=0.5
    )
    np.testing.assert_allclose(da.values, 0.5 * np.eye(4), rtol=1e-9)
    with pytest.raises(spdgraph.InvalidOptionError, match="multiple of the"):
        spdgraph.sample(
            nx.path_graph(4),
            "example-scaled-identity",
            seed=0,
            normalize=False,
            condition_number=3.0,
        )


CONDITION = r"condition_number must be None \(no target\) or a number > 1 "
EPSILON = r"min_eigenvalue must be None \(no target\) or a number > 0 "


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"condition_number": 1.0}, CONDITION),
        ({"condition_number": 0.5}, CONDITION),
        ({"min_eigenvalue": 0.0}, EPSILON),
        ({"min_eigenvalue": -1.0}, EPSILON),
        ({"min_eigenvalue": float("nan")}, "a number > 0"),
        ({"condition_number": float("inf")}, "a number > 1"),
        ({"condition_number": "10"}, "a number > 1"),
        ({"min_eigenvalue": True}, "a number > 0"),
        ({"min_eigenvalue": 1.0}, "at most 1"),
        ({"min_eigenvalue": 0.1, "condition_number": 10.0}, "together"),
    ],
)
def test_bad_targets_rejected_before_generation(kwargs, match):
    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            def boom(adjacency, *, rng, entries):
                raise AssertionError("generator must not run")

            return [spdgraph.Generator("test-boom", boom, "test: never runs")]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="test-boom-plugin")
    try:
        with pytest.raises(spdgraph.InvalidOptionError, match=match):
            spdgraph.sample(G, "test-boom", seed=0, **kwargs)
    finally:
        pm.unregister(name="test-boom-plugin")


def test_edgeless_graph_cannot_be_controlled_on_unit_diagonal():
    empty = nx.empty_graph(5)
    with pytest.raises(spdgraph.InvalidOptionError, match="identity"):
        spdgraph.sample(empty, seed=0, condition_number=5.0)
    with pytest.raises(spdgraph.InvalidOptionError, match="identity"):
        spdgraph.sample(empty, seed=0, min_eigenvalue=0.5)
    # raw: the diagonal of an edgeless DD matrix differs, so both work
    raw = spdgraph.sample(empty, "dd", seed=0, normalize=False, condition_number=5.0)
    assert raw.attrs["condition_number"] == pytest.approx(5.0, rel=RELATIVE_TOLERANCE)


def test_targets_rounding_cannot_meet_are_refused():
    # decided by the explicit bound MAX_CONDITION_TARGET: the same verdict on any machine
    with pytest.raises(spdgraph.InvalidOptionError, match="smaller condition_number"):
        spdgraph.sample(G, seed=1, condition_number=1e13)
    with pytest.raises(spdgraph.NumericalError, match="larger min_eigenvalue"):
        spdgraph.sample(G, seed=1, min_eigenvalue=1e-13)


@given(
    p=st.integers(2, 12),
    d=st.floats(0.1, 1.0),
    k0=st.floats(1.01, 1e5),
    seed=st.integers(0, 2**32),
    method=st.sampled_from(["po", "dd", "huge"]),
)
def test_property_condition_number_and_zeros(p, d, k0, seed, method):
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    if not adjacency.any():
        adjacency[0, 1] = adjacency[1, 0] = True
    da = spdgraph.sample(adjacency, method, seed=seed, condition_number=k0)
    m = da.values
    lo, hi = _eig(m)
    assert abs(hi / lo - k0) / k0 <= RELATIVE_TOLERANCE
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(m[nonedge] == 0) and np.array_equal(m, m.T)
    assert np.all(np.diag(m) == 1.0)


def test_generate_block_applies_targets_for_chunked_callers():
    """generate_block (the per-chunk unit of work) returns a plain block by default."""
    from reference import engine_request

    from spdgraph.plugins import find_generator
    from spdgraph.sampling._engine import generate_block

    gen, plugin = find_generator("po")
    kw = dict(seed=1, normalize=True, options=gen.defaults, condition_number=25.0)
    request, rngs = engine_request(G, gen, plugin, **kw)
    result = generate_block(request, rngs=rngs, factors=None)
    block, lmin, lmax = result.values, result.lmin, result.lmax
    assert isinstance(block, np.ndarray) and block.shape == (2, 25, 25)
    np.testing.assert_allclose(lmax / lmin, 25.0, rtol=RELATIVE_TOLERANCE)
    np.testing.assert_array_equal(spdgraph.sample(G, seed=1, size=2, condition_number=25.0), block)


@given(
    p=st.integers(2, 12),
    d=st.floats(0.1, 1.0),
    eps=st.floats(1e-4, 0.99),
    seed=st.integers(0, 2**32),
    normalize=st.booleans(),
)
def test_property_min_eigenvalue_and_zeros(p, d, eps, seed, normalize):
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    if not adjacency.any():
        adjacency[0, 1] = adjacency[1, 0] = True
    m = spdgraph.sample(adjacency, "dd", seed=seed, min_eigenvalue=eps, normalize=normalize).values
    lo, _ = _eig(m)
    assert eps <= lo <= eps * (1 + RELATIVE_TOLERANCE)
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(m[nonedge] == 0) and np.array_equal(m, m.T)
