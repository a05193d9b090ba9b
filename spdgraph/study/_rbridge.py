"""R and command-line learners: one persistent R process per worker, any executable per fit.

An R learner is a snippet of R code (``r = '''...'''`` in a study's
``[[learners]]``) that sees the data as the numeric matrix ``x`` (n x p,
column names the node labels) and returns a p x p matrix. Each worker process
keeps one R process alive across cells (:class:`RSession`): R's start-up and
the ``library()`` calls are paid once per worker, not per fit. The two sides
speak a tiny binary protocol, written and read with base R's
``readBin``/``writeBin`` (no extra R package): requests on R's standard
input, replies on a pipe of their own (so whatever the snippet prints cannot
garble them), integers as little-endian int32, numbers as little-endian
float64, text as UTF-8 with a length prefix; data of 1 MiB or more go
through a file in the fit's scratch folder instead of the pipe.
A fit that outlives its ``timeout`` has its R process killed; the next fit
starts a fresh one.

The R process runs contained (:mod:`spdgraph.study._contain`): in a session
and process group of its own, registered with the watchdog (so it dies with
the study even when the study is killed); each fit runs with R's working
directory in the fit's scratch folder, and what the fit started in the
background (``system(..., wait = FALSE)``) is killed when it ends.

Command-line learners are in :mod:`spdgraph.study._command`. Either kind
of learner that fails raises :class:`LearnerFailure` with the
learner's own error text (R's condition message, the command's standard
error): the study marks the cell failed, runs the others and lists the
failures at the end.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from spdgraph.errors import MissingDependencyError, SpdgraphError
from spdgraph.io import write_atomically
from spdgraph.study import _contain as contain
from spdgraph.study import _output as output
from spdgraph.study._contain import THREAD_ENV, LearnerFailure
from spdgraph.study._rserver import SERVER

__all__ = [
    "LearnerFailure",
    "RSession",
    "check_r",
    "fit_r",
    "rscript",
    "seed_int",
]

_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*$")

_OP_QUIT, _OP_DEFINE, _OP_FIT = 0, 1, 2
#: Data at least this big go to R through a temporary file (in /dev/shm when writable).
FILE_BYTES = 1 << 20


def rscript() -> str:
    """The ``Rscript`` executable, or a :class:`MissingDependencyError` saying how to get it."""
    if os.name == "nt":
        raise SpdgraphError(
            "R learners need a POSIX system (Linux, macOS: the bridge passes a pipe to R); "
            "on Windows run the study in WSL, or wrap the R code as a command learner."
        )
    found = shutil.which("Rscript")
    if found is None:
        raise MissingDependencyError(
            "this study has R learners (r = ...) but Rscript is not on PATH: install R "
            "(e.g. apt-get install r-base-core, or https://cloud.r-project.org) and the "
            "packages the learners name, or remove the R learners."
        )
    return found


def _widen_pipe(fd: int) -> None:
    """Linux: a 1 MiB pipe buffer (64 KiB by default), 16x fewer waits for big data."""
    if sys.platform.startswith("linux"):
        import fcntl

        try:
            fcntl.fcntl(fd, 1031, 1 << 20)  # F_SETPIPE_SZ
        except OSError:
            pass  # above /proc/sys/fs/pipe-max-size: the default size works too


def check_r(packages: Sequence[str]) -> dict[str, str]:
    """R's version and each package's, checked before any cell runs.

    Returns ``{"R": "R version 4.2.2 ...", "huge": "1.3.5", ...}``.

    Raises
    ------
    MissingDependencyError
        No ``Rscript`` on PATH, or a package is not installed (named, with
        the command that installs it).
    """
    bad = [p for p in packages if not isinstance(p, str) or not _PACKAGE.match(p)]
    if bad:
        raise SpdgraphError(f"not R package names: {bad}.")
    code = (
        "cat(R.version.string, '\\n', sep = '');"
        f"for (p in c({', '.join(repr(p) for p in packages)})) "
        "cat(p, ' ', tryCatch(as.character(packageVersion(p)), error = function(e) '-'), "
        "'\\n', sep = '')"
    )
    done = subprocess.run(
        [rscript(), "--vanilla", "-e", code if packages else code.split(";")[0]],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **THREAD_ENV},
    )
    if done.returncode != 0:
        raise MissingDependencyError(f"Rscript does not run: {done.stderr.strip()[-500:]}")
    lines = done.stdout.strip().splitlines()
    versions = {"R": lines[0].strip()}
    missing = []
    for line in lines[1:]:
        name, _, version = line.strip().partition(" ")
        if version == "-":
            missing.append(name)
        else:
            versions[name] = version
    if missing:
        names = ", ".join(repr(m) for m in missing)
        debs = " ".join(f"r-cran-{m.lower()}" for m in missing)
        raise MissingDependencyError(
            f"the R package{'s' if len(missing) > 1 else ''} {names} named by the study's R "
            f"learners {'are' if len(missing) > 1 else 'is'} not installed: in R, "
            f"install.packages(c({names})) (or apt-get install {debs}), or remove the learner."
        )
    return versions


class RSession:
    """One R process speaking the bridge's protocol; restarted after a kill or a crash.

    Parameters
    ----------
    executable
        ``Rscript`` (default: found on PATH).
    """

    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable
        self.proc: subprocess.Popen[bytes] | None = None
        self._reply: int | None = None
        self._defined: dict[str, str] = {}
        self._tail: contain.Tail | None = None

    # -- process ---------------------------------------------------------------------------
    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        try:
            self.proc = contain.start_contained(
                [self.executable or rscript(), "--vanilla", "-e",
                 SERVER.replace("{fd}", str(write_fd))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                cwd=os.path.abspath(os.sep),  # each fit sets its scratch folder
            )  # fmt: skip
        finally:
            os.close(write_fd)
        self._reply = read_fd
        assert self.proc.stdin is not None
        _widen_pipe(self.proc.stdin.fileno())
        _widen_pipe(read_fd)
        self._defined = {}
        self._tail = contain.Tail(self.proc.stdout)  # R's own output, the last bytes, for errors

    def close(self) -> None:
        """Stop the R process (asks it to quit, then kills it)."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.returncode is None:  # not ended (and reaped) yet
            try:
                assert proc.stdin is not None
                proc.stdin.write(struct.pack("<i", _OP_QUIT))
                proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
            contain.end_contained(proc)  # R and whatever it left in its group
        if self._reply is not None:
            os.close(self._reply)
            self._reply = None

    def _kill(self) -> None:
        if self.proc is not None:
            contain.end_contained(self.proc)
        self.close()

    # -- wire ------------------------------------------------------------------------------
    def _send(self, *parts: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(b"".join(parts))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died("")

    def _died(self, what: str) -> None:
        self._kill()
        tail = "" if self._tail is None else self._tail.text()
        raise LearnerFailure(
            f"the R process ended{what}" + (f"; its last output:\n{tail}" if tail else ".")
        )

    def _read(self, size: int, deadline: float | None, timeout: float | None) -> bytes:
        assert self._reply is not None
        chunks, left = [], size
        while left:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self._kill()
                raise LearnerFailure(
                    f"the R fit did not finish within timeout = {timeout:g} s; its R process was "
                    "killed (a fresh one serves the next fit): raise the learner's timeout (or "
                    "the study's, --timeout)."
                )
            poll = 1.0 if wait is None else min(wait, 1.0)  # a dead R is noticed too
            ready, _, _ = select.select([self._reply], [], [], poll)
            if not ready:
                if self.proc is not None and self.proc.poll() is not None:
                    self._died(f" (exit status {self.proc.returncode})")
                continue
            chunk = os.read(self._reply, min(left, 1 << 20))
            if not chunk:
                self.proc.wait() if self.proc is not None else None
                code = None if self.proc is None else self.proc.returncode
                self._died(f" (exit status {code})")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    @staticmethod
    def _text(value: str) -> bytes:
        data = value.encode("utf-8")
        return struct.pack("<i", len(data)) + data

    def _read_int(self, deadline: float | None, timeout: float | None) -> int:
        return int(struct.unpack("<i", self._read(4, deadline, timeout))[0])

    def _read_text(self, deadline: float | None, timeout: float | None) -> str:
        size = self._read_int(deadline, timeout)
        return self._read(size, deadline, timeout).decode("utf-8", "replace") if size else ""

    # -- requests --------------------------------------------------------------------------
    def define(self, code: str, packages: Sequence[str] = ()) -> tuple[str, str]:
        """Load ``packages`` and define the snippet as a function of ``x``: ``(id, versions)``."""
        ident = "l" + hashlib.sha256(f"{list(packages)}\0{code}".encode()).hexdigest()[:16]
        if ident in self._defined and self.proc is not None and self.proc.poll() is None:
            return ident, self._defined[ident]
        if self.proc is None or self.proc.poll() is not None:
            self.close()
            self._start()
        self._send(
            struct.pack("<i", _OP_DEFINE),
            self._text(ident),
            self._text("\n".join(packages)),
            self._text(code),
        )
        status = self._read_int(None, None)
        text = self._read_text(None, None)
        if status != 0:
            raise LearnerFailure(f"the R snippet does not load: {text}")
        self._defined[ident] = text
        return ident, text

    def fit(
        self,
        code: str,
        x: np.ndarray,
        labels: Sequence[str],
        *,
        packages: Sequence[str] = (),
        timeout: float | None = None,
        seed: int = 0,
        learner: str = "r",
    ) -> tuple[Any, float]:
        """Run the snippet on ``x``: ``(result, R's elapsed seconds of the fit alone)``: a
        ``p x p`` array, or a ``csr_array`` for a Matrix sparse matrix or an edge list.

        R's generator is set with ``set.seed(seed)`` just before the snippet
        runs, so a fit's random draws (subsamples, MCMC) do not depend on what
        the process ran before. R works in a scratch folder of the fit's own
        (``learner`` names it), removed afterwards with what the fit started.
        """
        ident, _ = self.define(code, packages)
        with contain.scratch_folder(learner) as folder:
            try:
                return self._fit(ident, x, labels, timeout, seed, str(folder), learner)
            finally:
                if self.proc is not None:  # what the fit left running in the background
                    contain.kill_group(self.proc.pid, keep=self.proc.pid)

    def _fit(
        self,
        ident: str,
        x: np.ndarray,
        labels: Sequence[str],
        timeout: float | None,
        seed: int,
        folder: str,
        learner: str = "r",
    ) -> tuple[Any, float]:
        n, p = x.shape
        data = np.asfortranarray(x, dtype="<f8")
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        path = ""
        if data.nbytes >= FILE_BYTES:  # big data: one file write and read beat pipe turns
            path = os.path.join(folder, "data.bin")
            write_atomically(path, lambda tmp: tmp.write_bytes(data.tobytes(order="F")))
        self._send(
            struct.pack("<i", _OP_FIT),
            self._text(ident),
            struct.pack("<iii", n, p, int(seed)),
            self._text("\n".join(str(label) for label in labels)),
            self._text(folder),
            self._text(path),
            b"" if path else data.tobytes(order="F"),
        )
        status = self._read_int(deadline, timeout)
        if status != 0:
            raise LearnerFailure(self._read_text(deadline, timeout))
        seconds = float(np.frombuffer(self._read(8, deadline, timeout), dtype="<f8")[0])
        form = self._read_int(deadline, timeout)
        if form == 0:  # dense: refused on its size before a byte of it is read
            try:
                output.refuse_dense(f"R learner {learner!r}", (p, p))
            except LearnerFailure:
                self._kill()  # its p*p numbers wait on the pipe: the next fit starts afresh
                raise
            values = np.frombuffer(self._read(8 * p * p, deadline, timeout), dtype="<f8")
            return values.reshape((p, p), order="F").astype(float), seconds
        k = self._read_int(deadline, timeout)
        if form == 2:  # an edge list, nodes from 1
            pairs = np.frombuffer(self._read(16 * k, deadline, timeout), dtype="<f8")
            return output.edge_list(pairs.reshape((k, 2), order="F"), p, "(R)", base=1), seconds
        from scipy import sparse

        rows = np.frombuffer(self._read(4 * k, deadline, timeout), dtype="<i4")
        cols = np.frombuffer(self._read(4 * k, deadline, timeout), dtype="<i4")
        data = np.frombuffer(self._read(8 * k, deadline, timeout), dtype="<f8")
        return sparse.coo_array((data, (rows, cols)), shape=(p, p)).tocsr(), seconds


_SESSION: RSession | None = None


def _session() -> RSession:
    """This process's R session (one per worker, started on first use, closed at exit)."""
    global _SESSION
    if _SESSION is None:
        _SESSION = RSession()
        atexit.register(_SESSION.close)
    return _SESSION


def seed_int(seed: np.random.SeedSequence) -> int:
    """A learner's SeedSequence as one integer for R's ``set.seed`` or a command's ``{seed}``."""
    return int(seed.generate_state(1, dtype=np.uint32)[0] >> 1)  # < 2**31: an R integer


def fit_r(
    entry: Mapping[str, Any],
    x: np.ndarray,
    labels: Sequence[str],
    seed: np.random.SeedSequence | None = None,
) -> tuple[Any, float]:
    """One fit of an R learner (a study's ``[[learners]]`` entry with ``r = ...``)."""
    name = f"R learner {entry['name']!r}"
    try:
        values, seconds = _session().fit(
            entry["r"],
            x,
            labels,
            packages=list(entry.get("packages", [])),
            timeout=contain.learner_timeout(entry),
            seed=0 if seed is None else seed_int(seed),
            learner=str(entry["name"]),
        )
    except LearnerFailure as exc:
        raise LearnerFailure(f"{name}: {exc}") from None
    if output.is_scipy_sparse(values):
        return output.sparse_result(values, x.shape[1], name), seconds
    return output.check_finite(values, name), seconds
