"""Run one study of the paper: plan its cells, compute the missing ones, write the results.

The cells run on :func:`spdgraph.study.run_cells` (storage in
``<out>/<study>/cells/``, resuming, worker processes, dask); this module
plans the grids and writes the paper-style tables and figures.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import xarray as xr

from spdgraph import InvalidOptionError
from spdgraph.io import netcdf_engine, save_dataset, write_atomically
from spdgraph.study import StudyError, run_cells
from spdgraph_reproduce import studies
from spdgraph_reproduce._defaults import DEFAULT_OUT
from spdgraph_reproduce.errors import CellError
from spdgraph_reproduce.studies import kramer_generators

__all__ = ["STUDIES", "StudyResult", "run_all", "run_study"]

STUDIES = ("ratio", "condition", "timing", "kramer")

_DIMS = {
    "ratio": ["setting", "p", "d", "method", "graph", "matrix"],
    "condition": ["setting", "p", "d", "method", "graph", "matrix"],
    "timing": ["method", "p", "d"],
    "kramer": ["generator", "d", "n", "rep", "learner"],
}


@dataclass
class StudyResult:
    """What :func:`run_study` produced."""

    study: str
    data: pd.DataFrame
    summary: pd.DataFrame
    files: list[Path] = field(default_factory=list)
    computed: int = 0
    skipped: int = 0
    seconds: float = 0.0


#: The six learners of Krämer et al. (2009) that the paper's validation study compares
#: (spdgraph's later built-in learners, such as "mb", are not part of the replication).
KRAMER_LEARNERS = ("lasso", "adalasso", "ridge", "pls", "shrink", "glasso")


def _plan(
    study: str,
    g: dict,
    seed: int,
    methods: Sequence[str] | None,
    learners: Sequence[str] | None,
) -> Any:
    if study in ("ratio", "condition"):
        chosen = list(methods) if methods else ["po", "dd"]
        settings = tuple(g.get("settings", ("paper", "gmat") if study == "ratio" else ("paper",)))
        unknown = [s for s in settings if s not in studies.SETTINGS]
        if unknown:
            raise InvalidOptionError(
                f"unknown setting(s) {unknown}; choose among {sorted(studies.SETTINGS)}."
            )
        config = {"seed": seed, "graphs": g["graphs"], "matrices": g["matrices"]}
        cells = [
            {"setting": s, "p": p, "d": d, "method": m}
            for s in settings
            for m in chosen
            for d in g["d"]
            for p in g["p"]
        ]
        return cells, config, studies.ratio_cell
    if study == "timing":
        chosen = studies.timing_generators(methods)
        config = {"seed": seed, "batch": g["batch"]}
        cells = [{"method": m, "d": d, "p": p} for m in chosen for d in g["d"] for p in g["p"]]
        return cells, config, studies.timing_cell
    chosen = kramer_generators(methods)
    config = {
        "seed": seed,
        "p": g["p"],
        "learners": list(learners or KRAMER_LEARNERS),
        "entries": g.get("entries", "normal"),
        "normalize": g.get("normalize", True),
        "cutoff": 0.2,
        # exact lasso paths (LARS homotopy); cells made with the earlier
        # coordinate-descent solver (tolerance 1e-4) carry another fingerprint
        "lasso_solver": "lars",
    }
    cells = [
        {"generator": m, "d": d, "n": n, "rep": r}
        for r in range(g["reps"])
        for m in chosen
        for d in g["d"]
        for n in g["n"]
    ]
    return cells, config, studies.kramer_cell


def _summary(study: str, df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    if study == "ratio":
        stats = df.groupby(["setting", "d", "p", "method"])["R"].agg(["mean", "std"])
        return stats.unstack("method").round(4)
    if study == "condition":
        return df.groupby(["d", "p", "method"])["cond"].median().unstack("method")
    if study == "timing":
        return df.pivot_table(index=["p", "d"], columns="method", values="seconds").round(4)
    return (
        df.groupby(["generator", "d", "n", "learner"])[["tpr", "tdr"]]
        .mean()
        .unstack("learner")
        .round(3)
    )


def _long_table(summary: pd.DataFrame) -> pd.DataFrame:
    """A summary as a tidy long table with one header row (for R and pandas readers)."""
    if summary.empty:
        return summary
    columns = summary.columns
    names = [
        name or ("statistic" if k == 0 else f"level_{k}") for k, name in enumerate(columns.names)
    ]
    wide = summary.copy()
    wide.columns = columns.set_names(names)
    return wide.stack(names, future_stack=True).rename("value").reset_index()


def _tidy(study: str, df: pd.DataFrame) -> xr.Dataset:
    ds = df.set_index(_DIMS[study]).to_xarray()
    return ds


def _check(study: str, *, seed: object, figures: bool, jobs: object, scheduler: Any) -> None:
    """run_study's arguments, before any work."""
    if study not in STUDIES:
        raise InvalidOptionError(f"unknown study {study!r}; choose one of {', '.join(STUDIES)}.")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidOptionError(f"seed must be a non-negative integer, got {seed!r}.")
    if figures:
        try:
            import matplotlib  # noqa: F401
        except ImportError as exc:
            raise InvalidOptionError(
                "figures need matplotlib: pip install matplotlib (or figures=False)."
            ) from exc
    if study == "kramer":
        try:
            import sklearn  # noqa: F401
        except ImportError as exc:
            raise InvalidOptionError(
                "the kramer study needs scikit-learn: pip install scikit-learn."
            ) from exc
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidOptionError(f"jobs must be a positive integer, got {jobs!r}.")
    if (
        jobs > 1
        and scheduler is not None
        and not (isinstance(scheduler, str) and scheduler == "local")
    ):
        raise InvalidOptionError(
            "give either jobs (local worker processes) or a dask scheduler, not both."
        )


