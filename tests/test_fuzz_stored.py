"""The fuzz catalogue, continued (issue 49): stored artefacts and the study's inputs.

Study files, cell files, lazy opens, simulation files and scheduler addresses:
each row names the input, the error class it must raise and a work bound —
the most memory the refusal may allocate (tracemalloc's peak, which counts
numpy's arrays too) and, where the input claims a size, that the claim is not
read. No row has a wall-clock bound: load cannot break them. (The rest of the
catalogue is tests/test_fuzz.py.)
"""

from __future__ import annotations

import json
import socket
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import spdgraph
from spdgraph import errors as E
from spdgraph.study import SchedulerError, run
from spdgraph.study._store import CellStore, cell_digest

KIB, MIB = 2**10, 2**20

TINY = {
    "seed": 7,
    "grid": {"family": ["hub"], "p": [6], "n": [30]},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["tpr"], "curves": False},
}
TOML = 'seed = 7\n[grid]\nfamily = ["hub"]\np = [6]\nn = [30]\n[[learners]]\nname = "shrink"\n'


# ---- study files ---------------------------------------------------------------------------


def _study_file(content: bytes | str, *, claim: int | None = None) -> Callable[[Path], Any]:
    def setup(tmp: Path) -> Callable[[], Any]:
        path = tmp / "s.toml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        if claim is not None:
            with path.open("r+b") as handle:
                handle.truncate(claim)  # sparse: the size is claimed, not written
        return lambda: run(path, tmp / "out", workers=1, plots=False)

    return setup


def _study_dict(spec: dict) -> Callable[[Path], Any]:
    return lambda tmp: lambda: run(spec, tmp / "out", workers=1, plots=False)


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


STUDY_ROWS = [
    (
        "study not UTF-8",
        _study_file(TOML.encode() + b'name = "\xff\xfe"\n'),
        E.InvalidOptionError,
        MIB,
    ),
    (
        "study 10,000 deep",
        _study_file("seed = 1\nx = " + "[" * 10_000 + "]" * 10_000),
        E.InvalidOptionError,
        4 * MIB,
    ),
    (
        "study dotted 10,000 deep",
        _study_file("seed = 1\n" + "a." * 9_999 + "a = 1\n"),
        E.InvalidOptionError,
        4 * MIB,
    ),
    (
        "study table 10,000 deep",
        _study_file("seed = 1\n[" + "a." * 9_999 + "a]\n"),
        E.InvalidOptionError,
        4 * MIB,
    ),
    ("study claims 100 MB", _study_file(TOML, claim=100 * MIB), E.InvalidOptionError, MIB),
    (
        "study dict 10,000 deep",
        _study_dict({**TINY, "families": {"hub": {"g": _nested(10_000)}}}),
        E.InvalidOptionError,
        8 * MIB,
    ),
    (
        "study grid 200,001 values",
        _study_dict({**TINY, "grid": {**TINY["grid"], "n": list(range(1, 200_002))}}),
        E.InvalidOptionError,
        64 * MIB,
    ),
    ("study a number", lambda tmp: lambda: run(12, tmp / "out"), E.InvalidOptionError, MIB),
    (
        "study output a file",
        lambda tmp: (tmp / "f").write_text("x") and (lambda: run(TINY, tmp / "f")),
        E.FileError,
        MIB,
    ),
]


# ---- scheduler addresses -------------------------------------------------------------------


@pytest.fixture(scope="module")
def silent_address() -> Iterator[str]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def _closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def _scheduler(address: object, timeout: float = 0.5) -> Callable[[Path], Any]:
    return lambda tmp: (
        lambda: run(TINY, tmp / "out", plots=False, scheduler=address, scheduler_timeout=timeout)
    )


