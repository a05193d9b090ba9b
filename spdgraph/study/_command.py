"""Command-line learners: any executable, once per fit, data and result through files.

A command-line learner (``command = ["julia", "mine.jl", "{data}", "{out}"]``)
runs any executable once per fit: the data are written at ``{data}`` (CSV
with one header row of node labels and no index column, or ``.npy`` when the
placeholder is written ``{data}.npy``), the p x p result is read from
``{out}`` (CSV without header, or ``.npy``; from ``.npy`` also an array of
posterior draws ``(draws, p, p)``; ``{out}.edges``: an edge list, one ``i j``
or ``i j score`` line per edge, node indices from 0, whitespace or commas:
a sparse result at any p), ``{seed}`` is the cell's learner seed. A
nonzero exit, a missing or misshapen result and a run past ``timeout`` raise
:class:`~spdgraph.study._contain.LearnerFailure` with the tail of the
command's own standard error.

The command runs contained (:mod:`spdgraph.study._contain`): in its own
session and process group, killed with everything it started when it ends,
fails or times out (and when the study's process dies); in a scratch folder
of its own (its working directory, where ``{data}`` and ``{out}`` live),
removed afterwards; its output kept up to a bound; its result read only when
it is a regular file of the size a p x p matrix takes.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.io import write_atomically
from spdgraph.study import _contain as contain
from spdgraph.study import _output as output
from spdgraph.study._contain import LearnerFailure
from spdgraph.study._rbridge import seed_int

__all__ = ["fit_command"]

_PLACEHOLDER = re.compile(r"\{(data|out)\}(\.npy|\.csv|\.edges)?")


def _write_data(path: Path, x: np.ndarray, labels: Sequence[str]) -> None:
    def write(tmp: Path) -> None:
        if path.suffix == ".npy":
            with tmp.open("wb") as handle:
                np.save(handle, x)
            return
        with tmp.open("w", encoding="utf-8", newline="") as handle:
            handle.write(",".join(str(label) for label in labels) + "\n")
            np.savetxt(handle, x, delimiter=",", fmt="%.17g")

    write_atomically(path, write)


def _run(args: list[str], folder: Path, timeout: float | None) -> tuple[int | None, str, float]:
    """``args`` run contained in ``folder``: ``(status or None on timeout, output tail, s)``."""
    start = time.perf_counter()
    proc = contain.start_contained(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder
    )
    out, err = contain.Tail(proc.stdout), contain.Tail(proc.stderr)
    try:
        code: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        seconds = time.perf_counter() - start
        contain.end_contained(proc)  # what it started in the background too
        out.join(5.0)
        err.join(5.0)
    return code, err.text() or out.text(), seconds


def fit_command(
    entry: Mapping[str, Any],
    x: np.ndarray,
    labels: Sequence[str],
    seed: np.random.SeedSequence | None = None,
) -> tuple[np.ndarray, float]:
    """One fit of a command-line learner: ``(p x p result, wall seconds of the command)``.

    ``{seed}`` in the command becomes the learner's seed (an integer below 2**31).
    The timeout is the learner's ``timeout``, else the study's.
    """
    seed_text = str(0 if seed is None else seed_int(seed))
    command = [str(part).replace("{seed}", seed_text) for part in entry["command"]]
    timeout = contain.learner_timeout(entry)
    name = f"command learner {entry['name']!r}"
    p = x.shape[1]

    with contain.scratch_folder(str(entry["name"])) as folder:
        paths: dict[str, Path] = {}

        def place(match: re.Match[str]) -> str:
            ext = match.group(2) or ".csv"
            paths[match.group(1)] = folder / f"{match.group(1)}{ext}"
            return str(paths[match.group(1)])

        args = [_PLACEHOLDER.sub(place, part) for part in command]
        _write_data(paths["data"], x, labels)
        try:
            code, err, seconds = _run(args, folder, timeout)
        except OSError as exc:
            raise LearnerFailure(f"{name} cannot start: {exc}") from None
        if code is None:
            raise LearnerFailure(
                f"{name} did not finish within timeout = {timeout:g} s and was killed (with "
                "what it started): raise the learner's timeout (or the study's, --timeout)."
            )
        if code != 0:
            raise LearnerFailure(f"{name} exited with status {code}: {err}")
        try:
            values = output.read_result(paths["out"], p)
        except LearnerFailure as exc:
            raise LearnerFailure(f"{name}: {exc}") from None
        if output.is_scipy_sparse(values):  # an edge list, checked as it was read
            return values, seconds
        return output.check_finite(values, name), seconds
