"""Learners contained (issue 57 items 3 and 4): scratch folders, bounded output, checked results.

Every refusal here comes within a second of CPU and a few MB of Python
memory (bounded with ``time.process_time`` and ``tracemalloc``, never the
wall clock).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from processes import assert_all_end, wait_for

from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.study import load_study, run
from spdgraph.study._command import fit_command
from spdgraph.study._contain import (
    SCRATCH,
    LearnerContext,
    LearnerFailure,
    in_context,
    running_fits,
)
from spdgraph.study._output import check_finite, read_result

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and FIFOs")

BASE = {
    "seed": 3,
    "grid": {"family": ["hub"], "p": [6], "n": [20]},
    "learners": [{"name": "shrink"}],
    "scores": {"metrics": ["tpr"], "curves": False},
}
PY = sys.executable
needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")


@contextmanager
def bounded(cpu_seconds: float = 1.0, megabytes: float = 300.0):
    """The block's CPU time and traced Python memory stay under the bounds."""
    tracemalloc.start()
    start = time.process_time()
    try:
        yield
    finally:
        cpu = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    assert cpu < cpu_seconds, f"{cpu:.2f} s of CPU"
    assert peak < megabytes, f"{peak:.0f} MB traced"


def _fit(entry, tmp_path: Path, p: int = 3):
    """fit_command in a study's context whose scratch root is in tmp_path."""
    x = np.random.default_rng(0).normal(size=(10, p))
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    return in_context(
        context, lambda coords: fit_command(entry, x, [f"v{j}" for j in range(p)]), {"c": 1}
    )


WRITE_EYE = "import numpy as np, sys; np.savetxt(sys.argv[1], np.eye(3), delimiter=',')"


# -- result files ------------------------------------------------------------------------


def test_a_result_that_links_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to("/dev/zero")
    with bounded(), pytest.raises(LearnerFailure, match="symbolic link"):
        read_result(link, 3)


def test_a_result_that_is_a_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "out.npy"
    os.mkfifo(fifo)
    with bounded(), pytest.raises(LearnerFailure, match="not a regular file"):
        read_result(fifo, 3)


@pytest.mark.parametrize("suffix", [".csv", ".npy"])
def test_a_huge_result_is_refused_before_it_is_read(tmp_path, suffix):
    big = tmp_path / f"out{suffix}"
    with big.open("wb") as handle:
        handle.truncate(12 * 2**30)  # 12 GB, sparse on disk
    with bounded(), pytest.raises(LearnerFailure, match="more than the"):
        read_result(big, 3)


def test_an_npy_declaring_more_than_it_holds_is_refused(tmp_path):
    path = tmp_path / "out.npy"
    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(
            handle, {"descr": "<f8", "fortran_order": False, "shape": (10**8, 3, 3)}
        )
        handle.write(b"\0" * 72)
    with bounded(), pytest.raises(LearnerFailure, match="declares shape"):
        read_result(path, 3)


def test_text_and_shapes_are_named(tmp_path):
    text = tmp_path / "out.csv"
    text.write_text("a,b,c\n1,2,3\n4,5,6\n")
    with pytest.raises(LearnerFailure, match="holds text, not numbers"):
        read_result(text, 3)
    chars = tmp_path / "chars.npy"
    np.save(chars, np.array([["a"] * 3] * 3))
    with pytest.raises(LearnerFailure, match="holds text"):
        read_result(chars, 3)
    shaped = tmp_path / "shape.npy"
    np.save(shaped, np.zeros((2, 5)))
    with pytest.raises(LearnerFailure, match=r"shape \(2, 5\); expected \(3, 3\)"):
        read_result(shaped, 3)


def test_nan_entries_are_named():
    values = np.eye(4)
    values[1, 2] = np.nan
    values[3, 0] = np.inf
    with pytest.raises(LearnerFailure, match=r"mine returned NaN and infinite values at 2 of 16 "
                       r"entries \(first: \(1, 2\), \(3, 0\)\)"):  # fmt: skip
        check_finite(values, "mine")
    assert check_finite(np.eye(2), "mine") is not None