SCHEDULER_ROWS = [
    ("scheduler 'not an address'", _scheduler("not an address"), E.InvalidOptionError, MIB),
    ("scheduler port 99999", _scheduler("tcp://127.0.0.1:99999"), E.InvalidOptionError, MIB),
    ("scheduler scheme ftp", _scheduler("ftp://host:1"), E.InvalidOptionError, MIB),
    ("scheduler an int", _scheduler(8786), E.InvalidOptionError, MIB),
    ("scheduler 10 kB", _scheduler("tcp://" + "h" * 10_000 + ":1"), E.InvalidOptionError, MIB),
    ("scheduler timeout NaN", _scheduler("local", float("nan")), E.InvalidOptionError, MIB),
    (
        "scheduler nobody listens",
        lambda tmp: _scheduler(f"tcp://127.0.0.1:{_closed_port()}")(tmp),
        SchedulerError,
        8 * MIB,
    ),
]


def test_a_silent_scheduler_row(tmp_path, silent_address):
    """The listener that accepts and never answers (a fixture, so not a plain row)."""
    pytest.importorskip("distributed")
    _check_row(_scheduler(silent_address)(tmp_path), SchedulerError, 8 * MIB)


# ---- lazy opens and simulation files -------------------------------------------------------


def _stack(tmp: Path, name: str) -> Path:
    import spdgraph.io._digests as digests

    original = digests.BLOCK_BYTES
    digests.BLOCK_BYTES = 2**16  # several digest blocks in a small stack
    try:
        return spdgraph.save(spdgraph.sample(nx.path_graph(20), size=300, seed=1), tmp / name)
    finally:
        digests.BLOCK_BYTES = original


def _swapped_zarr(tmp: Path) -> Callable[[], Any]:
    path = _stack(tmp, "m.zarr")
    root = path / "covariance" / "c"
    a, b = root / "0" / "0" / "0", root / "1" / "0" / "0"
    first, second = a.read_bytes(), b.read_bytes()
    a.write_bytes(second)
    b.write_bytes(first)
    return lambda: spdgraph.open(path, chunks=10).values


def _edited_nc(tmp: Path, *, lazy: bool) -> Callable[[], Any]:
    import netCDF4

    path = _stack(tmp, "m.nc")
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["covariance"][140, 1, 2] = 0.125
    return lambda: spdgraph.open(path, chunks=25 if lazy else None).values


def _no_digests(tmp: Path) -> Callable[[], Any]:
    import netCDF4

    path = _stack(tmp, "m.nc")
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["covariance"].delncattr("spdgraph_digests")
    return lambda: spdgraph.open(path, chunks=10)


def _simulation(tmp: Path, name: str = "s.nc") -> Path:
    from spdgraph.simulation import save_simulation

    return save_simulation(spdgraph.simulate("hub", n=30, p=8, seed=1, size=4), tmp / name)


def _edited_simulation(tmp: Path, *, lazy: bool) -> Callable[[], Any]:
    import netCDF4

    from spdgraph.simulation import open_simulation

    path = _simulation(tmp)
    with netCDF4.Dataset(path, "a") as nc:
        nc.variables["data"][3, 1, 2] = 9.0
    return lambda: open_simulation(path, chunks=2 if lazy else None).load()


def _saving_simulation(target: Callable[[Path], object], **kwargs: Any) -> Callable[[Path], Any]:
    def setup(tmp: Path) -> Callable[[], Any]:
        from spdgraph.simulation import save_simulation

        sim = spdgraph.simulate(kwargs.pop("graph", "hub"), n=5, p=kwargs.pop("p", 4), seed=0)
        return lambda: save_simulation(sim, target(tmp))

    return setup


