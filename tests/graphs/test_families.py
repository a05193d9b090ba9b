"""spdgraph.graphs families: the structure each promises, seeds, errors."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import DATA

import spdgraph
from spdgraph.graphs import (
    FAMILIES,
    ar1,
    ar2,
    band,
    circle,
    cluster,
    erdos_renyi,
    hub,
    lattice,
    scale_free,
    small_world,
    star,
)

RANDOM = {
    "cluster": lambda seed: cluster(30, 3, 0.4, prob_between=0.1, seed=seed),
    "erdos_renyi": lambda seed: erdos_renyi(30, 0.2, seed=seed),
    "hub": lambda seed: hub(30, 2, mode="bdgraph", seed=seed),
    "scale_free": lambda seed: scale_free(30, seed=seed),
    "small_world": lambda seed: small_world(30, 2, 0.3, seed=seed),
}


def degrees(g):
    return np.array([d for _, d in sorted(g.degree)])


def edge_set(g):
    return {(min(u, v), max(u, v)) for u, v in g.edges}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_families_reproducible_and_seed_sensitive(name):
    make = RANDOM[name]
    a, b = make(5), make(5)
    assert edge_set(a) == edge_set(b)
    assert a.graph == b.graph
    assert any(edge_set(make(s)) != edge_set(a) for s in (6, 7, 8))
    again = make(np.random.default_rng(1)), make(np.random.default_rng(1))
    assert edge_set(again[0]) == edge_set(again[1])
    assert a.graph["seed"] == "5"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_records_itself_and_samples(name):
    make = RANDOM.get(name, lambda seed: FAMILIES[name](16))
    g = make(0)
    assert list(g.nodes) == list(range(g.number_of_nodes()))
    assert g.graph["family"] == name
    assert g.graph["parameters"]["p"] == g.number_of_nodes()
    assert not any(u == v for u, v in g.edges)
    cov = spdgraph.sample(g, seed=1)
    adjacency = nx.to_numpy_array(g, nodelist=range(len(g)), dtype=bool)
    np.testing.assert_array_equal(cov["adjacency"].values, adjacency)


def test_star_circle_chains():
    g = star(7, center=3)
    assert g.degree[3] == 6 and all(g.degree[i] == 1 for i in range(7) if i != 3)
    assert set(degrees(circle(9))) == {2} and nx.is_connected(circle(9))
    assert sorted(ar1(5).edges) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert edge_set(ar2(9)) == edge_set(band(9, 2))
    assert ar1(1).number_of_edges() == 0


@given(p=st.integers(1, 40), b=st.integers(1, 45))
def test_band_holds_exactly_the_band(p, b):
    g = band(p, b)
    expected = {(i, j) for i in range(p) for j in range(i + 1, p) if j - i <= b}
    assert edge_set(g) == expected
    if b < p:
        assert g.number_of_edges() == (2 * p - 1 - b) * b // 2  # huge's edge count


@given(p=st.integers(1, 120), data=st.data())
def test_hub_huge_groups_and_members(p, data):
    n_hubs = data.draw(st.integers(1, p))
    g = hub(p, n_hubs)
    hubs = g.graph["hubs"]
    assert len(hubs) == n_hubs and g.number_of_edges() == p - n_hubs
    sizes = np.bincount([g.nodes[i]["group"] for i in range(p)])
    assert sizes.max() - sizes.min() <= 1 and list(sizes) == sorted(sizes)
    for h in hubs:  # each hub linked to exactly the rest of its group
        group = {i for i in range(p) if g.nodes[i]["group"] == g.nodes[h]["group"]}
        assert set(g[h]) == group - {h}
        assert min(group) == h
    assert all(g.degree[i] == 1 for i in range(p) if i not in hubs and sizes.max() > 1)


def test_hub_defaults_follow_huge_and_bdgraph():
    assert len(hub(40).graph["hubs"]) == 2
    assert len(hub(100).graph["hubs"]) == 5  # ceiling(100 / 20)
    g = hub(50, 3, mode="bdgraph", seed=2)
    for h in g.graph["hubs"]:
        assert g.degree[h] == 49
    assert len(hub(100, mode="bdgraph", seed=0).graph["hubs"]) == 5


@settings(max_examples=30)
@given(p=st.integers(2, 60), data=st.data(), seed=st.integers(0, 2**32))
def test_cluster_blocks(p, data, seed):
    n_groups = data.draw(st.integers(1, p))
    within_all = cluster(p, n_groups, prob=1.0, prob_between=0.0, seed=seed)
    group = {i: within_all.nodes[i]["group"] for i in range(p)}
    expected = {(i, j) for i in range(p) for j in range(i + 1, p) if group[i] == group[j]}
    assert edge_set(within_all) == expected  # all within, none between
    between_only = cluster(p, n_groups, prob=0.0, prob_between=1.0, seed=seed)
    assert edge_set(between_only) == {
        (i, j) for i in range(p) for j in range(i + 1, p) if group[i] != group[j]
    }
    some = cluster(p, n_groups, prob=0.5, seed=seed)
    assert all(group[u] == group[v] for u, v in some.edges)


def test_cluster_sizes_probabilities_and_defaults():
    g = cluster(10, sizes=[3, 7], prob=[1.0, 0.0], seed=0)
    assert edge_set(g) == {(0, 1), (0, 2), (1, 2)}
    assert g.graph["parameters"]["sizes"] == [3, 7]
    assert cluster(100).graph["parameters"]["n_groups"] == 5
    assert cluster(100).graph["parameters"]["prob"] == pytest.approx(0.3)  # huge's default
    assert cluster(30).graph["parameters"]["prob"] == pytest.approx(0.4)  # 6 g / p
    # the law: about prob of the within-group pairs are edges
    big = cluster(400, 2, prob=0.3, prob_between=0.02, seed=3)
    within = sum(1 for u, v in big.edges if big.nodes[u]["group"] == big.nodes[v]["group"])
    n_within = 2 * 200 * 199 // 2
    assert abs(within / n_within - 0.3) < 5 * math.sqrt(0.3 * 0.7 / n_within)


@given(rows=st.integers(1, 8), cols=st.integers(1, 8), extra=st.integers(0, 5))
def test_lattice_degrees(rows, cols, extra):
    p = rows * cols + extra
    g = lattice(p, shape=(rows, cols))
    assert g.number_of_edges() == rows * (cols - 1) + cols * (rows - 1)
    for r in range(rows):
        for c in range(cols):
            expected = (r > 0) + (r < rows - 1) + (c > 0) + (c < cols - 1)
            assert g.degree[c + r * cols] == expected
    assert all(g.degree[i] == 0 for i in range(rows * cols, p))


def test_lattice_default_shape_is_bdgraphs():
    assert lattice(16).graph["parameters"]["shape"] == [4, 4]
    assert lattice(10).graph["parameters"]["shape"] == [3, 3]
    with pytest.raises(spdgraph.InvalidOptionError, match="shape="):
        lattice(7)  # round(sqrt(7)) = 3: 9 > 7 nodes


def _sfgen_reference(p, u):
    """huge's C routine SFGen (d0 = 2) transcribed loop for loop, given its uniforms."""
    degree = [2, 2] + [0] * (p - 2)
    total, edges = 4, {(0, 1)}
    for i in range(2, p):
        x = total * u[i - 2]
        tmp, j = 0, 0
        while tmp < x and j < i:
            tmp += degree[j]
            j += 1
        j = max(j - 1, 0)
        edges.add((j, i))
        total += 2
        degree[j] += 1
        degree[i] += 1
    return edges


