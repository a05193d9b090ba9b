"""``method="dag"``: linear Gaussian SEMs on a DAG (gmat's chol_iid), DAG adapters and hook."""

from __future__ import annotations

import importlib.util
import os
import shutil
import types
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import ROOT

import spdgraph
from spdgraph._kernels.sem import sem_covariance, sem_precision, topological_order
from spdgraph.errors import GraphError, GraphTypeError, InvalidOptionError, NumericalError

DAG_EDGES = [("a", "c"), ("b", "c"), ("c", "d"), ("e", "d")]


def _digraph():
    g = nx.DiGraph()
    g.add_nodes_from("abcde")
    g.add_edges_from(DAG_EDGES)
    return g


def _gmat_precision(dag, weights, variances):
    """gmat's chol_iid rule, written as in its R source: L = I - B, Omega = t(L) solve(D) L."""
    p = dag.shape[0]
    lower = np.eye(p)
    for e, (i, j) in enumerate(zip(*np.nonzero(dag), strict=True)):
        lower[j, i] = -weights[e]
    return lower.T @ np.linalg.inv(np.diag(variances)) @ lower


def _reference_patterns(g):
    """Moral graph and common-ancestor pairs by networkx, as boolean arrays in node order."""
    nodes = list(g.nodes)
    moral = nx.to_numpy_array(nx.moral_graph(g), nodelist=nodes, dtype=bool)
    ancestors = {v: nx.ancestors(g, v) | {v} for v in nodes}
    pairs = np.array(
        [[u != v and bool(ancestors[u] & ancestors[v]) for v in nodes] for u in nodes]
    )
    return moral, pairs


random_dags = st.builds(
    lambda p, d, s: _random_dag(p, d, np.random.default_rng(s)),
    st.integers(1, 25),
    st.floats(0.0, 0.7),
    st.integers(0, 2**32 - 1),
)


def _random_dag(p, d, rng):
    upper = np.triu(rng.random((p, p)) < d, 1)
    perm = rng.permutation(p)  # not in topological order
    g = nx.DiGraph()
    g.add_nodes_from(range(p))
    g.add_edges_from((int(perm[i]), int(perm[j])) for i, j in zip(*np.nonzero(upper), strict=True))
    return g


@settings(max_examples=60, deadline=None)
@given(g=random_dags, seed=st.integers(0, 2**32), entries=st.sampled_from(["normal", "uniform"]))
def test_zero_patterns_are_the_moral_graph_and_the_common_ancestors(g, seed, entries):
    moral, pairs = _reference_patterns(g)
    p = g.number_of_nodes()
    off = ~np.eye(p, dtype=bool)
    for kind, pattern in (("precision", moral), ("covariance", pairs)):
        da = spdgraph.sample(g, "dag", seed=seed, kind=kind, size=2, entries=entries)
        m = da.values
        np.testing.assert_array_equal(da["adjacency"].values, pattern)
        np.testing.assert_array_equal(da["dag"].values, nx.to_numpy_array(g, dtype=bool))
        assert np.all(m[:, off & ~pattern] == 0.0) and np.all(m[:, pattern] != 0.0)
        assert np.array_equal(m, np.swapaxes(m, 1, 2))
        np.linalg.cholesky(m)
        one = spdgraph.sample(g, "dag", seed=seed, kind=kind, entries=entries).values
        np.testing.assert_array_equal(one, m[0])


def test_precision_is_gmat_formula_and_covariance_its_inverse():
    g = _digraph()
    dag = nx.to_numpy_array(g, dtype=bool)
    rng = np.random.default_rng(4)
    weights, variances = rng.standard_normal(4), rng.uniform(0.1, 1.0, 5)
    omega = sem_precision(dag, weights, variances)
    np.testing.assert_allclose(omega, _gmat_precision(dag, weights, variances), atol=1e-14)
    sigma = sem_covariance(dag, weights, variances, topological_order(dag))
    np.testing.assert_allclose(sigma @ omega, np.eye(5), atol=1e-12)
    # end to end: the same draws for both kinds, so the raw matrices are inverses
    prec = spdgraph.sample(g, "dag", seed=3, kind="precision", normalize=False).values
    cov = spdgraph.sample(g, "dag", seed=3, kind="covariance", normalize=False).values
    np.testing.assert_allclose(prec @ cov, np.eye(5), atol=1e-12)
    # gmat returns cov2cor(Omega): spdgraph's normalize=True
    norm = spdgraph.sample(g, "dag", seed=3, kind="precision").values
    d = np.sqrt(np.diag(prec))
    np.testing.assert_allclose(norm, prec / np.outer(d, d), atol=1e-15)


def test_sem_data_follow_the_structural_equations():
    """Regressing a node on its parents in data drawn from the covariance recovers B's sparsity."""
    g = nx.DiGraph([(0, 1), (1, 2)])  # a chain: X2 independent of X0 given X1
    cov = spdgraph.sample(g, "dag", seed=8, normalize=False)
    x = cov.spd.draw(20000, seed=1).values
    coef, *_ = np.linalg.lstsq(np.c_[x[:, 0], x[:, 1]], x[:, 2], rcond=None)
    assert abs(coef[0]) < 0.05 and abs(coef[1]) > 0.05


