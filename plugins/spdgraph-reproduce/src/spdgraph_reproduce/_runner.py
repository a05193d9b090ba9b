"""Grid runner with resumable per-cell storage, an optional dask scheduler and a progress bar."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from spdgraph import InvalidOptionError
from spdgraph.cli import Progress
from spdgraph.io import netcdf_engine as _engine
from spdgraph_reproduce.errors import CellError

__all__ = ["CellStore", "cell_name", "fingerprint", "run_cells"]

Params = Mapping[str, Any]
Records = list[dict[str, Any]]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def cell_name(params: Params) -> str:
    """File-name key of a cell: ``k1=v1_k2=v2`` in the given order."""
    return "_".join(f"{k}={_fmt(v)}" for k, v in params.items()).replace("/", "-")


def fingerprint(config: Mapping[str, Any]) -> str:
    """Short stable hash of a study's configuration (everything except the grid)."""
    blob = json.dumps(config, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class CellStore:
    """One netCDF file per finished cell under ``out/<study>/cells/``.

    A cell counts as done when its file exists and carries the same
    configuration fingerprint; files are written atomically (temporary file,
    then rename), so an interrupted run leaves no half-written cell.
    """

    def __init__(self, out: str | os.PathLike, study: str, config: Mapping[str, Any]):
        self.root = Path(out) / study / "cells"
        self.study = study
        self.fingerprint = fingerprint(config)
        self.config = dict(config)

    def path(self, params: Params) -> Path:
        return self.root / f"{cell_name(params)}.nc"

    def has(self, params: Params) -> bool:
        path = self.path(params)
        if not path.exists():
            return False
        try:
            with xr.open_dataset(path, engine=_engine()) as ds:
                return ds.attrs.get("fingerprint") == self.fingerprint
        except Exception:  # unreadable leftovers are recomputed
            return False

    def save(self, params: Params, records: Records) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        frame = pd.DataFrame.from_records(records)
        ds = xr.Dataset.from_dataframe(frame.reset_index(drop=True).rename_axis("row"))
        ds.attrs = {
            "study": self.study,
            "fingerprint": self.fingerprint,
            "config": json.dumps(self.config, sort_keys=True, default=str),
            "cell": cell_name(params),
        }
        fd, tmp = tempfile.mkstemp(suffix=".nc.tmp", dir=self.root)
        os.close(fd)
        try:
            ds.to_netcdf(tmp, engine=_engine())
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 -> what open() would give
            os.replace(tmp, self.path(params))
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def load(self, cells: Iterable[Params]) -> pd.DataFrame:
        frames = []
        for params in cells:
            with xr.open_dataset(self.path(params), engine=_engine()) as ds:
                frames.append(ds.load().to_dataframe().reset_index(drop=True))
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)


def run_cells(
    store: CellStore,
    cells: Sequence[Params],
    func: Callable[[Params, Mapping[str, Any]], Records],
    *,
    scheduler: str | Any | None = None,
    progress: bool = True,
    jobs: int = 1,
) -> dict[str, int]:
    """Compute every cell not yet in ``store`` and save it.

    Parameters
    ----------
    store
        Where finished cells live.
    cells
        The grid: one parameter mapping per cell.
    func
        ``func(params, config) -> list of records`` (picklable, for dask).
    scheduler
        ``None`` to run here, one cell after the other; otherwise the address
        of a dask.distributed scheduler (``"tcp://host:8786"``) or a
        ``distributed.Client``: cells are then independent tasks.
    progress
        Show a progress bar (spdgraph's :class:`spdgraph.cli.Progress`: tqdm
        when installed) on stderr.
    jobs
        Without a scheduler: number of local worker processes (cells are
        independent, so the results do not depend on it; each worker keeps
        BLAS to one thread).

    Returns
    -------
    dict
        ``{"computed": ..., "skipped": ...}``.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidOptionError(f"jobs must be a positive integer, got {jobs!r}.")
    if jobs > 1 and scheduler is not None:
        raise InvalidOptionError(
            "give either jobs (local worker processes) or a dask scheduler, not both."
        )
    todo = [c for c in cells if not store.has(c)]
    skipped = len(cells) - len(todo)
    bar = Progress(store.study, total=len(todo), enabled=progress and bool(todo), unit="cell")
    failures: list[tuple[Params, BaseException]] = []

    def finish(params: Params, result: Callable[[], Records]) -> None:
        # a failing cell is reported at the end; the other cells go on
        try:
            records = result()
        except Exception as exc:
            failures.append((params, exc))
        else:
            store.save(params, records)
        bar.update()

    try:
        if scheduler is None and (jobs == 1 or len(todo) <= 1):
            for params in todo:
                finish(params, functools.partial(func, params, store.config))
        elif scheduler is None:
            _run_local_pool(store, todo, func, min(jobs, len(todo)), finish)
        else:
            try:
                from distributed import Client, as_completed
            except ImportError as exc:
                raise InvalidOptionError(
                    "a dask scheduler was given but dask.distributed is not installed; "
                    'pip install "distributed" or run without --scheduler.'
                ) from exc
            client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
            try:
                futures = {client.submit(func, dict(p), store.config, pure=False): p for p in todo}
                for fut in as_completed(futures):
                    finish(futures[fut], fut.result)
            finally:
                if client is not scheduler:
                    client.close()
    finally:
        bar.close()
    if failures:
        first_params, first_error = failures[0]
        raise CellError(
            f"{len(failures)} of {len(todo)} {store.study} cells failed and were not saved "
            f"(the other {len(todo) - len(failures)} were); first: {cell_name(first_params)}: "
            f"{type(first_error).__name__}: {first_error}. Fix the cause and rerun: finished "
            "cells are reused."
        ) from first_error
    return {"computed": len(todo), "skipped": skipped}


def _run_local_pool(
    store: CellStore,
    todo: Sequence[Params],
    func: Callable[[Params, Mapping[str, Any]], Records],
    jobs: int,
    finish: Callable[[Params, Callable[[], Records]], None],
) -> None:
    """Cells in ``jobs`` fresh ("spawn") worker processes; each result is saved on arrival."""
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # no forked BLAS/Numba thread state
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        futures = {pool.submit(func, dict(p), store.config): p for p in todo}
        for fut in cf.as_completed(futures):
            finish(futures[fut], fut.result)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def seed_for(seed: int, *parts: Any) -> np.random.SeedSequence:
    """A SeedSequence determined by the study seed and any labels (order independent of runs)."""
    words = []
    for part in parts:
        digest = hashlib.sha256(_fmt(part).encode()).digest()
        words.append(int.from_bytes(digest[:4], "little"))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(words))
