"""Command-line learners: any executable, once per fit, data and result through files.

A command-line learner (``command = ["julia", "mine.jl", "{data}", "{out}"]``)
runs any executable once per fit: the data are written at ``{data}`` (CSV
with one header row of node labels and no index column, or ``.npy`` when the
placeholder is written ``{data}.npy``), the p x p result is read from
``{out}`` (CSV without header, or ``.npy``; from ``.npy`` also an array of
posterior draws ``(draws, p, p)``), ``{seed}`` is the cell's learner seed. A
nonzero exit, a missing or misshapen result and a run past ``timeout`` raise
:class:`~spdgraph.study._rbridge.LearnerFailure` with the command's own
standard error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.study._rbridge import THREAD_ENV, LearnerFailure, _die_with_parent, seed_int

__all__ = ["fit_command"]

_PLACEHOLDER = re.compile(r"\{(data|out)\}(\.npy|\.csv)?")


def _write_data(path: Path, x: np.ndarray, labels: Sequence[str]) -> None:
    if path.suffix == ".npy":
        np.save(path, x)
        return
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(str(label) for label in labels) + "\n")
        np.savetxt(handle, x, delimiter=",", fmt="%.17g")


def _read_result(path: Path, p: int) -> np.ndarray:
    if not path.is_file():
        raise LearnerFailure(f"the command exited 0 but wrote no result at {path.name}")
    try:
        values = np.load(path) if path.suffix == ".npy" else np.loadtxt(
            path, delimiter=",", ndmin=2
        )  # fmt: skip
    except ValueError as exc:
        raise LearnerFailure(f"cannot read the result {path.name}: {exc}") from None
    values = np.asarray(values)
    if path.suffix == ".npy" and values.ndim == 3 and values.shape[1:] == (p, p):
        return values  # posterior draws
    if values.shape != (p, p):
        raise LearnerFailure(
            f"the result {path.name} has shape {values.shape}; expected ({p}, {p})"
        )
    return values


def fit_command(
    entry: Mapping[str, Any],
    x: np.ndarray,
    labels: Sequence[str],
    seed: np.random.SeedSequence | None = None,
) -> tuple[np.ndarray, float]:
    """One fit of a command-line learner: ``(p x p result, wall seconds of the command)``.

    ``{seed}`` in the command becomes the learner's seed (an integer below 2**31).
    """
    seed_text = str(0 if seed is None else seed_int(seed))
    command = [str(part).replace("{seed}", seed_text) for part in entry["command"]]
    timeout = entry.get("timeout")
    p = x.shape[1]

    with tempfile.TemporaryDirectory(prefix="spdgraph-learner-") as tmp:
        paths: dict[str, Path] = {}

        def place(match: re.Match[str]) -> str:
            ext = match.group(2) or ".csv"
            paths[match.group(1)] = Path(tmp) / f"{match.group(1)}{ext}"
            return str(paths[match.group(1)])

        args = [_PLACEHOLDER.sub(place, part) for part in command]
        data_path, out_path = paths["data"], paths["out"]
        _write_data(data_path, x, labels)
        start = time.perf_counter()
        try:
            done = subprocess.run(
                args,
                capture_output=True,
                timeout=None if timeout is None else float(timeout),
                env={**os.environ, **THREAD_ENV},
                cwd=os.getcwd(),
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        except subprocess.TimeoutExpired:
            raise LearnerFailure(
                f"command learner {entry['name']!r} did not finish within timeout = {timeout} s "
                "and was killed: raise the learner's timeout."
            ) from None
        except OSError as exc:
            raise LearnerFailure(
                f"command learner {entry['name']!r} cannot start: {exc}"
            ) from None
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip()[-2000:]
            raise LearnerFailure(
                f"command learner {entry['name']!r} exited with status {done.returncode}: {err}"
            )
        try:
            return _read_result(out_path, p), seconds
        except LearnerFailure as exc:
            raise LearnerFailure(f"command learner {entry['name']!r}: {exc}") from None
