"""``spdgraph draw/simulate --chunks N [--scheduler ...]``: data in blocks, the same bits."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.cli import main


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.nc"
    spdgraph.save(spdgraph.sample(nx.path_graph(6), seed=0, kind="precision"), path)
    return path


def test_draw_in_blocks_to_zarr_is_the_draw_in_memory(small, tmp_path):
    common = ["draw", str(small), "--n-obs", "500", "--seed", "3"]
    assert main([*common, "--chunks", "70", "-o", str(tmp_path / "x.zarr")]) == 0
    assert main([*common, "-o", str(tmp_path / "y.nc")]) == 0
    chunked, whole = spdgraph.open(tmp_path / "x.zarr"), spdgraph.open(tmp_path / "y.nc")
    assert np.array_equal(chunked.values, whole.values)


@pytest.mark.parametrize("chunks", ["0", "-3", "2.5"])
def test_bad_chunks_are_refused_by_name(small, tmp_path, chunks, capsys):
    code = main(["draw", str(small), "--n-obs", "5", "--chunks", chunks, "-o",
                 str(tmp_path / "x.nc")])  # fmt: skip
    assert code != 0 and "chunks" in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists()


def test_a_bad_scheduler_is_refused_before_work(small, tmp_path, capsys):
    code = main(["draw", str(small), "--n-obs", "5", "--chunks", "2", "--scheduler",
                 "nonsense://x y", "-o", str(tmp_path / "x.nc")])  # fmt: skip
    assert code != 0 and "is not a dask scheduler address" in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists()


def test_simulate_sparse_in_blocks_is_the_simulation_in_memory(tmp_path):
    common = ["simulate", "band", "--p", "30", "--n", "200", "--method", "dd", "--sparse",
              "--seed", "2"]  # fmt: skip
    assert main([*common, "--chunks", "45", "-o", str(tmp_path / "a.zarr")]) == 0
    assert main([*common, "-o", str(tmp_path / "b.nc")]) == 0
    a, b = spdgraph.open(tmp_path / "a.zarr"), spdgraph.open(tmp_path / "b.nc")
    assert np.array_equal(a["data"].values, b["data"].values)


def test_simulate_chunks_needs_sparse(tmp_path, capsys):
    code = main(["simulate", "band", "--p", "10", "--n", "5", "--chunks", "2", "-o",
                 str(tmp_path / "x.nc")])  # fmt: skip
    assert code != 0 and "add --sparse" in capsys.readouterr().err


@pytest.mark.integration
def test_draw_on_a_cluster_is_the_draw_in_memory(small, tmp_path):
    distributed = pytest.importorskip("distributed")
    common = ["draw", str(small), "--n-obs", "300", "--seed", "4"]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler.address  # inproc://: a cluster in this process
        out = tmp_path / "x.zarr"
        assert main([*common, "--chunks", "40", "--scheduler", address, "-o", str(out)]) == 0
    assert main([*common, "-o", str(tmp_path / "y.nc")]) == 0
    assert np.array_equal(spdgraph.open(out).values, spdgraph.open(tmp_path / "y.nc").values)


SIMULATE = ["simulate", "band", "--p", "200", "--n", "1000", "--method", "dd", "--sparse",
            "--seed", "5", "--chunks", "100"]  # fmt: skip


@pytest.mark.parametrize("command", ["draw", "simulate"])
def test_resume_is_refused_by_name_for_an_output_written_whole(small, tmp_path, command, capsys):
    out = tmp_path / "x.nc"
    common = (["draw", str(small), "--n-obs", "50", "--chunks", "10"] if command == "draw"
              else SIMULATE)  # fmt: skip
    assert main([*common, "--resume", "-o", str(out)]) != 0
    error = capsys.readouterr().err
    assert "--resume" in error and "netCDF" in error and "zarr (.zarr)" in error
    assert not out.exists()


def test_the_chunked_guard_counts_a_block_per_thread_not_the_whole_data(monkeypatch):
    """``--chunks``: the save is checked for one block per thread (``save_need`` with
    ``block=`` and ``threads=``), so data far larger than memory pass in small blocks."""
    import argparse

    import spdgraph.sampling
    from spdgraph.cli._arguments import check_block_save

    monkeypatch.setattr(spdgraph.sampling, "available_memory", lambda: 2**30)
    args = argparse.Namespace(chunks=100, output="x.zarr")
    p, n_obs = 10**4, 10**7  # 800 GB of data; blocks of 8 MB
    check_block_save(args, p, n_obs, "zarr")  # one block per local thread fits
    with pytest.raises(spdgraph.TooLargeError, match=r"--chunks 20,000 rows.*smaller --chunks"):
        check_block_save(argparse.Namespace(chunks=20_000, output="x.zarr"), p, n_obs, "zarr")

    class Cluster:  # a client whose workers hold 64 threads: 64 blocks at once
        def nthreads(self):
            return {f"tcp://w{i}": 8 for i in range(8)}

    with pytest.raises(spdgraph.TooLargeError, match="one per thread"):
        check_block_save(argparse.Namespace(chunks=1500, output="x.zarr"), p, n_obs, "zarr",
                         Cluster())  # fmt: skip
    check_block_save(argparse.Namespace(chunks=1500, output="x.zarr"), p, n_obs, "zarr")


HANGING_CLI = """
import sys, time
from spdgraph.accessor import _units
from spdgraph.cli import main

