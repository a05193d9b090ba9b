"""Run a study: the cells not yet stored, here, on local processes or on a dask cluster."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spdgraph._threads import available_cores
from spdgraph.errors import FileError, InvalidOptionError, SpdgraphError, written
from spdgraph.io import check_dataset_format
from spdgraph.study._cell import cell_key, compute_cell
from spdgraph.study._config import Study, check_sparse_study, load_study
from spdgraph.study._contain import SCRATCH, LearnerContext, clean_scratch, in_context
from spdgraph.study._entry import learner_failures_message, pending, stored_results
from spdgraph.study._guard import (
    SCHEDULER_TIMEOUT,
    check_learner_timeout,
    check_scheduler,
    check_timeout,
    locked_folder,
)
from spdgraph.study._pools import Compute, Coords, dask_pool, local_pool, show_running
from spdgraph.study._store import CellStore, atomic_write

__all__ = ["StudyError", "StudyResult", "run"]


class StudyError(SpdgraphError, RuntimeError):
    """Some cells of a study failed (the others are stored: fix the cause and rerun).

    ``failures`` lists them: ``{"cell", "coords", "error"}`` dicts.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.failures: list[dict[str, Any]] = []


#: Failed cells listed in a StudyError's message (all of them are in ``failures``).
_LISTED = 20


@dataclass
class StudyResult:
    """What :func:`run` returns.

    Attributes
    ----------
    table
        The tidy table (pandas): one row per cell x repeat x learner x metric.
    curves
        ROC/PR points of the learners that give edge scores.
    computed, skipped
        Cells computed by this run, and found already stored.
    files
        The paths written (results, curves, plots).
    """

    table: Any
    curves: Any
    computed: int
    skipped: int
    files: list[Path]


def _workers(workers: object) -> int:
    if workers is None:
        return min(available_cores(), 8)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be a positive integer, got {written(workers)}.")
    return workers


def _execute(
    todo: list[Coords],
    compute: Compute,
    store: CellStore,
    *,
    name: str,
    workers: int,
    scheduler: Any,
    progress: bool | None,
    on_cell: Callable[[Coords], None] | None,
    timeout: float = SCHEDULER_TIMEOUT,
    scratch: Path | None = None,
) -> None:
    from spdgraph._machine import Progress, stderr_is_tty

    enabled = stderr_is_tty() if progress is None else bool(progress)
    bar = Progress(name, total=len(todo), enabled=enabled and bool(todo), unit="cell")
    failures: list[tuple[Coords, BaseException]] = []

    stop = show_running(bar, scratch) if bar.enabled and scratch is not None else None

    def finish(coords: Coords, result: Callable[[], dict[str, Any]]) -> None:
        try:
            payload = result()
            store.save(coords, payload)  # a result JSON cannot hold fails its cell
        except BrokenProcessPool:  # the pool itself, not the cell: stop
            raise
        except Exception as exc:  # reported at the end; the other cells go on
            failures.append((coords, exc))
        else:
            if on_cell is not None:
                on_cell(coords)
        bar.update()

    try:
        if scheduler is not None:
            dask_pool(todo, compute, scheduler, workers, finish, timeout)
        elif workers == 1 or len(todo) <= 1:
            for coords in todo:
                finish(coords, functools.partial(compute, coords))
        else:
            local_pool(todo, compute, min(workers, len(todo)), finish)
    finally:
        if stop is not None:
            stop()
        bar.close()
    if failures:
        coords, error = failures[0]
        listed = "\n".join(
            f"  {cell_key(c)}: {type(e).__name__}: {e}" for c, e in failures[:_LISTED]
        )
        more = f"\n  ... and {len(failures) - _LISTED} more" if len(failures) > _LISTED else ""
        exc = StudyError(
            f"{len(failures)} of {len(todo)} cells failed and were not stored (the other "
            f"{len(todo) - len(failures)} were); first: {cell_key(coords)}: "
            f"{type(error).__name__}: {error}. Fix the cause and rerun: stored cells are "
            f"reused.\nFailed cells:\n{listed}{more}"
        )
        exc.failures = [
            {"cell": cell_key(c), "coords": c, "error": f"{type(e).__name__}: {e}"}
            for c, e in failures
        ]
        raise exc from error