FILE_ROWS = [
    ("lazy open, swapped Zarr chunks", _swapped_zarr, E.FileError, 8 * MIB),
    (
        "lazy open, edited netCDF value",
        lambda tmp: _edited_nc(tmp, lazy=True),
        E.FileError,
        8 * MIB,
    ),
    (
        "eager open, edited netCDF value",
        lambda tmp: _edited_nc(tmp, lazy=False),
        E.FileError,
        8 * MIB,
    ),
    ("lazy open, digests removed", _no_digests, E.FileError, 8 * MIB),
    (
        "simulation, edited data",
        lambda tmp: _edited_simulation(tmp, lazy=False),
        E.FileError,
        8 * MIB,
    ),
    (
        "simulation lazy, edited data",
        lambda tmp: _edited_simulation(tmp, lazy=True),
        E.FileError,
        8 * MIB,
    ),
    ("simulation to an int path", _saving_simulation(lambda tmp: 7), E.FileError, MIB),
    (
        "simulation, 300-char name",
        _saving_simulation(lambda tmp: tmp / ("x" * 300 + ".nc")),
        E.FileError,
        MIB,
    ),
    (
        "simulation, missing folder",
        _saving_simulation(lambda tmp: tmp / "no" / "s.zarr"),
        E.FileError,
        MIB,
    ),
    (
        "simulation, NUL label",
        _saving_simulation(lambda tmp: tmp / "s.nc", graph=nx.path_graph(["a\0b", "b"]), p=None),
        E.InvalidOptionError,
        4 * MIB,
    ),
    (
        "simulation, trailing NUL label",
        lambda tmp: lambda: spdgraph.simulate(nx.path_graph(["a\0", "b"]), n=3),
        E.GraphError,
        4 * MIB,
    ),
]


def _check_row(call: Callable[[], Any], error: type[BaseException], peak_bound: int) -> None:
    with pytest.raises(error):
        call()  # once for the imports and caches
    tracemalloc.start()
    try:
        with pytest.raises(error):
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < peak_bound, f"{peak / MIB:.1f} MiB allocated, bound {peak_bound / MIB:.0f} MiB"


ROWS = STUDY_ROWS + SCHEDULER_ROWS + FILE_ROWS


@pytest.mark.parametrize(("name", "setup", "error", "peak"), ROWS, ids=[r[0] for r in ROWS])
def test_catalogue_of_stored_and_study_input(tmp_path, name, setup, error, peak):
    if name.startswith("scheduler nobody"):
        pytest.importorskip("distributed")
    if "netCDF" in name or "simulation" in name or "digests" in name:
        pytest.importorskip("netCDF4")
    if "Zarr" in name:
        pytest.importorskip("zarr")
    if "lazy" in name:
        pytest.importorskip("dask")
    _check_row(setup(tmp_path), error, peak)
    assert not (tmp_path / "out" / "cells").exists()  # no cell was computed
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary


# ---- cell files: refused (computed anew), never tabled --------------------------------------


def _edits() -> list[tuple[str, Callable[[dict], Any]]]:
    return [
        ("a value edited", lambda p: {**p, "records": [{**p["records"][0], "value": 0.5}]}),
        ("records missing", lambda p: {k: v for k, v in p.items() if k != "records"}),
        ("records a dict", lambda p: {**p, "records": {"metric": "tpr"}}),
        ("rows not tables", lambda p: {**p, "records": [1, 2, 3]}),
        ("digest removed", lambda p: {k: v for k, v in p.items() if k != "digest"}),
        ("a list", lambda p: [p]),
        ("not JSON", lambda p: "{not json"),
        ("10,000 deep", lambda p: "[" * 10_000 + "]" * 10_000),
    ]


@pytest.mark.parametrize(("name", "edit"), _edits(), ids=[e[0] for e in _edits()])
def test_catalogue_of_cell_files(tmp_path, name, edit):
    """An edited or misshapen cell loads as None (so run computes it anew), in bounded memory."""
    store = CellStore(tmp_path, "f" * 16)
    coords = {"family": "hub", "p": 6, "n": 30}
    store.save(coords, {"records": [{"metric": "tpr", "value": 1.0}], "curves": []})
    payload = store.load(coords)
    assert payload is not None and payload["digest"] == cell_digest(payload)
    changed = edit(json.loads(store.path(coords).read_text()))
    if isinstance(changed, dict) and "digest" in changed and name != "a value edited":
        changed["digest"] = cell_digest(changed)  # consistent digest: the shape is checked
    store.path(coords).write_text(changed if isinstance(changed, str) else json.dumps(changed))
    tracemalloc.start()
    try:
        assert store.load(coords) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MIB