block, drawn = _units._block, []

def hang_after_three(drawer, start, count):
    if len(drawn) >= 3:
        time.sleep(600)  # killed here, half-way
    drawn.append(start)
    return block(drawer, start, count)

_units._block = hang_after_three
sys.exit(main(sys.argv[1:]))
"""


def test_a_killed_cli_save_resumes_with_only_the_missing_blocks(tmp_path, monkeypatch):
    import dask

    from spdgraph.accessor import _units
    from spdgraph.io._atomic import RESUMABLE

    out = tmp_path / "s.zarr"
    child = subprocess.Popen([sys.executable, "-c", HANGING_CLI, *SIMULATE, "-o", str(out)])

    def kept_blocks():
        names = (r.name for r in tmp_path.glob(f".*/{RESUMABLE}/data/*"))
        return [name for name in names if re.fullmatch(r"\d+\.0", name)]

    deadline = time.monotonic() + 120
    while len(kept_blocks()) < 3 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    child.kill()  # SIGKILL half-way, nothing to clean up
    child.wait()
    stored = len(kept_blocks())
    assert 3 <= stored < 10 and not out.exists()  # two threads: a fourth may slip in
    # a chunk the kill cut while Zarr wrote it (NAME.partial, renamed when whole)
    (next(tmp_path.glob(f".*/{RESUMABLE}/data")) / "9.0.partial").write_bytes(b"\0" * 64)
    block, drawn = _units._block, []

    def counted(drawer, start, count):
        drawn.append(start)
        return block(drawer, start, count)

    monkeypatch.setattr(_units, "_block", counted)
    with dask.config.set(scheduler="synchronous"):
        assert main([*SIMULATE, "--resume", "-o", str(out)]) == 0
    assert len(drawn) == 10 - stored  # the stored blocks are not drawn again
    assert not list(out.rglob("*.partial"))  # no half-written chunk in the final store
    monkeypatch.undo()
    assert main([*SIMULATE, "-o", str(tmp_path / "whole.zarr")]) == 0
    resumed, whole = spdgraph.open(out), spdgraph.open(tmp_path / "whole.zarr")
    assert resumed["data"].values.tobytes() == whole["data"].values.tobytes()
    digests = [zarr_attrs(path)[spdgraph.io.DIGESTS] for path in (out, tmp_path / "whole.zarr")]
    assert digests[0] == digests[1]


def zarr_attrs(path):
    zarr = pytest.importorskip("zarr")
    return dict(zarr.open_group(path, mode="r").attrs)


@pytest.mark.integration
def test_simulate_on_a_cluster_saves_the_bits_of_the_simulation_in_memory(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        out = tmp_path / "a.zarr"
        args = [*SIMULATE, "--scheduler", cluster.scheduler.address, "-o", str(out)]
        assert main(args) == 0
    sim = spdgraph.simulate("band", p=200, n=1000, method="dd", sparse=True, seed=5)
    assert spdgraph.open(out)["data"].values.tobytes() == sim["data"].values.tobytes()