def _write(
    study: str, df: pd.DataFrame, out: Path, *, figures: bool, attrs: dict[str, Any]
) -> list[Path]:
    """``<study>.csv``, ``<study>.nc``, ``<study>_summary.csv`` and the figures."""
    files: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    if not df.empty:
        # every file through spdgraph's one door to disk (atomic, checked, named errors)
        csv = write_atomically(out / f"{study}.csv", lambda tmp: df.to_csv(tmp, index=False))
        ds = _tidy(study, df)
        ds.attrs = dict(attrs)
        if netcdf_engine() == "netcdf4":
            for name in ds.data_vars:
                ds[name].encoding.update(zlib=True, complevel=4)
        nc = save_dataset(ds, out / f"{study}.nc", overwrite=True, format="netcdf")
        summary = _long_table(_summary(study, df))
        summary_csv = write_atomically(
            out / f"{study}_summary.csv", lambda tmp: summary.to_csv(tmp, index=False)
        )
        files += [nc, csv, summary_csv]
        if figures:
            from spdgraph_reproduce import plots

            if study == "ratio":
                for setting in ("paper", "gmat"):
                    files += plots.plot_ratio(df, out, setting)
            elif study == "condition":
                files += plots.plot_condition(df, out)
            elif study == "timing":
                files += plots.plot_timing(df, out)
            else:
                files += plots.plot_kramer(df, out)
    return files


def run_study(
    study: str,
    out: str | os.PathLike = DEFAULT_OUT,
    *,
    quick: bool = False,
    seed: int = 2018,
    scheduler: str | Any | None = None,
    progress: bool = True,
    figures: bool = True,
    methods: Sequence[str] | None = None,
    learners: Sequence[str] | None = None,
    jobs: int = 1,
    **grid_options: Any,
) -> StudyResult:
    """Run one study (resuming from ``out``), write its results and figures.

    Parameters
    ----------
    study
        ``"ratio"``, ``"condition"``, ``"timing"`` or ``"kramer"``.
    out
        Output folder: ``<study>/cells/*.json`` (one file per finished cell,
        :func:`spdgraph.study.run_cells`),
        ``<study>.nc``, ``<study>.csv`` and PNG figures.
    quick
        Reduced grid (minutes on 2 cores) instead of the paper's.
    seed
        Study seed; every cell's randomness derives from it and its labels.
    scheduler
        A dask.distributed scheduler address (or a Client, or ``"local"`` for
        a LocalCluster of ``jobs`` workers); None runs here.
    progress
        Progress bar on stderr.
    figures
        Write PNG figures (needs matplotlib).
    methods
        Generators to compare (ratio/condition default ``po`` and ``dd``;
        timing every registered method). For kramer, the truth generators;
        default :data:`~spdgraph_reproduce.studies.KRAMER_GENERATORS` (``po``,
        ``dd``, plus ``gwishart`` when installed); see
        :func:`~spdgraph_reproduce.kramer_generators`.
    learners
        Kramer learners (default all six).
    jobs
        Local worker processes when no scheduler is given (default 1); the
        results do not depend on it.
    **grid_options
        Override grid entries: ``p``, ``d``, ``graphs``, ``matrices``,
        ``batch``, ``n``, ``reps``, ``max_p``, ratio ``settings``
        (``"paper"``, ``"gmat"``), kramer ``entries`` / ``normalize``.

    Returns
    -------
    StudyResult
        The tidy records, a summary table, the files written and counts.
    """
    _check(study, seed=seed, figures=figures, jobs=jobs, scheduler=scheduler)
    g = studies.grid(study, quick=quick, options=grid_options)
    cells, config, func = _plan(study, g, seed, methods, learners)
    out = Path(out)
    t0 = time.perf_counter()
    try:
        ran = run_cells(
            func,
            cells,
            out / study,
            config=config,
            name=study,
            workers=jobs,
            scheduler=scheduler,
            progress=progress,
            blas_threads=None if study == "timing" else 1,  # timings: BLAS as a user has it
        )
    except StudyError as exc:
        raise CellError(f"{study}: {exc}") from exc.__cause__
    elapsed = time.perf_counter() - t0
    df = pd.DataFrame.from_records([r for records in ran.results for r in records])
    files = _write(
        study,
        df,
        out,
        figures=figures,
        attrs={"study": study, "seed": seed, "quick": int(quick), "grid": repr(g)},
    )
    return StudyResult(
        study=study,
        data=df,
        summary=_summary(study, df),
        files=files,
        computed=ran.computed,
        skipped=ran.skipped,
        seconds=elapsed,
    )


def run_all(out: str | os.PathLike = DEFAULT_OUT, **kwargs: Any) -> dict[str, StudyResult]:
    """Run every study in turn with the same arguments (see :func:`run_study`)."""
    return {study: run_study(study, out, **kwargs) for study in STUDIES}
