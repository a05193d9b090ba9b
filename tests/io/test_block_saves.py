"""Dask-backed values saved to Zarr block by block, a digest per block, resumable (issue 56).

``spdgraph.save`` of a simulation whose ``data`` is a dask array (as
``simulate(..., chunks=)`` and ``da.spd.draw(n, chunks=)`` return it) writes each
block from the worker that computes it and records its SHA-256; an interrupted
save keeps its temporary, and ``resume=True`` computes only the missing or bad
blocks. The tests count the blocks computed with a counter in the block function.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import spdgraph
from spdgraph.io._atomic import RESUMABLE

dask = pytest.importorskip("dask")
dask_array = pytest.importorskip("dask.array")
zarr = pytest.importorskip("zarr")

N_OBS, P, ROWS = 240, 6, 30  # 8 blocks of 30 observations


@pytest.fixture(scope="module")
def simulation():
    return spdgraph.simulate("band", p=P, n=N_OBS, seed=3)


def _lazy(sim, rows=ROWS, calls=None, fail_after=None):
    """``sim`` with its ``data`` a dask array of ``rows``-observation blocks; each block's
    computation appended to ``calls``, raising once ``fail_after`` blocks were computed."""

    def block(values):
        if calls is not None:
            if fail_after is not None and len(calls) >= fail_after:
                raise RuntimeError("worker lost")
            calls.append(values.shape)
        return values

    data = dask_array.from_array(sim["data"].values, chunks=(rows, P))
    data = data.map_blocks(block, dtype=data.dtype, meta=np.empty((0, 0)))
    out = sim.copy()
    out["data"] = sim["data"].copy(data=data)
    return out


def _digests(path):
    return json.loads(zarr.open_group(path, mode="r").attrs[spdgraph.io.DIGESTS])


def _block_reference(values, rows):
    """The slow reference: each block's digest computed in memory, block after block."""
    from spdgraph.io._hashing import block_digest

    return [block_digest(values[i : i + rows]) for i in range(0, len(values), rows)]


def _kept(folder):
    return [p for p in folder.iterdir() if (p / RESUMABLE).is_dir()]


@pytest.fixture(autouse=True)
def _one_block_at_a_time():
    with dask.config.set(scheduler="synchronous"):  # blocks computed in order
        yield


