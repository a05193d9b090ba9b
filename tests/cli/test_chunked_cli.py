"""``spdgraph draw/simulate --chunks N [--scheduler ...]``: data in blocks, the same bits."""

from __future__ import annotations

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
