"""Graph families at scale: the sparse core, every backend, the law of the fast draws."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
import spdgraph._machine
from spdgraph.graphs import (
    FAMILIES,
    _common,
    _families,
    _random,
    _related,
    _sparse,
    cluster,
    erdos_renyi,
    related_graphs,
    small_world,
)

BACKENDS = ["networkx", "scipy", "igraph", "networkit", "rustworkx", "numpy"]


def make(name, p, seed, backend="networkx", **extra):
    """A small member of every family (random ones seeded); ``extra`` sets its parameters."""
    x = extra.get
    calls = {
        "ar1": lambda: FAMILIES["ar1"](p, backend=backend),
        "ar2": lambda: FAMILIES["ar2"](p, backend=backend),
        "band": lambda: FAMILIES["band"](p, x("bandwidth", 3), backend=backend),
        "circle": lambda: FAMILIES["circle"](max(p, 3), backend=backend),
        "cluster": lambda: cluster(
            p,
            min(p, x("n_groups", 3)),
            x("prob", 0.4),
            prob_between=x("prob_between", 0.05),
            seed=seed,
            backend=backend,
        ),
        "erdos_renyi": lambda: erdos_renyi(p, x("d", 0.2), seed=seed, backend=backend),
        "hub": lambda: FAMILIES["hub"](
            p,
            min(p, x("n_hubs", 2)),
            mode=x("mode", "huge"),
            seed=seed if x("mode", "huge") == "bdgraph" else None,
            backend=backend,
        ),
        "lattice": lambda: FAMILIES["lattice"](p, shape=(1, p), backend=backend),
        "scale_free": lambda: FAMILIES["scale_free"](max(p, 2), seed=seed, backend=backend),
        "small_world": lambda: small_world(
            max(p, 5), x("neighbors", 2), x("rewire", 0.3), seed=seed, backend=backend
        ),
        "star": lambda: FAMILIES["star"](p, x("center", 0) % p, backend=backend),
    }
    return calls[name]()


#: hypothesis strategies of each family's parameters (at most p = 40 nodes)
PARAMETERS = st.fixed_dictionaries(
    {
        "bandwidth": st.integers(1, 45),
        "n_groups": st.integers(1, 8),
        "prob": st.floats(0.0, 1.0),
        "prob_between": st.floats(0.0, 1.0),
        "d": st.floats(0.0, 1.0),
        "n_hubs": st.integers(1, 6),
        "mode": st.sampled_from(["huge", "bdgraph"]),
        "neighbors": st.integers(1, 2),
        "rewire": st.floats(0.0, 1.0),
        "center": st.integers(0, 100),
    }
)


def edges_of(graph):
    """The edge set of any backend's graph, through spdgraph's own reading of it."""
    adjacency = spdgraph.adapt_graph(graph).adjacency
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    return set(zip(rows.tolist(), cols.tolist(), strict=True)), adjacency.shape[0]


# -- the sparse core -----------------------------------------------------------------


@given(s=st.integers(2, 300), data=st.data())
def test_unrank_upper_is_triu_indices(s, data):
    rows, cols = np.triu_indices(s, 1)
    k = np.arange(rows.size)
    i, j = _sparse.unrank_upper(k, s)
    np.testing.assert_array_equal(i, rows)
    np.testing.assert_array_equal(j, cols)
    sizes = np.array(data.draw(st.lists(st.integers(2, 60), min_size=1, max_size=8)))
    picks = [data.draw(st.integers(0, n * (n - 1) // 2 - 1)) for n in sizes]
    i, j = _sparse.unrank_upper(np.array(picks), sizes)
    for n, pick, a, b in zip(sizes, picks, i, j, strict=True):
        r, c = np.triu_indices(n, 1)
        assert (a, b) == (r[pick], c[pick])


def test_unrank_upper_is_exact_for_a_million_nodes():
    p = 10**6
    n = p * (p - 1) // 2
    k = np.array([0, 1, p - 2, p - 1, n // 2, n - 2, n - 1], dtype=np.int64)
    i, j = _sparse.unrank_upper(k, p)
    offsets = i * (2 * p - i - 1) // 2
    np.testing.assert_array_equal(offsets + (j - i - 1), k)
    assert np.all((i < j) & (j < p))


def test_bernoulli_positions_follow_the_bernoulli_law():
    """Each position kept with probability q, independently (counts and pairs)."""
    rng = np.random.default_rng(3)
    n, q, reps = 40, 0.3, 4000
    hits = np.zeros(n)
    pair = 0
    totals = []
    for _ in range(reps):
        kept = _sparse.bernoulli_positions(rng, n, q)
        assert np.all(np.diff(kept) > 0) and (kept.size == 0 or kept[-1] < n)
        hits[kept] += 1
        pair += (0 in kept) and (1 in kept)
        totals.append(kept.size)
    sd = math.sqrt(q * (1 - q) / reps)
    assert np.all(np.abs(hits / reps - q) < 5 * sd)
    assert abs(pair / reps - q * q) < 5 * math.sqrt(q * q * (1 - q * q) / reps)
    assert abs(np.var(totals) - n * q * (1 - q)) < 0.15 * n * q * (1 - q)  # binomial spread
    assert _sparse.bernoulli_positions(rng, 5, 0.0).size == 0
    assert _sparse.bernoulli_positions(rng, 5, 1.0).tolist() == [0, 1, 2, 3, 4]


@given(p=st.integers(1, 30), data=st.data())
def test_canonical_upper_is_sorted_deduplicated_and_loop_free(p, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, p - 1), st.integers(0, p - 1))))
    rows = np.array([u for u, _ in pairs], dtype=np.int64)
    cols = np.array([v for _, v in pairs], dtype=np.int64)
    upper = _sparse.canonical_upper(p, rows, cols)
    assert upper.dtype == np.int8 and upper.has_sorted_indices
    expected = {(min(u, v), max(u, v)) for u, v in pairs if u != v}
    got = set(zip(*(x.tolist() for x in scipy.sparse.triu(upper, 1).nonzero()), strict=True))
    assert got == expected and upper.nnz == len(expected)


# -- every family, every backend --------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(FAMILIES)),
    p=st.integers(1, 40),
    seed=st.integers(0, 2**32),
    backend=st.sampled_from(BACKENDS),
    params=PARAMETERS,
)
def test_every_family_is_a_simple_graph_the_same_in_every_backend(name, p, seed, backend, params):
    if name == "scale_free":
        p = max(p, 2)
    if name in ("circle",):
        p = max(p, 3)
    if name == "small_world":
        p = max(p, 5)
    reference = make(name, p, seed, **params)
    assert isinstance(reference, nx.Graph) and not reference.is_directed()
    assert not reference.is_multigraph() and list(reference.nodes) == list(range(p))
    assert nx.number_of_selfloops(reference) == 0
    expected = {(min(u, v), max(u, v)) for u, v in reference.edges}
    assert len(expected) == reference.number_of_edges()
    other = make(name, p, seed, backend, **params)
    got, nodes = edges_of(other)
    assert nodes == p and got == expected
    again, _ = edges_of(make(name, p, seed, backend, **params))
    assert again == expected  # same seed, same graph


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_returns_its_own_type_with_the_records(backend):
    g = erdos_renyi(30, 0.2, seed=4, backend=backend)
    kind = {
        "networkx": lambda: nx.Graph,
        "scipy": lambda: scipy.sparse.csr_array,
        "numpy": lambda: np.ndarray,
        "igraph": lambda: pytest.importorskip("igraph").Graph,
        "networkit": lambda: pytest.importorskip("networkit").Graph,
        "rustworkx": lambda: pytest.importorskip("rustworkx").PyGraph,
    }[backend]()
    assert isinstance(g, kind)
    if backend == "scipy":
        assert g.dtype == np.int8 and g.has_sorted_indices
        assert (g != g.T).nnz == 0 and g.diagonal().sum() == 0
    if backend == "igraph":
        assert g["family"] == "erdos_renyi" and g["seed"] == "4"
    if backend == "rustworkx":
        assert g.attrs["parameters"] == {"p": 30, "d": 0.2}


def test_groups_and_hubs_are_recorded_on_networkx_and_igraph():
    pytest.importorskip("igraph")
    h = spdgraph.graphs.hub(10, 2, backend="igraph")
    assert h["hubs"] == [0, 5] and h.vs["group"] == [0] * 5 + [1] * 5
    c = cluster(9, 3, prob=1.0, seed=1, backend="networkx")
    assert [c.nodes[i]["group"] for i in range(9)] == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_unknown_backend_names_the_registered_ones():
    with pytest.raises(spdgraph.InvalidOptionError, match=r"backend.*'igraph'.*'scipy'"):
        erdos_renyi(10, 0.1, seed=1, backend="graph-tool")
    with pytest.raises(spdgraph.InvalidOptionError, match="registered graph backends"):
        spdgraph.graphs.band(10, 2, backend=None)


# -- the law of the fast paths against the old pairwise construction --------------------


def test_erdos_renyi_skipping_has_the_pairwise_law():
    """Above 2**20 pairs the skipping draw: edge count and per-pair frequency of G(p, d)."""
    p, d, reps = 30, 0.15, 1500
    n_pairs = p * (p - 1) // 2
    rng = np.random.default_rng(7)
    counts, first = [], 0
    for _ in range(reps):
        rows, cols = _random._draw(rng, p, d, pairwise=False)
        assert np.all(rows < cols)
        keys = rows * p + cols
        assert np.all(np.diff(keys) > 0)  # row-major order, no repeats
        counts.append(rows.size)
        first += bool(rows.size and rows[0] == 0 and cols[0] == 1)
    sd = math.sqrt(n_pairs * d * (1 - d) / reps)
    assert abs(np.mean(counts) - n_pairs * d) < 5 * sd
    assert abs(first / reps - d) < 5 * math.sqrt(d * (1 - d) / reps)


def test_erdos_renyi_small_graphs_keep_the_pairwise_draw():
    g = erdos_renyi(40, 0.3, seed=4)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(4)))
    rows, cols = np.triu_indices(40, 1)
    keep = rng.random(rows.size) < 0.3
    assert set(g.edges) == set(zip(rows[keep].tolist(), cols[keep].tolist(), strict=True))


def test_cluster_sparse_path_has_the_block_model_law():
    p, sizes, within, between = 60, [20, 25, 15], [0.5, 0.2, 1.0], 0.05
    group = np.repeat(np.arange(3), sizes)
    rng = np.random.default_rng(2)
    hit_within = np.zeros(3)
    hit_between, reps = 0, 300
    for _ in range(reps):
        rows, cols = _families._sbm_edges(rng, p, group, sizes, within, between)
        upper = _sparse.canonical_upper(p, rows, cols)
        assert upper.nnz == rows.size  # no repeated pair
        same = group[rows] == group[cols]
        hit_within += np.bincount(group[rows[same]], minlength=3)
        hit_between += int((~same).sum())
    n_within = np.array([s * (s - 1) // 2 for s in sizes])
    rate = hit_within / (reps * n_within)
    for r, q, n in zip(rate, within, n_within, strict=True):
        assert abs(r - q) <= 5 * math.sqrt(max(q * (1 - q), 1e-12) / (reps * n)) + 1e-12
    n_between = p * (p - 1) // 2 - n_within.sum()
    assert abs(hit_between / (reps * n_between) - between) < 5 * math.sqrt(
        between * (1 - between) / (reps * n_between)
    )


def test_small_world_rewired_targets_avoid_loops_and_repeats():
    """The compiled rewiring keeps p * k simple edges and rewires about the given share."""
    p, k, rewire = 2000, 3, 0.2
    g = small_world(p, k, rewire, seed=5, backend="scipy")
    assert g.nnz == 2 * p * k and g.diagonal().sum() == 0 and g.max() == 1
    ring = {(min(i, (i + s) % p), max(i, (i + s) % p)) for i in range(p) for s in (1, 2, 3)}
    rows, cols = scipy.sparse.triu(g, 1).nonzero()
    kept = len(ring & set(zip(rows.tolist(), cols.tolist(), strict=True))) / len(ring)
    assert abs((1 - kept) - rewire) < 5 * math.sqrt(rewire * (1 - rewire) / len(ring))


def test_related_graphs_sparse_path_edits_exactly():
    base = erdos_renyi(1600, 0.002, seed=1)  # above 2**20 pairs: the sparse path
    assert 1600 * 1599 // 2 > _sparse.PAIRWISE_PAIRS
    base_edges = {(min(u, v), max(u, v)) for u, v in base.edges}
    graphs = related_graphs(base, 3, n_add=30, n_remove=10, seed=2)
    for k, g in enumerate(graphs):
        edges = {(min(u, v), max(u, v)) for u, v in g.edges}
        assert g.graph["index"] == k and list(g.nodes) == list(base.nodes)
        assert len(base_edges - edges) == 10 and len(edges - base_edges) == 30
    steps = related_graphs(base, 3, n_add=4, n_remove=4, mode="time", seed=2)
    for a, b in itertools.pairwise(steps):
        ea, eb = set(map(frozenset, a.edges)), set(map(frozenset, b.edges))
        assert len(ea - eb) == 4 and len(eb - ea) == 4
    again = related_graphs(base, 3, n_add=30, n_remove=10, seed=2, backend="scipy")
    assert [edges_of(x)[0] for x in again] == [edges_of(x)[0] for x in graphs]


def test_related_non_edges_are_uniform():
    p, keys = 8, np.array([1, 2, 3, 10, 20], dtype=np.int64)  # i * 8 + j, i < j
    rng = np.random.default_rng(0)
    hits: dict[int, int] = {}
    reps, n_add = 3000, 3
    for _ in range(reps):
        added = _related._non_edges(keys, p, n_add, rng)
        assert len(set(added.tolist())) == n_add and not set(added.tolist()) & set(keys.tolist())
        for x in added.tolist():
            hits[x] = hits.get(x, 0) + 1
    n_absent = p * (p - 1) // 2 - keys.size
    assert len(hits) == n_absent
    share = n_add / n_absent
    for count in hits.values():
        assert abs(count / reps - share) < 5 * math.sqrt(share * (1 - share) / reps)


# -- the memory guard and large graphs ---------------------------------------------------


def test_guard_estimates_from_nodes_and_edges(monkeypatch):
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: 2**30)
    _common.check_graph_memory("erdos_renyi", 10**6, 2.5e6, backend="scipy")  # ~0.4 GiB
    with pytest.raises(spdgraph.TooLargeError, match="a networkx graph of 1,000,000 nodes"):
        _common.check_graph_memory("erdos_renyi", 10**6, 2.5e6)
    with pytest.raises(spdgraph.TooLargeError, match="dense 1,000,000 x 1,000,000 adjacency"):
        erdos_renyi(10**6, 5e-6, seed=1, backend="numpy")  # the dense p x p refused first


@pytest.mark.parametrize(
    ("name", "call", "mean_degree"),
    [
        ("erdos_renyi", lambda p: erdos_renyi(p, 5 / (p - 1), seed=1, backend="scipy"), 5),
        ("band", lambda p: spdgraph.graphs.band(p, 2, backend="scipy"), 4),
        ("ar1", lambda p: spdgraph.graphs.ar1(p, backend="scipy"), 2),
        ("circle", lambda p: spdgraph.graphs.circle(p, backend="scipy"), 2),
        ("lattice", lambda p: spdgraph.graphs.lattice(p, backend="scipy"), 4),
        ("star", lambda p: spdgraph.graphs.star(p, backend="scipy"), 2),
        ("hub", lambda p: spdgraph.graphs.hub(p, backend="scipy"), 1.9),
        ("scale_free", lambda p: spdgraph.graphs.scale_free(p, seed=1, backend="scipy"), 2),
        ("small_world", lambda p: small_world(p, 2, 0.1, seed=1, backend="scipy"), 4),
        ("cluster", lambda p: cluster(p, prob=0.25, seed=1, backend="scipy"), 4.75),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_a_hundred_thousand_nodes_at_the_expected_mean_degree(name, call, mean_degree):
    p = 10**5
    g = call(p)
    assert g.shape == (p, p)
    mean = g.nnz / p
    assert abs(mean - mean_degree) < 0.05 * mean_degree, (name, mean)


# -- the command line ------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".npz", ".txt"])
def test_cli_writes_a_sparse_graph_that_reads_back(tmp_path, capsys, suffix):
    from spdgraph.cli import main
    from spdgraph.io import read_graph

    path = tmp_path / f"g{suffix}"
    code = main(["graph", "cluster", "--p", "50", "--seed", "4", "--sparse", "-o", str(path)])
    assert code == 0 and "sparse" in capsys.readouterr().out
    expected = cluster(50, seed=4, backend="scipy")
    got, nodes = edges_of(read_graph(path))
    assert nodes == 50 and got == edges_of(expected)[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary left


def test_cli_sparse_refuses_a_dense_format(tmp_path, capsys):
    from spdgraph.cli import main

    path = tmp_path / "g.csv"
    assert main(["graph", "band", "--p", "10", "--backend", "scipy", "-o", str(path)]) == 2
    assert "--sparse writes .npz" in capsys.readouterr().err and not path.exists()


def test_more_pairs_than_int64_positions_is_refused_without_a_memory_limit(monkeypatch):
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: None)
    with pytest.raises(spdgraph.TooLargeError, match="beyond the 2\\*\\*62"):
        erdos_renyi(2**40, 1e-12, seed=1, backend="scipy")
    with pytest.raises(spdgraph.TooLargeError, match="beyond the 2\\*\\*62"):
        cluster(2**40, 2, 0.0, seed=1, backend="scipy")


# -- the skipping paths at small p (the pairwise threshold lowered to 0) ------------------


@settings(max_examples=30, deadline=None)
@given(p=st.integers(2, 50), data=st.data(), seed=st.integers(0, 2**32))
def test_skipping_paths_keep_the_structure_of_the_pairwise_ones(p, data, seed):
    n_groups = data.draw(st.integers(1, p))
    d = data.draw(st.sampled_from([0.0, 0.3, 1.0]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_sparse, "PAIRWISE_PAIRS", 0)
        every = {(i, j) for i in range(p) for j in range(i + 1, p)}
        er = edges_of(erdos_renyi(p, d, seed=seed, backend="scipy"))[0]
        assert er == (every if d == 1.0 else set() if d == 0.0 else er & every)
        assert er == edges_of(erdos_renyi(p, d, seed=seed))[0]  # same in networkx
        within = cluster(p, n_groups, prob=1.0, seed=seed)
        group = {i: within.nodes[i]["group"] for i in range(p)}
        same = {(i, j) for i, j in every if group[i] == group[j]}
        assert edges_of(within)[0] == same
        between = cluster(p, n_groups, prob=0.0, prob_between=1.0, seed=seed)
        assert edges_of(between)[0] == every - same
        some = cluster(p, n_groups, prob=0.5, prob_between=0.1, seed=seed)
        assert (
            edges_of(some)[0]
            == edges_of(
                cluster(p, n_groups, prob=0.5, prob_between=0.1, seed=seed, backend="igraph")
            )[0]
        )


@pytest.mark.parametrize("p", [40, 1600])  # the pairwise draw, then the sparse edits
def test_related_graphs_take_a_sparse_base_as_its_networkx_twin(p):
    base = erdos_renyi(p, 3 / p, seed=3)
    sparse_base = erdos_renyi(p, 3 / p, seed=3, backend="scipy")
    a = related_graphs(base, 2, n_add=3, n_remove=2, seed=5)
    b = related_graphs(sparse_base, 2, n_add=3, n_remove=2, seed=5)
    assert [edges_of(x)[0] for x in a] == [edges_of(x)[0] for x in b]
    with pytest.raises(spdgraph.InvalidOptionError, match="square symmetric adjacency"):
        related_graphs(scipy.sparse.triu(sparse_base, 1).tocsr(), 2, seed=1)
