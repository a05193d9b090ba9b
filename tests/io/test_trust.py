"""Files you can trust (issue 33, deliverables 1-3, the file part).

Every variable is verified on open (values, adjacency, labels, attrs), labels that
cannot be stored exactly are refused at save, a failed write (a full disk, a
read-only folder, a name too long) is a FileError naming the path and the cause
that leaves the old file whole and no temporary, netCDF works without dask, and a
header claiming more than memory holds is refused before anything is allocated.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time  # bounds use process_time: this process's CPU seconds, not the wall clock
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.cli import main

pytest.importorskip("netCDF4")
pytest.importorskip("zarr")
h5py = pytest.importorskip("h5py")

STACK = spdgraph.sample(nx.cycle_graph(30), size=20, seed=1)


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _flip_netcdf(path: Path, variable: str, at: int = 5) -> None:
    with h5py.File(path, "r") as handle:
        offset = handle[variable].id.get_offset()
    raw = bytearray(path.read_bytes())
    raw[offset + at] ^= 0x01
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("variable", ["adjacency", "node"])
def test_a_flipped_bit_in_the_netcdf_graph_or_labels_is_a_file_error(tmp_path, variable):
    """Measured: one bit in the adjacency gave 31 edges instead of 30; in the labels 3 -> 99."""
    path = spdgraph.save(STACK, tmp_path / "m.nc")
    _flip_netcdf(path, variable)
    with pytest.raises(spdgraph.FileError, match=f"variable '{variable}'"):
        spdgraph.open(path)


def test_an_edited_attribute_is_a_file_error(tmp_path):
    import netCDF4

    path = spdgraph.save(STACK, tmp_path / "m.nc")
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["covariance"].setncattr("seed", 12345)
    with pytest.raises(spdgraph.FileError, match="provenance attributes changed"):
        spdgraph.open(path)


@pytest.mark.parametrize("variable", ["covariance", "adjacency", "node"])
def test_a_deleted_zarr_chunk_is_a_file_error_naming_the_variable(tmp_path, variable):
    """Measured: NaN values, an empty graph, labels [0, 0, 0, 0] opened without a word."""
    path = spdgraph.save(STACK, tmp_path / "m.zarr")
    chunks = sorted(p for p in (path / variable / "c").rglob("*") if p.is_file())
    chunks[0].unlink()
    with pytest.raises(spdgraph.FileError, match=f"variable '{variable}' is missing 1 of"):
        spdgraph.open(path)
    assert main(["info", str(path)]) == 2


def test_flipped_bits_in_a_zarr_adjacency_chunk_are_a_file_error(tmp_path):
    """Measured: 30 bit flips in the adjacency chunk changed the graph silently."""
    path = spdgraph.save(STACK, tmp_path / "m.zarr")
    chunk = next(p for p in (path / "adjacency" / "c").rglob("*") if p.is_file())
    raw = bytearray(chunk.read_bytes())
    for k in range(30):
        raw[(7 * k) % len(raw)] ^= 0x10
    chunk.write_bytes(bytes(raw))
    with pytest.raises(spdgraph.FileError, match="'adjacency'"):
        spdgraph.open(path)


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        (["x\0y", "b", "c"], "NUL character"),
        (["a", "\ud800", "c"], "lone surrogate"),
    ],
)
@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_labels_files_cannot_store_exactly_are_refused_at_save(tmp_path, labels, match, suffix):
    da = spdgraph.sample(nx.relabel_nodes(nx.path_graph(3), dict(enumerate(labels))), seed=0)
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        spdgraph.save(da, tmp_path / f"m{suffix}")
    assert _listing(tmp_path) == []


def test_ints_beyond_64_bits_are_refused_at_save(tmp_path):
    big = np.array([2**70, 1, 2], dtype=object)
    da = STACK.isel(sample=0, node=slice(0, 3), node_2=slice(0, 3))
    da = da.assign_coords(node=big, node_2=big)
    with pytest.raises(spdgraph.InvalidOptionError, match="1180591620717411303424"):
        spdgraph.save(da, tmp_path / "m.nc")
    with pytest.raises(spdgraph.InvalidOptionError, match="64 bits"):
        spdgraph.save(STACK.assign_attrs(extra=2**70), tmp_path / "m.nc")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.ENAMETOOLONG])
@pytest.mark.parametrize("base", ["netcdf", "zarr", "csv"])
def test_a_failing_write_names_the_path_and_the_cause(tmp_path, code, base):
    """Fault injection: a format (the built-in one, failing half-way) raises an OSError."""
    import dataclasses

    real = spdgraph.io.file_formats()[base]
    failing = {"on": False}

    def half_then_fail(da, target):
        if not failing["on"]:
            return real.save(da, target)
        real.save(da.isel(sample=slice(0, 1)), target)  # something is on disk
        raise OSError(code, os.strerror(code), os.fspath(target))

    faulty = dataclasses.replace(
        real, name="faulty", suffixes=(".faulty",), save=half_then_fail, save_delayed=None
    )

    class Faulty:
        @spdgraph.hookimpl
        def spdgraph_file_formats(self):
            return [faulty]

    pm = spdgraph.get_plugin_manager()
    pm.register(Faulty(), name="faulty-format")
    try:
        path = tmp_path / "m.faulty"
        old = spdgraph.sample(nx.path_graph(4), size=2, seed=9)
        spdgraph.save(old, path)
        failing["on"] = True
        cause = {
            errno.ENOSPC: "no space left",
            errno.EROFS: "read-only",
            errno.EACCES: "permission denied",
            errno.ENAMETOOLONG: "too long",
        }[code]
        with pytest.raises(spdgraph.FileError, match=f"{path.name}'.*{cause}"):
            spdgraph.save(STACK, path, overwrite=True)
        assert _listing(tmp_path) == [path.name]  # no temporary
        np.testing.assert_array_equal(spdgraph.open(path).values, old.values)
    finally:
        pm.unregister(name="faulty-format")


def test_paths_refused_before_any_work(tmp_path):
    for bad in (5, 3.5, None, b"a\0b", "a\0b.nc", ""):
        with pytest.raises(spdgraph.FileError):
            spdgraph.save(STACK, bad)
        with pytest.raises(spdgraph.FileError):
            spdgraph.open(bad)
    long = tmp_path / ("x" * 230 + ".nc")  # fits, but its temporary would not
    with pytest.raises(spdgraph.FileError, match="too long"):
        spdgraph.save(STACK, long)
    with pytest.raises(spdgraph.FileError, match=r"no such file|too long"):
        spdgraph.open(tmp_path / ("y" * 300 + ".nc"))
    assert _listing(tmp_path) == []


def test_a_read_only_folder_is_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(spdgraph.FileError, match=r"permission denied|read-only"):
        spdgraph.save(STACK, tmp_path / "m.nc")


def _mount_tmpfs(folder: Path) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0:
        return False
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", os.fspath(folder)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs (root on Linux only; skipped elsewhere)."""
    folder = tmp_path / "disk"
    if not _mount_tmpfs(folder):
        pytest.skip("cannot mount a small tmpfs here (needs root on Linux)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", os.fspath(folder)], check=False)


