"""``simulate`` has one graph step for every layout: made, read once knowing the method."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.simulation import stream_seed


def test_simulate_takes_a_dag_for_a_dag_method():
    dag = nx.gn_graph(20, seed=1)
    sim = spdgraph.simulate(dag, method="dag", n=10, seed=3)
    matrix_seed = stream_seed(np.random.SeedSequence(3), "matrix")
    same = spdgraph.sample(dag, "dag", kind="precision", seed=matrix_seed)
    assert sim.attrs["method"] == "dag" and sim["data"].shape == (10, 20)
    np.testing.assert_array_equal(sim["precision"].values, same.values)
    np.testing.assert_array_equal(sim["adjacency"].values, same["adjacency"].values)


def test_an_undirected_graph_is_still_refused_by_a_dag_method():
    with pytest.raises(spdgraph.GraphTypeError, match="directed acyclic graph"):
        spdgraph.simulate(nx.path_graph(5), method="dag", n=2, seed=1)


@pytest.mark.parametrize("family, options", [("hub", {}), ("cluster", {"class": 2})])
def test_dense_and_sparse_simulations_share_the_graph_and_its_attrs(family, options):
    pytest.importorskip("sparse")
    kw = dict(p=30, n=4, seed=5, method="dd", **options)
    dense = spdgraph.simulate(family, **kw)
    sparse = spdgraph.simulate(family, sparse=True, **kw)
    graph_attrs = ("graph_family", "graph_name", "graph_parameters", "p", "n_edges", "method")
    assert {k: dense.attrs[k] for k in graph_attrs} == {k: sparse.attrs[k] for k in graph_attrs}
    assert json.loads(dense.attrs["graph_parameters"])["p"] == 30
    np.testing.assert_array_equal(dense["adjacency"].values, sparse["adjacency"].data.todense())
    # the same zeros (the values agree to rounding: the sparse construction's own sums)
    np.testing.assert_array_equal(
        dense["precision"].values != 0, sparse["precision"].data.todense() != 0
    )


def test_simulate_refuses_a_bad_sparse_flag_with_the_tables_message():
    with pytest.raises(spdgraph.InvalidOptionError) as simulated:
        spdgraph.simulate("band", p=5, n=1, sparse="yes")
    with pytest.raises(spdgraph.InvalidOptionError) as sampled:
        spdgraph.sample(nx.path_graph(5), sparse="yes")
    assert str(simulated.value) == str(sampled.value)
