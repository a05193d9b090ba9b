"""Signals sent to a child process in the middle of a save (issue: faults, item 1).

An interrupted save must end without finishing its work (Ctrl-C:
``KeyboardInterrupt`` in the API, exit 130 on the command line; SIGTERM: the
process terminates), leave an existing file of that name untouched and leave no
temporary behind. What a SIGKILL leaves is removed by the next save to that
folder.

The bounds are on work, never on wall-clock time (which load breaks): the
child logs every chunk it computes (every slab written, for the eager and CLI
netCDF writes) to a file, and after the signal at most :func:`_in_flight` more
may end, those already running; the write never completes.
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

#: Logs each slab written to a netCDF file to $SPDGRAPH_TASK_LOG (one line each): the
#: store of a dask write calls the netCDF4 backend's ``__setitem__`` once per slab.
PROBE = """
import os
from xarray.backends import netCDF4_

_write = netCDF4_.NetCDF4ArrayWrapper.__setitem__

def _logged(self, key, value):
    _write(self, key, value)
    with open(os.environ["SPDGRAPH_TASK_LOG"], "a") as fh:
        fh.write("w\\n")

netCDF4_.NetCDF4ArrayWrapper.__setitem__ = _logged
"""

#: A child that saves a stack in many chunks: each chunk of the lazy array
#: sleeps and logs itself, so the signal lands while the storage library is
#: writing and the chunks computed after it can be counted.
SAVER = (
    PROBE
    + """
import sys, time
import dask, networkx as nx, numpy as np, spdgraph
mode, target = sys.argv[1], sys.argv[2]
da = spdgraph.sample(nx.path_graph(40), "dd", size=400, seed=1, chunks=10)
if mode == "eager":
    size = int(os.environ.get("SPDGRAPH_EAGER_SIZE", "500"))
    da = spdgraph.sample(nx.path_graph(250), "dd", size=size, seed=1)
else:
    def slow(block):
        time.sleep(0.15)
        with open(os.environ["SPDGRAPH_CHUNK_LOG"], "a") as fh:
            fh.write("c\\n")
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
)
#: Chunks of the lazy stack (400 matrices, 10 per chunk).
LAZY_CHUNKS = 40

#: The command line, with the task probe.
CLI = PROBE + "import sys\nfrom spdgraph.cli import main\nsys.exit(main(sys.argv[1:]))\n"

#: A hang guard only (a deadlock must fail, not hang the suite): never a speed bound.
HANG_SECONDS = 600.0


def _in_flight() -> int:
    """Chunks or tasks that may still end after the signal: those running on the
    local scheduler's threads, and those started before the main thread (polling
    every 0.05 s) saw the signal."""
    return 2 * (os.cpu_count() or 1) + 2


def _digest(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    sha = hashlib.sha256()
    for file in files:
        sha.update(file.read_bytes())
    return sha.hexdigest()


def _lines(path: Path) -> int:
    try:
        return path.read_text().count("\n")
    except FileNotFoundError:
        return 0


def _wait_for_temporary(folder: Path, child: subprocess.Popen) -> None:
    """Return once the child has started writing its temporary (hidden file)."""
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        if any(io._atomic.TEMPORARY.match(p.name) for p in folder.iterdir()):
            time.sleep(0.3)  # well inside the write
            return
        if child.poll() is not None:
            pytest.fail(f"the child ended before writing: {child.communicate()}")
        time.sleep(0.02)
    child.kill()
    pytest.fail("the child never started writing")


def _start(args: list[str], cwd: Path, logs: Path, **extra: str) -> subprocess.Popen:
    env = dict(
        os.environ,
        **extra,
        PYTHONUNBUFFERED="1",
        SPDGRAPH_TASK_LOG=os.fspath(logs / "tasks.log"),
        SPDGRAPH_CHUNK_LOG=os.fspath(logs / "chunks.log"),
    )
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _signal_mid_write(
    child: subprocess.Popen, folder: Path, signum: int, log: Path
) -> tuple[int, int, int, str, str]:
    """Signal the child mid-write: ``(status, logged at the signal, logged at exit, out, err)``."""
    _wait_for_temporary(folder, child)
    at_signal = _lines(log)
    child.send_signal(signum)
    try:
        out, err = child.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:  # the deadlock this test exists for
        child.kill()
        pytest.fail("the child hung after the signal")
    return child.returncode, at_signal, _lines(log), out, err


def _existing(folder: Path, name: str) -> str:
    target = folder / name
    spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=9), target)
    return _digest(target)