def test_chunked_dask_sampling_gives_the_same_bits():
    pytest.importorskip("dask")
    g = _random_dag(30, 0.1, np.random.default_rng(1))
    for kind in ("precision", "covariance"):
        eager = spdgraph.sample(g, "dag", seed=5, size=5, kind=kind)
        lazy = spdgraph.sample(g, "dag", seed=5, size=5, kind=kind, chunks=2)
        np.testing.assert_array_equal(np.asarray(lazy.values), eager.values)
        np.testing.assert_array_equal(lazy["dag"].values, eager["dag"].values)


def test_same_bits_in_a_worker_thread():
    from concurrent.futures import ThreadPoolExecutor

    g = _random_dag(60, 0.1, np.random.default_rng(2))
    main = spdgraph.sample(g, "dag", seed=9, size=3, kind="covariance").values
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(spdgraph.sample, g, "dag", seed=9, size=3) for _ in range(2)]
        for future in futures:
            np.testing.assert_array_equal(future.result().values, main)


def test_related_dags_give_a_group_dim_with_each_dag():
    g1, g2 = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(0, 1), (0, 2)])
    g1.add_node(3), g2.add_node(3)
    da = spdgraph.sample([g1, g2], "dag", seed=1, kind="precision")
    assert da.dims == ("group", "node", "node_2")
    for k, g in enumerate((g1, g2)):
        np.testing.assert_array_equal(da["dag"].values[k], nx.to_numpy_array(g, dtype=bool))
        np.testing.assert_array_equal(da["adjacency"].values[k], _reference_patterns(g)[0])
    with pytest.raises(GraphError, match="to_undirected"):  # po still refuses them
        spdgraph.sample([g1, g2], "po", seed=1)


def test_labels_and_dag_survive_a_file(tmp_path):
    pytest.importorskip("netCDF4")
    da = spdgraph.sample(_digraph(), "dag", seed=1, kind="precision")
    assert da.node.values.tolist() == list("abcde")
    spdgraph.save(da, tmp_path / "m.nc")
    back = spdgraph.open(tmp_path / "m.nc")
    np.testing.assert_array_equal(back["dag"].values, da["dag"].values)
    np.testing.assert_array_equal(back.values, da.values)


def test_igraph_and_numpy_give_the_same_matrices():
    ig = pytest.importorskip("igraph")
    g = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 3)])
    ref = spdgraph.sample(g, "dag", seed=2, size=2).values
    graph = ig.Graph(n=4, edges=list(g.edges), directed=True)
    np.testing.assert_array_equal(spdgraph.sample(graph, "dag", seed=2, size=2).values, ref)
    array = nx.to_numpy_array(g)  # upper triangular: 0..3 is a topological order
    wrapped = spdgraph.DAG(array)
    np.testing.assert_array_equal(spdgraph.sample(wrapped, "dag", seed=2, size=2).values, ref)
    np.testing.assert_array_equal(
        spdgraph.sample(spdgraph.DAG(g), "dag", seed=2, size=2).values, ref
    )


def test_other_methods_keep_refusing_directed_graphs():
    with pytest.raises(GraphError, match="to_undirected"):
        spdgraph.sample(_digraph(), "po", seed=0)
    with pytest.raises(GraphError, match="DAG-capable methods are: dag"):
        spdgraph.sample(spdgraph.DAG(np.triu(np.ones((3, 3)), 1)), "po", seed=0)
    # an upper-triangular array is never silently a DAG: refused by po, by dag unwrapped
    with pytest.raises(GraphError, match="symmetric"):
        spdgraph.sample(np.triu(np.ones((3, 3)), 1), "po", seed=0)
    with pytest.raises(GraphTypeError, match=r"spdgraph.DAG\(array\)"):
        spdgraph.sample(np.triu(np.ones((3, 3)), 1), "dag", seed=0)
    with pytest.raises(GraphTypeError, match="orient its edges"):
        spdgraph.sample(nx.path_graph(3), "dag", seed=0)


@pytest.mark.parametrize(
    "graph, match",
    [
        (nx.DiGraph([(0, 1), (1, 2), (2, 0)]), "cycle"),
        (nx.DiGraph([(0, 0), (0, 1)]), "self-loop"),
        (spdgraph.DAG(np.ones((3, 3)) - np.eye(3)), "cycle"),
        (spdgraph.DAG(np.eye(2)), "diagonal"),
        (spdgraph.DAG(np.ones((2, 3))), "square"),
    ],
)
def test_invalid_dags_are_refused(graph, match):
    with pytest.raises(GraphError, match=match):
        spdgraph.sample(graph, "dag", seed=0)


def test_dense_dags_fail_with_a_fix_not_a_plugin_error():
    """A complete DAG on 100 nodes, N(0, 1) weights: (I - B) is exponentially ill-conditioned."""
    dag = spdgraph.DAG(np.triu(np.ones((100, 100)), 1))
    with pytest.raises(NumericalError, match="sparser DAG or smaller weights"):
        spdgraph.sample(dag, "dag", seed=0, kind="precision")
    small = spdgraph.sample(dag, "dag", seed=0, entries=lambda rng, s: rng.uniform(-0.05, 0.05, s))
    np.linalg.cholesky(small.values)


