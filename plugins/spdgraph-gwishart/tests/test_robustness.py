"""Hostile inputs to gwishart (issue 49): no NaN on dense graphs, every loop bounded
before it starts, complex ``D`` refused.

* The block Gibbs fallback used to drift into an indefinite K (then NaN) on dense
  graphs: its Woodbury updates of ``K^-1`` lose accuracy with K's condition
  number (W_G(3, I) on 150 nodes at density 0.99 is nearly Wishart with
  ``df = p + 2``: smallest eigenvalues ~1e-3). Dense graphs now factor ``K_RR``
  directly (cheaper there, and accurate); the Woodbury path recomputes
  ``K^-1`` when a block loses positive definiteness and stops with a
  NumericalError rather than NaN. Both paths follow the same law (checked
  against the independent reference sampler).
* The cost of one matrix is estimated (pilot, flops) and refused above
  ``max_flops`` before any draw.
"""

import dataclasses
import warnings

import networkx as nx
import numpy as np
import pytest
from gwishart_reference import agreement, free_entries, reference_draws
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spdgraph_gwishart._mcmc_kernels import gibbs_sweeps
from spdgraph_gwishart.mcmc import mcmc_plan

import spdgraph


def _sample(graph, size, seed, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spdgraph.sample(
            graph, "gwishart", size=size, seed=seed, kind="precision", normalize=False, **options
        ).values


def _check_draws(k, adjacency):
    p = adjacency.shape[0]
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(np.isfinite(k))
    assert np.all(k[:, nonedge] == 0.0)
    assert np.array_equal(k, np.swapaxes(k, -1, -2))
    assert np.all(np.linalg.eigvalsh(k)[:, 0] > 0)


# ----------------------------------------------------------------------- no NaN, dense graphs


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    p=st.integers(4, 14),
    density=st.floats(0.6, 0.995),
    graph_seed=st.integers(0, 2**31 - 1),
    seed=st.integers(0, 2**63 - 1),
    b=st.sampled_from([3.0, 3.5, 5.0]),
)
def test_dense_random_graphs_give_finite_spd_draws(p, density, graph_seed, seed, b):
    """The default (chordal, exact or the MCMC fallback) on dense random graphs: finite,
    exactly symmetric, exact zeros, positive definite, same seed same bits."""
    g = nx.gnp_random_graph(p, density, seed=graph_seed)
    a = nx.to_numpy_array(g, dtype=bool)
    k = _sample(a, 2, seed, b=b)
    _check_draws(k, a)
    assert np.array_equal(k, _sample(a, 2, seed, b=b))
    mc = _sample(a, 2, seed, b=b, algorithm="mcmc", burn_in=20)
    _check_draws(mc, a)


def _kernel(plan, direct):
    a = plan.kernel
    if direct == a[7]:
        return a
    p = plan.start.shape[0]
    clique_ptr, clique_idx = a[0], a[1]
    rests = [
        np.setdiff1d(np.arange(p), clique_idx[clique_ptr[c] : clique_ptr[c + 1]])
        for c in range(clique_ptr.size - 1)
    ]
    rest_ptr = np.concatenate(([0], np.cumsum([r.size for r in rests]))).astype(np.int64)
    rest_idx = np.concatenate(rests).astype(np.int64)
    return (*a[:5], rest_ptr, rest_idx, direct)


def _chains(adjacency, n, sweeps, direct, seed, b=3.0):
    p = adjacency.shape[0]
    plan = mcmc_plan(adjacency, b, np.eye(p), None)
    kernel = _kernel(plan, direct)
    rng = np.random.default_rng(seed)
    out = np.empty((n, p, p))
    oks = []
    for t in range(n):
        k = plan.start.copy()
        oks.append(gibbs_sweeps(rng, k, *kernel[:5], sweeps, *kernel[5:]))
        out[t] = k
    return out, np.array(oks)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    p=st.integers(5, 16),
    density=st.floats(0.7, 0.995),
    graph_seed=st.integers(0, 2**31 - 1),
    seed=st.integers(0, 2**32 - 1),
)
def test_woodbury_path_never_returns_nan(p, density, graph_seed, seed):
    """Forced onto the Woodbury path (the one that drifted), a chain on a dense graph ends
    positive definite or reports failure: never NaN, never a silent indefinite K."""
    a = nx.to_numpy_array(nx.gnp_random_graph(p, density, seed=graph_seed), dtype=bool)
    k, ok = _chains(a, 3, 30, False, seed)
    assert np.all(np.isfinite(k))
    for matrix, good in zip(k, ok, strict=True):
        if good:
            assert np.linalg.eigvalsh(matrix)[0] > 0


@pytest.mark.parametrize("direct", [True, False])
def test_both_clique_updates_follow_the_law(direct):
    """Direct (K_RR factor) and Woodbury updates against the independent exact reference
    on the 3 x 3 grid: 1500 chains of 30 sweeps each, the bounds of test_exact_law."""
    a = nx.to_numpy_array(nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)), dtype=bool)
    k, ok = _chains(a, 1500, 30, direct, seed=5 + int(direct))
    assert ok.all()
    ref = reference_draws(a, 15_000, seed=7)
    z_mean, z_var, corr = agreement(free_entries(k, a), free_entries(ref, a))
    assert z_mean < 4.5 and z_var < 4.5 and corr < 0.13, (z_mean, z_var, corr)