def run(
    study: str | os.PathLike[str] | Mapping[str, Any] | Study,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    plots: bool | None = None,
    on_cell: Callable[[Coords], None] | None = None,
    results_format: str | None = None,
    scheduler_timeout: float = SCHEDULER_TIMEOUT,
    wait: bool = False,
    timeout: float | None = None,
    sparse: bool | None = None,
) -> StudyResult:
    """Run a simulation study: every cell not yet stored in ``out``, then the tables and plots.

    Parameters
    ----------
    study
        A TOML file (``docs/study.md`` gives the schema), the same as a dict,
        or a :class:`Study`.
    out
        The study's folder (created): ``cells/`` (one file per finished cell),
        ``results.csv`` and ``results.nc`` (the tidy table), ``curves.csv``
        and ``plots/``.
    workers
        Local worker processes (default: the CPU count, at most 8); 1 runs
        the cells here, one after the other. With ``scheduler="local"``, the
        LocalCluster's number of workers.
    scheduler
        None (local processes), ``"local"`` (a dask LocalCluster), a dask
        scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``.
        The results are the same bits whichever runs them.
    progress
        A progress bar over the cells (default: when stderr is a terminal).
    plots
        Draw the standard plots (needs matplotlib, ``spdgraph[plots]``);
        default: when matplotlib is installed.
    on_cell
        Called with a cell's coordinates once it is stored.
    results_format
        A registered file format that holds Datasets (``"netcdf"``, ``"zarr"``,
        ``"csv"``, a plugin's): the tidy table is also written as
        ``results<suffix>`` through it. Default: netCDF (``results.nc``) when
        netCDF4 is installed. An unknown name, or a format for single arrays
        only, is refused before any cell runs.
    scheduler_timeout
        Seconds to reach a scheduler given by address (default 10): an
        unreachable one, or one that accepts and never answers, is refused
        after that long (:class:`~spdgraph.errors.SchedulerError`).
    wait
        When another run holds ``out`` (a run locks its folder), wait for it
        to end instead of refusing with :class:`~spdgraph.errors.StudyLockedError`.
    timeout
        Seconds a fit of an R or command learner may take when the learner
        sets no ``timeout`` of its own (default: the study's top-level
        ``timeout``, else no limit); a finite positive number. The learner
        is killed with what it started, and its cell fails.
    sparse
        Sparse truths, data through files, scores from the edge sets (``sparse =
        true`` in the TOML; ``docs/study.md``, "Sparse studies"); default: the
        study's ``sparse``. A grid method without a sparse construction is
        refused by name before any cell.

    Returns
    -------
    StudyResult
        The tidy table, the curves, and how many cells were computed and reused.

    Examples
    --------
    >>> import tempfile, spdgraph.study
    >>> spec = {"seed": 1, "grid": {"family": ["hub"], "p": [10], "n": [40, 80]},
    ...         "learners": [{"name": "shrink"}], "scores": {"metrics": ["tpr", "tdr"]}}
    >>> res = spdgraph.study.run(spec, tempfile.mkdtemp(), workers=1, plots=False)
    >>> res.computed, sorted(res.table["metric"].unique())
    (2, ['pr_auc', 'roc_auc', 'tdr', 'tpr'])
    """
    checked = load_study(study)
    n_workers = _workers(workers)
    scheduler = check_scheduler(scheduler)
    connect_timeout = check_timeout(scheduler_timeout)
    if timeout is not None:
        checked = dataclasses.replace(checked, timeout=check_learner_timeout(timeout, "timeout"))
    if sparse is not None:
        if not isinstance(sparse, bool):
            raise InvalidOptionError(f"sparse must be True or False, got {written(sparse)}.")
        checked = check_sparse_study(dataclasses.replace(checked, sparse=sparse))
    if results_format is not None and isinstance(out, str | os.PathLike):
        check_dataset_format(Path(out) / "results", results_format)
    folder = _study_folder(out)
    with locked_folder(folder, wait=bool(wait)):
        return _run_locked(
            checked, folder, n_workers, scheduler, connect_timeout, progress, plots, on_cell,
            results_format,
        )  # fmt: skip


