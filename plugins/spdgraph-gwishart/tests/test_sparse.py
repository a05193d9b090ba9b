"""gwishart with sparse=True on decomposable graphs: the dense path's draw, no fill (issue 46)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spdgraph_gwishart import gwishart
from spdgraph_gwishart._order import min_fill_order
from spdgraph_gwishart.sparse import chordal_order, gwishart_sparse

import spdgraph
from spdgraph.errors import InvalidOptionError

sparse = pytest.importorskip("sparse")
pytest.importorskip("cvxopt")


def _band(p: int, k: int) -> nx.Graph:
    g = nx.empty_graph(p)
    g.add_edges_from((i, j) for i in range(p) for j in range(i + 1, min(p, i + k + 1)))
    return g


@st.composite
def chordal_graphs(draw: st.DrawFn) -> nx.Graph:
    """Band graphs, random trees, and the elimination game on a random graph (its
    filled graph is chordal), with the nodes relabelled at random."""
    p = draw(st.integers(1, 16))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    family = draw(st.sampled_from(["band", "tree", "star", "game"]))
    if family == "band":
        g = _band(p, draw(st.integers(0, 4)))
    elif family == "star":
        g = nx.star_graph(p - 1) if p > 1 else nx.empty_graph(p)
    elif family == "tree":
        g = nx.empty_graph(p)
        g.add_edges_from((i, int(rng.integers(i))) for i in range(1, p))
    else:
        g = nx.gnp_random_graph(p, draw(st.floats(0.0, 0.6)), seed=seed)
        alive = set(g)
        for v in rng.permutation(p):  # eliminate in a random order, joining the neighbours
            nbrs = [u for u in g[v] if u in alive and u != v]
            g.add_edges_from((a, c) for i, a in enumerate(nbrs) for c in nbrs[i + 1 :])
            alive.discard(v)
    assert nx.is_chordal(g)
    relabel = dict(zip(range(p), rng.permutation(p).tolist(), strict=True))
    return nx.relabel_nodes(g, relabel)


def _csr(g: nx.Graph) -> scipy.sparse.csr_array:
    return scipy.sparse.csr_array(nx.to_scipy_sparse_array(g, nodelist=range(len(g))) != 0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chordal_graphs())
def test_the_sparse_order_is_the_dense_minimum_fill_order(g: nx.Graph) -> None:
    dense = nx.to_numpy_array(g, nodelist=range(len(g))) != 0
    assert chordal_order(_csr(g)).tolist() == min_fill_order(dense).tolist()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chordal_graphs(), st.integers(0, 1000), st.sampled_from([None, 2.5]))
def test_the_draw_has_the_dense_draw_s_bits(g: nx.Graph, seed: int, d: float | None) -> None:
    dense_adjacency = nx.to_numpy_array(g, nodelist=range(len(g))) != 0
    expected = gwishart(dense_adjacency, rng=np.random.default_rng(seed), entries=None, D=d)
    k = gwishart_sparse(_csr(g), rng=np.random.default_rng(seed), entries=None, D=d)
    assert k.toarray().tobytes() == expected.tobytes()
    # exactly the graph's pattern is stored, symmetric
    pattern = k.toarray() != 0
    assert np.array_equal(pattern, dense_adjacency | np.eye(len(g), dtype=bool))
    assert (k - k.T).nnz == 0


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chordal_graphs(), st.integers(0, 1000))
def test_a_diagonal_scale_agrees_to_rounding(g: nx.Graph, seed: int) -> None:
    p = len(g)
    scale = np.diag(np.random.default_rng(seed).uniform(0.2, 5.0, p))
    dense_adjacency = nx.to_numpy_array(g, nodelist=range(p)) != 0
    expected = gwishart(dense_adjacency, rng=np.random.default_rng(seed), entries=None, D=scale)
    k = gwishart_sparse(_csr(g), rng=np.random.default_rng(seed), entries=None, D=scale)
    assert np.allclose(k.toarray(), expected, rtol=1e-12, atol=0.0)


def test_a_sparse_diagonal_scale_is_the_dense_diagonal_scale() -> None:
    g = _csr(_band(12, 2))
    values = np.linspace(0.5, 3.0, 12)
    from_sparse = gwishart_sparse(
        g, rng=np.random.default_rng(1), entries=None, D=scipy.sparse.diags_array(values)
    )
    from_dense = gwishart_sparse(g, rng=np.random.default_rng(1), entries=None, D=np.diag(values))
    assert (from_sparse != from_dense).nnz == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chordal_graphs(), st.integers(0, 1000), st.booleans())
def test_sample_sparse_equals_sample_dense(g: nx.Graph, seed: int, normalize: bool) -> None:
    kw = dict(kind="precision", normalize=normalize, seed=seed)
    dense = spdgraph.sample(g, "gwishart", **kw)
    s = spdgraph.sample(g, "gwishart", sparse=True, **kw)
    assert isinstance(s.data, sparse.COO)
    assert np.asarray(s.data.todense()).tobytes() == dense.values.tobytes()
    assert s.attrs["certificate"]  # proven positive definite by the core


def test_stacked_draws_equal_the_dense_stack() -> None:
    g = _band(30, 2)
    dense = spdgraph.sample(g, "gwishart", kind="precision", normalize=False, seed=5, size=3)
    s = spdgraph.sample(g, "gwishart", kind="precision", normalize=False, seed=5, size=3,
                        sparse=True)  # fmt: skip
    assert np.array_equal(np.asarray(s.data.todense()), dense.values)


def test_the_law_s_mean_on_a_tree() -> None:
    # D = I: K_ii = Phi_ii^2 + sum over the earlier neighbours r of Phi_ri^2, so
    # E[K_ii] = (b + nu_i) + (deg_i - nu_i) = b + deg_i in any perfect elimination order
    g = _band(40, 1)
    draws = spdgraph.sample(g, "gwishart", kind="precision", normalize=False, seed=11,
                            size=400, sparse=True)  # fmt: skip
    diag = np.asarray(draws.data.todense())[:, np.arange(40), np.arange(40)].mean(axis=0)
    # each inner node of a path has degree 2: nu_i + parents = 2, so E[K_ii] = b + 2 = 5;
    # the two ends have degree 1: b + 1 = 4. The standard error of a mean of 400 is ~0.16.
    expected = np.full(40, 5.0)
    expected[[0, -1]] = 4.0
    assert np.all(np.abs(diag - expected) < 5 * np.sqrt(2 * 5.0 / 400) + 0.05)


def test_a_graph_that_is_not_chordal_is_refused_naming_the_alternatives() -> None:
    with pytest.raises(InvalidOptionError, match="chordal") as refused:
        spdgraph.sample(nx.cycle_graph(5), "gwishart", kind="precision", sparse=True)
    message = str(refused.value)
    assert "'dd'" in message and "'huge'" in message and "sparse=False" in message


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"D": np.array([[1.0, 0.2, 0], [0.2, 1, 0], [0, 0, 1]])}, "diagonal scale D"),
        ({"D": np.diag([1.0, 0.0, 1.0])}, "between"),
        ({"algorithm": "chordal"}, "algorithm='auto'"),
        ({"algorithm": "mcmc"}, "algorithm='auto'"),
    ],
)
def test_what_the_sparse_path_cannot_do_is_refused(options: dict, match: str) -> None:
    with pytest.raises(InvalidOptionError, match=match):
        spdgraph.sample(nx.path_graph(3), "gwishart", kind="precision", sparse=True, **options)


def test_a_large_band_is_built_without_a_dense_array() -> None:
    # p = 20,000: a dense p x p array would be 3.2 GB; the sparse draw holds ~5 p entries
    from spdgraph.graphs import band

    a = band(20_000, 2, backend="scipy")
    k = gwishart_sparse(a, rng=np.random.default_rng(0), entries=None)
    assert k.nnz == a.nnz + 20_000
    assert np.all(k.diagonal() > 0)
