"""A study under hostile input (issue 49): changed cells, locked folders, schedulers, files.

Every bound here is on work (bytes read, cells computed, a refusal before any
cell), never on wall-clock time.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pandas as pd
import pytest
from fulldisk import fill, leftovers, small_disk

from spdgraph.cli import main
from spdgraph.errors import FileError, InvalidOptionError, SpdgraphError
from spdgraph.study import run, run_cells
from spdgraph.study._guard import (
    MAX_NESTING,
    MAX_STUDY_BYTES,
    SchedulerError,
    StudyLockedError,
    check_scheduler,
    locked_folder,
)
from spdgraph.study._store import DIGEST, cell_digest

TINY = {
    "name": "tiny",
    "seed": 7,
    "grid": {"family": ["hub"], "p": [6], "n": [30, 60]},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["tpr", "f1"], "curves": False},
}
TINY_TOML = """seed = 7
[grid]
family = ["hub"]
p = [6]
n = [30, 60]
[[learners]]
name = "shrink"
[scores]
metrics = ["tpr", "f1"]
curves = false
"""


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _cells(folder: Path) -> list[Path]:
    return sorted((folder / "cells").glob("*.json"))


# ---- 1. every cell verified: an edited cell is computed anew, never tabled ----------


def test_an_edited_cell_is_recomputed_not_tabled(tmp_path):
    first = run(TINY, tmp_path, workers=1, plots=False)
    victim = _cells(tmp_path)[0]
    payload = json.loads(victim.read_text())
    assert payload[DIGEST] == cell_digest(payload)
    payload["records"][0]["value"] = 123.0  # a plausible edit, JSON still valid
    victim.write_text(json.dumps(payload))
    again = run(TINY, tmp_path, workers=1, plots=False)
    assert (again.computed, again.skipped) == (1, 1)
    assert 123.0 not in again.table["value"].tolist()
    pd.testing.assert_frame_equal(again.table, first.table)


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: {k: v for k, v in p.items() if k != "records"},  # no records
        lambda p: {**p, "records": {"a": 1}},  # wrong shape
        lambda p: {**p, "records": [1, 2]},
        lambda p: {k: v for k, v in p.items() if k != DIGEST},  # digest removed
        lambda p: [p],  # not an object
    ],
)
def test_a_cell_of_the_wrong_shape_is_recomputed(tmp_path, damage):
    first = run(TINY, tmp_path, workers=1, plots=False)
    victim = _cells(tmp_path)[1]
    changed = damage(json.loads(victim.read_text()))
    if isinstance(changed, dict) and DIGEST in changed:
        changed[DIGEST] = cell_digest(changed)  # even a consistent digest: shape checked
    victim.write_text(json.dumps(changed))
    again = run(TINY, tmp_path, workers=1, plots=False)
    assert again.computed == 1
    pd.testing.assert_frame_equal(again.table, first.table)


def test_run_cells_cells_are_verified_too(tmp_path):
    def cell(coords, config):
        return coords["n"] * 2

    first = run_cells(cell, [{"n": 1}, {"n": 2}], tmp_path, config={}, workers=1)
    victim = _cells(tmp_path)[0]
    victim.write_text(victim.read_text().replace('"result": 2', '"result": 99'))
    again = run_cells(cell, [{"n": 1}, {"n": 2}], tmp_path, config={}, workers=1)
    assert again.computed == 1 and again.results == first.results


# ---- 3. one run per folder ----------------------------------------------------------


def test_a_second_run_into_a_locked_folder_is_refused(tmp_path):
    with locked_folder(tmp_path):
        with pytest.raises(StudyLockedError) as info:
            run(TINY, tmp_path, workers=1, plots=False)
    message = str(info.value)
    assert str(tmp_path) in message and f"process {os.getpid()}" in message
    assert "--wait" in message
    assert not _cells(tmp_path)  # nothing computed
    assert run(TINY, tmp_path, workers=1, plots=False).computed == 2  # free again


def test_a_run_in_another_process_holds_the_folder(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, pathlib\n"
            "from spdgraph.study._guard import locked_folder\n"
            "with locked_folder(pathlib.Path(sys.argv[1])):\n"
            "    print('locked', flush=True)\n"
            "    sys.stdin.readline()\n",
            str(tmp_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StudyLockedError, match=f"process {holder.pid}"):
            run(TINY, tmp_path, workers=1, plots=False)
        toml = tmp_path.parent / "t.toml"
        toml.write_text(TINY_TOML)
        assert main(["study", "run", str(toml), "-o", str(tmp_path), "--workers", "1"]) == 2
    finally:
        holder.communicate("\n")
    assert run(TINY, tmp_path, workers=1, plots=False).computed == 2  # the lock ended with it


def test_wait_waits_for_the_holder(tmp_path):
    release = threading.Event()
    locked = threading.Event()

    def hold():
        with locked_folder(tmp_path):
            locked.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    locked.wait()
    outcome = {}

    def waiter():
        outcome["result"] = run(TINY, tmp_path, workers=1, plots=False, wait=True)

    second = threading.Thread(target=waiter)
    second.start()
    assert not _cells(tmp_path)  # the waiter computes nothing while the lock is held
    release.set()
    holder.join()
    second.join()
    assert outcome["result"].computed == 2


def test_two_runs_of_different_studies_never_mix(tmp_path):
    """Two studies started together into one folder: one runs, the other is refused."""
    other = dict(TINY, seed=8)
    errors: list[BaseException] = []
    results = []
    barrier = threading.Barrier(2)

    def go(spec):
        barrier.wait()
        try:
            results.append(run(spec, tmp_path, workers=1, plots=False))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(spec,)) for spec in (TINY, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(isinstance(e, StudyLockedError) for e in errors), errors
    assert len(results) + len(errors) == 2 and results
    # the table on disk is whole and from one study: the last run that finished
    table = pd.read_csv(tmp_path / "results.csv")
    table["error"] = table["error"].fillna("")  # an empty reason reads back as NaN
    pd.testing.assert_frame_equal(table, results[-1].table, check_dtype=False)


# ---- 4. scheduler addresses ---------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    ["not an address", "tcp://host:99999", "inproc://a b", "ftp://h:1", 8786, "a" * 400],
)
def test_a_bad_scheduler_address_is_refused_before_any_work(tmp_path, address):
    with pytest.raises(InvalidOptionError, match="scheduler"):
        run(TINY, tmp_path / "out", workers=1, plots=False, scheduler=address)
    assert not (tmp_path / "out").exists()


def test_good_addresses_pass():
    good = ("tcp://127.0.0.1:8786", "localhost:8786", "tls://[::1]:1", "inproc://10.0.0.1/7/1")
    for address in (*good, "local", None):
        assert check_scheduler(address) == address


def _listener(greeting: bytes):
    """A TCP listener on 127.0.0.1 that sends ``greeting`` to each connection, then stalls."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve():
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                conn = server.accept()[0]
            except OSError:
                continue
            accepted.append(conn)
            if greeting:
                conn.sendall(greeting)  # then never another byte

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    server.close()
    assert accepted  # the run did connect


