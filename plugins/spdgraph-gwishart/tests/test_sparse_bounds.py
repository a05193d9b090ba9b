"""gwishart with sparse=True: the work bounded before it starts, a linear-time order (issue 57).

The order and the draw are compared with slow references kept here: networkx's
chordality test and clique search, a brute-force perfect elimination check, the
dense greedy minimum fill-in order, and ``Phi^T Phi`` rebuilt with scipy from
the same random numbers.
"""

from __future__ import annotations

import time
import tracemalloc

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spdgraph_gwishart._order import min_fill_order
from spdgraph_gwishart._sparse_kernels import later_neighbours
from spdgraph_gwishart.exact import rows_flops
from spdgraph_gwishart.sparse import chordal_order, gwishart_sparse, sparse_plan

import spdgraph
from spdgraph.errors import InvalidOptionError, TooLargeError


def clique_and_path(p: int, c: int) -> scipy.sparse.csr_array:
    """Nodes ``0..c-1`` a clique, then a path ``c-1, c, ..., p-1``: CSR built directly
    (a 10**6-node graph with a 3,000-clique in a fraction of a second)."""
    degree = np.full(p, 2, dtype=np.int64)
    degree[[0, p - 1]] = 1
    degree[:c] = c - 1
    if c < p:
        degree[c - 1] += 1
    indptr = np.concatenate([[0], np.cumsum(degree)])
    indices = np.empty(indptr[-1], dtype=np.int32)
    block = np.tile(np.arange(c, dtype=np.int32), c).reshape(c, c)
    clique_rows = block[~np.eye(c, dtype=bool)].reshape(c, c - 1)
    for i in range(c):  # the clique's rows (the last one also holds node c)
        indices[indptr[i] : indptr[i] + c - 1] = clique_rows[i]
    if c < p:
        indices[indptr[c - 1] + c - 1] = c
        rest = np.arange(c, p, dtype=np.int32)
        starts = indptr[c:p]
        indices[starts] = rest - 1
        inner = rest[rest < p - 1]
        indices[indptr[inner] + 1] = inner + 1
    data = np.ones(indices.size, dtype=bool)
    return scipy.sparse.csr_array((data, indices, indptr), shape=(p, p))


def test_the_builder_is_the_graph_it_says() -> None:
    g = nx.complete_graph(5)
    nx.add_path(g, range(4, 9))
    expected = nx.to_scipy_sparse_array(g, nodelist=range(9)) != 0
    assert (clique_and_path(9, 5) != expected).nnz == 0


def test_a_large_dense_block_is_refused_before_any_heavy_work() -> None:
    # the case: 10**6 nodes holding a 3,000-node clique (about 9e9 flops)
    a = clique_and_path(10**6, 3000)
    gwishart_sparse(clique_and_path(20, 5), rng=np.random.default_rng(0), entries=None)
    tracemalloc.start()
    cpu = time.process_time()
    try:
        with pytest.raises(TooLargeError) as refused:
            gwishart_sparse(a, rng=np.random.default_rng(0), entries=None, max_flops=1e9)
        used = time.process_time() - cpu
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(refused.value)
    for named in ("9.13e+09 flops", "max_flops=1e+09", "3,000 nodes", "sparse=False", "smaller"):
        assert named in message
    assert used < 1.0, f"the refusal took {used:.2f} s of CPU"
    assert peak < 300e6, f"the refusal allocated {peak / 1e6:.0f} MB"


def test_max_flops_reaches_the_sparse_path_through_sample() -> None:
    # a 1,000-clique: about 3.43e8 flops; the option was swallowed before issue 57
    a = clique_and_path(5000, 1000)
    with pytest.raises(TooLargeError, match=r"3\.43e\+08 flops.*max_flops=1e\+08.*1,000 nodes"):
        spdgraph.sample(a, "gwishart", kind="precision", sparse=True, seed=0, max_flops=1e8)


def test_the_default_max_flops_refuses_a_4000_clique() -> None:
    # 4,000**3 / 3 = 2.1e10 flops, above the default 2e10 (the dense path's default)
    with pytest.raises(TooLargeError, match=r"max_flops=2e\+10.*4,000 nodes"):
        gwishart_sparse(clique_and_path(10_000, 4000), rng=np.random.default_rng(0), entries=None)


def test_max_flops_is_checked_like_the_dense_option() -> None:
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidOptionError, match="max_flops"):
            gwishart_sparse(clique_and_path(6, 3), rng=np.random.default_rng(0), entries=None,
                            max_flops=bad)  # fmt: skip


