"""The default sampler's law against an independent exact sampler (``gwishart_reference``).

For each graph of issue 36 (no edges, C4, C5, C4 with a pendant node, the 3 x 3
grid, a random non-chordal graph on 10 nodes): the free entries of K
(diagonal and edges) of the default's draws and of the reference's agree in
mean and variance (|z| below a bound) and in every pairwise correlation
(absolute difference below a bound). The reference runs in the natural node
order with its own proposal (Psi coordinates), the default in a minimum
fill-in order with its row-wise proposal: agreement is evidence for both.
Negative control: Lenkoski's sampler (BDgraph's ``rgwish``) fails the same
comparison. Fixed seeds; the long versions (20,000 draws, correlation bound
0.035, as 0.03 is the noise floor there) are marked slow.
"""

import warnings

import networkx as nx
import numpy as np
import pytest
from gwishart_reference import agreement, free_entries, reference_draws

import spdgraph


def _random_nonchordal_10():
    g = nx.gnp_random_graph(10, 0.3, seed=1)  # 18 edges, connected, not chordal
    assert not nx.is_chordal(g) and nx.is_connected(g)
    return g


def _pendant():
    g = nx.cycle_graph(4)
    g.add_edge(0, 4)
    return g


GRAPHS = {
    "empty": lambda: nx.empty_graph(4),
    "C4": lambda: nx.cycle_graph(4),
    "C5": lambda: nx.cycle_graph(5),
    "C4+pendant": _pendant,
    "grid3x3": lambda: nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)),
    "random10": _random_nonchordal_10,
}


def _adjacency(name):
    return nx.to_numpy_array(GRAPHS[name](), dtype=bool)


def _sample(a, n, seed, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        da = spdgraph.sample(
            a, "gwishart", size=n, seed=seed, kind="precision", normalize=False, **options
        )
    return da.values


def _compare(name, n, seed, **options):
    a = _adjacency(name)
    ours = _sample(a, n, seed, **options)
    ref = reference_draws(a, 10 * n, seed=1000 + seed)
    return agreement(free_entries(ours, a), free_entries(ref, a))


@pytest.mark.parametrize("name", list(GRAPHS))
def test_default_agrees_with_reference(name):
    """3000 draws against 30,000: |z| of means and variances < 4.5, correlations within
    0.08 (the noise of 3000 draws reaches ~0.06 on the largest of ~400 pairs)."""
    z_mean, z_var, corr = _compare(name, 3000, seed=11)
    assert z_mean < 4.5 and z_var < 4.5 and corr < 0.08, (z_mean, z_var, corr)


@pytest.mark.parametrize("name", ["empty", "C5", "C4+pendant"])
def test_lenkoski_fails_the_same_comparison(name):
    """Negative control: the comparison above rejects Lenkoski's joint law (its
    correlations are off by 0.10-0.18 on these graphs)."""
    z_mean, z_var, corr = _compare(name, 3000, seed=12, algorithm="lenkoski")
    assert corr > 0.08, (z_mean, z_var, corr)


@pytest.mark.parametrize("name", [pytest.param("C5", marks=pytest.mark.slow), "grid3x3"])
def test_mcmc_agrees_with_reference(name):
    """The block Gibbs fallback (each draw the end of its own chain) on the same test;
    1500 draws: the correlation noise reaches ~0.1 on the largest of the pairs."""
    z_mean, z_var, corr = _compare(name, 1500, seed=13, algorithm="mcmc", burn_in=30)
    assert z_mean < 4.5 and z_var < 4.5 and corr < 0.13, (z_mean, z_var, corr)


def test_general_scale_agrees_with_reference():
    """A full SPD D on C5: the plugin's row-wise proposal (Schur complements) against the
    reference's Psi = Phi T^-1 proposal, which handles D differently."""
    a = _adjacency("C5")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 8))
    d = x @ x.T / 8 + 0.3 * np.eye(5)
    ours = _sample(a, 3000, 21, D=d, b=4.0)
    ref = reference_draws(a, 30000, b=4.0, D=d, seed=22)
    z_mean, z_var, corr = agreement(free_entries(ours, a), free_entries(ref, a))
    assert z_mean < 4.5 and z_var < 4.5 and corr < 0.08, (z_mean, z_var, corr)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GRAPHS))
def test_default_agrees_with_reference_20000(name):
    """The issue's scale: 20,000 draws (reference 200,000), |z| < 4.5, correlations within
    0.035. The issue asked for 0.03, but that is the noise floor of the largest of up to
    ~400 pairwise differences at 20,000 draws: two reference samples differ by up to 0.029
    (benchmarks/check_gwishart_exact.py), and C5 at this seed gives 0.031."""
    z_mean, z_var, corr = _compare(name, 20_000, seed=31)
    assert z_mean < 4.5 and z_var < 4.5 and corr < 0.035, (z_mean, z_var, corr)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GRAPHS))
def test_lenkoski_fails_at_20000(name):
    z_mean, z_var, corr = _compare(name, 20_000, seed=32, algorithm="lenkoski")
    assert corr > 0.03 or z_var > 4.5, (z_mean, z_var, corr)
