"""One cell of a study: simulate each repeat, fit every learner, score it.

A cell's seed is the study seed with a spawn key made of its coordinates
(``sha256("axis=value")`` words in axis-name order): its result depends on
the study seed, its coordinates and the study's configuration, never on the
other cells, the order they run in or the machine's scheduler. Repeat ``r``
simulates from the child ``(…, r)``; the learners' folds from ``(…, r,
LEARNER_DOMAIN)``. BLAS runs on one thread, so the bits do not depend on the
worker either.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.seeds import sub_root
from spdgraph.study._config import Study

__all__ = [
    "LEARNER_DOMAIN",
    "cell_key",
    "cell_seed",
    "compute_cell",
    "data_digest",
    "learner_data",
    "simulate_cell",
]

#: Spawn-key entry of the learners' streams (ASCII "lrnr").
LEARNER_DOMAIN = 0x6C726E72


def _word(axis: str, value: Any) -> int:
    digest = hashlib.sha256(f"{axis}={value!r}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def cell_seed(seed: int, coords: Mapping[str, Any]) -> np.random.SeedSequence:
    """The SeedSequence of a cell: the study seed and its coordinates, nothing else.

    Examples
    --------
    >>> from spdgraph.study import cell_seed
    >>> a = cell_seed(1, {"family": "hub", "n": 50})
    >>> a.spawn_key == cell_seed(1, {"n": 50, "family": "hub"}).spawn_key
    True
    """
    words = tuple(_word(axis, coords[axis]) for axis in sorted(coords))
    return np.random.SeedSequence(int(seed), spawn_key=words)


def cell_key(coords: Mapping[str, Any]) -> str:
    """A file name for a cell: its coordinates, readable, plus a short hash (unique)."""
    text = ",".join(f"{k}={v}" for k, v in coords.items())
    digest = hashlib.sha256(repr(sorted(coords.items())).encode()).hexdigest()[:8]
    return re.sub(r"[^A-Za-z0-9=.,_+-]", "_", text)[:150] + "-" + digest


def simulate_cell(study: Study, coords: Mapping[str, Any], seed: np.random.SeedSequence) -> Any:
    """The simulate Dataset of one repeat of a cell (``seed``: the repeat's child of its root)."""
    from spdgraph.simulation import simulate

    family, method = coords["family"], coords["method"]
    extra = {k: v for k, v in coords.items() if k not in ("family", "p", "n", "method", "data")}
    options = {**study.families.get(family, {}), **study.methods.get(method, {}), **extra}
    if study.sparse:
        options["sparse"] = True
    return simulate(
        family,
        int(coords["n"]),
        p=int(coords["p"]),
        method=method,
        kind=study.kind,
        data=coords["data"],
        seed=seed,
        **options,
    )


def data_digest(sim: Any) -> str:
    """SHA-256 of a repeat's data and true adjacency (the bits the learners were given).

    A sparse adjacency (``sparse = true``) is hashed by its stored entries'
    coordinates (canonical order), never densified.
    """
    from spdgraph.layout import is_sparse

    digest = hashlib.sha256()
    for name in ("data", "adjacency"):
        if is_sparse(sim[name]):
            coo = sim[name].data
            order = np.lexsort(coo.coords[::-1])
            values = np.ascontiguousarray(coo.coords[:, order].astype(np.int64))
            digest.update(f"{name}sparse{coo.shape}".encode())
        else:
            values = np.ascontiguousarray(np.asarray(sim[name].values))
            digest.update(f"{name}{values.dtype.str}{values.shape}".encode())
        digest.update(values.tobytes())
    return digest.hexdigest()


@contextlib.contextmanager
def learner_data(study: Study, sim: Any, repeat: int) -> Iterator[np.ndarray]:
    """The ``(n, p)`` data every learner of a repeat is given.

    A dense study gives the simulation's array. A sparse one (``sparse =
    true``) writes it once as ``data-<repeat>.npy`` in the cell's scratch folder
    (:func:`spdgraph.study._contain.cell_folder`) and gives it memory-mapped,
    read-only: Python learners read the file's pages, a command learner's
    ``{data}.npy`` and R's data file are written from it, and no learner holds a
    copy of its own. The file is removed when the repeat's learners are done.
    """
    from spdgraph.io import write_atomically
    from spdgraph.study._contain import cell_folder

    if not study.sparse:
        yield np.asarray(sim["data"].values, dtype=float)
        return
    values = np.asarray(sim["data"].values, dtype=float)
    with cell_folder() as folder:
        path = folder / f"data-{repeat}.npy"

        def write(tmp: Path) -> None:
            with tmp.open("wb") as handle:
                np.save(handle, np.ascontiguousarray(values))

        write_atomically(path, write)
        try:
            yield np.load(path, mmap_mode="r")
        finally:
            path.unlink(missing_ok=True)  # the map stays readable until it is dropped


def _clock(timings: dict[str, float], phase: str, start: float) -> float:
    """Add the seconds since ``start`` to ``timings[phase]``; the time now."""
    now = time.perf_counter()
    timings[phase] = timings.get(phase, 0.0) + now - start
    return now


def compute_cell(
    study: Study, coords: Mapping[str, Any], stored: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Every (learner, repeat) of one cell not already in ``stored``: the cell's payload.

    ``{"records": tidy metric rows, "curves": ROC/PR points, "entries": one
    record per (learner, repeat) (status, error, warnings), "data": each
    repeat's data digest, "warnings": the simulation's, "timings": seconds of
    this run's phases (``simulate``, the truth and its data; ``files``, the
    data written for the learners; ``fits``; ``scoring``)}``. ``stored`` maps a
    cell key to a stored payload whose
    entries that are still valid (done, the learner unchanged) are reused as
    they are: a rerun computes only what failed or is missing, and a repeat
    is simulated only when one of its learners is computed. Runs anywhere (a
    local process, a dask worker): everything it needs is in its arguments,
    and BLAS is held to one thread so that the bits do not depend on the
    worker. What it returns is scores only (no array): all a cluster's client
    receives.
    """
    from spdgraph._threads import thread_budget
    from spdgraph.study._entry import fit_entry, reusable_entries

    root = cell_seed(study.seed, coords)
    before = (stored or {}).get(cell_key(coords)) or {}
    reuse = reusable_entries(study, before)
    digests = {d["repeat"]: d for d in before.get("data", []) if isinstance(d, dict)}
    parts: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    with thread_budget(blas_threads=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # counted in the cell's record, never printed
        for r in range(study.repeats):
            names = [e["name"] for e in study.learners]
            if all((name, r) in reuse for name in names):
                parts.extend(reuse[name, r] for name in names)
                continue
            start = time.perf_counter()
            sim = simulate_cell(study, coords, sub_root(root, r))
            digests[r] = {"repeat": r, "digest": data_digest(sim)}  # what cell_data checks
            start = _clock(timings, "simulate", start)
            with learner_data(study, sim, r) as x:
                _clock(timings, "files", start)
                for entry in study.learners:
                    base = {**coords, "repeat": r, "learner": entry["name"]}
                    seed = sub_root(root, r, LEARNER_DOMAIN)
                    done = reuse.get((entry["name"], r))
                    parts.append(done or fit_entry(study, entry, sim, seed, base, x, timings))
    return {
        "records": [row for part in parts for row in part["records"]],
        "curves": [row for part in parts for row in part["curves"]],
        "entries": [part["entry"] for part in parts],
        "data": [digests[r] for r in sorted(digests) if r < study.repeats],
        "warnings": [f"{w.category.__name__}: {w.message}" for w in caught][:20],
        "timings": timings,
    }
