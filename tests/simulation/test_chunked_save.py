"""``simulate(..., sparse=True, chunks=N)`` saved to Zarr end to end (issue 56, item 1).

The data's row blocks are drawn from the one factorization and written block by
block, each digested; the saved store equals the in-memory simulation bit for
bit whatever the chunking, and an interrupted save resumed with ``resume=True``
draws only the blocks not yet written. The blocks drawn are counted by wrapping
the draw's block task (:func:`spdgraph.accessor._units._block`).
"""

from __future__ import annotations

import json

import pytest

import spdgraph
from spdgraph.accessor import _units
from spdgraph.io._atomic import RESUMABLE
from spdgraph.simulation import save_simulation

dask = pytest.importorskip("dask")
zarr = pytest.importorskip("zarr")

P, N_OBS, ROWS, SEED = 200, 1000, 100, 11


def _simulate(chunks=None):
    options = {} if chunks is None else {"chunks": chunks}
    return spdgraph.simulate("band", p=P, n=N_OBS, method="dd", sparse=True, seed=SEED, **options)


@pytest.fixture(scope="module")
def in_memory():
    return _simulate()


@pytest.fixture(autouse=True)
def _blocks_in_order():
    with dask.config.set(scheduler="synchronous"):  # blocks drawn one after the other
        yield


def _block_digests(path):
    record = json.loads(zarr.open_group(path, mode="r").attrs[spdgraph.io.DIGESTS])
    return record["blocks data"]


def _reference_digests(values, rows):
    """The slow reference: each block of ``rows`` observations digested in memory."""
    from spdgraph.io._hashing import block_digest

    return [block_digest(values[i : i + rows]) for i in range(0, len(values), rows)]


def _counting(monkeypatch, drawn, fail_after=None):
    """Wrap the block task: each block drawn appended to ``drawn``; a failure after
    ``fail_after`` blocks (a worker lost half-way)."""
    block = _units._block

    def counted(drawer, start, count):
        if fail_after is not None and len(drawn) >= fail_after:
            raise RuntimeError("worker lost")
        drawn.append(start)
        return block(drawer, start, count)

    monkeypatch.setattr(_units, "_block", counted)


def test_a_chunked_sparse_simulation_saved_to_zarr_is_the_simulation_in_memory(
    tmp_path, in_memory
):
    sim = _simulate(ROWS)
    assert sim["data"].chunks is not None  # a dask array of row blocks
    path = save_simulation(sim, tmp_path / "s.zarr")
    back = spdgraph.open(path)
    assert back["data"].values.tobytes() == in_memory["data"].values.tobytes()
    record = _block_digests(path)
    assert record["chunks"] == [[ROWS] * (N_OBS // ROWS), [P]]
    assert record["sha"] == _reference_digests(in_memory["data"].values, ROWS)
    assert zarr.open_group(path, mode="r")["data"].chunks == (ROWS, P)


def test_the_same_bits_whatever_the_chunking(tmp_path, in_memory):
    half = save_simulation(_simulate(ROWS // 2), tmp_path / "half.zarr")
    record = _block_digests(half)
    assert record["chunks"] == [[ROWS // 2] * (2 * N_OBS // ROWS), [P]]
    values = spdgraph.open(half)["data"].values
    assert record["sha"] == _reference_digests(values, ROWS // 2)
    whole = save_simulation(_simulate(ROWS), tmp_path / "whole.zarr")  # rechunked: the same
    assert _reference_digests(values, ROWS) == _block_digests(whole)["sha"]
    assert values.tobytes() == in_memory["data"].values.tobytes()


def test_an_interrupted_save_resumes_drawing_only_the_missing_blocks(
    tmp_path, monkeypatch, in_memory
):
    path, stored = tmp_path / "s.zarr", 4
    drawn: list[int] = []
    _counting(monkeypatch, drawn, fail_after=stored)
    with pytest.raises(RuntimeError, match="worker lost") as info:
        save_simulation(_simulate(ROWS), path)
    assert "resume=True" in "".join(info.value.__notes__) and not path.exists()
    assert len([p for p in tmp_path.iterdir() if (p / RESUMABLE).is_dir()]) == 1
    monkeypatch.undo()
    first, drawn = set(drawn), []
    _counting(monkeypatch, drawn)
    save_simulation(_simulate(ROWS), path, resume=True)
    assert len(first) == stored and len(drawn) == N_OBS // ROWS - stored
    assert set(drawn) == set(range(0, N_OBS, ROWS)) - first  # the missing blocks only
    monkeypatch.undo()
    whole = save_simulation(_simulate(ROWS), tmp_path / "whole.zarr")
    assert _block_digests(path) == _block_digests(whole)
    assert spdgraph.open(path)["data"].values.tobytes() == in_memory["data"].values.tobytes()
    assert [p for p in tmp_path.iterdir() if (p / RESUMABLE).is_dir()] == []


def test_resume_is_refused_for_a_format_written_whole(tmp_path):
    sim = spdgraph.simulate("band", p=10, n=20, method="dd", sparse=True, seed=1, chunks=5)
    with pytest.raises(spdgraph.InvalidOptionError, match="resume=True needs a format"):
        save_simulation(sim, tmp_path / "s.nc", resume=True)
    assert not (tmp_path / "s.nc").exists()
