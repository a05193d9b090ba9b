"""spdgraph.simulate: every family, exact zeros, inverse, streams, data types, CLI."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import huge_reference, huge_rounding_bound

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.simulation import (
    DATA_TYPES,
    FAMILY_NAMES,
    open_simulation,
    save_simulation,
    simulate,
)


def _check_truth(sim: xr.Dataset) -> None:
    prec, cov = sim["precision"].values, sim["covariance"].values
    adjacency = sim["adjacency"].values
    p = prec.shape[-1]
    off = ~np.eye(p, dtype=bool) & ~adjacency
    assert (prec[..., off] == 0).all()  # exact zeros on the non-edges
    assert (prec[..., adjacency] != 0).all()  # and only there (no cancellation expected)
    assert np.array_equal(prec, np.swapaxes(prec, -1, -2))
    assert np.all(np.linalg.eigvalsh(prec) > 0)
    # the covariance is the inverse: a slow, obvious reference
    np.testing.assert_allclose(cov, np.linalg.inv(prec), rtol=1e-9, atol=1e-11)
    pc = sim["partial_correlation"].values
    d = np.sqrt(np.diagonal(prec, axis1=-2, axis2=-1))
    ref = -prec / (d[..., :, None] * d[..., None, :])
    np.fill_diagonal(ref, 1.0) if ref.ndim == 2 else None
    np.testing.assert_allclose(pc[..., off], ref[..., off], atol=1e-14)


@pytest.mark.parametrize("family", list(FAMILY_NAMES))
def test_every_family_exact_zeros_and_inverse(family):
    sim = simulate(family, n=30, p=16, seed=4)
    _check_truth(sim)
    assert sim["data"].dims == ("obs", "node") and sim["data"].shape == (30, 16)
    assert sim.attrs["graph_name"] == family
    assert sim.attrs["n_edges"] == int(np.triu(sim["adjacency"].values).sum()) > 0


@pytest.mark.parametrize("family", ["random", "cluster", "scale-free", "smallworld"])
def test_same_seed_same_bits(family):
    a = simulate(family, n=20, p=15, seed=11)
    b = simulate(family, n=20, p=15, seed=11)
    assert a.identical(b)
    c = simulate(family, n=20, p=15, seed=12)
    assert not np.array_equal(a["data"].values, c["data"].values)


def test_streams_are_independent_of_n_and_data():
    a = simulate("random", n=5, p=12, seed=3)
    b = simulate("random", n=50, p=12, seed=3, data="binary", missing=0.2)
    assert a["precision"].identical(b["precision"])
    assert np.array_equal(a["adjacency"], b["adjacency"])
    # the graph does not reuse the matrix's or the data's random numbers
    root = np.random.SeedSequence(3)
    graph = spdgraph.graphs.erdos_renyi(
        12, 0.25, seed=spdgraph.simulation.stream_seed(root, "graph")
    )
    assert np.array_equal(
        nx.to_numpy_array(graph, weight=None).astype(bool), a["adjacency"].values
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 12), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_any_graph_exact_zeros(p, d, seed):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((p, p)) < d, 1)
    adjacency = upper | upper.T
    sim = simulate(adjacency, n=3, seed=seed)
    assert np.array_equal(sim["adjacency"].values, adjacency)
    _check_truth(sim)
    assert sim.identical(simulate(adjacency, n=3, seed=seed))


def test_covariance_kind_has_the_zeros():
    sim = simulate("AR(1)", n=0, p=8, kind="covariance", seed=1)
    cov, adjacency = sim["covariance"].values, sim["adjacency"].values
    assert (cov[~np.eye(8, dtype=bool) & ~adjacency] == 0).all()
    np.testing.assert_allclose(sim["precision"].values, np.linalg.inv(cov), atol=1e-10)
    assert sim["data"].shape == (0, 8)


def test_r_argument_names_and_huge_method():
    assert simulate("hub", p=20, g=4, seed=0).attrs["n_edges"] == 16  # huge's g
    assert 'n_groups": 2' in simulate("cluster", p=20, **{"class": 2}).attrs["graph_parameters"]
    assert simulate("band", p=10, g=2).attrs["n_edges"] == 17
    sim = simulate("band", p=10, method="huge", v=0.3, u=0.1, n=10, seed=1)
    _check_truth(sim)
    with pytest.raises(InvalidOptionError, match="twice"):
        simulate("hub", p=20, g=4, n_hubs=3)


@pytest.mark.parametrize("data", [*DATA_TYPES, "t(df=5)", "ordinal(n_categories=3)"])
def test_data_types(data):
    sim = simulate("circle", n=200, p=10, data=data, seed=2)
    x = sim["data"].values
    assert x.shape == (200, 10) and np.isfinite(x).all()
    if data == "binary":
        assert set(np.unique(x)) == {0.0, 1.0}
    if data in ("categorical", "ordinal"):
        assert set(np.unique(x)) == {0.0, 1.0, 2.0, 3.0}  # cut = 4 (BDgraph's default)
    if data == "mixed":
        assert set(np.unique(x[:, 4])) == {0.0, 1.0} and (x[:, 1] >= 0).all()


@pytest.mark.parametrize("normalize", [False, True])
def test_mixed_gaussian_columns_have_unit_variance(normalize):
    """Issue 47: mixed's Gaussian columns are the latent values over their sd (as bdgraph.sim)."""
    mixed = simulate("AR2", n=300, p=10, data="mixed", seed=2, normalize=normalize)
    latent = simulate("AR2", n=300, p=10, seed=2, normalize=normalize)  # the same draws
    sd = np.sqrt(np.diag(mixed["covariance"].values))
    gaussian = [j for j in range(10) if j % 5 == 0]
    np.testing.assert_allclose(
        mixed["data"].values[:, gaussian], latent["data"].values[:, gaussian] / sd[gaussian]
    )
    types = mixed["data"].attrs["data_types"].split(",")
    assert [types[j] for j in gaussian] == ["gaussian", "gaussian"]
    if not normalize:  # the latent variances differ from 1: the columns did not keep them
        assert not np.allclose(sd[gaussian], 1.0)