@pytest.fixture
def silent_listener():
    yield from _listener(b"")  # accepts, never says anything


@pytest.fixture
def stalling_listener():
    # a dask frame header announcing 200 bytes, and 5 of them: greets, then falls silent
    yield from _listener((200).to_bytes(8, sys.byteorder) + b"hello")


def test_a_scheduler_silent_after_its_greeting_is_refused(tmp_path, stalling_listener):
    import time

    pytest.importorskip("distributed")
    start = time.process_time()
    with pytest.raises(SchedulerError, match=r"within 0\.5 s") as info:
        run(TINY, tmp_path, plots=False, scheduler=stalling_listener, scheduler_timeout=0.5)
    assert stalling_listener in str(info.value) and "--scheduler-timeout" in str(info.value)
    assert time.process_time() - start < 1.0 and not _cells(tmp_path)


def test_tls_without_a_security_context_names_what_to_configure(tmp_path, silent_listener):
    pytest.importorskip("distributed")
    address = silent_listener.replace("tcp://", "tls://")
    with pytest.raises(SchedulerError, match=r"distributed\.comm\.tls\.ca-file"):
        run(TINY, tmp_path, plots=False, scheduler=address, scheduler_timeout=0.5)
    socket.create_connection(("127.0.0.1", int(address.rsplit(":", 1)[1]))).close()  # fixture


def test_a_silent_scheduler_is_refused_after_the_timeout(tmp_path, silent_listener):
    pytest.importorskip("distributed")
    with pytest.raises(SchedulerError, match="scheduler_timeout") as info:
        run(TINY, tmp_path, plots=False, scheduler=silent_listener, scheduler_timeout=0.5)
    assert silent_listener in str(info.value)
    assert not _cells(tmp_path)


