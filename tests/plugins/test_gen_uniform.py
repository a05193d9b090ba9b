"""``method="uniform"`` and ``method="port_chol"`` (gmat's chol_mh / mh_u and port_chol).

Statistical tests have known answers: on the complete graph with p nodes each
correlation is Beta(p/2, p/2) on [-1, 1]; on a star with m leaves (a chordal
graph) the uniform distribution is the unit ball of R^m, so each correlation is
Beta((m+1)/2, (m+1)/2); against the rejection sampler of tests/reference.py for
any small graph. Seeds are fixed: the tests are deterministic.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency, uniform_correlation_reference
from scipy import stats

import spdgraph
from spdgraph._kernels import chol_uniform as ku
from spdgraph._kernels import chordal
from spdgraph.errors import GraphError, InvalidOptionError
from spdgraph.plugins._builtin.gen_uniform import DEFAULT_BURN_IN, DEFAULT_STEP, chordal_cover

ALPHA = 1e-3  # smallest p-value accepted, per test (fixed seeds: no flakiness)


def _edge_values(m: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    return m[:, rows, cols]


def _complete(p: int) -> np.ndarray:
    return ~np.eye(p, dtype=bool)


def _star(leaves: int) -> np.ndarray:
    a = np.zeros((leaves + 1, leaves + 1), dtype=bool)
    a[0, 1:] = a[1:, 0] = True
    return a


@pytest.mark.parametrize("sampler", ["mh", "exact", "onion"])
def test_complete_graph_p4_marginals_are_beta_2_2(sampler):
    a = _complete(4)
    m = spdgraph.sample(a, "uniform", seed=11, size=1500, sampler=sampler).values
    beta = stats.beta(2, 2, loc=-1, scale=2)
    for values in _edge_values(m, a).T:
        assert stats.kstest(values, beta.cdf).pvalue > ALPHA


@pytest.mark.parametrize("sampler", ["mh", "exact"])
def test_star_marginals_are_those_of_the_unit_ball(sampler):
    a = _star(4)  # chordal, not complete: row powers and lengths differ from LKJ's
    m = spdgraph.sample(a, "uniform", seed=12, size=1500, sampler=sampler).values
    beta = stats.beta(2.5, 2.5, loc=-1, scale=2)
    for values in _edge_values(m, a).T:
        assert stats.kstest(values, beta.cdf).pvalue > ALPHA


@pytest.mark.parametrize("sampler", ["mh", "exact"])
def test_against_the_rejection_reference_on_a_chordal_graph(sampler):
    # two triangles sharing an edge plus a pendant node: chordal, 6 edges
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (1, 3), (2, 3), (3, 4)])
    a = nx.to_numpy_array(g, nodelist=range(5), dtype=bool)
    ref = uniform_correlation_reference(a, 1500, np.random.default_rng(5))
    m = spdgraph.sample(a, "uniform", seed=13, size=1500, sampler=sampler).values
    for ours, theirs in zip(_edge_values(m, a).T, _edge_values(ref, a).T, strict=True):
        assert stats.ks_2samp(ours, theirs).pvalue > ALPHA
    # and the log-determinant, a statistic of the whole matrix
    assert stats.ks_2samp(np.linalg.slogdet(m)[1], np.linalg.slogdet(ref)[1]).pvalue > ALPHA


def test_chain_is_stationary_over_seeds():
    """Longer chains give the same law (p = 20: rows of up to 20 entries, powers up to 20)."""
    a = _complete(20)
    short = spdgraph.sample(a, "uniform", seed=1, size=250).values
    long = spdgraph.sample(a, "uniform", seed=2, size=250, burn_in=1500).values
    exact = spdgraph.sample(a, "uniform", seed=3, size=250, sampler="onion").values
    for i, j in [(0, 1), (0, 19), (9, 10), (18, 19)]:
        assert stats.ks_2samp(short[:, i, j], long[:, i, j]).pvalue > ALPHA
        assert stats.ks_2samp(short[:, i, j], exact[:, i, j]).pvalue > ALPHA
    logdet = [np.linalg.slogdet(x)[1] for x in (short, long, exact)]
    assert stats.ks_2samp(logdet[0], logdet[2]).pvalue > ALPHA
    assert stats.ks_2samp(logdet[1], logdet[2]).pvalue > ALPHA


def _chains(rng, k, power, steps, sd, start):
    """Final pole^2 of 400 independent chains on S^{k-1}_+ with density x[-1]^power."""
    out = []
    for _ in range(400):
        x0 = start(rng)
        noise = sd * rng.standard_normal((steps, k))
        x, _ = ku.mh_hemisphere(x0, noise, np.log(rng.random(steps)), power)
        out.append(x[-1] ** 2)
    return np.array(out)


def test_gmat_chain_settings_do_not_mix_from_gmat_start_ours_do():
    """gmat's mh_sphere (start uniform on the hemisphere, h = 100 steps of eps = 0.01) is
    far from its target after burn-in for one independent chain; spdgraph's defaults are not.
    Row with k = 12 entries and power 20: pole^2 ~ Beta(10.5, 5.5)."""
    k, power = 12, 20.0
    target = stats.beta((power + 1) / 2, (k - 1) / 2)
    rng = np.random.default_rng(0)

    def gmat_start(rng):
        x = rng.standard_normal(k)
        x[-1] = abs(x[-1])
        return x / np.linalg.norm(x)

    gmat = _chains(rng, k, power, 100, 0.01, gmat_start)
    assert stats.kstest(gmat, target.cdf).pvalue < 1e-10

    def our_start(rng):
        return ku.exact_row((power + 1) / (power + k), rng.standard_normal(k - 1))

    sd = DEFAULT_STEP / np.sqrt(k * (1 + power))
    ours = _chains(rng, k, power, DEFAULT_BURN_IN, sd, our_start)
    assert stats.kstest(ours, target.cdf).pvalue > ALPHA
    # and from gmat's start, our proposals reach the target within the burn-in too
    ours_from_gmat = _chains(rng, k, power, DEFAULT_BURN_IN, sd, gmat_start)
    assert stats.kstest(ours_from_gmat, target.cdf).pvalue > ALPHA


def test_mh_kernel_keeps_unit_norm_and_a_positive_pole():
    rng = np.random.default_rng(3)
    start = ku.exact_row(0.5, rng.standard_normal(9))
    x, accepted = ku.mh_hemisphere(
        start, 0.3 * rng.standard_normal((400, 10)), np.log(rng.random(400)), 5.0
    )
    assert 0 < accepted < 400
    assert abs(np.linalg.norm(x) - 1.0) < 1e-12 and x[-1] > 0


chordal_graphs = st.builds(
    lambda p, d, s: chordal_cover(random_adjacency(p, d, np.random.default_rng(s)), "min_degree")[
        0
    ],
    st.integers(1, 25),
    st.floats(0.0, 0.6),
    st.integers(0, 2**32 - 1),
)


@settings(max_examples=40, deadline=None)
@given(
    adjacency=chordal_graphs, sampler=st.sampled_from(["mh", "exact"]), seed=st.integers(0, 2**32)
)
def test_exact_zeros_pd_unit_diagonal_and_reproducible(adjacency, sampler, seed):
    kw = {"seed": seed, "sampler": sampler, "burn_in": 50}
    stack = spdgraph.sample(adjacency, "uniform", size=2, normalize=False, **kw).values
    one = spdgraph.sample(adjacency, "uniform", normalize=False, **kw).values
    np.testing.assert_array_equal(stack[0], one)
    p = adjacency.shape[0]
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    for m in stack:
        assert np.array_equal(m, m.T) and np.all(m[nonedge] == 0.0)
        assert np.all(np.diag(m) == 1.0)  # a correlation matrix even with normalize=False
        assert np.all(np.abs(m[adjacency]) < 1.0) and np.all(m[adjacency] != 0.0)
        np.linalg.cholesky(m)


@settings(max_examples=60, deadline=None)
@given(p=st.integers(1, 30), d=st.floats(0.0, 1.0), s=st.integers(0, 2**32 - 1))
def test_chordality_test_and_triangulation_agree_with_networkx(p, d, s):
    a = random_adjacency(p, d, np.random.default_rng(s))
    g = nx.from_numpy_array(a.astype(int))
    order = ku.perfect_elimination_order(a)
    assert (order is not None) == nx.is_chordal(g)
    cover, elimination = ku.min_degree_triangulation(a)
    assert np.all(cover[a]) and np.array_equal(cover, cover.T) and not cover.diagonal().any()
    assert nx.is_chordal(nx.from_numpy_array(cover.astype(int)))
    assert not chordal._has_fill_in(cover, elimination)
    assert sorted(elimination.tolist()) == list(range(p))


def test_non_chordal_graph_names_port_chol():
    with pytest.raises(GraphError, match="port_chol") as info:
        spdgraph.sample(nx.cycle_graph(5), "uniform", seed=0)
    assert "complete_to_chordal_graph" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "method, options, match",
    [
        ("uniform", {"sampler": "onion"}, "complete graphs only"),
        ("uniform", {"sampler": "gibbs"}, "one of"),
        ("uniform", {"burn_in": -1}, "burn_in"),
        ("uniform", {"step": 0.0}, "step"),
        ("port_chol", {"sampler": "onion"}, "one of"),
        ("port_chol", {"triangulation": "best"}, "one of"),
    ],
)
def test_bad_options_are_refused(method, options, match):
    with pytest.raises(InvalidOptionError, match=match):
        spdgraph.sample(nx.path_graph(4), method, seed=0, **options)


def test_onion_matches_the_exact_sampler():
    a = _complete(6)
    onion = spdgraph.sample(a, "uniform", seed=4, size=800, sampler="onion").values
    exact = spdgraph.sample(a, "uniform", seed=5, size=800, sampler="exact").values
    for ours, theirs in zip(_edge_values(exact, a).T, _edge_values(onion, a).T, strict=True):
        assert stats.ks_2samp(ours, theirs).pvalue > ALPHA


@pytest.mark.parametrize("sampler", ["mh", "exact"])
def test_port_chol_on_a_chordal_graph_is_the_uniform_matrix(sampler):
    """The cover of a chordal graph is the graph: PO has nothing to remove."""
    g = nx.complete_to_chordal_graph(spdgraph.graphs.erdos_renyi(15, 0.3, seed=2))[0]
    kw = {"seed": 6, "sampler": sampler, "size": 3}
    uniform = spdgraph.sample(g, "uniform", **kw).values
    port = spdgraph.sample(g, "port_chol", **kw).values
    np.testing.assert_allclose(port, uniform, rtol=0, atol=1e-12)


@pytest.mark.parametrize("triangulation", ["min_degree", "networkx"])
def test_port_chol_zeros_on_non_chordal_graphs(triangulation):
    g = spdgraph.graphs.erdos_renyi(30, 0.15, seed=8)
    a = spdgraph.adapt_graph(g).adjacency
    assert ku.perfect_elimination_order(a) is None
    m = spdgraph.sample(g, "port_chol", seed=3, size=2, triangulation=triangulation).values
    nonedge = ~a & ~np.eye(30, dtype=bool)
    assert np.all(m[:, nonedge] == 0.0) and np.all(m[:, a] != 0.0)
    assert np.all(np.linalg.eigvalsh(m)[:, 0] > 0)


def test_port_chol_on_a_cycle_keeps_the_uniform_cover_law_on_the_first_edge():
    """Sanity: port_chol is a correlation matrix with strong links (not uniform on the cycle)."""
    m = spdgraph.sample(nx.cycle_graph(6), "port_chol", seed=1, size=300, sampler="exact").values
    a = spdgraph.adapt_graph(nx.cycle_graph(6)).adjacency
    values = _edge_values(m, a)
    assert np.all(np.abs(values) < 1.0)
    assert np.mean(np.abs(values)) > 0.2  # links stay strong (DD would give far less)


@pytest.mark.parametrize("method", ["uniform", "port_chol"])
def test_listed_and_described(method):
    assert method in spdgraph.methods()
    da = spdgraph.sample(nx.path_graph(["a", "b", "c"]), method, seed=1)
    assert da.node.values.tolist() == ["a", "b", "c"] and da.attrs["method"] == method


@pytest.mark.slow
@pytest.mark.parametrize("p", [50, 120])
def test_large_complete_graph_mh_against_onion(p):
    a = _complete(p)
    mh = spdgraph.sample(a, "uniform", seed=21, size=400).values
    onion = spdgraph.sample(a, "uniform", seed=22, size=400, sampler="onion").values
    for i, j in [(0, 1), (0, p - 1), (p // 2, p // 2 + 1), (p - 2, p - 1)]:
        assert stats.ks_2samp(mh[:, i, j], onion[:, i, j]).pvalue > ALPHA
    assert stats.ks_2samp(np.linalg.slogdet(mh)[1], np.linalg.slogdet(onion)[1]).pvalue > ALPHA


def test_cli_samples_uniform_and_port_chol(tmp_path, capsys):
    from spdgraph import cli

    pytest.importorskip("netCDF4")
    (tmp_path / "path.txt").write_text("a b\nb c\nc d\n")  # a path: chordal
    (tmp_path / "cycle.txt").write_text("a b\nb c\nc d\nd a\n")  # a 4-cycle: not chordal
    argv = ["sample", tmp_path / "path.txt", "--method", "uniform", "--size", "3", "--seed", "5"]
    argv += ["--option", "sampler='exact'", "-o", tmp_path / "u.nc"]
    assert cli.main([str(a) for a in argv]) == 0
    da = spdgraph.open(tmp_path / "u.nc")
    ref = spdgraph.sample(nx.path_graph(list("abcd")), "uniform", size=3, seed=5, sampler="exact")
    np.testing.assert_array_equal(da.values, ref.values)
    assert da.attrs["method_options"]  # the sampler is recorded
    argv = [
        "sample",
        tmp_path / "cycle.txt",
        "-m",
        "port_chol",
        "--seed",
        "1",
        "-o",
        tmp_path / "p.nc",
    ]
    assert cli.main([str(a) for a in argv]) == 0
    assert spdgraph.open(tmp_path / "p.nc").attrs["method"] == "port_chol"
    argv = ["sample", tmp_path / "cycle.txt", "-m", "uniform", "-o", tmp_path / "x.nc"]
    assert cli.main([str(a) for a in argv]) == 2
    assert "port_chol" in capsys.readouterr().err


def _gmat_mh_sphere_rule(start, noise, uniforms, power):
    """gmat's mh_sphere step, transcribed as a plain loop (its pole is the first coordinate)."""
    x = start.copy()
    for t in range(noise.shape[0]):
        prop = x + noise[t]
        prop = prop / np.sqrt(np.sum(prop**2))
        if prop[0] > 0 and np.log(uniforms[t]) <= power * np.log(prop[0]) - power * np.log(x[0]):
            x = prop
    return x


def test_mh_kernel_is_gmat_rule_given_the_same_draws():
    rng = np.random.default_rng(7)
    for k, power in [(2, 1.0), (5, 3.0), (12, 20.0)]:
        start = ku.exact_row(0.6, rng.standard_normal(k - 1))
        noise, uniforms = 0.05 * rng.standard_normal((300, k)), rng.random(300)
        ours, _ = ku.mh_hemisphere(start, noise, np.log(uniforms), power)
        flip = slice(None, None, -1)  # gmat's pole first, ours last
        theirs = _gmat_mh_sphere_rule(start[flip], noise[:, flip], uniforms, power)
        np.testing.assert_allclose(ours, theirs[flip], rtol=0, atol=1e-14)


def test_row_lengths_and_powers_are_gmat_mh_u_on_the_complete_graph():
    """gmat: row i (1-based) of the upper factor has p - i + 1 entries and power i."""
    p = 6
    a = _complete(p)
    pa, powers = ku.earlier_neighbours(a, ku.perfect_elimination_order(a))
    ours = sorted((parents.size + 1, power) for parents, power in zip(pa, powers, strict=True))
    gmat = sorted((p - i + 1, float(i)) for i in range(1, p + 1))
    assert ours == gmat