# -- command learners: scratch, background processes, output, timeout ----------------------


def test_a_command_writes_relative_paths_into_its_scratch_folder(tmp_path, monkeypatch):
    start = tmp_path / "start"
    start.mkdir()
    monkeypatch.chdir(start)
    code = f"open('stray.txt', 'w').write('x'); {WRITE_EYE}"
    entry = {"name": "cmd", "command": [PY, "-c", code, "{out}", "{data}"]}
    values, _ = _fit(entry, tmp_path)
    np.testing.assert_array_equal(values, np.eye(3))
    assert not list(start.iterdir())  # nothing where the study was started
    assert not list((tmp_path / SCRATCH).rglob("*"))  # the scratch folder is gone


def test_what_a_command_starts_in_the_background_is_killed(tmp_path):
    pid_file = tmp_path / "bg.pid"
    script = f'sleep 120 & echo $! > {pid_file}; {PY} -c "{WRITE_EYE}" {{out}} {{data}}'
    values, _ = _fit({"name": "bg", "command": ["sh", "-c", script]}, tmp_path)
    assert values.shape == (3, 3)  # returned at once: the background sleep did not hold it
    background = int(pid_file.read_text())
    assert_all_end([background], 10)


def test_a_flood_on_stdout_keeps_only_the_tail(tmp_path):
    code = (
        "import sys; out = sys.stdout.buffer\n"
        "for _ in range(200): out.write(b'x' * 2**18)\n"  # 50 MB
        "sys.stderr.write('the real reason'); sys.exit(3)"
    )
    entry = {"name": "loud", "command": [PY, "-c", code, "{data}", "{out}"]}
    tracemalloc.start()
    try:
        with pytest.raises(LearnerFailure, match="exited with status 3: the real reason"):
            _fit(entry, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # 50 MB printed, a few hundred KB kept


def test_a_flood_without_stderr_shows_the_stdout_tail(tmp_path):
    code = "import sys; sys.stdout.write('y' * 300000 + 'END'); sys.exit(2)"
    entry = {"name": "loud", "command": [PY, "-c", code, "{data}", "{out}"]}
    with pytest.raises(LearnerFailure, match=r"command learner 'loud' exited .*END") as info:
        _fit(entry, tmp_path)
    assert len(str(info.value)) < 3000


def test_a_command_past_its_timeout_is_killed_with_its_children(tmp_path):
    pid_file = tmp_path / "child.pid"
    entry = {
        "name": "slow",
        "command": ["sh", "-c", f"sleep 120 & echo $! > {pid_file}; sleep 120", "{data}", "{out}"],
        "timeout": 0.5,
    }
    with pytest.raises(LearnerFailure, match=r"'slow' did not finish within timeout = 0.5 s"):
        _fit(entry, tmp_path)
    assert_all_end([int(pid_file.read_text())], 10)


def test_the_study_timeout_applies_when_the_learner_sets_none(tmp_path):
    entry = {"name": "slow", "command": ["sh", "-c", "sleep 120", "{data}", "{out}"]}
    x = np.zeros((5, 3))
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH), timeout=0.3)
    with pytest.raises(LearnerFailure, match=r"within timeout = 0\.3 s"):
        in_context(context, lambda c: fit_command(entry, x, ["a", "b", "c"]), {"c": 1})


def test_a_command_returning_nan_names_the_learner_and_the_entries(tmp_path):
    code = "import numpy as np, sys; a = np.eye(3); a[0, 2] = np.nan; np.save(sys.argv[1], a)"
    entry = {"name": "nanny", "command": [PY, "-c", code, "{out}.npy", "{data}"]}
    with pytest.raises(LearnerFailure, match=r"command learner 'nanny' returned NaN .*\(0, 2\)"):
        _fit(entry, tmp_path)


def test_running_fits_name_the_learner_and_its_time(tmp_path):
    started = int(time.time()) - 12
    (tmp_path / SCRATCH / "cell-1" / f"glasso_r.{started}.ab12").mkdir(parents=True)
    ((name, seconds),) = running_fits(tmp_path, now=started + 12.5)
    assert name == "glasso_r" and seconds == pytest.approx(12.5)


