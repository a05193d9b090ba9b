"""Any grid of cells on the study runner: a custom cell function, stored, resumed, distributed."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spdgraph.errors import InvalidOptionError, written
from spdgraph.study._cell import cell_key
from spdgraph.study._guard import check_scheduler, locked_folder
from spdgraph.study._run import StudyError, _execute, _study_folder, _workers
from spdgraph.study._store import CellStore

__all__ = ["CellsResult", "run_cells"]

Coords = dict[str, Any]


@dataclass
class CellsResult:
    """What :func:`run_cells` returns.

    Attributes
    ----------
    results
        What the cell function returned for each cell, in the order of
        ``cells``, as stored (read back from the JSON files, so a reused cell
        and a computed one look the same: lists, not tuples; numpy scalars as
        Python numbers).
    computed, skipped
        Cells computed by this run, and found already stored.
    """

    results: list[Any]
    computed: int
    skipped: int


def _name(cell: Any) -> str:
    """``module:qualname`` of a cell function (through partials): part of the fingerprint."""
    while isinstance(cell, functools.partial):
        cell = cell.func
    return (
        f"{getattr(cell, '__module__', '')}:{getattr(cell, '__qualname__', type(cell).__name__)}"
    )


def _cell_result(
    cell: Callable[[Coords, Mapping[str, Any]], Any],
    config: Mapping[str, Any],
    blas_threads: int | None,
    coords: Coords,
) -> dict[str, Any]:
    """One custom cell, wherever it runs: ``{"result": cell(coords, config)}``."""
    from spdgraph._threads import thread_budget

    with thread_budget(blas_threads):  # None leaves BLAS alone; Numba x BLAS within the cores
        return {"result": cell(coords, config)}


def _check_cells(cell: object, cells: object, config: object, portable: bool) -> list[Coords]:
    import pickle

    if not callable(cell):
        raise InvalidOptionError(
            f"cell must be a function cell(coords, config), got {written(cell)}."
        )
    if not isinstance(config, Mapping):
        raise InvalidOptionError(f"config must be a mapping (a dict), got {written(config)}.")
    try:
        json.dumps(config, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidOptionError(
            f"config must be JSON-ready (str keys; numbers, strings, lists, dicts): {exc}."
        ) from None
    if isinstance(cells, str | bytes) or not isinstance(cells, Sequence):
        raise InvalidOptionError(f"cells must be a list of dicts, got {written(cells)}.")
    checked = []
    for coords in cells:
        if not isinstance(coords, Mapping) or not coords:
            raise InvalidOptionError(
                f"every cell must be a non-empty dict, got {written(coords)}."
            )
        bad = [k for k, v in coords.items() if not isinstance(k, str)
               or not isinstance(v, str | int | float | bool)]  # fmt: skip
        if bad:
            raise InvalidOptionError(
                f"cell {dict(coords)}: coordinates must be str -> str/int/float/bool; bad: {bad}."
            )
        checked.append(dict(coords))
    keys = [cell_key(c) for c in checked]
    if len(set(keys)) != len(keys):
        raise InvalidOptionError("cells repeats a cell (two cells with the same coordinates).")
    if portable:
        try:
            pickle.dumps(cell)
        except Exception as exc:
            raise InvalidOptionError(
                "cell must be picklable to run in worker processes or on dask (a module-level "
                f"function, or functools.partial of one): {exc}. Or run with workers=1."
            ) from None
    return checked


def run_cells(
    cell: Callable[[Coords, Mapping[str, Any]], Any],
    cells: Sequence[Mapping[str, Any]],
    out: str | os.PathLike[str],
    *,
    config: Mapping[str, Any],
    name: str = "cells",
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    on_cell: Callable[[Coords], None] | None = None,
    blas_threads: int | None = 1,
) -> CellsResult:
    """Run any grid of cells with the study runner: storage, resuming, workers, dask.

    The building block under :func:`run`, for studies that are not a grid of
    simulated data sets scored by learners (a custom validation design,
    diagnostics of sampled matrices, timings). ``cell(coords, config)`` is
    called once per cell not yet stored in ``out/cells/`` and returns any
    JSON-ready value (dicts, lists, numbers, strings; numpy scalars and
    arrays are converted); it is stored atomically the moment it finishes and
    reused by a rerun with the same ``config``. Seed a cell with
    :func:`cell_seed` (``cell_seed(seed, coords)``); for an object shared by
    several cells (one graph for every generator and n), seed it from the
    coordinates it depends on only: ``cell_seed(seed, {"stream": "graph",
    "p": p, "d": d})``.

    Parameters
    ----------
    cell
        ``cell(coords, config) -> JSON-ready result``; a module-level function
        (or a ``functools.partial`` of one) when it runs in worker processes
        or on dask.
    cells
        One dict of coordinates (str -> str, int, float or bool) per cell.
    out
        The folder (created): ``cells/<cell>.json``.
    config
        Everything the results depend on besides the coordinates (JSON-ready;
        the seed, sizes, options); passed to ``cell``. Its fingerprint (with
        the cell function's name) is stored with each cell: another config
        recomputes every cell, new coordinates compute only the new cells.
    name
        The progress bar's label.
    workers, scheduler, progress, on_cell
        As in :func:`run`.
    blas_threads
        BLAS threads inside a cell (default 1: the same bits on any worker);
        None leaves BLAS alone (for timings).

    Returns
    -------
    CellsResult
        The results in the order of ``cells``, and the counts.

    Raises
    ------
    StudyError
        Some cells failed; the others are stored (rerun after fixing the cause).

    Examples
    --------
    >>> import tempfile
    >>> from spdgraph.study import cell_seed, run_cells
    >>> def draw(coords, config):
    ...     rng = np.random.default_rng(cell_seed(config["seed"], coords))
    ...     return float(rng.normal(size=coords["n"]).mean())
    >>> import numpy as np
    >>> cells = [{"n": 10}, {"n": 1000}]
    >>> out = tempfile.mkdtemp()
    >>> res = run_cells(draw, cells, out, config={"seed": 1}, workers=1, progress=False)
    >>> again = run_cells(draw, cells, out, config={"seed": 1}, workers=1)
    >>> res.computed, again.skipped, again.results == res.results
    (2, 2, True)
    """
    n_workers = _workers(workers)
    checked = _check_cells(cell, cells, config, scheduler is not None or n_workers > 1)
    if blas_threads is not None and (
        isinstance(blas_threads, bool) or not isinstance(blas_threads, int) or blas_threads < 1
    ):
        raise InvalidOptionError(
            f"blas_threads must be a positive integer or None, got {written(blas_threads)}."
        )
    spec = {"cell": _name(cell), "config": dict(config)}
    fingerprint = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]
    scheduler = check_scheduler(scheduler)
    folder = _study_folder(out)
    with locked_folder(folder):
        return _run_cells_locked(
            cell, checked, folder, fingerprint, blas_threads, config, name, n_workers,
            scheduler, progress, on_cell,
        )  # fmt: skip


def _run_cells_locked(
    cell: Callable[[Coords, Mapping[str, Any]], Any],
    checked: list[Coords],
    folder: Path,
    fingerprint: str,
    blas_threads: int | None,
    config: Mapping[str, Any],
    name: str,
    n_workers: int,
    scheduler: Any,
    progress: bool | None,
    on_cell: Callable[[Coords], None] | None,
) -> CellsResult:
    store = CellStore(folder, fingerprint)
    todo = [c for c in checked if store.load(c) is None]
    _execute(
        todo,
        functools.partial(_cell_result, cell, dict(config), blas_threads),
        store,
        name=name,
        workers=n_workers,
        scheduler=scheduler,
        progress=progress,
        on_cell=on_cell,
    )
    results = []
    for coords in checked:
        payload = store.load(coords)
        if payload is None:  # written by this run, then gone: say so, do not guess
            raise StudyError(f"cell {cell_key(coords)} vanished from {store.root} during the run.")
        results.append(payload["result"])
    return CellsResult(results, len(todo), len(checked) - len(todo))
