"""Output a person can read (issue 12, item 5): plain numbers, named labels, no repeats."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import spdgraph
from spdgraph.errors import written


@pytest.mark.parametrize(
    ("call", "shown"),
    [
        (
            lambda: spdgraph.sample(np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])),
            "is 1.0 but [1, 0] is 0.5",
        ),
        (lambda: spdgraph.sample(np.eye(2), size=np.float64(2.0)), "got 2.0."),
        (lambda: spdgraph.sample(np.eye(2), min_eigenvalue=np.float64(-1.0)), "got -1.0."),
        (lambda: spdgraph.sample(np.eye(2), condition_number=np.float64(0.5)), "got 0.5"),
        (lambda: spdgraph.sample(np.eye(2), residual_tolerance=np.float64(-2.0)), "got -2.0 "),
        (lambda: spdgraph.graphs.erdos_renyi(5, np.float64(1.5)), "got 1.5."),
    ],
)
def test_messages_show_plain_numbers(call, shown):
    with pytest.raises(spdgraph.SpdgraphError) as info:
        call()
    message = str(info.value)
    assert shown in message
    assert "np." not in message and "float64(" not in message


def test_generator_output_errors_show_plain_numbers():
    def bad(adjacency, *, rng, entries):
        m = np.eye(len(adjacency))
        m[0, 2] = m[2, 0] = 0.25
        return m

    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            return [spdgraph.Generator("bad-zeros", bad, "test")]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="bad-zeros-plugin")
    try:
        with pytest.raises(spdgraph.GeneratorOutputError, match=r"non-zero entry 0\.25 at") as e:
            spdgraph.sample(nx.path_graph(3), "bad-zeros", seed=0)
        assert "np." not in str(e.value)
    finally:
        pm.unregister(name="bad-zeros-plugin")


def test_plain():
    assert written(np.float64(1.0)) == "1.0"
    assert written(np.int32(7)) == "7"
    assert written(np.bool_(True)) == "True"
    assert written("x") == "'x'"
    assert written([1, 2]) == "[1, 2]"


def test_pandas_mismatch_names_the_labels():
    a = np.zeros((3, 3))
    with pytest.raises(spdgraph.GraphError) as info:
        spdgraph.sample(pd.DataFrame(a, index=["a", "b", "c"], columns=["a", "b", "x"]))
    assert "only in the index: 'c'; only in the columns: 'x'" in str(info.value)
    labels = [f"n{i}" for i in range(8)]
    with pytest.raises(spdgraph.GraphError) as info:
        spdgraph.sample(pd.DataFrame(np.zeros((8, 8)), index=labels, columns=range(8)))
    message = str(info.value)
    assert "only in the index: 'n0', 'n1', 'n2', 'n3', 'n4' and 3 more" in message
    assert "only in the columns: 0, 1, 2, 3, 4 and 3 more" in message


def test_draw_keeps_provenance_not_the_per_matrix_spectrum():
    stack = spdgraph.sample(nx.path_graph(4), size=3, seed=1, condition_number=5.0)
    assert len(stack.attrs["condition_number"]) == 3
    data = stack.spd.draw(4, seed=2)
    assert "matrix_condition_number" not in data.attrs
    assert "matrix_min_eigenvalue" not in data.attrs
    assert data.attrs["matrix_condition_number_target"] == 5.0
    assert data.attrs["matrix_method"] == "po" and data.attrs["matrix_seed"] == "1"
