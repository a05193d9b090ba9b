"""The ``da.spd`` accessor, against slow obviously-correct references."""

import re

import networkx as nx
import numpy as np
import pytest
import xarray as xr
from hypothesis import given
from hypothesis import strategies as st
from reference import ROOT

import spdgraph
from spdgraph.graphs import erdos_renyi

LABELLED = nx.relabel_nodes(erdos_renyi(9, 0.35, seed=4), {i: f"v{i}" for i in range(9)})


def _nonedge(da):
    adj = da["adjacency"].values
    return ~adj & ~np.eye(adj.shape[0], dtype=bool)


def _ref_normalize(m):
    p = m.shape[0]
    out = np.empty_like(m)
    for i in range(p):
        for j in range(p):
            out[i, j] = m[i, j] / np.sqrt(m[i, i] * m[j, j])
    return out


# ------------------------------------------------------------------ inverse


@pytest.mark.parametrize("kind", ["covariance", "precision"])
def test_inverse_names_labels_attrs_and_values(kind):
    da = spdgraph.sample(LABELLED, seed=1, size=3, kind=kind, normalize=False)
    inv = da.spd.inverse()
    other = "precision" if kind == "covariance" else "covariance"
    assert inv.name == other and inv.attrs["kind"] == other
    assert inv.attrs["structural_zeros"] == 0
    assert inv.attrs["graph_kind"] == kind
    assert inv.attrs["transform"] == "inverse"
    for key in ("method", "seed", "method_options", "spdgraph_version"):
        assert inv.attrs[key] == da.attrs[key]
    assert list(inv.node.values) == list(da.node.values)
    np.testing.assert_array_equal(inv["adjacency"].values, da["adjacency"].values)
    for k in range(3):
        ref = np.linalg.inv(da.values[k])
        np.testing.assert_allclose(inv.values[k], ref, rtol=1e-10, atol=1e-12)
        assert np.array_equal(inv.values[k], inv.values[k].T)  # exactly symmetric
    back = inv.spd.inverse()
    assert back.name == kind and back.attrs["transform"] == "inverse,inverse"
    np.testing.assert_allclose(back.values, da.values, rtol=1e-9, atol=1e-12)


def test_inverse_uses_cholesky_and_names_the_bad_matrix():
    da = spdgraph.sample(nx.path_graph(3), seed=0, size=3)
    values = da.values.copy()
    values[1] = np.diag([1.0, -1.0, 1.0])
    with pytest.raises(spdgraph.MatrixError, match="matrix 1 is not positive definite"):
        da.copy(data=values).spd.inverse()


# ------------------------------------------------------------------ correlation


def test_correlation_of_covariance_keeps_zeros_and_unit_diagonal():
    cov = spdgraph.sample(LABELLED, seed=2, size=2, normalize=False)
    corr = cov.spd.correlation()
    assert corr.name == "correlation" and corr.attrs["structural_zeros"] == 1
    for k in range(2):
        np.testing.assert_allclose(corr.values[k], _ref_normalize(cov.values[k]), rtol=1e-14)
        assert (np.diag(corr.values[k]) == 1.0).all()
        assert (corr.values[k][_nonedge(cov)] == 0).all()
        assert not np.signbit(corr.values[k][_nonedge(cov)]).any()
    corr.spd.check()


def test_correlation_of_precision_is_that_of_its_inverse():
    prec = spdgraph.sample(LABELLED, seed=3, kind="precision", normalize=False)
    corr = prec.spd.correlation()
    ref = _ref_normalize(np.linalg.inv(prec.values))
    np.testing.assert_allclose(corr.values, ref, rtol=1e-10, atol=1e-12)
    assert (np.diag(corr.values) == 1.0).all()
    assert corr.attrs["structural_zeros"] == 0 and corr.attrs["graph_kind"] == "precision"
    corr.spd.check()  # non-structural: the zero check is skipped, PD and diagonal checked


