"""Sparse results in netCDF and Zarr: triplets, digests, size proportional to nnz (issue 46)."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
import scipy.sparse

import spdgraph
from spdgraph.errors import FileError

sparse = pytest.importorskip("sparse")
pytest.importorskip("cvxopt")


def _folder_size(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
@pytest.mark.parametrize("size", [None, 3])
def test_sparse_results_round_trip(tmp_path, suffix: str, size: int | None) -> None:
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    g = nx.path_graph(["a", "b", "c", "d", "e"])
    s = spdgraph.sample(g, "dd", seed=1, sparse=True, kind="precision", size=size)
    path = spdgraph.save(s, tmp_path / f"prec{suffix}")
    back = spdgraph.open(path)
    assert isinstance(back.data, sparse.COO) and back.dims == s.dims and back.name == s.name
    assert np.asarray(back.data.todense()).tobytes() == np.asarray(s.data.todense()).tobytes()
    assert back.attrs == s.attrs
    assert list(back["node"].values) == list("abcde")
    assert np.array_equal(back["adjacency"].data.todense(), s["adjacency"].data.todense())
    assert back.spd.check() is back


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_file_size_is_proportional_to_the_non_zeros(tmp_path, suffix: str) -> None:
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    p = 50_000
    chain = scipy.sparse.diags_array([np.ones(p - 1)], offsets=[1], shape=(p, p))
    s = spdgraph.sample(scipy.sparse.csr_array(chain + chain.T), "dd", seed=1, sparse=True)
    path = spdgraph.save(s, tmp_path / f"chain{suffix}")
    # values (8) and two int64 coordinates per entry, the graph's coordinates, the labels
    entries = s.data.nnz + s["adjacency"].data.nnz
    assert _folder_size(os.fspath(path)) < 40 * entries + 16 * p  # dense: 8 * p**2 = 20 GB


def test_an_edited_triplet_is_refused(tmp_path) -> None:
    netcdf4 = pytest.importorskip("netCDF4")
    s = spdgraph.sample(nx.cycle_graph(6), "dd", seed=1, sparse=True, kind="precision")
    path = spdgraph.save(s, tmp_path / "prec.nc")
    with netcdf4.Dataset(path, "a") as nc:
        nc.variables["values"][1] = 0.5
    with pytest.raises(FileError, match="changed since it was saved"):
        spdgraph.open(path)


def _edit(path, variable: str, edit) -> None:
    """Apply ``edit(index, values)`` (numpy copies, changed in place) to a stored triplet."""
    netcdf4 = pytest.importorskip("netCDF4")
    values_name = {"values_index": "values", "precision_index": "precision"}[variable]
    with netcdf4.Dataset(path, "a") as nc:
        index = np.array(nc.variables[variable][:])
        values = np.array(nc.variables[values_name][:])
        edit(index, values)
        nc.variables[variable][:] = index
        nc.variables[values_name][:] = values


def _stored(tmp_path, simulation: bool):
    if simulation:
        sim = spdgraph.simulate("band", n=5, p=40, method="dd", sparse=True, seed=1)
        return spdgraph.save(sim, tmp_path / "sim.nc"), "precision_index"
    s = spdgraph.sample(nx.cycle_graph(40), "dd", seed=1, sparse=True, kind="precision")
    return spdgraph.save(s, tmp_path / "prec.nc"), "values_index"


def _permute(index, values) -> None:
    order = np.random.default_rng(0).permutation(len(values))
    index[:] = index[order]
    values[:] = values[order]


def _negative(index, values) -> None:
    index[3, 0] = -3


def _out_of_range(index, values) -> None:
    index[3, 1] = 10**6


@pytest.mark.parametrize("simulation", [False, True], ids=["array", "simulation"])
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_permute, "canonical"),
        (_negative, "negative"),
        (_out_of_range, "outside the shape"),
    ],
)
def test_triplets_out_of_order_or_range_are_a_file_error(tmp_path, simulation, edit, message):
    """The same entries in another order (still flagged sorted) would read wrong by
    indexing: refused, as are negative and out-of-range indices (not sparse's errors)."""
    path, variable = _stored(tmp_path, simulation)
    _edit(path, variable, edit)
    with pytest.raises(FileError, match=message):
        spdgraph.open(path)


def test_an_edited_fill_value_is_refused(tmp_path) -> None:
    """How the unstored entries read is covered by the digest."""
    import json

    netcdf4 = pytest.importorskip("netCDF4")
    path, _ = _stored(tmp_path, simulation=False)
    with netcdf4.Dataset(path, "a") as nc:
        layout = json.loads(nc.getncattr("spdgraph_sparse"))
        layout["fill_value"] = 1.0
        nc.setncattr("spdgraph_sparse", json.dumps(layout))
    with pytest.raises(FileError, match="changed since it was saved"):
        spdgraph.open(path)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_lazy_opens_of_sparse_and_simulation_files_work(tmp_path, suffix) -> None:
    pytest.importorskip("dask")
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    s = spdgraph.sample(nx.cycle_graph(30), "dd", seed=1, sparse=True, kind="precision")
    back = spdgraph.open(spdgraph.save(s, tmp_path / f"prec{suffix}"), chunks=1)
    assert isinstance(back.data, sparse.COO) and back.identical(s)  # stored entries only
    sim = spdgraph.simulate("band", n=6, p=30, method="dd", sparse=True, seed=1)
    lazy = spdgraph.open(spdgraph.save(sim, tmp_path / f"sim{suffix}"), chunks=2)
    assert lazy["data"].chunks is not None  # the dense data left on disk
    np.testing.assert_array_equal(lazy["data"].values, sim["data"].values)
    assert isinstance(lazy["precision"].data, sparse.COO)
