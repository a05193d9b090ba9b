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