def _logs(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    return logs


@pytest.mark.integration
@pytest.mark.parametrize(
    ("mode", "name"), [("eager", "out.nc"), ("lazy", "out.nc"), ("lazy", "out.zarr")]
)
def test_ctrl_c_mid_save_stops_the_write_and_leaves_the_old_file(tmp_path, mode, name):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    folder = tmp_path / "out"
    folder.mkdir()
    logs = _logs(tmp_path)
    before = _existing(folder, name)
    child = _start([os.fspath(script), mode, name], folder, logs)
    log = logs / ("tasks.log" if mode == "eager" else "chunks.log")
    code, at_signal, at_exit, out, err = _signal_mid_write(child, folder, signal.SIGINT, log)
    assert code == 130, (out, err)
    assert "interrupted" in out and "finished" not in out
    # work bound: only the chunks (tasks) already running end after the signal
    assert at_exit - at_signal <= _in_flight(), (at_signal, at_exit)
    if mode == "lazy":
        assert at_exit < LAZY_CHUNKS  # the rest of the stack was never computed
    assert sorted(p.name for p in folder.iterdir()) == sorted([name, *_kept(folder, name)])
    assert _digest(folder / name) == before


def _kept(folder, name):
    """A lazy Zarr save is written block by block: interrupted, its hidden temporary is
    kept for ``resume=True`` (issue 56); every other save leaves nothing."""
    kept = [p.name for p in folder.iterdir() if (p / io._atomic.RESUMABLE).is_dir()]
    assert len(kept) == (1 if name.endswith(".zarr") else 0), kept
    return kept


@pytest.mark.integration
def test_sigterm_mid_save_terminates_and_cleans_up(tmp_path):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    folder = tmp_path / "out"
    folder.mkdir()
    logs = _logs(tmp_path)
    before = _existing(folder, "out.zarr")
    child = _start([os.fspath(script), "lazy", "out.zarr"], folder, logs)
    log = logs / "chunks.log"
    code, at_signal, at_exit, out, err = _signal_mid_write(child, folder, signal.SIGTERM, log)
    assert code == -signal.SIGTERM, (out, err)
    assert at_exit - at_signal <= _in_flight() and at_exit < LAZY_CHUNKS, (at_signal, at_exit)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["out.zarr", *_kept(folder, "out.zarr")]
    )
    assert _digest(folder / "out.zarr") == before


@pytest.mark.integration
def test_cli_ctrl_c_mid_save_exits_130_with_one_line(tmp_path):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {i + 1}\n" for i in range(249)))
    folder = tmp_path / "out"
    folder.mkdir()
    logs = _logs(tmp_path)
    cli = tmp_path / "cli.py"
    cli.write_text(CLI)
    args = [os.fspath(cli), "sample", os.fspath(graph), "-m", "dd", "--size", "500"]
    child = _start([*args, "--seed", "1", "--no-progress", "-o", "s.nc"], folder, logs)
    log = logs / "tasks.log"
    code, at_signal, at_exit, _out, err = _signal_mid_write(child, folder, signal.SIGINT, log)
    assert code == 130
    assert at_exit - at_signal <= _in_flight(), (at_signal, at_exit)
    assert err.strip().splitlines() == ["spdgraph: interrupted; nothing was written."]
    assert list(folder.iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_sigkill_leftovers_are_removed_by_the_next_save(tmp_path):
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    child = _start([os.fspath(script), "lazy", "killed.zarr"], tmp_path, _logs(tmp_path))
    _wait_for_temporary(tmp_path, child)
    child.kill()
    child.wait()
    left = [p.name for p in tmp_path.iterdir() if io._atomic.TEMPORARY.match(p.name)]
    assert left  # SIGKILL gives no chance to clean up
    # a temporary of a live process (this one) is never touched
    mine = io._atomic.temporary_name(tmp_path / "other.nc")
    mine.write_bytes(b"in progress")
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), tmp_path / "next.nc")
    # a lazy Zarr save is written block by block: once it has blocks, its temporary is
    # kept for resume=True (issue 56), until a save to its own destination starts over
    resumable = [p.name for p in tmp_path.iterdir() if (p / io._atomic.RESUMABLE).is_dir()]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [mine.name, "logs", "next.nc", "saver.py", *resumable]
    )
    spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=1), tmp_path / "killed.zarr")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [mine.name, "logs", "next.nc", "saver.py", "killed.zarr"]
    )


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
    logs = _logs(tmp_path)
    child = _start([os.fspath(script), "lazy", "done.zarr"], tmp_path, logs)
    out, err = child.communicate(timeout=HANG_SECONDS)
    assert child.returncode == 0, err
    assert "finished" in out
    assert spdgraph.open(tmp_path / "done.zarr").sizes["sample"] == 20
    # every chunk logged (dask may also call the function once on an empty block)
    assert _lines(logs / "chunks.log") in (2, 3)


@pytest.mark.integration
def test_the_slab_probe_counts_an_eager_write(tmp_path):
    """The probe of the eager and CLI cases sees every slab of a complete write."""
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    logs = _logs(tmp_path)
    child = _start(
        [os.fspath(script), "eager", "done.nc"], tmp_path, logs, SPDGRAPH_EAGER_SIZE="80"
    )
    out, err = child.communicate(timeout=HANG_SECONDS)
    assert child.returncode == 0 and "finished" in out, err
    slab = io._blocks.SLAB_BYTES // (250 * 250 * 8)  # matrices per slab
    assert _lines(logs / "tasks.log") >= -(-80 // slab) >= 2
