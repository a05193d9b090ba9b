"""A lazily saved array carries digests of its values too (issue 49, item 1).

``spdgraph.save`` of a dask-backed array never holds its values in memory: the
block digests are computed from the written temporary, one block at a time, and
stored in it before the rename. An edited value or swapped Zarr chunks in such a
file are then refused on an eager and on a lazy open; a file written before (no
value digests) still opens.
"""

from __future__ import annotations

import json
import tracemalloc

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
import spdgraph.io._files as files
from spdgraph.io._digests import DIGESTS, block_digests

pytest.importorskip("dask")


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch):
    """Blocks of 16 KiB (20 matrices of 10 x 10) so that a small stack has several."""
    import spdgraph.io._digests as digests

    monkeypatch.setattr(digests, "BLOCK_BYTES", 2**14)


@pytest.fixture(scope="module")
def lazy():
    return spdgraph.sample(nx.path_graph(10), size=200, seed=5, chunks=30)


def _stored_digests(path):
    if path.suffix == ".nc":
        netCDF4 = pytest.importorskip("netCDF4")
        with netCDF4.Dataset(path) as nc:
            return json.loads(nc.variables["covariance"].getncattr(DIGESTS))
    zarr = pytest.importorskip("zarr")
    return json.loads(zarr.open_group(path, mode="r")["covariance"].attrs[DIGESTS])


def _edit(path, index, value):
    """Change one value through the storage library (its checksums stay valid)."""
    if path.suffix == ".nc":
        netCDF4 = pytest.importorskip("netCDF4")
        with netCDF4.Dataset(path, "a") as nc:
            nc.variables["covariance"][index] = value
    else:
        zarr = pytest.importorskip("zarr")
        zarr.open_group(path, mode="r+")["covariance"][index] = value


def _reference(lazy, suffix):
    """The slow reference: the block digests of the values, computed in memory.

    netCDF: blocks of ``block_rows`` rows (read back from the file); Zarr: the dask
    blocks (each digested by the worker that wrote it), sha in C order of the grid.
    """
    from spdgraph.io._hashing import block_digest

    values = lazy.values
    if suffix == ".nc":
        return block_digests(values)
    starts = [np.cumsum((0, *sizes)) for sizes in lazy.chunks]
    sha = []
    for index in np.ndindex(*(len(sizes) for sizes in lazy.chunks)):
        region = tuple(slice(starts[d][i], starts[d][i + 1]) for d, i in enumerate(index))
        sha.append(block_digest(values[region]))
    return {"chunks": [list(sizes) for sizes in lazy.chunks], "sha": sha}


def _requires(suffix):
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_lazy_save_stores_the_block_digests_of_its_values(tmp_path, lazy, suffix):
    _requires(suffix)
    path = tmp_path / f"m{suffix}"
    spdgraph.save(lazy, path)
    digests = _stored_digests(path)
    assert digests["blocks covariance"] == _reference(lazy, suffix)
    # 200 rows in blocks of 20 (netCDF), in the 7 dask blocks of 30 (Zarr)
    assert len(digests["blocks covariance"]["sha"]) == (10 if suffix == ".nc" else 7)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_an_untouched_lazy_save_opens_with_the_same_values(tmp_path, lazy, suffix):
    _requires(suffix)
    path = tmp_path / f"m{suffix}"
    spdgraph.save(lazy, path)
    expected = lazy.values
    eager = spdgraph.open(path)
    np.testing.assert_array_equal(eager.values, expected)
    assert DIGESTS not in eager.attrs
    back = spdgraph.open(path, chunks=45)
    np.testing.assert_array_equal(back.values, expected)
    np.testing.assert_array_equal(back.adjacency.values, lazy.adjacency.values)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
@pytest.mark.parametrize("index", [(0, 0, 0), (137, 2, 3), (199, 9, 9)])
def test_one_edited_value_of_a_lazy_save_is_refused(tmp_path, lazy, suffix, index):
    _requires(suffix)
    path = tmp_path / f"m{suffix}"
    spdgraph.save(lazy, path)
    _edit(path, index, float(lazy.values[index]) + 1e-12)
    rows = 20 if suffix == ".nc" else 30  # the digest blocks: 20 rows, or the dask chunks
    row = index[0] // rows * rows
    last = min(row + rows, lazy.shape[0]) - 1
    message = rf"variable 'covariance', rows {row} to {last} changed since it was saved"
    with pytest.raises(spdgraph.FileError, match=message):
        spdgraph.open(path)
    back = spdgraph.open(path, chunks=30)  # opening reads no values
    with pytest.raises(spdgraph.FileError, match=message):
        back.values  # noqa: B018
    # the other blocks still read
    other = slice(0, 20) if row else slice(180, 200)
    np.testing.assert_array_equal(back[other].values, lazy[other].values)


