"""spdgraph.diagnostics against hand-computed values."""

import math

import networkx as nx
import numpy as np
import pytest
import xarray as xr

import spdgraph

PATH = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
M = np.array([[2.0, 1.0, 0.0], [1.0, 4.0, 2.0], [0.0, 2.0, 5.0]])


def _da(values, adjacency=PATH, kind="precision"):
    dims = ("node", "node_2") if values.ndim == 2 else ("sample", "node", "node_2")
    return xr.DataArray(
        values,
        dims=dims,
        coords={"adjacency": (("node", "node_2"), adjacency)},
        name=kind,
        attrs={"kind": kind},
    )


def test_hand_computed_precision():
    ds = spdgraph.diagnostics(_da(M))
    # R: edges (0,1) -> |1|/m_00 = 1/2 ; (1,2) -> |2|/m_11 = 2/4 = 1/2
    assert ds["link_strength"].item() == 0.5
    # partial correlations: 1/sqrt(2*4), 2/sqrt(4*5)
    r01, r12 = 1 / math.sqrt(8), 2 / math.sqrt(20)
    assert ds["abs_pcor_min"].item() == pytest.approx(r01, rel=1e-15)
    assert ds["abs_pcor_max"].item() == pytest.approx(r12, rel=1e-15)
    assert ds["abs_pcor_median"].item() == pytest.approx((r01 + r12) / 2, rel=1e-15)
    assert ds["abs_pcor_mean"].item() == pytest.approx((r01 + r12) / 2, rel=1e-15)
    # eigenvalues: roots of the characteristic polynomial det(M - x I)
    # = (2-x)[(4-x)(5-x) - 4] - (5-x) = -x^3 + 11 x^2 - 33 x + 27
    roots = np.sort(np.roots([-1.0, 11.0, -33.0, 27.0]).real)
    assert ds["min_eigenvalue"].item() == pytest.approx(roots[0], rel=1e-12)
    assert ds["condition_number"].item() == pytest.approx(roots[-1] / roots[0], rel=1e-12)
    assert ds["max_abs_nonedge"].item() == 0.0
    assert ds["n_edges"].item() == 2
    assert ds.attrs["kind"] == "precision"


def test_covariance_uses_the_inverse():
    cov = np.linalg.inv(M)
    cov = (cov + cov.T) / 2
    complete = ~np.eye(3, dtype=bool)
    ds = spdgraph.diagnostics(_da(cov, adjacency=complete, kind="covariance"))
    # precision is M again: |pcor| = 1/sqrt(8), 0 (the (0,2) entry), 2/sqrt(20)
    assert ds["abs_pcor_min"].item() == pytest.approx(0.0, abs=1e-15)
    assert ds["abs_pcor_max"].item() == pytest.approx(2 / math.sqrt(20), rel=1e-13)
    assert ds["abs_pcor_median"].item() == pytest.approx(1 / math.sqrt(8), rel=1e-13)
    # the kind argument overrides the attrs
    as_prec = spdgraph.diagnostics(_da(M, kind="covariance"), kind="precision")
    assert as_prec["abs_pcor_max"].item() == pytest.approx(2 / math.sqrt(20), rel=1e-15)


def test_nonzero_on_a_nonedge_is_reported():
    bad = M.copy()
    bad[0, 2] = bad[2, 0] = -0.25
    assert spdgraph.diagnostics(_da(bad))["max_abs_nonedge"].item() == 0.25


def test_stack_and_empty_graph():
    stack = np.stack([M, 2 * M, np.diag([1.0, 2.0, 3.0])])
    ds = spdgraph.diagnostics(_da(stack))
    assert ds["link_strength"].dims == ("sample",)
    np.testing.assert_allclose(ds["link_strength"].values, [0.5, 0.5, 0.0])
    np.testing.assert_allclose(ds["condition_number"].values[2], 3.0)
    empty = spdgraph.diagnostics(_da(np.diag([1.0, 4.0, 9.0]), adjacency=np.zeros((3, 3), bool)))
    assert empty["link_strength"].item() == 0.0 and empty["n_edges"].item() == 0
    assert math.isnan(empty["abs_pcor_max"].item())


def test_on_sampled_matrices_po_links_stronger_than_dd():
    g = spdgraph.graphs.erdos_renyi(60, 0.5, seed=1)
    po = spdgraph.diagnostics(spdgraph.sample(g, "po", seed=1, size=3))
    dd = spdgraph.diagnostics(spdgraph.sample(g, "dd", seed=1, size=3))
    assert np.all(po["max_abs_nonedge"].values == 0) and np.all(dd["max_abs_nonedge"] == 0)
    assert po["link_strength"].min() > dd["link_strength"].max()
    assert list(po["sample"].values) == [0, 1, 2]
    # the recorded attrs and the diagnostics agree
    da = spdgraph.sample(g, "po", seed=2, min_eigenvalue=0.05)
    ds = spdgraph.diagnostics(da)
    assert ds["condition_number"].item() == pytest.approx(da.attrs["condition_number"], 1e-10)


def test_bad_inputs():
    with pytest.raises(spdgraph.InvalidOptionError, match="DataArray"):
        spdgraph.diagnostics(M)
    with pytest.raises(spdgraph.InvalidOptionError, match="adjacency"):
        spdgraph.diagnostics(xr.DataArray(M, dims=("node", "node_2")))
    with pytest.raises(spdgraph.InvalidOptionError, match="dims"):
        spdgraph.diagnostics(xr.DataArray(M, dims=("a", "b")))
    with pytest.raises(spdgraph.InvalidOptionError, match="kind"):
        spdgraph.diagnostics(_da(M), kind="other")
    not_pd = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(spdgraph.InvalidOptionError, match="positive definite"):
        spdgraph.diagnostics(_da(not_pd, kind="covariance"))


def test_graph_from_networkx_path_roundtrip():
    da = spdgraph.sample(nx.path_graph(["a", "b", "c"]), seed=0, kind="precision")
    ds = spdgraph.diagnostics(da)
    m = da.values
    assert ds["link_strength"].item() == pytest.approx(
        max(abs(m[0, 1]) / m[0, 0], abs(m[1, 2]) / m[1, 1]), rel=1e-15
    )
