"""Every open verified, eager or lazy (issue 49, item 1).

A lazy open (``chunks=``) checks each block of values against the digests
stored at save as the block is read: two edited values or two swapped Zarr
chunks raise a FileError at the compute that reads them. A file spdgraph
wrote whose digests were removed is refused unless ``verify=False``.
"""

from __future__ import annotations

import shutil

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.io._digests import BLOCK_BYTES, DIGESTS, block_digests, block_rows


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch):
    """Blocks of 64 KiB (20 matrices of 20 x 20) so that a small stack has several."""
    import spdgraph.io._digests as digests

    monkeypatch.setattr(digests, "BLOCK_BYTES", 2**16)


@pytest.fixture(scope="module")
def stack():
    return spdgraph.sample(nx.path_graph(20), size=300, seed=3)


def _swap_zarr_chunks(path):
    """Swap two whole chunks along ``sample`` (same shape, each with a valid CRC32C)."""
    root = path / "covariance" / "c"
    first, second = root / "0" / "0" / "0", root / "1" / "0" / "0"
    assert first.is_file() and second.is_file(), sorted(root.rglob("*"))
    a, b = first.read_bytes(), second.read_bytes()
    assert a != b
    first.write_bytes(b)
    second.write_bytes(a)


@pytest.mark.parametrize("chunks", [7, 300, {"sample": 50, "node": 5}])
def test_swapped_zarr_chunks_are_refused_on_a_lazy_open(tmp_path, stack, chunks):
    pytest.importorskip("zarr")
    pytest.importorskip("dask")
    path = tmp_path / "m.zarr"
    spdgraph.save(stack, path)
    lazy = spdgraph.open(path, chunks=chunks)
    np.testing.assert_array_equal(lazy.values, stack.values)  # intact: reads back
    _swap_zarr_chunks(path)
    lazy = spdgraph.open(path, chunks=chunks)  # opening reads no values
    with pytest.raises(spdgraph.FileError, match=r"'covariance'.*changed since it was saved"):
        lazy.values  # noqa: B018
    with pytest.raises(spdgraph.FileError, match="changed since it was saved"):
        spdgraph.open(path)  # and eagerly


def test_edited_netcdf_values_are_refused_on_a_lazy_open(tmp_path, stack):
    netCDF4 = pytest.importorskip("netCDF4")
    pytest.importorskip("dask")
    path = tmp_path / "m.nc"
    spdgraph.save(stack, path)
    with netCDF4.Dataset(path, "a") as nc:  # through the library: checksums stay valid
        var = nc.variables["covariance"]
        var[5, 1, 2] = var[5, 1, 2] + 1e-9
        var[250, 3, 3] = 0.5
    lazy = spdgraph.open(path, chunks=100)
    assert float(lazy[100:200].sum()) == pytest.approx(float(stack[100:200].sum()))
    with pytest.raises(spdgraph.FileError, match=r"rows 0 to"):
        lazy[:10].values  # noqa: B018
    with pytest.raises(spdgraph.FileError, match="changed since it was saved"):
        lazy.sum().compute()


def test_the_block_check_reads_each_block_once(tmp_path, stack, monkeypatch):
    """Work bound: a lazy compute digests each block once, not the whole array per chunk."""
    pytest.importorskip("zarr")
    pytest.importorskip("dask")
    import spdgraph.io._hashing as hashing

    path = tmp_path / "m.zarr"
    spdgraph.save(stack, path)
    rows = block_rows(stack.shape, 8)
    n_blocks = -(-stack.shape[0] // rows)
    calls = []
    original = hashing.block_digest
    monkeypatch.setattr(hashing, "block_digest", lambda b: calls.append(len(b)) or original(b))
    spdgraph.open(path, chunks=25).sum().compute()
    assert sum(calls) == stack.shape[0] and len(calls) == n_blocks


def test_block_digests_cover_the_first_dim_in_bounded_blocks():
    import spdgraph.io._digests as digests

    values = np.arange(2 * 10**6, dtype=float).reshape(20_000, 100)
    blocks = block_digests(values)
    assert blocks["rows"] * 100 * 8 <= digests.BLOCK_BYTES < BLOCK_BYTES
    assert len(blocks["sha"]) == -(-20_000 // blocks["rows"])
    assert block_digests(np.array(["a"])) is None


def test_a_spdgraph_file_without_digests_is_refused_unless_verify_false(tmp_path, stack):
    pytest.importorskip("netCDF4")
    import netCDF4

    path = tmp_path / "m.nc"
    spdgraph.save(stack, path)
    with netCDF4.Dataset(path, "a") as nc:
        var = nc.variables["covariance"]
        var.delncattr(DIGESTS)
        adjacency = nc.variables["adjacency"]
        adjacency[0, 5] = 1  # and the graph edited
    for chunks in (None, 50):
        with pytest.raises(spdgraph.FileError, match=r"verify=False") as info:
            spdgraph.open(path, chunks=chunks)
        assert str(path) in str(info.value) and "digests" in str(info.value)
    opened = spdgraph.open(path, verify=False)
    assert bool(opened["adjacency"][0, 5])


def test_a_file_from_another_tool_opens(tmp_path, stack):
    pytest.importorskip("netCDF4")
    foreign = stack.copy()
    foreign.attrs = {"source": "elsewhere"}
    foreign.to_netcdf(tmp_path / "f.nc")
    back = spdgraph.open(tmp_path / "f.nc", chunks=100)
    np.testing.assert_array_equal(back.values, stack.values)


def test_an_intact_store_copied_elsewhere_still_opens(tmp_path, stack):
    pytest.importorskip("zarr")
    pytest.importorskip("dask")
    spdgraph.save(stack, tmp_path / "m.zarr")
    shutil.copytree(tmp_path / "m.zarr", tmp_path / "copy.zarr")
    back = spdgraph.open(tmp_path / "copy.zarr", chunks={"sample": 33})
    assert back.identical(spdgraph.open(tmp_path / "m.zarr"))


def test_the_cli_refuses_a_file_without_digests_unless_no_verify(tmp_path, stack, capsys):
    pytest.importorskip("netCDF4")
    import netCDF4

    from spdgraph.cli import main

    path = tmp_path / "m.nc"
    spdgraph.save(stack[:3], path)
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["covariance"].delncattr(DIGESTS)
    out = tmp_path / "d.nc"
    for argv in (["info", path], ["draw", path, "--n-obs", "4", "-o", out]):
        assert main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--no-verify" in err[0] and str(path) in err[0]
        assert main([*map(str, argv), "--no-verify"]) == 0
        capsys.readouterr()
    assert spdgraph.open(out).sizes["obs"] == 4
