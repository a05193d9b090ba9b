"""The example plugin is discovered through its entry point and works end to end."""

from importlib.metadata import entry_points

import numpy as np
import pytest
from spdgraph_example import EdgeList

import spdgraph


def test_entry_point_is_installed():
    names = {ep.name: ep.value for ep in entry_points(group="spdgraph")}
    assert names.get("example") == "spdgraph_example.plugin"


def test_generator_discovered_and_validated_by_core():
    spdgraph.reset_plugin_manager()
    assert "example-scaled-identity" in spdgraph.methods()
    da = spdgraph.sample(
        EdgeList(nodes=["x", "y", "z"], edges=[("x", "y")]),
        method="example-scaled-identity",
        normalize=False,
        seed=3,
        offset=2.0,
    )
    assert list(da.node.values) == ["x", "y", "z"]
    assert da.attrs["plugin"] == "example"
    values = da.values
    assert np.all(values[~np.eye(3, dtype=bool)] == 0)
    assert np.all(np.diag(values) >= 2.0)


def test_adapter_feeds_builtin_generators():
    da = spdgraph.sample(EdgeList(nodes=[1, 2, 3], edges=[(1, 2), (2, 3)]), seed=0)
    assert da["adjacency"].values.sum() == 4


def test_backend_builds_the_graph_back():
    g = EdgeList(nodes=["a", "b", "c"], edges=[("c", "b"), ("a", "b")])
    back = spdgraph.sample(g, seed=0).spd.graph("example-edgelist")
    assert isinstance(back, EdgeList)
    assert back.nodes == ["a", "b", "c"] and back.edges == [("a", "b"), ("b", "c")]


def test_adapter_rejects_unknown_node():
    with pytest.raises(spdgraph.GraphError, match="not in nodes"):
        spdgraph.sample(EdgeList(nodes=[1, 2], edges=[(1, 5)]), seed=0)


def test_autoload_can_be_disabled(monkeypatch):
    monkeypatch.setenv("SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD", "1")
    spdgraph.reset_plugin_manager()
    try:
        assert "example-scaled-identity" not in spdgraph.methods()
    finally:
        monkeypatch.delenv("SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD")
        spdgraph.reset_plugin_manager()