# -- the study: timeouts, bounds, scratch left by a killed run ------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0, -1, "10", True])
def test_timeouts_must_be_finite_and_positive(bad):
    with pytest.raises(InvalidOptionError, match="timeout must be a"):
        load_study({**BASE, "timeout": bad})
    learner = {"name": "c", "command": ["x", "{data}", "{out}"], "timeout": bad}
    with pytest.raises(InvalidOptionError, match="timeout must be a"):
        load_study({**BASE, "learners": [learner]})


def test_timeout_nan_in_a_toml_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        'seed = 1\ntimeout = nan\n[grid]\nfamily = ["hub"]\np = [4]\nn = [20]\n'
        '[[learners]]\nname = "shrink"\n'
    )
    with pytest.raises(InvalidOptionError, match=r"finite positive number of seconds .*got nan"):
        load_study(path)
    assert load_study({**BASE, "timeout": 30}).timeout == 30.0


def test_cli_timeout_is_checked(tmp_path, capsys):
    from spdgraph.cli import main

    assert main(["study", "run", "x.toml", "-o", str(tmp_path / "o"), "--timeout", "inf"]) == 2
    assert "positive number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize("axis", ["../../../../tok", "a/b", "", ".hidden", "x\0y", "a" * 70])
def test_grid_axis_names_are_plain_labels(axis):
    with bounded(), pytest.raises(InvalidOptionError, match="not a plain label"):
        load_study({**BASE, "grid": {**BASE["grid"], axis: [1, 2]}})


def test_a_cell_product_bomb_is_refused_before_anything_is_built():
    grid = {**BASE["grid"], **{f"a{k}": list(range(10)) for k in range(8)}}  # 10**8 cells
    with bounded(), pytest.raises(InvalidOptionError, match="100,000,000 cells"):
        load_study({**BASE, "grid": grid})


def test_a_5000_digit_seed_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(f'seed = {"7" * 5000}\n[grid]\nfamily = ["hub"]\np = [4]\nn = [20]\n')
    with bounded(), pytest.raises(InvalidOptionError, match="5,000 digits"):
        load_study(path)
    with bounded(), pytest.raises(InvalidOptionError, match="beyond 64 bits"):
        load_study({**BASE, "seed": 7 * 10**4999})
    with bounded(), pytest.raises(InvalidOptionError, match="beyond 64 bits"):
        load_study({**BASE, "seed": 2**70})


def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".spdgraph-lock").symlink_to(outside)
    with pytest.raises(FileError, match=r"lock file .* is a symbolic link"):
        run(BASE, out, workers=1, plots=False, progress=False)
    assert outside.read_text() == "keep me"


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_a_cell_file_that_is_a_link_or_a_fifo_is_refused_clearly(tmp_path, kind):
    from spdgraph.study._store import CellStore

    study = load_study(BASE)
    store = CellStore(tmp_path, study.fingerprint())
    (cell,) = study.cells()
    store.root.mkdir(parents=True)
    if kind == "zero":
        store.path(cell).symlink_to("/dev/zero")
    else:
        os.mkfifo(store.path(cell))
    match = "symbolic link" if kind == "zero" else "not a regular file"
    with bounded(), pytest.raises(FileError, match=f"cell file .* {match}"):
        store.load(cell)


def test_scratch_left_by_a_killed_run_is_removed_by_the_next(tmp_path):
    out = tmp_path / "out"
    left = out / SCRATCH / "family=hub-1234" / "cmd.1700000000.dead"
    left.mkdir(parents=True)
    (left / "data.csv").write_text("1,2\n")
    run(BASE, out, workers=1, plots=False, progress=False)
    assert not (out / SCRATCH).exists()


# -- killed studies: nothing survives (integration: real processes and study runs) --------

STUDY_DRIVER = """
import sys
import spdgraph.study
spdgraph.study.run({spec!r}, {out!r}, workers={workers}, plots=False, progress=False)
"""


