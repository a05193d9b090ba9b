"""spdgraph.study.run_cells: any grid of cells on the study runner (store, resume, errors).

The worker-process and dask paths are the ones :func:`spdgraph.study.run` uses
(tests/study/test_study.py checks their bits); spdgraph-reproduce's tests run its
studies through run_cells with two worker processes and on dask.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from spdgraph.errors import InvalidOptionError
from spdgraph.study import CellsResult, StudyError, cell_seed, run_cells

CELLS = [{"n": n, "family": f} for f in ("a", "b") for n in (5, 50)]


def _draw(coords, config, calls=None):
    if calls is not None:
        calls.append(dict(coords))
    rng = np.random.default_rng(cell_seed(config["seed"], coords))
    x = rng.normal(size=coords["n"])
    return {"mean": np.mean(x), "n": np.int64(coords["n"]), "first": x[:2]}


def _stored(folder):
    return sorted((folder / "cells").glob("*.json"))


def test_cells_are_stored_resumed_and_reused(tmp_path):
    calls: list[dict] = []
    cell = functools.partial(_draw, calls=calls)
    first = run_cells(cell, CELLS, tmp_path, config={"seed": 3}, workers=1, progress=False)
    assert isinstance(first, CellsResult) and (first.computed, first.skipped) == (4, 0)
    assert calls == CELLS  # in order, once each
    # numpy scalars and arrays come back as JSON numbers and lists, exact bits
    rng = np.random.default_rng(cell_seed(3, CELLS[1]))
    x = rng.normal(size=50)
    assert first.results[1] == {"mean": float(np.mean(x)), "n": 50, "first": x[:2].tolist()}
    assert len(_stored(tmp_path)) == 4
    payload = json.loads(_stored(tmp_path)[0].read_text())
    assert set(payload) == {"fingerprint", "coords", "result", "digest"}
    mtimes = [f.stat().st_mtime_ns for f in _stored(tmp_path)]
    again = run_cells(cell, CELLS, tmp_path, config={"seed": 3}, workers=1, progress=False)
    assert (again.computed, again.skipped) == (0, 4) and again.results == first.results
    assert [f.stat().st_mtime_ns for f in _stored(tmp_path)] == mtimes and len(calls) == 4
    # a new coordinate computes only the new cell; its neighbours are unchanged
    more = run_cells(cell, [*CELLS, {"n": 7, "family": "a"}], tmp_path, config={"seed": 3})
    assert (more.computed, more.skipped) == (1, 4) and more.results[:4] == first.results
    # another config (or another cell function) recomputes everything
    other = run_cells(cell, CELLS, tmp_path, config={"seed": 4}, workers=1, progress=False)
    assert other.computed == 4 and other.results != first.results


def test_a_cell_depends_on_its_coordinates_only(tmp_path):
    full = run_cells(_draw, CELLS, tmp_path / "full", config={"seed": 1}, workers=1)
    one = run_cells(_draw, CELLS[2:3], tmp_path / "one", config={"seed": 1}, workers=1)
    assert one.results == full.results[2:3]


def test_failing_cells_are_reported_and_the_others_stored(tmp_path):
    broken = {"on": True}

    def cell(coords, config):
        if coords["n"] == 50 and broken["on"]:
            raise RuntimeError("boom")
        if coords["family"] == "b" and coords["n"] == 5 and broken["on"]:
            return {"not json": object()}
        return coords["n"] * config["k"]

    with pytest.raises(StudyError, match=r"3 of 4 cells failed.*n=50.*boom") as info:
        run_cells(cell, CELLS, tmp_path, config={"k": 2}, workers=1, progress=False)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert len(_stored(tmp_path)) == 1 and not list((tmp_path / "cells").glob("*.tmp"))
    broken["on"] = False
    rest = run_cells(cell, CELLS, tmp_path, config={"k": 2}, workers=1, progress=False)
    assert (rest.computed, rest.skipped) == (3, 1) and rest.results == [10, 100, 10, 100]


def test_an_unserializable_result_names_the_type(tmp_path):
    with pytest.raises(StudyError, match=r"JSON-ready.*not object"):
        run_cells(lambda c, k: object(), CELLS[:1], tmp_path, config={}, workers=1)


@pytest.mark.parametrize(
    ("cell", "cells", "config", "workers", "match"),
    [
        ("f", CELLS, {}, 1, "cell must be a function"),
        (_draw, CELLS, {"seed": object()}, 1, "config must be JSON-ready"),
        (_draw, CELLS, [1], 1, "config must be a mapping"),
        (_draw, "n=5", {}, 1, "cells must be a list"),
        (_draw, [{"n": [5]}], {}, 1, "coordinates must be str"),
        (_draw, [{}], {}, 1, "non-empty dict"),
        (_draw, [{"n": 5}, {"n": 5}], {}, 1, "repeats a cell"),
        (lambda c, k: 0, CELLS, {}, 2, "must be picklable"),
        (_draw, CELLS, {}, 0, "workers must be a positive integer"),
    ],
)
def test_bad_input_is_refused_before_any_work(tmp_path, cell, cells, config, workers, match):
    with pytest.raises(InvalidOptionError, match=match):
        run_cells(cell, cells, tmp_path / "out", config=config, workers=workers)
    assert not (tmp_path / "out").exists()


def test_blas_threads_none_and_shared_stream_seeds(tmp_path):
    res = run_cells(_draw, CELLS[:2], tmp_path, config={"seed": 2}, workers=1, blas_threads=None)
    assert res.computed == 2
    with pytest.raises(InvalidOptionError, match="blas_threads must be a positive integer"):
        run_cells(_draw, CELLS, tmp_path, config={"seed": 2}, blas_threads=0)
    # an object shared by cells is seeded from the coordinates it depends on
    graph = cell_seed(2, {"stream": "graph", "family": "a"})
    assert graph.spawn_key == cell_seed(2, {"family": "a", "stream": "graph"}).spawn_key
    assert graph.spawn_key != cell_seed(2, {"family": "a"}).spawn_key