def test_partial_correlation_of_precision_keeps_zeros():
    prec = spdgraph.sample(LABELLED, seed=4, size=2, kind="precision", normalize=False)
    pc = prec.spd.partial_correlation()
    assert pc.name == "partial_correlation" and pc.attrs["structural_zeros"] == 1
    for k in range(2):
        ref = -_ref_normalize(prec.values[k])
        np.fill_diagonal(ref, 1.0)
        np.testing.assert_allclose(pc.values[k], ref, rtol=1e-14)
        zeros = pc.values[k][_nonedge(prec)]
        assert (zeros == 0).all() and not np.signbit(zeros).any()
        assert (np.diag(pc.values[k]) == 1.0).all()
    pc.spd.check()


def test_partial_correlation_of_covariance_via_inverse():
    cov = spdgraph.sample(LABELLED, seed=5)
    pc = cov.spd.partial_correlation()
    ref = -_ref_normalize(np.linalg.inv(cov.values))
    np.fill_diagonal(ref, 1.0)
    np.testing.assert_allclose(pc.values, ref, rtol=1e-10, atol=1e-12)
    assert pc.attrs["structural_zeros"] == 0


def test_partial_correlation_cannot_be_inverted_or_drawn_from():
    pc = spdgraph.sample(LABELLED, seed=5, kind="precision").spd.partial_correlation()
    for call in (pc.spd.inverse, pc.spd.correlation, lambda: pc.spd.draw(3)):
        with pytest.raises(spdgraph.MatrixError, match="partial correlation"):
            call()


@given(
    p=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["covariance", "precision"]),
)
def test_structural_zeros_survive_the_matching_rescaling(p, density, seed, kind):
    g = erdos_renyi(p, density, seed=seed)
    m = spdgraph.sample(g, seed=seed, kind=kind, normalize=False)
    scaled = m.spd.correlation() if kind == "covariance" else m.spd.partial_correlation()
    values = scaled.values
    assert (values[_nonedge(m)] == 0).all()
    assert (np.diag(values) == 1.0).all()
    assert np.array_equal(values, values.T)
    scaled.spd.check()
    inv = m.spd.inverse()
    np.testing.assert_allclose(inv.values @ m.values, np.eye(p), atol=1e-8)


# ------------------------------------------------------------------ draw


def _identity(labels, kind):
    """An exact identity with the given labels (a sample on the empty graph)."""
    g = nx.empty_graph(labels)
    return spdgraph.sample(g, seed=0, kind=kind)