def _kill_during(tmp_path: Path, spec: dict, workers: int, pid_files: int, group: bool = False):
    """Run ``spec`` in a process, SIGKILL it once ``pid_files`` pid files exist; their pids."""
    import subprocess

    driver = STUDY_DRIVER.format(spec=spec, out=str(tmp_path / "out"), workers=workers)
    proc = subprocess.Popen([PY, "-c", driver], start_new_session=True)
    try:
        end = time.monotonic() + 120
        while len(list(tmp_path.glob("*.pid"))) < pid_files and time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(0.5)
        pids = [int(p.read_text().split()[0]) for p in tmp_path.glob("*.pid") if p.read_text()]
        assert len(pids) >= pid_files, "the learners never started"
        (os.killpg if group else os.kill)(proc.pid, signal.SIGKILL)
        proc.wait()
        return proc, pids
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.integration
@pytest.mark.parametrize("workers", [1, 2])
def test_a_killed_study_leaves_no_command_process(tmp_path, workers):
    script = (
        f"sleep 120 & echo $! > {tmp_path}/bg-$$.pid; "
        f'{PY} -c \'import os, time; open("{tmp_path}/py-" + str(os.getpid()) + ".pid", "w")'
        ".write(str(os.getpid())); time.sleep(120)'"
    )
    learner = {"name": "cmd", "command": ["sh", "-c", script, "{data}", "{out}"]}
    spec = {**BASE, "grid": {**BASE["grid"], "n": [20, 30]}, "learners": [learner]}
    _, pids = _kill_during(tmp_path, spec, workers, 2 * min(workers, 2))
    assert_all_end(pids)


@pytest.mark.integration
@needs_r
def test_a_killed_study_leaves_no_r_process(tmp_path):
    code = (
        f'writeLines(as.character(Sys.getpid()), "{tmp_path}/r.pid")\n'
        f'system("sleep 120 & echo $! > {tmp_path}/bg.pid", wait = FALSE)\n'
        "Sys.sleep(120); diag(ncol(x))"
    )
    spec = {**BASE, "learners": [{"name": "r", "r": code}]}
    _, pids = _kill_during(tmp_path, spec, 1, 2)
    assert_all_end(pids)


@pytest.mark.integration
@needs_r
def test_an_r_fit_leaves_nothing_running_in_the_background(tmp_path):
    code = (
        f'system("sleep 120 & echo $! > {tmp_path}/bg.pid", wait = FALSE)\n'
        'Sys.sleep(0.5); writeLines("stray", "stray.txt"); diag(ncol(x))'
    )
    out = tmp_path / "out"
    run({**BASE, "learners": [{"name": "r", "r": code}]}, out, workers=1, plots=False)
    assert_all_end([int((tmp_path / "bg.pid").read_text())], 10)
    assert not (out / SCRATCH).exists() and not list(out.rglob("stray.txt"))


@pytest.mark.integration
def test_a_killed_pool_leaves_no_semaphore(tmp_path):
    script = f"echo $$ > {tmp_path}/w-$$.pid; sleep 120"
    learner = {"name": "cmd", "command": ["sh", "-c", script, "{data}", "{out}"]}
    spec = {**BASE, "grid": {**BASE["grid"], "n": [20, 30]}, "learners": [learner]}
    import subprocess

    names_file = tmp_path / "sems.txt"
    spy = (
        "import spdgraph.study._pools as pools\n"
        "real = pools.watch\n"
        "def spy(op, arg):\n"
        f"    if op == 's': open({str(names_file)!r}, 'a').write(arg + '\\n')\n"
        "    real(op, arg)\n"
        "pools.watch = spy\n"
    )
    driver = spy + STUDY_DRIVER.format(spec=spec, out=str(tmp_path / "out"), workers=2)
    proc = subprocess.Popen([PY, "-c", driver], start_new_session=True)
    try:
        end = time.monotonic() + 120
        while len(list(tmp_path.glob("w-*.pid"))) < 2 and time.monotonic() < end:
            time.sleep(0.2)
        registered = names_file.read_text().split()
        names = {f"/dev/shm/sem.{name.lstrip('/')}" for name in registered}
        assert len(names) == 5 and all(os.path.exists(n) for n in names)  # the pool's five
        os.killpg(proc.pid, signal.SIGKILL)  # the study, its workers and resource tracker
        proc.wait()
        end = time.monotonic() + 30
        while any(os.path.exists(n) for n in names) and time.monotonic() < end:
            time.sleep(0.2)
        assert not [n for n in names if os.path.exists(n)], "semaphores left in /dev/shm"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# -- R learners: what was wrong, named -----------------------------------------------------


