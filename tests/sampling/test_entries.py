"""entries: names, callables, frozen scipy.stats distributions, and negative_share."""

import networkx as nx
import numpy as np
import pytest
import scipy.stats
from reference import dd_reference

import spdgraph
from spdgraph.sampling._entries import resolve_entries
from spdgraph.seeds import child_generator, seed_sequence

G = nx.erdos_renyi_graph(15, 0.4, seed=2)
ADJ = nx.to_numpy_array(G, dtype=bool)
N_EDGES = int(np.triu(ADJ, 1).sum())


def _rng(seed):
    return child_generator(seed_sequence(seed), 0)


def test_frozen_distribution_drives_dd_exactly():
    dist = scipy.stats.norm(loc=1.0, scale=2.0)
    da = spdgraph.sample(G, "dd", seed=11, normalize=False, entries=dist)
    rng = _rng(11)
    edges = dist.rvs(size=(N_EDGES,), random_state=rng)
    pert = dist.rvs(size=(15,), random_state=rng)
    np.testing.assert_allclose(da.values, dd_reference(ADJ, edges, pert), rtol=1e-14, atol=0)
    assert da.attrs["entries"] == "scipy.stats:norm(loc=1.0, scale=2.0)"


def test_frozen_distribution_labels_and_discrete():
    assert resolve_entries(scipy.stats.t(3))[1] == "scipy.stats:t(3)"
    assert resolve_entries(scipy.stats.uniform(-1, 2))[1] == "scipy.stats:uniform(-1, 2)"
    sampler, label = resolve_entries(scipy.stats.poisson(4))
    values = sampler(np.random.default_rng(0), (3, 2))
    assert values.dtype == np.float64 and values.shape == (3, 2)
    assert label == "scipy.stats:poisson(4)"
    da = spdgraph.sample(G, "po", seed=1, entries=scipy.stats.laplace(scale=0.5))
    assert da.attrs["entries"] == "scipy.stats:laplace(scale=0.5)"


def test_frozen_distribution_same_seed_same_result():
    a = spdgraph.sample(G, "po", seed=4, size=2, entries=scipy.stats.t(5)).values
    b = spdgraph.sample(G, "po", seed=4, size=2, entries=scipy.stats.t(5)).values
    np.testing.assert_array_equal(a, b)


def test_frozen_distribution_nonfinite_rejected():
    with pytest.raises(spdgraph.InvalidOptionError, match="non-finite"):
        spdgraph.sample(G, "dd", seed=0, entries=scipy.stats.cauchy(scale=np.inf))


def test_negative_share_documented_rule():
    """|values| first, then one U(0, 1) per value from the same stream: negative iff u < s."""
    da = spdgraph.sample(G, "dd", seed=7, normalize=False, negative_share=0.3)
    rng = _rng(7)
    edges = np.abs(rng.standard_normal(N_EDGES))
    u = rng.random(N_EDGES)
    edges = np.where(u < 0.3, -edges, edges)
    pert = np.abs(rng.standard_normal(15))
    pert = np.where(rng.random(15) < 0.3, -pert, pert)
    np.testing.assert_allclose(da.values, dd_reference(ADJ, edges, pert), rtol=1e-14, atol=0)
    assert da.attrs["negative_share"] == 0.3


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_negative_share_extremes(share):
    m = spdgraph.sample(G, "dd", seed=3, negative_share=share, size=3).values
    off = m[:, np.triu(ADJ, 1)]
    assert np.all(off < 0) if share == 1.0 else np.all(off > 0)


def test_negative_share_frequency():
    sampler, _ = resolve_entries(scipy.stats.expon(), negative_share=0.25)
    x = sampler(np.random.default_rng(0), (200_000,))
    # binomial sd of the share is ~0.001: 5 sd
    assert abs(np.mean(x < 0) - 0.25) < 0.005
    # the magnitudes keep their distribution
    assert scipy.stats.kstest(np.abs(x), "expon").pvalue > 1e-3


def test_negative_share_with_uniform_entries_in_po():
    """U(0, 1) entries made half negative give a signed factor: PO sees it."""
    a = spdgraph.sample(G, "po", seed=9, entries="uniform").values
    b = spdgraph.sample(G, "po", seed=9, entries="uniform", negative_share=0.5).values
    assert not np.array_equal(a, b)
    c = spdgraph.sample(G, "po", seed=9, entries="uniform", negative_share=0.0).values
    # uniform entries are already non-negative, but the signs draw consumes the stream
    assert c.shape == a.shape


@pytest.mark.parametrize("share", [-0.1, 1.5, "0.5", True, float("nan")])
def test_bad_negative_share(share):
    with pytest.raises(spdgraph.InvalidOptionError, match="negative_share"):
        spdgraph.sample(G, seed=0, negative_share=share)


def test_negative_share_with_factor_is_an_error():
    with pytest.raises(spdgraph.InvalidOptionError, match="explicit factor"):
        spdgraph.sample(G, "po", factor=np.eye(15), negative_share=0.5)


def test_bad_entries_objects():
    with pytest.raises(spdgraph.InvalidOptionError, match=r"freeze it.*scipy\.stats\.norm\(\)"):
        spdgraph.sample(G, seed=0, entries=scipy.stats.norm)
    with pytest.raises(spdgraph.InvalidOptionError, match="frozen scipy"):
        spdgraph.sample(G, seed=0, entries=3)
    with pytest.raises(spdgraph.InvalidOptionError, match="unknown entries"):
        spdgraph.sample(G, seed=0, entries="gamma")
    with pytest.raises(spdgraph.InvalidOptionError, match="returned shape"):
        spdgraph.sample(G, seed=0, entries=lambda rng, shape: np.zeros(3))