@given(p=st.integers(2, 60), seed=st.integers(0, 2**32))
def test_scale_free_is_huges_sfgen(p, seed):
    g = scale_free(p, seed=seed)
    u = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).random(p - 2)
    assert edge_set(g) == _sfgen_reference(p, u)
    assert nx.is_tree(g)


def test_scale_free_has_hubs():
    deg = degrees(scale_free(2000, seed=0))
    assert deg.max() > 30 and np.median(deg) == 1


@settings(max_examples=30)
@given(p=st.integers(3, 40), data=st.data(), seed=st.integers(0, 2**32))
def test_small_world_keeps_edge_count(p, data, seed):
    k = data.draw(st.integers(1, (p - 1) // 2))
    rewire = data.draw(st.floats(0.0, 1.0))
    g = small_world(p, k, rewire, seed=seed)
    assert g.number_of_edges() == p * k
    ring = small_world(p, k, 0.0, seed=seed)
    assert set(degrees(ring)) == {2 * k}
    assert edge_set(ring) == {
        (min(i, (i + s) % p), max(i, (i + s) % p)) for i in range(p) for s in range(1, k + 1)
    }


def test_erdos_renyi_unchanged_by_recording():
    g = erdos_renyi(12, 0.3, seed=4)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(4)))
    rows, cols = np.triu_indices(12, 1)
    keep = rng.random(rows.size) < 0.3
    assert edge_set(g) == set(zip(rows[keep].tolist(), cols[keep].tolist(), strict=True))
    assert g.graph["parameters"] == {"p": 12, "d": 0.3}


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: hub(0), "p must be an integer >= 1"),
        (lambda: hub(10, 11), "n_hubs must be an integer >= 1 and <= 10"),
        (lambda: hub(10, mode="igraph"), "mode must be one of"),
        (lambda: cluster(10, prob=1.5), r"prob must be a probability in \[0, 1\]"),
        (lambda: cluster(10, prob_between=-0.1), "prob_between"),
        (lambda: cluster(10, sizes=[3, 3]), "sizes must sum to p = 10"),
        (lambda: cluster(10, 3, sizes=[5, 5]), "n_groups = 3 but sizes gives 2"),
        (lambda: cluster(10, 2, prob=[0.1, 0.2, 0.3]), "one per group"),
        (lambda: band(5, 0), "bandwidth must be an integer >= 1"),
        (lambda: band(True), "p must be an integer"),
        (lambda: circle(2), "p must be an integer >= 3"),
        (lambda: star(5, center=5), "center must be an integer >= 0 and <= 4"),
        (lambda: lattice(5, shape=(2, 3)), "needs 6 nodes but p = 5"),
        (lambda: lattice(5, shape="2x3"), r"shape must be \(rows, cols\)"),
        (lambda: scale_free(1), "p must be an integer >= 2"),
        (lambda: small_world(10, 5), "neighbors must be an integer >= 1 and <= 4"),
        (lambda: small_world(10, 2, 2.0), "rewire must be a probability"),
        (lambda: small_world(10, 2, seed=-1), "seed must be non-negative"),
    ],
)
def test_bad_parameters_are_clear_errors(call, match):
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        call()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scale_free_step_conforms_to_r_huge(seed):
    """R huge 1.3.5's scale-free graph from its own uniforms (tests/data/huge_1.3.5)."""
    from spdgraph.graphs._growth import sfgen_edges

    data = DATA / "huge_1.3.5"
    theta = np.loadtxt(data / f"huge_scale_free_seed{seed}_theta.csv", delimiter=",")
    u = np.loadtxt(data / f"huge_scale_free_seed{seed}_u.csv")
    g = nx.Graph(sfgen_edges(40, u))
    np.testing.assert_array_equal(nx.to_numpy_array(g, nodelist=range(40)), theta)