@needs_r
@pytest.mark.parametrize(
    ("code", "match"),
    [
        ("m <- diag(ncol(x)); m[2, 3] <- NaN; m", r"R learner 'bad' returned NaN .*\(1, 2\)"),
        ("matrix('a', ncol(x), ncol(x))", r"R learner 'bad': .*character matrix.*, not numbers"),
        ("diag(2)", r"R learner 'bad': .*expected a 3 x 3 matrix"),
    ],
)
def test_an_r_learner_failure_says_what_was_wrong(tmp_path, code, match):
    from spdgraph.study._rbridge import fit_r

    x = np.random.default_rng(1).normal(size=(10, 3))
    context = LearnerContext(scratch_root=str(tmp_path / SCRATCH))
    with pytest.raises(LearnerFailure, match=match):
        in_context(context, lambda c: fit_r({"name": "bad", "r": code}, x, ["a", "b", "c"]), {})


@needs_r
def test_an_r_learner_flooding_its_output_keeps_the_tail(tmp_path):
    from spdgraph.study._rbridge import RSession

    session = RSession()
    try:
        code = 'cat(strrep("z", 5e6)); cat("LAST"); quit(status = 4)'
        with pytest.raises(
            LearnerFailure, match=r"(?s)exit status 4.*earlier bytes not shown.*LAST"
        ):
            session.fit(code, np.zeros((5, 2)), ["a", "b"])
    finally:
        session.close()


def test_the_progress_bar_names_the_running_learners(tmp_path):
    from spdgraph.study._pools import show_running

    class Bar:
        def __init__(self) -> None:
            self.notes: list[str] = []

        def note(self, text: str) -> None:
            self.notes.append(text)

    started = int(time.time()) - 42
    (tmp_path / SCRATCH / "cell-1" / f"glasso-r.{started}.ab12").mkdir(parents=True)
    bar = Bar()
    stop = show_running(bar, tmp_path)
    try:
        assert wait_for(lambda: bar.notes, 30)
    finally:
        stop()
    assert bar.notes[0].startswith("running glasso-r 4")  # 42 s or a little more


@pytest.mark.integration
def test_run_timeout_kills_a_hanging_command_and_leaves_no_scratch(tmp_path):
    from spdgraph.study import StudyError

    learner = {"name": "hang", "command": ["sh", "-c", "sleep 60", "{data}", "{out}"]}
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=r"'hang' did not finish within timeout = 0\.5 s"):
        run({**BASE, "learners": [learner]}, out, workers=1, plots=False, timeout=0.5)
    assert not (out / SCRATCH).exists()
    assert not list(Path(tempfile.gettempdir()).glob("spdgraph-learner-*"))


def test_a_long_fit_is_marked_while_it_runs_and_only_then(tmp_path, monkeypatch):
    from spdgraph.study import _contain

    monkeypatch.setattr(_contain, "SHOWN_AFTER", 0.0)
    seen = tmp_path / "seen.txt"
    code = (
        f"import os, sys, time; time.sleep(0.3); open({str(seen)!r}, 'w')"
        ".write(' '.join(os.listdir('..'))); " + WRITE_EYE
    )
    _fit({"name": "mine", "command": [PY, "-c", code, "{out}", "{data}"]}, tmp_path)
    names = seen.read_text().split()
    assert "mine" in names  # the learner's folder, its working directory
    marker = [n for n in names if n.startswith("mine.")]
    assert len(marker) == 1 and marker[0].split(".")[1].isdigit()
    assert not list((tmp_path / SCRATCH).iterdir())  # all removed with the cell
