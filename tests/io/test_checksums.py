"""Corrupted files are detected on open, not read as silently changed values."""

from __future__ import annotations

import networkx as nx
import pytest

import spdgraph


def test_a_corrupted_netcdf_file_is_a_file_error(tmp_path):
    pytest.importorskip("netCDF4")
    da = spdgraph.sample(nx.cycle_graph(30), seed=1, size=20)
    path = tmp_path / "m.nc"
    spdgraph.save(da, path)
    raw = bytearray(path.read_bytes())
    start = int(len(raw) * 0.6)
    raw[start : start + 1024] = bytes(1024)  # zero 1 KB inside the values
    path.write_bytes(bytes(raw))
    # the values are ~96 % of the file: the kilobyte lands in them, and the checksum
    # says so (without it, netCDF returned the zeros as values)
    with pytest.raises(spdgraph.FileError, match=r"variable 'covariance'.*corrupted"):
        spdgraph.open(path)


def test_intact_files_round_trip_with_the_checksum(tmp_path):
    pytest.importorskip("netCDF4")
    da = spdgraph.sample(nx.cycle_graph(6), seed=1, size=3)
    spdgraph.save(da, tmp_path / "m.nc")
    back = spdgraph.open(tmp_path / "m.nc")
    assert back.values.tobytes() == da.values.tobytes()
    import netCDF4

    with netCDF4.Dataset(tmp_path / "m.nc") as nc:
        name = next(iter(v for v in nc.variables if nc.variables[v].ndim == 3))
        assert nc.variables[name].filters()["fletcher32"]


def test_a_corrupted_zarr_store_is_a_file_error_naming_the_variable(tmp_path):
    pytest.importorskip("zarr")
    da = spdgraph.sample(nx.cycle_graph(30), seed=1, size=20)
    path = tmp_path / "m.zarr"
    spdgraph.save(da, path)
    chunks = sorted(p for p in (path / "covariance" / "c").rglob("*") if p.is_file())
    assert chunks
    raw = bytearray(chunks[0].read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # one flipped byte
    chunks[0].write_bytes(bytes(raw))
    with pytest.raises(spdgraph.FileError, match=r"variable 'covariance'.*corrupted"):
        spdgraph.open(path)


def test_zarr_stores_carry_a_crc32c_of_the_values(tmp_path):
    pytest.importorskip("zarr")
    import json

    da = spdgraph.sample(nx.cycle_graph(6), seed=1, size=3)
    spdgraph.save(da, tmp_path / "m.zarr")
    meta = json.loads((tmp_path / "m.zarr" / "covariance" / "zarr.json").read_text())
    assert "crc32c" in [codec["name"] for codec in meta["codecs"]]
    assert spdgraph.open(tmp_path / "m.zarr").values.tobytes() == da.values.tobytes()


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_flipped_byte_in_a_lazily_opened_file_is_a_file_error_at_compute(tmp_path, suffix):
    """The storage checks a block when ``.compute()`` reads it: a FileError naming the
    variable there too, not ``NetCDF: HDF error`` or Zarr's raw checksum ValueError."""
    pytest.importorskip("dask")
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    da = spdgraph.sample(nx.cycle_graph(30), seed=1, size=20)
    path = spdgraph.save(da, tmp_path / f"m{suffix}")
    if suffix == ".nc":
        raw = bytearray(path.read_bytes())
        raw[int(len(raw) * 0.6)] ^= 0xFF  # one flipped byte inside the values
        path.write_bytes(bytes(raw))
    else:
        chunk = sorted(p for p in (path / "covariance" / "c").rglob("*") if p.is_file())[0]
        raw = bytearray(chunk.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        chunk.write_bytes(bytes(raw))
    lazy = spdgraph.open(path, chunks=5)
    with pytest.raises(spdgraph.FileError, match=r"variable 'covariance'.*corrupted"):
        lazy.compute()
    intact = spdgraph.open(spdgraph.save(da, tmp_path / f"ok{suffix}"), chunks=5)
    assert intact.compute().identical(da)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_flipped_byte_in_a_lazily_opened_simulation_is_a_file_error_at_compute(tmp_path, suffix):
    """Every variable of a lazily opened Dataset is guarded as a single array is: Zarr's
    raw ``Zstd decompression error`` (a flipped byte in a chunk's header) and netCDF's
    errors become a FileError naming the file and the variable at ``.compute()``."""
    pytest.importorskip("dask")
    pytest.importorskip("netCDF4" if suffix == ".nc" else "zarr")
    sim = spdgraph.simulate("band", p=10, n=400, seed=1)
    path = spdgraph.save(sim, tmp_path / f"s{suffix}")
    if suffix == ".nc":
        raw = bytearray(path.read_bytes())
        raw[int(len(raw) * 0.8)] ^= 0xFF  # inside the data (the last, largest variable)
        path.write_bytes(bytes(raw))
    else:
        chunk = sorted(p for p in (path / "data" / "c").rglob("*") if p.is_file())[0]
        raw = bytearray(chunk.read_bytes())
        raw[0] ^= 0xFF  # the compressor's frame header: the raw RuntimeError before
        chunk.write_bytes(bytes(raw))
    lazy = spdgraph.open(path, chunks=50)
    with pytest.raises(spdgraph.FileError, match=r"s\.(nc|zarr)'.*variable 'data'"):
        lazy.compute()
    intact = spdgraph.open(spdgraph.save(sim, tmp_path / f"ok{suffix}"), chunks=50)
    assert intact.compute()["data"].identical(sim["data"])