def test_bad_variance_options():
    with pytest.raises(InvalidOptionError, match="variance_low"):
        spdgraph.sample(_digraph(), "dag", seed=0, variance_low=0.0)
    with pytest.raises(InvalidOptionError, match="below"):
        spdgraph.sample(_digraph(), "dag", seed=0, variance_low=2.0, variance_high=1.0)


def test_cli_reads_an_edge_list_as_directed(tmp_path):
    from spdgraph import cli

    pytest.importorskip("netCDF4")
    (tmp_path / "dag.txt").write_text("a c\nb c\nc d\ne d\n")
    argv = ["sample", tmp_path / "dag.txt", "-m", "dag", "--kind", "precision", "--seed", "4"]
    assert cli.main([str(a) for a in [*argv, "-o", tmp_path / "m.nc"]]) == 0
    da = spdgraph.open(tmp_path / "m.nc")
    ref = spdgraph.sample(nx.DiGraph(DAG_EDGES), "dag", kind="precision", seed=4)
    np.testing.assert_array_equal(da.values, ref.values)
    assert da.node.values.tolist() == ["a", "c", "b", "d", "e"]
    np.save(tmp_path / "dag.npy", np.triu(np.ones((3, 3)), 1))
    dag_file = spdgraph.DAG(str(tmp_path / "dag.npy"))  # a file is read as directed when wrapped
    assert spdgraph.sample(dag_file, "dag", seed=1)["dag"].values.sum() == 3
    from_text = spdgraph.sample(
        spdgraph.DAG(tmp_path / "dag.txt"), "dag", kind="precision", seed=4
    )
    np.testing.assert_array_equal(from_text.values, ref.values)
    with pytest.raises(GraphTypeError, match=r"not wrapped in spdgraph.DAG.*|DAG\(path\)"):
        spdgraph.sample(tmp_path / "dag.txt", "dag", seed=4)


def test_a_third_party_dag_adapter_and_generator(request):
    """A plugin with a backend for its own DAG type and a DAG-capable generator of its own."""

    class Parents:  # a toy DAG type: node -> list of parents
        def __init__(self, parents):
            self.parents = parents

    mod = types.ModuleType("toy-dag")
    seen = {}

    def to_graph(graph):
        labels = list(graph.parents)
        directed = np.zeros((len(labels), len(labels)), dtype=bool)
        for child, parents in graph.parents.items():
            for parent in parents:
                directed[labels.index(parent), labels.index(child)] = True
        return spdgraph.GraphData(directed | directed.T, labels, directed=directed)

    @spdgraph.hookimpl
    def spdgraph_graph_backends():
        return [spdgraph.GraphBackend("parents", lambda obj: isinstance(obj, Parents), to_graph)]

    def identity_plus(adjacency, *, rng, entries, dag, kind):
        seen["dag"], seen["kind"] = dag.copy(), kind
        return np.eye(adjacency.shape[0])

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        return [
            spdgraph.Generator(
                name="toy-sem", function=identity_plus, description="test", accepts_dag=True
            )
        ]

    mod.spdgraph_graph_backends = spdgraph_graph_backends
    mod.spdgraph_register_generators = spdgraph_register_generators
    pm = spdgraph.get_plugin_manager()
    pm.register(mod, name="toy-dag")
    request.addfinalizer(lambda: pm.unregister(name="toy-dag"))
    toy = Parents({"x": [], "y": ["x"], "z": []})
    da = spdgraph.sample(toy, "toy-sem", seed=0, kind="precision")
    assert seen["kind"] == "precision" and seen["dag"].astype(int).tolist()[0] == [0, 1, 0]
    assert da.node.values.tolist() == ["x", "y", "z"]
    m = spdgraph.sample(toy, "dag", seed=0).values  # the built-in method takes it too
    assert m[0, 1] != 0 and m[0, 2] == 0
    with pytest.raises(GraphError, match=r"directed graph.*Parents.*toy-sem"):
        spdgraph.sample(toy, "po", seed=0)  # not a DAG-capable method: refused


GMAT_DAG_R = os.environ.get("SPDGRAPH_GMAT_DAG_R", "")


@pytest.mark.skipif(
    not (GMAT_DAG_R and Path(GMAT_DAG_R).is_file() and shutil.which("Rscript")),
    reason="set SPDGRAPH_GMAT_DAG_R to gmat's R/dag.R (needs Rscript and R's igraph)",
)
def test_kernels_against_gmat_run_in_r():
    """chol_iid and mh_sphere of gmat, run in R on recorded draws: the same numbers."""
    path = ROOT / "contrib" / "gmat_conformance" / "check.py"
    spec = importlib.util.spec_from_file_location("gmat_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    chol_iid, mh = module.run(Path(GMAT_DAG_R))
    assert chol_iid < 1e-12 and mh < 1e-12
