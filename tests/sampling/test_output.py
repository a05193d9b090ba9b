"""The labelled output every generator's matrices get."""

import json

import networkx as nx
import numpy as np

import spdgraph
from spdgraph.sampling._adapt import adapt_graph, label_array
from spdgraph.sampling._output import build_dataarray, json_options


def test_labels_keep_their_type():
    assert label_array([3, 1, 2]).dtype == np.int64
    assert label_array(["a", "b"]).dtype.kind == "U"
    mixed = label_array([1, "a", (2, 3)])
    assert mixed.dtype == object and mixed[2] == (2, 3)


def test_dims_coords_and_attrs():
    graph = adapt_graph(nx.path_graph(["x", "y", "z"]))
    values = np.broadcast_to(np.eye(3), (2, 3, 3)).copy()
    da = build_dataarray(values, graph, kind="precision", stacked=True, attrs={"a": 1})
    assert da.dims == ("sample", "node", "node_2") and da.name == "precision"
    assert da["node"].values.tolist() == da["node_2"].values.tolist() == ["x", "y", "z"]
    assert da["adjacency"].values.tolist() == graph.adjacency.tolist()
    assert da.attrs == {"a": 1}
    single = build_dataarray(values[:1], graph, kind="covariance", stacked=False, attrs={})
    assert single.dims == ("node", "node_2")


def test_options_are_json_with_reproducible_array_summaries():
    text = json_options({"b": np.float64(0.5), "a": np.arange(3)})
    decoded = json.loads(text)
    assert list(decoded) == ["a", "b"] and decoded["b"] == 0.5
    assert decoded["a"].startswith("ndarray(shape=(3,), dtype=int64, sha256=")
    assert json_options({"a": np.arange(3)}) == json_options({"a": np.arange(3)})


def test_sample_attrs_are_serializable():
    da = spdgraph.sample(nx.path_graph(3), seed=1, size=2)
    for value in da.attrs.values():
        assert isinstance(value, str | int | float | list), value