@pytest.mark.parametrize(
    "name, graph",
    [
        ("lattice_p16", lambda: lattice(16)),
        ("lattice_p14_3x4", lambda: lattice(14, shape=(3, 4))),
        ("lattice_p11", lambda: lattice(11)),
        ("circle_p9", lambda: circle(9)),
        ("bdgraph_sim_AR1_p10", lambda: ar1(10)),
        ("bdgraph_sim_AR2_p10", lambda: ar2(10)),
        ("bdgraph_sim_circle_p10", lambda: circle(10)),
    ],
)
def test_deterministic_families_conform_to_r_bdgraph(name, graph):
    """R BDgraph 2.72's own graphs (tests/data/bdgraph_2.72/make_reference.R)."""
    expected = np.loadtxt(DATA / "bdgraph_2.72" / f"{name}.csv", delimiter=",")
    g = graph()
    np.testing.assert_array_equal(nx.to_numpy_array(g, nodelist=range(len(g))), expected)


def test_small_world_rewires_about_the_given_share():
    p, k, rewire = 500, 2, 0.3
    ring = {(min(i, (i + s) % p), max(i, (i + s) % p)) for i in range(p) for s in (1, 2)}
    kept = len(ring & edge_set(small_world(p, k, rewire, seed=11))) / len(ring)
    # an edge rewired away can come back only when a later edge is rewired onto it: rare
    assert abs((1 - kept) - rewire) < 5 * math.sqrt(rewire * (1 - rewire) / len(ring))


def test_deterministic_hub_refuses_a_seed():
    with pytest.raises(spdgraph.InvalidOptionError, match="not random"):
        hub(10, 2, seed=3)
    assert hub(10, 2, mode="bdgraph", seed=3).number_of_edges() > 0