def test_an_unreachable_scheduler_is_refused(tmp_path, capsys):
    pytest.importorskip("distributed")
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there now
    toml = tmp_path / "t.toml"
    toml.write_text(TINY_TOML)
    args = ["study", "run", str(toml), "-o", str(tmp_path / "o"), "--no-plots"]
    status = main([*args, "--scheduler", f"tcp://127.0.0.1:{port}", "--scheduler-timeout", "0.5"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "cannot reach the dask scheduler" in err
    assert main([*args, "--scheduler", "not an address"]) == 2
    assert "not a dask scheduler address" in capsys.readouterr().err


def test_scheduler_timeout_is_checked(tmp_path):
    for bad in (0, -1, float("nan"), "10", True):
        with pytest.raises(InvalidOptionError, match="scheduler_timeout"):
            run(TINY, tmp_path, workers=1, plots=False, scheduler_timeout=bad)


# ---- 4. study files bounded before parsing -------------------------------------------


def _cli_error(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_hostile_study_files_are_refused_clearly(tmp_path, capsys):
    out = str(tmp_path / "out")
    latin = tmp_path / "latin.toml"
    latin.write_bytes(TINY_TOML.replace('"hub"', '"h\xfcb"').encode("latin-1"))
    assert "not UTF-8" in _cli_error(capsys, ["study", "run", str(latin), "-o", out])
    deep = tmp_path / "deep.toml"
    deep.write_text("seed = 1\nx = " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert f"more than {MAX_NESTING} deep" in _cli_error(
        capsys, ["study", "run", str(deep), "-o", out]
    )
    dotted = tmp_path / "dotted.toml"
    dotted.write_text("seed = 1\n" + ".".join(["a"] * 10_000) + " = 1\n")
    assert "deep" in _cli_error(capsys, ["study", "run", str(dotted), "-o", out])
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as handle:  # 100 MB claimed (sparse): refused before a byte is read
        handle.write(TINY_TOML.encode())
        handle.truncate(100 * 2**20)
    assert f"{MAX_STUDY_BYTES:,}" in _cli_error(capsys, ["study", "run", str(huge), "-o", out])
    assert not Path(out).exists()


def test_hostile_study_dicts_are_refused(tmp_path):
    nested: object = 1
    for _ in range(10_000):
        nested = [nested]
    with pytest.raises(InvalidOptionError, match="deep"):
        run(dict(TINY, families={"hub": {"g": nested}}), tmp_path, workers=1)
    wide = dict(TINY, grid={**TINY["grid"], "n": list(range(1, 200_002))})
    with pytest.raises(InvalidOptionError, match="grid lists 200,00"):
        run(wide, tmp_path, workers=1)
    with pytest.raises(InvalidOptionError, match="TOML file's path"):
        run(12, tmp_path, workers=1)
    assert not _cells(tmp_path)


def test_an_output_that_is_a_file_is_refused(tmp_path, capsys):
    toml = tmp_path / "t.toml"
    toml.write_text(TINY_TOML)
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    err = _cli_error(capsys, ["study", "run", str(toml), "-o", str(taken)])
    assert str(taken) in err and "not a folder" in err
    assert taken.read_text() == "keep me"
    with pytest.raises(FileError, match="not a folder"):
        run(TINY, taken, workers=1)
    with pytest.raises(FileError, match="cannot create the study folder"):
        run(TINY, "x" * 300, workers=1)
    with pytest.raises(InvalidOptionError, match="out must be a folder path"):
        run(TINY, 3, workers=1)


# ---- 2. a full disk ----------------------------------------------------------------


def test_a_study_on_a_full_disk_ends_in_one_clear_line(tmp_path, capsys):
    toml = tmp_path / "t.toml"
    toml.write_text(TINY_TOML)
    with small_disk(tmp_path / "disk", "4m") as disk:
        out = disk / "study"
        first = run(TINY, out, workers=1, plots=False)
        stored = {p.name: p.read_bytes() for p in _cells(out)}
        results = (out / "results.csv").read_bytes()
        fill(disk)
        more = ["study", "run", str(toml), "-o", str(out), "--no-plots", "--workers", "1"]
        toml.write_text(TINY_TOML.replace("n = [30, 60]", "n = [30, 60, 90]"))
        assert main(more) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        with pytest.raises(SpdgraphError):
            run(dict(TINY, grid={**TINY["grid"], "n": [30, 60, 90]}), out, workers=1, plots=False)
        assert {p.name: p.read_bytes() for p in _cells(out)} == stored  # old cells whole
        assert (out / "results.csv").read_bytes() == results
        assert leftovers(out) == [".spdgraph-lock"] or leftovers(out) == []
        (disk / "filler").unlink()
        again = run(TINY, out, workers=1, plots=False)
        assert again.computed == 0
        pd.testing.assert_frame_equal(again.table, first.table)


@pytest.mark.integration
def test_a_real_tcp_scheduler_passes_the_probe(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        result = run(TINY, tmp_path, plots=False, scheduler=cluster.scheduler_address)
    assert result.computed == 2
    pd.testing.assert_frame_equal(
        result.table, run(TINY, tmp_path / "here", workers=1, plots=False).table
    )