def test_each_block_is_written_and_digested_as_it_is_computed(tmp_path, simulation):
    calls = []
    path = spdgraph.save(_lazy(simulation, calls=calls), tmp_path / "s.zarr")
    assert len(calls) == N_OBS // ROWS  # each block computed once
    record = _digests(path)["blocks data"]
    assert record["chunks"] == [[ROWS] * (N_OBS // ROWS), [P]]
    assert record["sha"] == _block_reference(simulation["data"].values, ROWS)
    stored = zarr.open_group(path, mode="r")["data"]
    assert stored.chunks == (ROWS, P)  # one Zarr chunk per dask block
    back = spdgraph.open(path)
    assert back["data"].identical(simulation["data"])
    assert back["precision"].identical(simulation["precision"])
    lazy = spdgraph.open(path, chunks=7)  # other chunks than the blocks: still checked
    assert lazy["data"].compute().identical(simulation["data"])
    assert not (path / RESUMABLE).exists() and _kept(tmp_path) == []


def test_the_same_values_whatever_the_chunking(tmp_path, simulation):
    one = spdgraph.open(spdgraph.save(_lazy(simulation, rows=60), tmp_path / "a.zarr"))
    two = spdgraph.open(spdgraph.save(_lazy(simulation, rows=25), tmp_path / "b.zarr"))
    assert one["data"].values.tobytes() == two["data"].values.tobytes()
    assert one["data"].identical(simulation["data"])


@pytest.mark.parametrize("lazy_open", [False, True])
def test_an_edited_block_is_refused_naming_the_file_variable_and_rows(
    tmp_path, simulation, lazy_open
):
    path = spdgraph.save(_lazy(simulation), tmp_path / "s.zarr")
    stored = zarr.open_group(path, mode="r+")["data"]
    stored[95, 2] = stored[95, 2] + 1e-12  # through zarr: its CRC32C stays valid
    message = r"s\.zarr'.*variable 'data', rows 90 to 119 changed since it was saved"
    with pytest.raises(spdgraph.FileError, match=message):
        opened = spdgraph.open(path, chunks=50) if lazy_open else spdgraph.open(path)
        opened["data"].compute()


def test_an_interrupted_save_resumes_with_only_the_missing_blocks(tmp_path, simulation):
    path = tmp_path / "s.zarr"
    calls = []
    with pytest.raises(RuntimeError, match="worker lost") as info:
        spdgraph.save(_lazy(simulation, calls=calls, fail_after=3), path)
    assert len(calls) == 3 and not path.exists()
    (kept,) = _kept(tmp_path)
    assert str(kept) in "".join(info.value.__notes__) and "resume=True" in info.value.__notes__[0]
    spdgraph.save(simulation.isel(obs=slice(0, 10)), tmp_path / "other.zarr")  # kept meanwhile
    assert _kept(tmp_path) == [kept]
    resumed = []
    spdgraph.save(_lazy(simulation, calls=resumed), path, resume=True)
    assert len(resumed) == N_OBS // ROWS - 3  # the stored blocks are not computed again
    assert _kept(tmp_path) == []
    whole = spdgraph.save(_lazy(simulation), tmp_path / "whole.zarr")
    assert _digests(path) == _digests(whole)
    assert spdgraph.open(path)["data"].identical(simulation["data"])


def test_a_damaged_stored_block_is_written_again_on_resume(tmp_path, simulation):
    path = tmp_path / "s.zarr"
    with pytest.raises(RuntimeError):
        spdgraph.save(_lazy(simulation, calls=[], fail_after=4), path)
    (kept,) = _kept(tmp_path)
    first = min(int(p.name.split(".")[0]) for p in (kept / RESUMABLE / "data").iterdir())
    # a block written (it has its digest record) changed: no longer its digest
    zarr.open_group(kept, mode="r+")["data"][first * ROWS + 5, 0] = 0.5
    resumed = []
    spdgraph.save(_lazy(simulation, calls=resumed), path, resume=True)
    assert len(resumed) == N_OBS // ROWS - 3  # the 4 missing ones and the damaged one
    assert spdgraph.open(path)["data"].identical(simulation["data"])


def test_resuming_other_content_is_refused_and_a_plain_save_starts_over(tmp_path, simulation):
    path = tmp_path / "s.zarr"
    with pytest.raises(RuntimeError):
        spdgraph.save(_lazy(simulation, calls=[], fail_after=2), path)
    other = spdgraph.simulate("band", p=P, n=N_OBS, seed=4)  # another seed
    for content in (_lazy(other), _lazy(simulation, rows=40)):  # other values, other chunks
        with pytest.raises(spdgraph.FileError, match=r"other content.*start over"):
            spdgraph.save(content, path, resume=True)
    assert len(_kept(tmp_path)) == 1 and not path.exists()
    calls = []
    spdgraph.save(_lazy(simulation, calls=calls), path)
    assert len(calls) == N_OBS // ROWS and _kept(tmp_path) == []


def test_resume_without_an_interrupted_save_is_a_plain_save(tmp_path, simulation):
    path = spdgraph.save(_lazy(simulation), tmp_path / "s.zarr", resume=True)
    assert spdgraph.open(path)["data"].identical(simulation["data"])


def test_resume_is_refused_for_a_format_not_written_by_blocks(tmp_path, simulation):
    pytest.importorskip("netCDF4")
    with pytest.raises(spdgraph.InvalidOptionError, match=r"resume=True.*zarr \(\.zarr\)"):
        spdgraph.save(_lazy(simulation), tmp_path / "s.nc", resume=True)
    assert list(tmp_path.iterdir()) == []


def test_a_netcdf_simulation_with_lazy_data_gets_its_block_digests(tmp_path, simulation):
    """A format that does not write blocks: the values are digested from the written
    file one dask block at a time (never computed whole to stamp them)."""
    netCDF4 = pytest.importorskip("netCDF4")
    calls = []
    path = spdgraph.save(_lazy(simulation, calls=calls), tmp_path / "s.nc")
    assert len(calls) == N_OBS // ROWS  # computed once, to be written
    with netCDF4.Dataset(path) as nc:
        record = json.loads(nc.getncattr(spdgraph.io.DIGESTS))["blocks data"]
    assert record["sha"] == _block_reference(simulation["data"].values, ROWS)
    assert spdgraph.open(path)["data"].identical(simulation["data"])
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["data"][100, 1] = 3.0
    with pytest.raises(spdgraph.FileError, match="variable 'data', rows 90 to 119 changed"):
        spdgraph.open(path)


def test_a_lazy_single_array_is_saved_by_blocks_too(tmp_path, simulation):
    data = _lazy(simulation)["data"]
    path = spdgraph.save(data, tmp_path / "x.zarr")
    stored = json.loads(zarr.open_group(path, mode="r")["data"].attrs[spdgraph.io.DIGESTS])
    assert stored["blocks data"]["sha"] == _block_reference(data.values, ROWS)
    assert spdgraph.open(path).identical(simulation["data"])


def test_the_memory_guard_counts_one_block_per_thread(tmp_path, simulation, monkeypatch):
    from spdgraph.io import save_need

    block = ROWS * P * 8
    assert save_need(10**12, "zarr", block=block, threads=2) == save_need(
        1, "zarr", block=block, threads=2
    )
    assert save_need(0, "zarr", block=block, threads=4) > save_need(0, "zarr", block=block)
    need = save_need(simulation.nbytes, "zarr", block=block)
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: need - 1)
    with pytest.raises(spdgraph.TooLargeError, match="smaller blocks"):
        spdgraph.save(_lazy(simulation), tmp_path / "s.zarr")
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: need)
    spdgraph.save(_lazy(simulation), tmp_path / "s.zarr")