def test_dense_graphs_use_the_direct_update():
    a = nx.to_numpy_array(nx.gnp_random_graph(30, 0.95, seed=1), dtype=bool)
    assert mcmc_plan(a, 3.0, np.eye(30), None).direct
    sparse = nx.to_numpy_array(nx.cycle_graph(40), dtype=bool)
    assert not mcmc_plan(sparse, 3.0, np.eye(40), None).direct


@pytest.mark.slow
def test_issue_49_dense_150_node_reproducer():
    """The reproducer of issue 49 (raised LinAlgError: infs or NaNs before)."""
    g = nx.gnp_random_graph(150, 0.987022412387417, seed=1751638238)
    with pytest.warns(UserWarning):
        cov = spdgraph.sample(
            g, "gwishart", seed=6572021564207773131, size=2, kind="covariance", normalize=False
        )
    assert np.all(np.isfinite(cov.values))
    k = _sample(g, 2, 6572021564207773131)
    _check_draws(k, nx.to_numpy_array(g, dtype=bool))


def test_numerically_singular_chain_is_a_clear_error(monkeypatch):
    """A chain that reports failure becomes a NumericalError naming b and D."""
    import spdgraph_gwishart.mcmc as mcmc

    plan = mcmc_plan(nx.to_numpy_array(nx.cycle_graph(5), dtype=bool), 3.0, np.eye(5), 40)
    monkeypatch.setattr(mcmc, "gibbs_sweeps", lambda *args: False)
    with pytest.raises(spdgraph.NumericalError, match="larger b"):
        mcmc._run_chain(np.random.default_rng(0), plan.start.copy(), plan.kernel, 1)


# ----------------------------------------------------------------------- loops bounded


TINY = nx.gnp_random_graph(50, 0.9, seed=2)  # exact acceptance ~1e-11


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"algorithm": "mcmc", "burn_in": 10**12}, r"burn_in=1,000,000,000,000.*smaller burn_in"),
        ({"algorithm": "exact"}, r"acceptance.*algorithm='exact' forced it.*algorithm='auto'"),
        ({"min_acceptance": 0.0}, r"min_acceptance=0 let algorithm='auto'.*raise min_acceptance"),
        ({"algorithm": "mcmc", "burn_in": 10**6, "max_flops": 1e6}, r"max_flops=1e\+06"),
    ],
)
def test_extreme_costs_refused_before_any_draw(options, match, monkeypatch):
    """Each is refused from the pilot's estimate alone: no draw is attempted."""
    import spdgraph_gwishart.exact as exact
    import spdgraph_gwishart.mcmc as mcmc

    def no_draw(*args, **kwargs):  # pragma: no cover - reached only on a regression
        raise AssertionError("a draw was attempted")

    # the plugin imports its samplers at the call: patch them where they live
    monkeypatch.setattr(exact, "accept_reject_gwishart", no_draw)
    monkeypatch.setattr(mcmc, "mcmc_gwishart", no_draw)
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        _sample(TINY, 1, 0, **options)


def test_cost_within_the_bound_is_drawn():
    from spdgraph_gwishart.plugin import check_cost

    a = nx.to_numpy_array(nx.cycle_graph(6), dtype=bool)
    assert 0 < check_cost(a, 3.0, np.eye(6), "exact") < 1e6
    assert 0 < check_cost(a, 3.0, np.eye(6), "mcmc", burn_in=50) < 1e9
    _check_draws(_sample(a, 2, 0, algorithm="mcmc", burn_in=50), a)


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), "many"])
def test_bad_max_flops(value):
    with pytest.raises(spdgraph.SpdgraphError, match="max_flops"):
        _sample(nx.cycle_graph(5), 1, 0, max_flops=value)


# ----------------------------------------------------------------------- complex D


@pytest.mark.parametrize(
    "d",
    [
        np.eye(3) + 0.5j * np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 0]]),  # Hermitian
        np.eye(3).astype(complex),  # zero imaginary part: still refused
        [[1 + 0j, 0, 0], [0, 1, 0], [0, 0, 1]],
        np.array([[1, 0, 0], [0, 1j, 0], [0, 0, 1]], dtype=object),
        2 + 1j,
    ],
)
def test_complex_d_refused(d):
    with pytest.raises(spdgraph.InvalidOptionError, match=r"D must be (a )?real"):
        _sample(nx.cycle_graph(3), 1, 0, D=d)


def test_real_object_d_accepted():
    k = _sample(nx.cycle_graph(3), 1, 0, D=(2.0 * np.eye(3)).astype(object))
    assert np.all(np.isfinite(k))


def test_record_of_kernel_modes_is_consistent():
    """The plan's kernel carries the flag the chain runs with."""
    plan = mcmc_plan(nx.to_numpy_array(nx.cycle_graph(5), dtype=bool), 3.0, np.eye(5), None)
    assert plan.kernel[7] is plan.direct
    assert dataclasses.replace(plan, burn_in=7).burn_in == 7
