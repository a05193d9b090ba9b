"""The accessor on a sparse result: every method works sparse or refuses with TooLargeError.

Never sparse's raw ``RuntimeError: Cannot convert a sparse array to dense
automatically``: a method that needs the dense values (an inverse is dense)
densifies through :func:`spdgraph.layout.dense_values` when they fit, and is
refused before any allocation when they do not.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph
import spdgraph.accessor  # registers da.spd (the arrays here are built by hand)
from spdgraph.layout import dense_values, layout_of
from spdgraph.plugins.backends import graph_backends

sparse = pytest.importorskip("sparse")


def _sparse_result(p: int) -> xr.DataArray:
    """A p x p sparse precision of the empty graph (2 on the diagonal), built in O(p)."""
    labels = np.arange(p)
    adjacency = sparse.COO(np.zeros((2, 0), dtype=np.int64), np.zeros(0, bool), shape=(p, p))
    return xr.DataArray(
        sparse.eye(p) * 2.0,
        dims=("node", "node_2"),
        coords={"node": labels, "node_2": labels, "adjacency": (("node", "node_2"), adjacency)},
        name="precision",
        attrs={"kind": "precision"},
    )


@pytest.mark.parametrize(
    "method", ["inverse", "correlation", "to_numpy", "diagnostics", "graph_numpy"]
)
def test_dense_only_methods_at_p_one_million_are_too_large(method):
    da = _sparse_result(10**6)
    run = {
        "diagnostics": lambda: spdgraph.diagnostics(da),
        "graph_numpy": lambda: da.spd.graph("numpy"),  # its from_sparse is a dense array
    }.get(method, lambda: getattr(da.spd, method)())
    with pytest.raises(spdgraph.TooLargeError, match=r"GiB|memory"):
        run()


@pytest.mark.parametrize("p", [10**5, pytest.param(10**6, marks=pytest.mark.slow)])
def test_sparse_methods_work_on_the_stored_entries(p):
    da = _sparse_result(p)
    assert da.spd.check() is da
    assert layout_of(da.spd.partial_correlation()) == "sparse"
    assert layout_of(da.spd.adjacency()) == "sparse"
    assert da.spd.graph("scipy").nnz == 0
    data = da.spd.draw(2, seed=1)
    assert data.shape == (2, p)
    assert np.allclose(np.var(data.values), 0.5, rtol=0.05)  # N(0, 1/2) per node


def test_every_backend_builds_the_graph_of_a_sparse_result_as_of_the_dense_one():
    g = nx.les_miserables_graph()
    dense = spdgraph.sample(g, "dd", seed=1, kind="precision")
    sparse_result = spdgraph.sample(g, "dd", seed=1, kind="precision", sparse=True)
    built = 0
    for backend, _ in graph_backends():
        if backend.from_graph is None and backend.from_sparse is None:
            continue
        a = spdgraph.adapt_graph(dense.spd.graph(backend.name))
        b = spdgraph.adapt_graph(sparse_result.spd.graph(backend.name))
        assert a.labels == b.labels, backend.name  # names, or 0..p-1 for bare arrays
        assert np.array_equal(a.adjacency, b.adjacency), backend.name
        built += 1
    assert built >= 6  # networkx, igraph, rustworkx, networkit, scipy, sparse, numpy...
    assert sparse_result.spd.graph("igraph")["kind"] == "precision"


def test_dense_results_of_a_small_sparse_result_equal_the_dense_path():
    g = nx.cycle_graph(6)
    dense = spdgraph.sample(g, "dd", seed=2, kind="precision")
    small = spdgraph.sample(g, "dd", seed=2, kind="precision", sparse=True)
    np.testing.assert_array_equal(dense_values(small, "test"), dense.values)
    np.testing.assert_array_equal(small.spd.inverse().values, dense.spd.inverse().values)
    np.testing.assert_array_equal(small.spd.correlation().values, dense.spd.correlation().values)
    assert spdgraph.diagnostics(small).identical(spdgraph.diagnostics(dense))


def test_draw_refuses_a_sparse_matrix_non_zero_off_its_graph_as_the_dense_accessor():
    prec = spdgraph.sample(nx.path_graph(5), "dd", seed=1, kind="precision", sparse=True)
    off = sparse.COO(np.array([[0, 4], [4, 0]]), [0.01, 0.01], shape=(5, 5))
    broken = prec.copy(data=prec.data + off)
    for da in (broken, broken.copy(data=broken.data.todense())):
        with pytest.raises(spdgraph.MatrixError, match=r"\[0, 4\]"):
            da.spd.draw(3, seed=1)
    loose = broken.assign_attrs(structural_zeros=0)  # zeros that are not the graph: allowed
    assert loose.spd.draw(3, seed=1).shape == (3, 5)