def test_swapped_chunks_of_a_lazy_zarr_save_are_refused(tmp_path, lazy):
    pytest.importorskip("zarr")
    path = tmp_path / "m.zarr"
    spdgraph.save(lazy, path)  # Zarr chunks of 30 matrices, as the dask chunks
    root = path / "covariance" / "c"
    first, second = root / "0" / "0" / "0", root / "1" / "0" / "0"
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(b)
    second.write_bytes(a)
    with pytest.raises(spdgraph.FileError, match=r"'covariance'.*changed since it was saved"):
        spdgraph.open(path)
    with pytest.raises(spdgraph.FileError, match=r"'covariance'.*changed since it was saved"):
        spdgraph.open(path, chunks={"sample": 7}).sum().compute()


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_lazy_save_without_value_digests_still_opens(tmp_path, lazy, suffix, monkeypatch):
    """A file written before this change (labels and attrs digests only) opens as it did."""
    _requires(suffix)
    import spdgraph.io._blocks as blocks

    monkeypatch.setattr(files, "_stamp_written_values", lambda *args: None)
    monkeypatch.setattr(blocks, "_store_digests", lambda *args: None)
    path = tmp_path / f"m{suffix}"
    spdgraph.save(lazy, path)
    assert "blocks covariance" not in _stored_digests(path)
    np.testing.assert_array_equal(spdgraph.open(path).values, lazy.values)
    np.testing.assert_array_equal(spdgraph.open(path, chunks=40).values, lazy.values)


def test_an_unnamed_lazy_array_gets_its_value_digests(tmp_path, lazy):
    netCDF4 = pytest.importorskip("netCDF4")
    path = tmp_path / "m.nc"
    spdgraph.save(lazy.rename(None), path)
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["__xarray_dataarray_variable__"][3, 0, 0] = 7.0
    with pytest.raises(spdgraph.FileError, match="changed since it was saved"):
        spdgraph.open(path)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_lazy_save_holds_one_block_at_a_time(tmp_path, suffix, monkeypatch):
    """Memory bound: saving a 30 MiB lazy stack peaks far below its size."""
    _requires(suffix)
    import spdgraph.io._digests as digests

    monkeypatch.setattr(digests, "BLOCK_BYTES", 2**20)
    graph = nx.path_graph(10)
    spdgraph.save(spdgraph.sample(graph, size=100, seed=1, chunks=50), tmp_path / f"w{suffix}")
    big = spdgraph.sample(graph, size=40_000, seed=1, chunks=1_000)
    tracemalloc.start()
    try:
        spdgraph.save(big, tmp_path / f"m{suffix}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < big.nbytes / 3, (peak, big.nbytes)
    assert len(_stored_digests(tmp_path / f"m{suffix}")["blocks covariance"]["sha"]) > 20


def test_the_value_digests_are_stored_with_h5netcdf_too(tmp_path, lazy, monkeypatch):
    """The other netCDF engine (when netCDF4 is absent) stores and checks them alike."""
    pytest.importorskip("h5netcdf")
    pytest.importorskip("h5py")
    import spdgraph.io._netcdf as netcdf

    monkeypatch.setattr(netcdf, "netcdf_engine", lambda: "h5netcdf")
    path = tmp_path / "m.nc"
    spdgraph.save(lazy, path)
    np.testing.assert_array_equal(spdgraph.open(path, chunks=50).values, lazy.values)
    import h5py

    with h5py.File(path, "r") as handle:
        stored = json.loads(handle["covariance"].attrs[DIGESTS])
    assert stored["blocks covariance"] == block_digests(lazy.values)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_failure_while_storing_the_digests_leaves_the_old_file(tmp_path, lazy, suffix):
    """A full disk when the digests are added: FileError naming the path, old file whole."""
    _requires(suffix)
    import dataclasses
    import errno

    path = tmp_path / f"m{suffix}"
    old = spdgraph.sample(nx.path_graph(4), seed=0)
    spdgraph.save(old, path)

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    checked = files.check_writable
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            files,
            "check_writable",
            lambda *a, **k: dataclasses.replace(checked(*a, **k), set_attrs=full),
        )
        with pytest.raises(spdgraph.FileError, match=r"no space left on the device") as info:
            spdgraph.save(lazy, path)
    assert str(path) in str(info.value)
    left = sorted(p.name for p in tmp_path.iterdir() if p.name != path.name)
    if suffix == ".zarr":  # written block by block: kept for resume=True, and said so
        assert len(left) == 1 and left[0] in "".join(info.value.__notes__)
        spdgraph.save(lazy, path, resume=True)
        np.testing.assert_array_equal(spdgraph.open(path).values, lazy.values)
    else:
        assert left == []
        np.testing.assert_array_equal(spdgraph.open(path).values, old.values)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.integers(1, 90),
    chunks=st.integers(1, 40),
    nodes=st.integers(2, 9),
    suffix=st.sampled_from([".nc", ".zarr"]),
)
def test_stored_block_digests_match_the_in_memory_reference(tmp_path, size, chunks, nodes, suffix):
    """Any size, chunking and graph: the digests read back equal those of the values."""
    _requires(suffix)
    lazy = spdgraph.sample(nx.path_graph(nodes), size=size, seed=size, chunks=chunks)
    path = tmp_path / f"h{size}-{chunks}-{nodes}{suffix}"
    spdgraph.save(lazy, path, overwrite=True)
    assert _stored_digests(path)["blocks covariance"] == _reference(lazy, suffix)
    np.testing.assert_array_equal(spdgraph.open(path).values, lazy.values)
