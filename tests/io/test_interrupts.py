"""Signals sent to a child process in the middle of a save (issue: faults, item 1).

An interrupted save must end promptly (Ctrl-C: ``KeyboardInterrupt`` in the
API, exit 130 on the command line; SIGTERM: the process terminates), leave an
existing file of that name untouched and leave no temporary behind. What a
SIGKILL leaves is removed by the next save to that folder.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import networkx as nx
import pytest
import xarray as xr

import spdgraph
from spdgraph import io

pytest.importorskip("netCDF4")
pytest.importorskip("zarr")

#: A child that saves a stack whose write takes a few seconds: each chunk of the
#: lazy array sleeps, so the signal lands while the storage library is writing.
SAVER = """
import sys, time
import dask, networkx as nx, numpy as np, spdgraph
mode, target = sys.argv[1], sys.argv[2]
da = spdgraph.sample(nx.path_graph(40), "dd", size=400, seed=1, chunks=10)
if mode == "eager":
    da = spdgraph.sample(nx.path_graph(250), "dd", size=500, seed=1)
else:
    def slow(block):
        time.sleep(0.15)
        return block
    da = da.copy(data=da.data.map_blocks(slow, dtype=np.float64))
print("ready", flush=True)
try:
    spdgraph.save(da, target)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def _digest(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    sha = hashlib.sha256()
    for file in files:
        sha.update(file.read_bytes())
    return sha.hexdigest()


def _wait_for_temporary(folder: Path, child: subprocess.Popen, timeout: float = 60.0) -> None:
    """Return once the child has started writing its temporary (hidden file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(io._atomic.TEMPORARY.match(p.name) for p in folder.iterdir()):
            time.sleep(0.3)  # well inside the write
            return
        if child.poll() is not None:
            pytest.fail(f"the child ended before writing: {child.communicate()}")
        time.sleep(0.02)
    child.kill()
    pytest.fail("the child never started writing")


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _signal_mid_write(child: subprocess.Popen, folder: Path, signum: int) -> tuple:
    _wait_for_temporary(folder, child)
    sent = time.monotonic()
    child.send_signal(signum)
    try:
        out, err = child.communicate(timeout=20)
    except subprocess.TimeoutExpired:  # the deadlock this test exists for
        child.kill()
        pytest.fail("the child hung after the signal")
    return child.returncode, time.monotonic() - sent, out, err


def _existing(folder: Path, name: str) -> str:
    target = folder / name
    spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=9), target)
    return _digest(target)


@pytest.mark.integration
@pytest.mark.parametrize(
    ("mode", "name"), [("eager", "out.nc"), ("lazy", "out.nc"), ("lazy", "out.zarr")]
)
def test_ctrl_c_mid_save_raises_promptly_and_leaves_the_old_file(tmp_path, mode, name):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    folder = tmp_path / "out"
    folder.mkdir()
    before = _existing(folder, name)
    child = _start([os.fspath(script), mode, name], folder)
    code, seconds, out, err = _signal_mid_write(child, folder, signal.SIGINT)
    assert code == 130, (out, err)
    assert "interrupted" in out
    assert seconds < 5
    assert sorted(p.name for p in folder.iterdir()) == [name]
    assert _digest(folder / name) == before


@pytest.mark.integration
def test_sigterm_mid_save_terminates_and_cleans_up(tmp_path):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    before = _existing(tmp_path, "out.zarr")
    child = _start([os.fspath(script), "lazy", "out.zarr"], tmp_path)
    code, seconds, out, err = _signal_mid_write(child, tmp_path, signal.SIGTERM)
    assert code == -signal.SIGTERM, (out, err)
    assert seconds < 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.zarr", "saver.py"]
    assert _digest(tmp_path / "out.zarr") == before


@pytest.mark.integration
def test_cli_ctrl_c_mid_save_exits_130_with_one_line(tmp_path):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {i + 1}\n" for i in range(249)))
    folder = tmp_path / "out"
    folder.mkdir()
    args = ["-m", "spdgraph", "sample", os.fspath(graph), "-m", "dd", "--size", "500"]
    child = _start([*args, "--seed", "1", "--no-progress", "-o", "s.nc"], folder)
    code, seconds, _out, err = _signal_mid_write(child, folder, signal.SIGINT)
    assert code == 130
    assert seconds < 5
    assert err.strip().splitlines() == ["spdgraph: interrupted; nothing was written."]
    assert list(folder.iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_sigkill_leftovers_are_removed_by_the_next_save(tmp_path):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    child = _start([os.fspath(script), "lazy", "killed.zarr"], tmp_path)
    _wait_for_temporary(tmp_path, child)
    child.kill()
    child.wait()
    left = [p.name for p in tmp_path.iterdir() if io._atomic.TEMPORARY.match(p.name)]
    assert left  # SIGKILL gives no chance to clean up
    # a temporary of a live process (this one) is never touched
    mine = io._atomic.temporary_name(tmp_path / "other.nc")
    mine.write_bytes(b"in progress")
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), tmp_path / "next.nc")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, "next.nc", "saver.py"])


def test_a_zarr_store_cut_between_two_renames_is_put_back(tmp_path):
    store = tmp_path / "m.zarr"
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), store)
    before = _digest(store)
    backup = tmp_path / f".m.zarr.{_dead_pid()}-{'a' * 32}.old"
    store.rename(backup)
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=2), tmp_path / "other.nc")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.zarr", "other.nc"]
    assert _digest(store) == before


def test_zarr_replacement_is_one_exchange(tmp_path, monkeypatch):
    store = tmp_path / "m.zarr"
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), store)
    swaps = []
    real = io._atomic._exchange
    monkeypatch.setattr(io._atomic, "_exchange", lambda a, b: swaps.append(b) or real(a, b))
    new = spdgraph.sample(nx.path_graph(3), seed=2)
    spdgraph.save(new, store)
    assert swaps == [store]
    assert spdgraph.open(store).identical(new)
    assert [p.name for p in tmp_path.iterdir()] == ["m.zarr"]


def test_a_failed_write_in_the_worker_is_raised_and_cleaned(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xr.DataArray, "to_netcdf", broken)
    with pytest.raises(OSError, match=r"(?i)no space left"):
        spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), tmp_path / "m.nc")
    assert list(tmp_path.iterdir()) == []


def test_the_saver_script_really_saves(tmp_path):
    """The child used above completes when left alone (so the signals are what stop it)."""
    script = tmp_path / "saver.py"
    script.write_text(textwrap.dedent(SAVER).replace("size=400", "size=20"))
    child = _start([os.fspath(script), "lazy", "done.zarr"], tmp_path)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert "finished" in out
    assert spdgraph.open(tmp_path / "done.zarr").sizes["sample"] == 20