KILLED_SAVE = """
import sys, time
import dask, dask.array, numpy as np, spdgraph
sim = spdgraph.simulate("band", p=6, n=240, seed=3)
def block(values):
    time.sleep(0.3)
    return values
data = dask.array.from_array(sim["data"].values, chunks=(30, 6))
data = data.map_blocks(block, meta=np.empty((0, 0)))
sim["data"] = sim["data"].copy(data=data)
with dask.config.set(scheduler="synchronous"):
    spdgraph.save(sim, sys.argv[1])
"""


def test_a_sigkilled_save_is_kept_and_resumed(tmp_path, simulation):
    """SIGKILL half-way: the temporary stays (not swept as stale); the rerun writes the rest."""
    path = tmp_path / "s.zarr"
    child = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(path)])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            records = tmp_path.glob(f".*/{RESUMABLE}/data/*")
            if len([p for p in records if re.fullmatch(r"\d+\.0", p.name)]) >= 3:
                break
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    (kept,) = _kept(tmp_path)
    stored = len(list((kept / RESUMABLE / "data").glob("[0-9]*.0")))
    assert 3 <= stored < N_OBS // ROWS and not path.exists()
    spdgraph.save(simulation.isel(obs=slice(0, 10)), tmp_path / "other.zarr")  # sweeps
    assert _kept(tmp_path) == [kept]
    resumed = []
    spdgraph.save(_lazy(simulation, calls=resumed), path, resume=True)
    assert len(resumed) == N_OBS // ROWS - stored
    assert spdgraph.open(path)["data"].identical(simulation["data"])


@pytest.mark.integration
def test_the_blocks_run_on_the_active_distributed_client(tmp_path, simulation):
    """A ``distributed.Client`` as default scheduler: the blocks are computed and written by
    its workers (no ``scheduler=`` needed), the bits those of a local save."""
    distributed = pytest.importorskip("distributed")
    with (
        dask.config.set(scheduler=None),
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster,
        distributed.Client(cluster, set_as_default=True) as client,
        distributed.get_task_stream(client) as stream,
    ):
        path = spdgraph.save(_lazy(simulation), tmp_path / "s.zarr")
        workers = set(client.scheduler_info()["workers"])
    writes = [task for task in stream.data if "_write_block" in str(task["key"])]
    assert len(writes) == N_OBS // ROWS  # every block written by a worker task
    assert {task["worker"] for task in writes} <= workers
    local = spdgraph.save(_lazy(simulation), tmp_path / "local.zarr")
    assert _digests(path) == _digests(local)
    assert spdgraph.open(path)["data"].identical(simulation["data"])
