"""No silent garbage: invalid marginals, malformed edge lists and -0.0 are caught."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.stats as st

import spdgraph


@pytest.mark.parametrize("marginal", [st.t(df=-1), st.poisson(-2), st.norm(0, -1), st.beta(0, 1)])
def test_invalid_marginal_parameters_are_refused(marginal):
    da = spdgraph.sample(nx.path_graph(["a", "b", "c"]), seed=1)
    with pytest.raises(spdgraph.InvalidOptionError, match=r"invalid|refuses"):
        da.spd.draw(50, marginals=marginal)
    with pytest.raises(spdgraph.InvalidOptionError, match="of node 'b'"):
        da.spd.draw(50, marginals={"b": marginal})


def test_draws_hold_no_nan_but_the_missing_ones():
    da = spdgraph.sample(nx.path_graph(6), seed=1, size=2)
    data = da.spd.draw(400, seed=2, marginals=st.t(df=3), missing=0.1)
    rate = float(np.isnan(data.values).mean())
    assert 0.05 < rate < 0.15
    clean = da.spd.draw(400, seed=2, marginals=st.t(df=3))
    assert not np.isnan(clean.values).any()


@pytest.mark.parametrize(
    ("line", "ok"),
    [("a b", True), ("a b 0.5", True), ("a b 1e-3", True), ("a b c", False), ("a b c d", False)],
)
def test_edge_list_third_column_is_a_numeric_weight_only(tmp_path, line, ok):
    path = tmp_path / "g.txt"
    path.write_text(f"x y\n{line}\n")
    if ok:
        g = spdgraph.read_graph(path)
        assert sorted(g.nodes) == ["a", "b", "x", "y"]
    else:
        with pytest.raises(spdgraph.FileError, match="line 2"):
            spdgraph.read_graph(path)


def test_negative_zeros_become_positive(monkeypatch):
    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            def signed(adjacency, *, rng, entries):
                m = np.eye(adjacency.shape[0])
                m[0, 2] = m[2, 0] = -0.0  # a non-edge, "zero" with the wrong sign
                return m

            return [spdgraph.Generator("signed-zero", signed, "test")]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="signed-zero-plugin")
    try:
        da = spdgraph.sample(nx.path_graph(3), "signed-zero", seed=0, normalize=False)
    finally:
        pm.unregister(name="signed-zero-plugin")
    assert da.values[0, 2] == 0.0 and not np.signbit(da.values[0, 2])


def test_huge_draws_are_refused_before_allocating():
    import time  # bounds use process_time: this process's CPU seconds, not the wall clock

    da = spdgraph.sample(nx.path_graph(50), seed=1)
    start = time.process_time()
    with pytest.raises(spdgraph.TooLargeError, match="draw fewer observations"):
        da.spd.draw(100_000_000_000)
    assert time.process_time() - start < 1.0