def _study_folder(out: str | os.PathLike[str]) -> Path:
    """``out`` created as a folder, or a FileError naming it and the cause."""
    if isinstance(out, bool) or not isinstance(out, str | os.PathLike):
        raise InvalidOptionError(
            f"out must be a folder path (str or os.PathLike), not {type(out).__name__}."
        )
    folder = Path(out)
    try:
        if folder.exists() and not folder.is_dir():
            raise FileError(
                f"the study folder {str(folder)!r} exists and is not a folder; choose another "
                "output (-o DIR) or remove that file."
            )
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(
            f"cannot create the study folder {str(folder)!r}: "
            f"{getattr(exc, 'strerror', None) or exc}."
        ) from exc
    return folder


def _run_locked(
    checked: Study,
    folder: Path,
    n_workers: int,
    scheduler: Any,
    timeout: float,
    progress: bool | None,
    plots: bool | None,
    on_cell: Callable[[Coords], None] | None,
    results_format: str | None,
) -> StudyResult:
    """The run, once ``folder`` is locked: cells not yet stored (or not matching their
    digest), then the tables (a cell changed meanwhile is left out, never tabled)."""
    from spdgraph.study._results import write_results

    store = CellStore(folder, checked.fingerprint())
    clean_scratch(folder)  # what a killed run left; this run holds the lock
    context = LearnerContext(scratch_root=str(folder.resolve() / SCRATCH), timeout=checked.timeout)
    environment = _environment(checked)  # R and its packages checked before any cell
    text = json.dumps(
        {"name": checked.name, "grid": checked.grid, **checked.config(), **environment}, indent=1
    )
    atomic_write(folder / "study.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    cells = checked.cells()
    stored = {cell_key(c): store.load(c) for c in cells}
    todo = [c for c in cells if pending(checked, stored[cell_key(c)])]
    reuse = {cell_key(c): stored[cell_key(c)] for c in todo if stored[cell_key(c)] is not None}
    failed: StudyError | None = None
    try:
        _execute(
            todo,
            functools.partial(
                in_context,
                context,
                functools.partial(compute_cell, checked, stored=reuse),
                key=cell_key,
            ),
            store,
            name=checked.name,
            workers=n_workers,
            scheduler=scheduler,
            progress=progress,
            on_cell=on_cell,
            timeout=timeout,
            scratch=folder,
        )
    except StudyError as exc:  # the stored cells still get their tables and report
        failed = exc
    finally:
        clean_scratch(folder)
    payloads, learners_failed = stored_results(checked, store, cells)
    failures = (failed.failures if failed else []) + learners_failed
    table, curves, files = write_results(
        checked, folder, payloads, plots=plots, results_format=results_format, failures=failures
    )
    if failed is None and learners_failed:
        failed = StudyError(learner_failures_message(learners_failed))
    if failed is not None:
        failed.failures = failures
        raise failed
    return StudyResult(table, curves, len(todo), len(cells) - len(todo), files)


def _environment(study: Study) -> dict[str, Any]:
    """What study.json records of the machine: BLAS threads per fit, R and its packages."""
    environment: dict[str, Any] = {"blas_threads": 1}
    packages = study.r_packages()
    if packages is not None:
        from spdgraph.study._rbridge import check_r

        environment["r"] = check_r(packages)
    return environment