def test_standardized_marginal_is_the_latent_value_over_its_sd():
    cov = spdgraph.sample(nx.path_graph(4), seed=0, normalize=False)
    latent = cov.spd.draw(50, seed=1)
    both = cov.spd.draw(50, seed=1, marginals=["standardized", "gaussian", "standardized", None])
    sd = np.sqrt(np.diag(cov.values))
    np.testing.assert_allclose(both.values[:, [0, 2]], latent.values[:, [0, 2]] / sd[[0, 2]])
    np.testing.assert_array_equal(both.values[:, [1, 3]], latent.values[:, [1, 3]])
    assert "gaussian(standardized)" in both.attrs["marginals"]


def test_missing_size_and_groups():
    sim = simulate(
        "hub",
        n=40,
        p=12,
        size=2,
        related={"n_graphs": 3, "n_add": 2, "n_remove": 1},
        missing=0.25,
        seed=5,
    )
    assert sim["precision"].dims == ("group", "sample", "node", "node_2")
    assert sim["data"].dims == ("group", "sample", "obs", "node")
    assert sim["adjacency"].dims == ("group", "node", "node_2")
    assert 0.15 < float(np.isnan(sim["data"].values).mean()) < 0.35
    for k in range(3):
        for s in range(2):
            _check_truth(sim.isel(group=k, sample=s))
    adj = sim["adjacency"].values
    assert not np.array_equal(adj[0], adj[1])


def test_refusals():
    with pytest.raises(InvalidOptionError, match="known families"):
        simulate("wheel", p=5)
    with pytest.raises(InvalidOptionError, match="pass p="):
        simulate("hub")
    with pytest.raises(InvalidOptionError, match="leave p out"):
        simulate(nx.path_graph(4), p=4)
    with pytest.raises(InvalidOptionError, match="n must be an integer >= 0"):
        simulate("hub", n=-1, p=5)
    with pytest.raises(InvalidOptionError, match="data type"):
        simulate("hub", p=5, data="weibull!")


def test_save_and_cli(tmp_path, capsys):
    sim = simulate("lattice", n=7, p=9, seed=1)
    path = save_simulation(sim, tmp_path / "s.nc")
    assert open_simulation(path).identical(sim)  # verified against its digests
    plain = xr.open_dataset(path).load()  # any netCDF reader: the digests are one more attr
    assert plain.drop_attrs().identical(sim.drop_attrs()) and "spdgraph_digests" in plain.attrs
    with pytest.raises(FileError, match="exists"):
        save_simulation(sim, path)
    out = tmp_path / "sim.nc"
    assert main(["simulate", "--graph", "hub", "--p", "50", "--n", "100", "--seed", "2",
                 "-o", str(out)]) == 0  # fmt: skip
    back = open_simulation(out)
    assert back.identical(simulate("hub", n=100, p=50, seed=2))
    assert main(["simulate", "--graph", "hub", "--p", "5", "-o", str(out)]) == 2  # exists
    folder = tmp_path / "csv"
    assert main(["simulate", "--graph", "AR(2)", "--p", "6", "--n", "4", "--data", "binary",
                 "--option", "v=0.2", "--method", "huge", "--seed", "1", "--format", "csv",
                 "-o", str(folder)]) == 0  # fmt: skip
    names = sorted(x.name for x in folder.iterdir())
    assert names == [
        "adjacency.csv",
        "attributes.csv",
        "covariance.csv",
        "data.csv",
        "partial_correlation.csv",
        "precision.csv",
    ]
    assert main(["simulate", "--graph", "nosuch", "--p", "5", "-o", str(tmp_path / "x")]) == 2
    assert "No graph file 'nosuch' exists either" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("case", "graph", "options"),
    [
        ("band", "band", {"g": 2}),
        ("hub", "hub", {"g": 3}),
        ("band_v05_u02", "band", {"g": 1, "v": 0.5, "u": 0.2}),
    ],
)
def test_huge_generator_arguments_give_huges_matrices(case, graph, options):
    """huge.generator(n, d = 12, graph, g, v, u) from R huge 1.3.5 (tests/data/huge_1.3.5)."""
    from pathlib import Path

    folder = Path(__file__).parents[1] / "data" / "huge_1.3.5"
    sim = simulate(graph, n=5, p=12, method="huge", normalize=False, **options, seed=0)

    def read(what):
        return np.loadtxt(folder / f"huge_{case}_{what}.csv", delimiter=",")

    np.testing.assert_array_equal(sim["adjacency"].values, read("theta").astype(bool))
    # R and numpy (LAPACK builds, CPUs) differ by rounding, bounded by the condition
    omega = read("omega")
    weights = {k: v for k, v in options.items() if k in ("v", "u")}
    bound = huge_rounding_bound(huge_reference(read("theta"), **weights)[0], omega)
    for name, ref in (("precision", omega), ("covariance", read("sigma"))):
        assert np.abs(sim[name].values - ref).max() <= bound * np.abs(ref).max(), name