@pytest.mark.parametrize("kind", ["covariance", "precision"])
def test_draw_is_the_cholesky_transform_of_standard_normals(kind):
    m = spdgraph.sample(LABELLED, seed=6, kind=kind, normalize=False)
    identity = _identity(list(LABELLED.nodes), kind)
    assert np.array_equal(identity.values, np.eye(9))
    z = identity.spd.draw(50, seed=11).values  # N(0, I): the raw standard normals
    x = m.spd.draw(50, seed=11).values
    chol = np.linalg.cholesky(m.values)
    if kind == "covariance":  # x = L z
        np.testing.assert_allclose(x, z @ chol.T, rtol=1e-12, atol=1e-12)
    else:  # Omega = L L^T, x = L^{-T} z, i.e. L^T x = z
        np.testing.assert_allclose(x @ chol, z, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kind", ["covariance", "precision"])
def test_draw_has_the_right_covariance(kind):
    m = spdgraph.sample(nx.cycle_graph(4), seed=7, kind=kind)
    sigma = m.values if kind == "covariance" else np.linalg.inv(m.values)
    x = m.spd.draw(40_000, seed=1).values
    np.testing.assert_allclose(np.cov(x.T), sigma, atol=0.05)


def test_draw_layout_labels_and_provenance():
    m = spdgraph.sample(LABELLED, seed=8, size=3, kind="precision")
    x = m.spd.draw(7, seed=2)
    assert x.name == "data" and x.dims == ("sample", "obs", "node")
    assert x.shape == (3, 7, 9)
    assert list(x.node.values) == list(m.node.values)
    assert list(x.sample.values) == [0, 1, 2] and list(x.obs.values) == list(range(7))
    assert x.attrs["seed"] == "2" and x.attrs["n_obs"] == 7
    assert x.attrs["source_kind"] == "precision"
    assert x.attrs["matrix_seed"] == m.attrs["seed"]
    assert x.attrs["matrix_method"] == "po"
    single = m.isel(sample=0, drop=True).spd.draw(7, seed=2)
    assert single.dims == ("obs", "node")


def test_draw_is_reproducible_and_independent_of_stack_size():
    small = spdgraph.sample(LABELLED, seed=9, size=2)
    large = spdgraph.sample(LABELLED, seed=9, size=5)
    a = small.spd.draw(10, seed=3).values
    b = large.spd.draw(10, seed=3).values
    np.testing.assert_array_equal(a, b[:2])
    np.testing.assert_array_equal(a, small.spd.draw(10, seed=3).values)
    assert not np.array_equal(a, small.spd.draw(10, seed=4).values)
    # matrix k keeps its stream when selected out of the stack
    np.testing.assert_array_equal(large.isel(sample=3).spd.draw(10, seed=3).values, b[3])
    np.testing.assert_array_equal(large.isel(sample=[1, 4]).spd.draw(10, seed=3).values, b[[1, 4]])


def test_draw_streams_differ_from_sample_streams():
    identity = _identity(range(5), "covariance")
    z = identity.spd.draw(4, seed=1).values
    from spdgraph.seeds import child_generator

    same_as_sample = child_generator(np.random.SeedSequence(1), 0).standard_normal((4, 5))
    assert not np.array_equal(z, same_as_sample)


def test_draw_seed_none_is_recorded_and_replayable():
    m = spdgraph.sample(nx.path_graph(3), seed=0)
    x = m.spd.draw(5)
    np.testing.assert_array_equal(m.spd.draw(5, seed=int(x.attrs["seed"])).values, x.values)


@pytest.mark.parametrize("n_obs", [-1, 2.5, True, "3"])
def test_draw_bad_n_obs(n_obs):
    m = spdgraph.sample(nx.path_graph(3), seed=0)
    with pytest.raises(spdgraph.InvalidOptionError, match="n_obs"):
        m.spd.draw(n_obs)


def test_draw_zero_observations():
    m = spdgraph.sample(nx.path_graph(3), seed=0)
    assert m.spd.draw(0, seed=1).shape == (0, 3)


# ------------------------------------------------------------------ graph, numpy


@pytest.mark.parametrize(
    "graph", [LABELLED, nx.karate_club_graph(), nx.empty_graph(["x", "y"]), nx.complete_graph(4)]
)
def test_graph_round_trip(graph):
    m = spdgraph.sample(graph, seed=1, kind="precision", size=2)
    back = m.spd.graph()
    assert list(back.nodes) == list(graph.nodes)
    assert all(type(a) is type(b) for a, b in zip(back.nodes, graph.nodes, strict=True))
    assert {frozenset(e) for e in back.edges} == {frozenset(e) for e in graph.edges}
    assert back.graph["kind"] == "precision"
    adj = m.spd.adjacency()
    assert adj.dtype == bool and adj.dims == ("node", "node_2") and adj.name == "adjacency"
    np.testing.assert_array_equal(adj.values, nx.to_numpy_array(graph, dtype=bool))
    assert list(adj.node_2.values) == list(graph.nodes)


def test_graph_of_an_inverse_is_still_the_sampled_graph():
    cov = spdgraph.sample(LABELLED, seed=1)
    back = cov.spd.inverse().spd.graph()
    assert back.graph["kind"] == "covariance"
    assert {frozenset(e) for e in back.edges} == {frozenset(e) for e in LABELLED.edges}


def test_to_numpy_is_a_float_copy():
    m = spdgraph.sample(LABELLED, seed=1, size=2)
    a = m.spd.to_numpy()
    assert a.dtype == np.float64 and a.shape == (2, 9, 9)
    a[:] = 0
    assert m.values.any()
    x = m.isel(sample=0).spd.draw(12, seed=0).spd.to_numpy()
    assert x.shape == (12, 9)


def test_graph_without_adjacency_coordinate():
    da = xr.DataArray(np.eye(2), dims=("node", "node_2"), name="covariance")
    with pytest.raises(spdgraph.MatrixError, match="no 'adjacency' coordinate"):
        da.spd.graph()


# ------------------------------------------------------------------ check


def test_check_accepts_every_sampled_and_derived_kind():
    for kind in ("covariance", "precision"):
        m = spdgraph.sample(LABELLED, seed=2, size=2, kind=kind)
        assert m.spd.check() is m
        m.spd.inverse().spd.check()
        m.spd.correlation().spd.check()
        m.spd.partial_correlation().spd.check()
        m.isel(sample=1).spd.check()


def _bad(m, values, **attrs):
    out = m.copy(data=values)
    out.attrs.update(attrs)
    return out


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda m: _bad(m, m.values + np.triu(np.full((9, 9), 1e-3), 1)), "not exactly symmetric"),
        (lambda m: m.transpose("node_2", "node"), "expected a matrix with dims"),
        (lambda m: m.assign_coords(node_2=m.node_2.values[::-1]), "coordinates differ"),
        (lambda m: m.drop_vars("adjacency"), "no 'adjacency' coordinate"),
        (lambda m: m.assign_coords(adjacency=m.adjacency.astype(int)), "must be boolean"),
        (lambda m: _bad(m, np.where(np.eye(9) == 1, np.nan, m.values)), "NaN or inf"),
        (lambda m: _bad(m, -m.values), "matrix 0 is not positive definite"),
        (lambda m: m.rename("whatever").assign_attrs(kind="foo"), "cannot tell what"),
    ],
)
def test_check_failures(mutate, match):
    m = spdgraph.sample(LABELLED, seed=2)
    with pytest.raises(spdgraph.MatrixError, match=match):
        mutate(m).spd.check()


