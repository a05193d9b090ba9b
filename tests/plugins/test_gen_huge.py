"""method="huge": R huge.generator's rule given the graph, against a line-by-line transcription."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import DATA, cov2cor, huge_reference, huge_rounding_bound, random_adjacency

import spdgraph
from spdgraph import cli


def _rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize(
    "graph",
    [
        spdgraph.graphs.hub(30, 3),
        spdgraph.graphs.band(25, 3),
        spdgraph.graphs.cluster(40, 2, 0.4, seed=1),
        spdgraph.graphs.scale_free(35, seed=2),
        spdgraph.graphs.erdos_renyi(30, 0.3, seed=3),
        nx.complete_graph(6),
        nx.empty_graph(4),
    ],
    ids=["hub", "band", "cluster", "scale_free", "random", "complete", "empty"],
)
@pytest.mark.parametrize("v, u", [(0.3, 0.1), (0.5, 0.0), (-0.2, 1.5)])
def test_matches_huge_generator(graph, v, u):
    adjacency = nx.to_numpy_array(graph, nodelist=sorted(graph), dtype=bool)
    start, sigma, omega = huge_reference(adjacency, v, u)
    opts = dict(kind="precision", normalize=False, v=v, u=u)
    bound = huge_rounding_bound(start, omega)  # two programs: rounding, by the condition
    raw = spdgraph.sample(adjacency, "huge", unit_variance=False, **opts).values
    assert _rel(raw, start) <= bound  # huge's Omega before its rescaling
    returned = spdgraph.sample(adjacency, "huge", **opts)
    assert _rel(returned.values, omega) <= bound  # huge's $omega
    assert _rel(returned.spd.inverse().values, sigma) <= bound  # huge's $sigma
    # normalize=True (the default): the unit-diagonal form, the same partial correlations
    unit = spdgraph.sample(adjacency, "huge", kind="precision", v=v, u=u).values
    assert _rel(unit, cov2cor(omega)) <= bound
    # the diagonal before the rescaling is constant: |lambda_min| + 0.1 + u
    assert np.all(np.diag(raw) == raw[0, 0]) and raw[0, 0] >= 0.1 + u


@settings(max_examples=40)
@given(
    p=st.integers(1, 30),
    d=st.floats(0, 1),
    graph_seed=st.integers(0, 2**32 - 1),
    v=st.floats(-2, 2).filter(lambda x: abs(x) > 1e-3),
    u=st.floats(0, 3),
    unit_variance=st.booleans(),
    kind=st.sampled_from(["covariance", "precision"]),
)
def test_exact_zeros_symmetric_pd_for_any_options(p, d, graph_seed, v, u, unit_variance, kind):
    adjacency = random_adjacency(p, d, np.random.default_rng(graph_seed))
    m = spdgraph.sample(
        adjacency, "huge", kind=kind, normalize=False, v=v, u=u, unit_variance=unit_variance
    ).values
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(m[nonedge] == 0.0) and np.all(m[adjacency] != 0.0)
    assert np.array_equal(m, m.T)
    assert np.all(np.sign(m[adjacency]) == np.sign(v))
    np.linalg.cholesky(m)
    # smallest eigenvalue of Omega is 0.1 + u (to rounding), before the rescaling
    if not unit_variance:
        assert np.linalg.eigvalsh(m)[0] == pytest.approx(0.1 + u, abs=1e-9 * (1 + abs(v) * p))


def test_deterministic_stack_of_one_matrix():
    g = spdgraph.graphs.hub(12, 2)
    stack = spdgraph.sample(g, "huge", size=4, seed=1).values
    other_seed = spdgraph.sample(g, "huge", seed=99).values
    for k in range(4):
        np.testing.assert_array_equal(stack[k], other_seed)
    lazy = spdgraph.sample(g, "huge", size=4, seed=1, chunks=3)
    np.testing.assert_array_equal(lazy.values, stack)


def test_listed_with_options_and_bad_options_refused():
    assert "huge" in spdgraph.methods()
    gen, plugin = spdgraph.plugins.find_generator("huge")
    assert plugin == "spdgraph.plugins._builtin.gen_huge"
    assert gen.defaults == {"v": 0.3, "u": 0.1, "unit_variance": True}
    g = nx.path_graph(4)
    with pytest.raises(spdgraph.InvalidOptionError, match="v = 0 would put no weight"):
        spdgraph.sample(g, "huge", v=0.0)
    with pytest.raises(spdgraph.InvalidOptionError, match="u"):
        spdgraph.sample(g, "huge", u=-0.5)
    with pytest.raises(spdgraph.InvalidOptionError, match="v"):
        spdgraph.sample(g, "huge", v=float("nan"))
    with pytest.raises(spdgraph.UnknownOptionError, match="prob"):
        spdgraph.sample(g, "huge", prob=0.2)


def test_command_line(tmp_path, capsys):
    graph, out = tmp_path / "g.txt", tmp_path / "m.nc"
    assert cli.main(["graph", "band", "--p", "10", "--bandwidth", "2", "-o", str(graph)]) == 0
    argv = ["sample", str(graph), "--method", "huge", "--kind", "precision"]
    argv += ["--option", "v=0.4", "--no-normalize", "-o", str(out)]
    assert cli.main(argv) == 0, capsys.readouterr().err
    m = spdgraph.open(out)
    adjacency = nx.to_numpy_array(spdgraph.graphs.band(10, 2), dtype=bool)
    # R's omega = solve(sigma) has rounding noise (~1e-16) where spdgraph's zeros are exact
    start, _, omega = huge_reference(adjacency, v=0.4)
    assert _rel(m.values, omega) <= huge_rounding_bound(start, omega)
    assert m.attrs["method"] == "huge"


HUGE_DATA = DATA / "huge_1.3.5"


@pytest.mark.parametrize(
    "name, graph, options",
    [
        ("band", spdgraph.graphs.band(12, 2), {}),
        ("hub", spdgraph.graphs.hub(12, 3), {}),
        ("band_v05_u02", spdgraph.graphs.band(12, 1), {"v": 0.5, "u": 0.2}),
    ],
)
def test_conforms_to_r_huge(name, graph, options):
    """R huge 1.3.5's own output (tests/data/huge_1.3.5/make_reference.R, d = 12)."""

    def load(what):
        return np.loadtxt(HUGE_DATA / f"huge_{name}_{what}.csv", delimiter=",")

    theta = load("theta")
    np.testing.assert_array_equal(nx.to_numpy_array(graph, nodelist=range(12)), theta)
    omega = spdgraph.sample(graph, "huge", kind="precision", normalize=False, **options)
    # R (any BLAS and LAPACK) and spdgraph agree to rounding, bounded by the condition
    bound = huge_rounding_bound(huge_reference(theta, **options)[0], load("omega"))
    assert _rel(omega.values, load("omega")) <= bound
    assert _rel(omega.spd.inverse().values, load("sigma")) <= bound


def test_covariance_kind_is_noted_once(monkeypatch):
    import warnings

    from spdgraph.sampling import _request

    monkeypatch.setattr(_request, "_KIND_NOTES_SHOWN", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = spdgraph.sample(nx.path_graph(4), "huge")
        second = spdgraph.sample(nx.path_graph(4), "huge")
        precision = spdgraph.sample(nx.path_graph(4), "huge", kind="precision")
    notes = [w for w in caught if "kind='precision'" in str(w.message)]
    assert len(notes) == 1 and notes[0].filename == __file__  # once, at the caller
    assert "R huge users" in first.attrs["kind_note"] == second.attrs["kind_note"]
    assert "kind_note" not in precision.attrs