@st.composite
def small_graphs(draw: st.DrawFn) -> nx.Graph:
    """Random graphs, chordal or not: G(n, p), its elimination game (chordal), a
    clique glued to a random tree; relabelled at random."""
    p = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    family = draw(st.sampled_from(["gnp", "game", "clique_tree"]))
    g = nx.gnp_random_graph(p, draw(st.floats(0.0, 0.5)), seed=seed)
    if family == "game":
        alive = set(g)
        for v in rng.permutation(p):
            nbrs = [u for u in g[v] if u in alive]
            g.add_edges_from((a, c) for i, a in enumerate(nbrs) for c in nbrs[i + 1 :])
            alive.discard(v)
    elif family == "clique_tree":
        c = draw(st.integers(1, p))
        g = nx.complete_graph(c)
        g.add_nodes_from(range(p))
        g.add_edges_from((i, int(rng.integers(i))) for i in range(c, p))
    relabel = dict(zip(range(p), rng.permutation(p).tolist(), strict=True))
    return nx.relabel_nodes(g, relabel)


def _csr(g: nx.Graph) -> scipy.sparse.csr_array:
    return scipy.sparse.csr_array(nx.to_scipy_sparse_array(g, nodelist=range(len(g))) != 0)


def _later_sets(g: nx.Graph, order: np.ndarray) -> list[set[int]]:
    position = {int(v): i for i, v in enumerate(order)}
    return [{u for u in g[int(v)] if position[u] > i} for i, v in enumerate(order)]


def _is_perfect(g: nx.Graph, order: np.ndarray) -> bool:
    """Brute force: every node's later neighbours are pairwise adjacent."""
    return all(
        g.has_edge(a, c) for later in _later_sets(g, order) for a in later for c in later if a < c
    )


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(small_graphs())
def test_the_plan_and_the_order_against_slow_references(g: nx.Graph) -> None:
    if not nx.is_chordal(g):
        with pytest.raises(InvalidOptionError, match="chordal"):
            sparse_plan(_csr(g))
        return
    plan = sparse_plan(_csr(g))
    assert plan.peo is not None and _is_perfect(g, plan.peo)
    cliques = [len(c) for c in nx.find_cliques(g)] if len(g) else [0]
    assert plan.largest_clique == max(cliques)
    order = chordal_order(_csr(g), plan)
    dense = nx.to_numpy_array(g, nodelist=range(len(g))) != 0
    assert order.tolist() == min_fill_order(dense).tolist()
    assert _is_perfect(g, order)
    # the cost does not depend on the perfect elimination order
    assert plan.flops == rows_flops(np.array([len(s) for s in _later_sets(g, order)]))


def _reference_draw(
    a: scipy.sparse.csr_array, seed: int, b: float = 3.0
) -> scipy.sparse.csr_array:
    """``Phi^T Phi`` with scipy from the sampler's random numbers (D = I)."""
    order = chordal_order(a)
    ptr, idx = later_neighbours(a.indptr.astype(np.int64), a.indices.astype(np.int64), order)
    rng = np.random.default_rng(seed)
    p = a.shape[0]
    chi2 = rng.chisquare(b + np.diff(ptr), size=(1, p))[0]
    z = rng.standard_normal((1, idx.size))[0]
    rows = np.repeat(np.arange(p), np.diff(ptr))
    phi = scipy.sparse.csr_array(
        (np.concatenate([np.sqrt(chi2), z]),
         (np.concatenate([np.arange(p), rows]), np.concatenate([np.arange(p), idx]))),
        shape=(p, p),
    )  # fmt: skip
    position = np.empty(p, dtype=np.int64)
    position[order] = np.arange(p)
    return scipy.sparse.csr_array((phi.T @ phi)[position][:, position])


def test_a_1000_clique_inside_a_large_graph_is_drawn() -> None:
    # 1,000-clique + path on 20,000 nodes: about 3.4e8 flops (the issue measured 255 s)
    a = clique_and_path(20_000, 1000)
    k = gwishart_sparse(a, rng=np.random.default_rng(7), entries=None)
    assert k.nnz == a.nnz + 20_000 and (k - k.T).nnz == 0
    assert ((k != 0) != (a + scipy.sparse.eye_array(20_000, dtype=bool))).nnz == 0
    expected = _reference_draw(a, 7)
    scale = np.abs(expected.data).max()
    assert abs(k - expected).max() <= 1e-12 * scale  # summed in another order: rounding
    assert np.linalg.eigvalsh(k[:1000, :1000].toarray())[0] > 0