def test_check_names_the_non_edge_by_label():
    m = spdgraph.sample(LABELLED, seed=2, size=2)
    i, j = np.argwhere(np.triu(_nonedge(m), 1))[0]
    values = m.values.copy()
    values[1, i, j] = values[1, j, i] = 0.001  # small: the matrix stays positive definite
    with pytest.raises(
        spdgraph.MatrixError,
        match=re.escape(f"matrix 1 has a non-zero entry 0.001 at [{i}, {j}] (nodes 'v{i}' and "),
    ):
        m.copy(data=values).spd.check()
    # once the zeros are declared non-structural, the same array passes
    m.copy(data=values).assign_attrs(structural_zeros=0).spd.check()


def test_check_unit_diagonal_and_partial_correlation_validity():
    corr = spdgraph.sample(LABELLED, seed=2, normalize=False).spd.correlation()
    values = corr.values.copy()
    values[3, 3] = 1.0 + 1e-12
    with pytest.raises(spdgraph.MatrixError, match="exactly 1"):
        corr.copy(data=values).spd.check()
    pc = spdgraph.sample(nx.complete_graph(3), seed=1, kind="precision").spd.partial_correlation()
    impossible = np.full((3, 3), 0.9)  # 2I - P has eigenvalue 1 - 1.8 < 0
    np.fill_diagonal(impossible, 1.0)
    with pytest.raises(spdgraph.MatrixError, match="2 I - P"):
        pc.copy(data=impossible).spd.check()


def test_accessor_works_on_dask_backed_arrays():
    pytest.importorskip("dask.array")
    lazy = spdgraph.sample(LABELLED, seed=5, size=4, chunks=2, kind="precision")
    eager = spdgraph.sample(LABELLED, seed=5, size=4, kind="precision")
    np.testing.assert_array_equal(lazy.spd.inverse().values, eager.spd.inverse().values)
    np.testing.assert_array_equal(
        lazy.spd.draw(3, seed=1).values, eager.spd.draw(3, seed=1).values
    )
    lazy.spd.check()


# ------------------------------------------------------------------ README round trip


def _code_blocks(text, lang):
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_readme_round_trip_is_the_doctested_one_in_docs():
    """The README's round trip is, line for line, the doctested example in docs/data.md."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## From graph to data and back", 1)[1].split("\n## ", 1)[0]
    (snippet,) = _code_blocks(section, "python")
    docs = (ROOT / "docs" / "data.md").read_text()
    doc_block = docs.split("## The round trip", 1)[1].split("\n## ", 1)[0]
    (doctest_block,) = _code_blocks(doc_block, "python")
    code = [line[4:] for line in doctest_block.splitlines() if line.startswith((">>> ", "... "))]
    assert [line.rstrip() for line in snippet.strip().splitlines()] == code