def test_a_full_disk_leaves_the_old_file_whole_and_no_temporary(small_disk, capsys):
    """Measured: Zarr reported success with lost values, netCDF a raw RuntimeError."""
    dense = spdgraph.sample(nx.complete_graph(100), size=80, seed=1)  # 6.4 MB, incompressible
    old = spdgraph.sample(nx.path_graph(10), size=2, seed=0)
    for name in ("old.zarr", "old.nc", "old.csv"):
        path = small_disk / name
        spdgraph.save(old, path)
        start = time.process_time()
        with pytest.raises(spdgraph.FileError, match=f"{name}'.*(no space|full disk)"):
            spdgraph.save(dense, path)
        assert time.process_time() - start < 30
        assert name in _listing(small_disk) and not any(
            n.startswith(".") for n in _listing(small_disk)
        )
        np.testing.assert_array_equal(spdgraph.open(path).values, old.values)
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    assert free > 1.5 * 2**20  # nothing held by a half-written temporary
    graph = small_disk / "g.txt"
    graph.write_text("".join(f"{i} {j}\n" for i in range(60) for j in range(i + 1, 60)))
    capsys.readouterr()
    argv = ["sample", str(graph), "--size", "400", "--seed", "1", "-o", str(small_disk / "s.zarr")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no space left" in err[0]
    assert not any(n.startswith(".") or n == "s.zarr" for n in _listing(small_disk))


BLOCK_DASK = """
import importlib.machinery, sys
class Hidden(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in ("dask", "distributed"):
            return None  # as if not installed: find_spec finds nothing, import fails
        return importlib.machinery.PathFinder.find_spec(name, path, target)
sys.meta_path = [Hidden if f is importlib.machinery.PathFinder else f for f in sys.meta_path]
import networkx as nx, spdgraph
da = spdgraph.sample(nx.path_graph(["a", "b", "c"]), size=3, seed=1)
path = spdgraph.save(da, sys.argv[1])
assert spdgraph.open(path).identical(da)
assert "dask" not in sys.modules
print("ok")
"""


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_core_install_without_dask_saves_and_opens(tmp_path, suffix):
    """Measured: save to .nc raised ModuleNotFoundError: No module named 'dask'."""
    script = tmp_path / "nodask.py"
    script.write_text(BLOCK_DASK)
    done = subprocess.run(
        [sys.executable, os.fspath(script), os.fspath(tmp_path / f"m{suffix}")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def _huge_netcdf(path: Path) -> Path:
    import netCDF4

    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("sample", 10**7)
        nc.createDimension("node", 30)
        nc.createDimension("node_2", 30)
        nc.createVariable("covariance", "f8", ("sample", "node", "node_2"), chunksizes=(1, 30, 30))
        nc.createVariable("sample", "i8", ("sample",), chunksizes=(100_000,))
    return path


def _huge_zarr(path: Path) -> Path:
    import zarr

    group = zarr.open_group(path, mode="w")
    group.create_array(
        "covariance",
        shape=(10**7, 30, 30),
        chunks=(1000, 30, 30),
        dtype="f8",
        dimension_names=["sample", "node", "node_2"],
    )
    return path


@pytest.mark.parametrize("make", [_huge_netcdf, _huge_zarr])
def test_huge_headers_are_refused_before_allocation(tmp_path, make, capsys):
    """Measured: 10^7 samples of 30 x 30 reached the allocator after 0.3-27 s; info > 60 s."""
    path = make(tmp_path / ("huge.nc" if make is _huge_netcdf else "huge.zarr"))
    with pytest.raises(spdgraph.TooLargeError):  # first call: imports
        spdgraph.open(path)
    start = time.process_time()
    with pytest.raises(spdgraph.TooLargeError, match="GiB"):
        spdgraph.open(path)
    assert time.process_time() - start < 1
    start = time.process_time()
    assert main(["info", str(path)]) == 2
    assert time.process_time() - start < 1
    assert "claims" in capsys.readouterr().err


def test_digests_are_stored_and_removed_on_open(tmp_path):
    path = spdgraph.save(STACK, tmp_path / "m.zarr")
    meta = json.loads((path / "covariance" / "zarr.json").read_text())
    digests = json.loads(meta["attributes"]["spdgraph_digests"])
    assert {"coord adjacency", "coord node", "values covariance", "(attrs)"} <= set(digests)
    back = spdgraph.open(path)
    assert "spdgraph_digests" not in back.attrs and back.identical(STACK)
