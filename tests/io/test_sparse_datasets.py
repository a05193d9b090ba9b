"""Datasets with sparse variables in files: simulate(sparse=True) saved and opened (issue 46)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import spdgraph
from spdgraph.errors import FileError

sparse = pytest.importorskip("sparse")
pytest.importorskip("cvxopt")


def _values(variable) -> np.ndarray:
    data = variable.data
    return np.asarray(data.todense()) if isinstance(data, sparse.SparseArray) else variable.values


def _check_same(back, sim) -> None:
    assert back.attrs == sim.attrs
    for name in sim.variables:
        a, b = sim[name], back[name]
        assert type(b.data) is type(a.data), name
        assert b.dims == a.dims and b.attrs == a.attrs, name
        assert _values(b).tobytes() == _values(a).tobytes(), name
    assert set(back.variables) == set(sim.variables)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_sparse_simulation_round_trips(tmp_path, suffix: str) -> None:
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    sim = spdgraph.simulate("band", p=30, n=12, method="dd", sparse=True, seed=2)
    path = spdgraph.save(sim, tmp_path / f"sim{suffix}")
    back = spdgraph.open(path)
    _check_same(back, sim)
    assert isinstance(back["precision"].data, sparse.COO)
    assert back["precision"].spd.check() is not None  # exact zeros, symmetry, PD: still true


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_simulation_without_the_dense_covariance_opens(tmp_path, monkeypatch, suffix) -> None:
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    from spdgraph.simulation import _sparse as simulation

    monkeypatch.setattr(simulation, "DENSE_INVERSE_NODES", 10)
    sim = spdgraph.simulate("band", p=20, n=5, method="dd", sparse=True, seed=1)
    assert "covariance" not in sim
    back = spdgraph.open(spdgraph.save(sim, tmp_path / f"sim{suffix}"))
    _check_same(back, sim)


def test_the_file_holds_the_non_zeros_only(tmp_path) -> None:
    pytest.importorskip("netCDF4")
    from spdgraph.simulation import _sparse as simulation

    p = 20_000
    # the dense precision would be 8 p^2 = 3.2 GB; the dense covariance is omitted
    assert p > simulation.DENSE_INVERSE_NODES
    sim = spdgraph.simulate("band", p=p, n=3, method="dd", sparse=True, seed=1)
    path = spdgraph.save(sim, tmp_path / "sim.nc")
    size = os.path.getsize(path)
    entries = sim["precision"].data.nnz + sim["partial_correlation"].data.nnz
    entries += sim["adjacency"].data.nnz
    assert size < 40 * entries + 8 * 3 * p + 10**6


def test_an_edited_triplet_is_refused(tmp_path) -> None:
    netcdf4 = pytest.importorskip("netCDF4")
    sim = spdgraph.simulate("band", p=10, n=4, method="dd", sparse=True, seed=1)
    path = spdgraph.save(sim, tmp_path / "sim.nc")
    with netcdf4.Dataset(path, "a") as nc:
        nc.variables["precision"][2] = 0.25
    with pytest.raises(FileError, match="'precision' changed since it was saved"):
        spdgraph.open(path)


def test_an_edited_index_is_refused(tmp_path) -> None:
    zarr = pytest.importorskip("zarr")
    sim = spdgraph.simulate("band", p=10, n=4, method="dd", sparse=True, seed=1)
    path = spdgraph.save(sim, tmp_path / "sim.zarr")
    group = zarr.open_group(path, mode="r+")
    index = group["adjacency_index"]
    moved = index[:]
    moved[0, 1] = (moved[0, 1] + 5) % 10  # an entry moved to another node
    index[:] = moved
    with pytest.raises(FileError, match="'adjacency'"):
        spdgraph.open(path)


def test_a_format_that_cannot_hold_sparse_variables_is_refused_before_writing(tmp_path) -> None:
    sim = spdgraph.simulate("band", p=10, n=4, method="dd", sparse=True, seed=1)
    target = tmp_path / "sim_csv"
    with pytest.raises(FileError, match=r"sparse: netcdf \(\.nc, \.nc4\), zarr \(\.zarr\)"):
        spdgraph.save(sim, target, format="csv")
    assert not target.exists() and os.listdir(tmp_path) == []


def test_cli_simulate_sparse_writes_a_verified_file(tmp_path, capsys) -> None:
    pytest.importorskip("netCDF4")
    from spdgraph import cli

    out = tmp_path / "sim.nc"
    code = cli.main(
        ["simulate", "--graph", "band", "--p", "25", "--n", "8", "--method", "dd", "--seed",
         "4", "--sparse", "-o", str(out)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    back = spdgraph.open(out)
    expected = spdgraph.simulate("band", p=25, n=8, method="dd", sparse=True, seed=4)
    assert isinstance(back["precision"].data, sparse.COO)
    assert _values(back["precision"]).tobytes() == _values(expected["precision"]).tobytes()
    assert back["data"].values.tobytes() == expected["data"].values.tobytes()


def test_cli_simulate_sparse_refuses_a_csv_folder_before_work(tmp_path, capsys) -> None:
    from spdgraph import cli

    out = tmp_path / "sim_folder"
    code = cli.main(
        ["simulate", "--graph", "band", "--p", "25", "--n", "8", "--method", "dd", "--sparse",
         "-o", str(out)]
    )  # fmt: skip
    assert code != 0 and "netcdf (.nc, .nc4), zarr (.zarr)" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("sparse_result", [False, True])
def test_spdgraph_save_of_a_simulation_carries_its_digests(tmp_path, sparse_result) -> None:
    pytest.importorskip("netCDF4")
    sim = spdgraph.simulate("band", p=12, n=6, method="dd", sparse=sparse_result, seed=3)
    path = spdgraph.save(sim, tmp_path / "sim.nc")  # as save_simulation: digests stamped
    back = spdgraph.open(path)  # verified (a file without digests is refused)
    assert back["data"].values.tobytes() == sim["data"].values.tobytes()
    netcdf4 = pytest.importorskip("netCDF4")
    with netcdf4.Dataset(path, "a") as nc:
        nc.variables["data"][0, 0] = 99.0
    with pytest.raises(FileError, match="'data'"):
        spdgraph.open(path)
