"""A study's outputs: the tidy table (CSV, netCDF), the ROC/PR points and the standard plots."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.errors import MissingDependencyError
from spdgraph.study._config import Study
from spdgraph.study._store import atomic_write

__all__ = ["plot_curves", "plot_metrics", "write_results"]

_PLOTTED = ("tpr", "tdr", "f1")
#: Columns of an entry (cell, repeat, learner) kept in the table when its rows have them.
ENTRY_COLUMNS = ("status", "warnings", "error")


def _frame(study: Study, payloads: list[Any], key: str, columns: list[str]) -> Any:
    import pandas as pd

    rows = [row for payload in payloads for row in payload[key]]
    axes = list(study.grid)
    # an entry's status, warnings and error text, when the cells record them
    optional = [c for c in ENTRY_COLUMNS if any(c in row for row in rows)]
    frame = pd.DataFrame(rows, columns=[*axes, "repeat", "learner", *columns, *optional])
    return frame.reset_index(drop=True)


def _varying(study: Study) -> list[str]:
    """Grid axes (besides family and n) with more than one value: they split the lines."""
    return [a for a, v in study.grid.items() if a not in ("family", "n") and len(v) > 1]


def _label(learner: str, key: tuple, axes: list[str]) -> str:
    extra = ", ".join(f"{a}={v}" for a, v in zip(axes, key, strict=True))
    return f"{learner} ({extra})" if extra else learner


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError(
            'the study plots need matplotlib: pip install "spdgraph[plots]" (or plots=False).'
        ) from None
    return plt


def _mean_se(group: Any) -> tuple[Any, Any]:
    """Mean and standard error over the repeats with a finite value, by n (se 0 with one)."""
    values = group.assign(value=group["value"].where(np.isfinite(group["value"])))
    stats = values.groupby("n")["value"].agg(["mean", "std", "count"])
    se = (stats["std"] / np.sqrt(stats["count"])).fillna(0.0)
    return stats["mean"], se


def plot_metrics(study: Study, table: Any, path: Path) -> Path:
    """TPR, TDR, F1 and every custom metric against n: a row of panels per family,
    one line per learner, error bars of one standard error; one scale per metric."""
    from spdgraph.validation import resolve_metric

    plt = _pyplot()
    custom = [
        m.name
        for m in map(resolve_metric, (s for s in study.metrics if s != "seconds"))
        if m.function is not None
    ]
    metrics = [m for m in (*_PLOTTED, *custom) if m in set(table["metric"])]
    families = list(study.grid["family"])
    axes_split = _varying(study)
    fig, axs = plt.subplots(
        len(families), max(1, len(metrics)), figsize=(4 * max(1, len(metrics)),
        3 * len(families)), squeeze=False, sharey="col",
    )  # fmt: skip  # one scale per metric
    for i, family in enumerate(families):
        sub = table[table["family"] == family]
        for j, metric in enumerate(metrics):
            ax = axs[i][j]
            rows = sub[sub["metric"] == metric]
            by = ["learner", *axes_split]
            for key, group in rows.groupby(by, sort=False):
                mean, se = _mean_se(group)
                ax.errorbar(
                    mean.index,
                    mean.to_numpy(),
                    yerr=se.to_numpy(),
                    marker="o",
                    capsize=3,
                    label=_label(key[0], key[1:], axes_split),
                )
            ax.set_title(f"{family}: {metric if metric in custom else metric.upper()}")
            ax.set_xlabel("n")
            if metric not in custom:  # a custom metric may take any values
                ax.set_ylim(-0.02, 1.02)
    axs[0][-1].legend(fontsize="small")
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=90))
    plt.close(fig)
    return path


def _mean_curve(group: Any, x: str, y: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mean curve over the repeats on a common grid of ``x``, and its standard error."""
    grid = np.linspace(0.0, 1.0, 51)
    curves = []
    for _, one in group.groupby("repeat"):
        xs, ys = one[x].to_numpy(float), one[y].to_numpy(float)
        ok = np.isfinite(xs) & np.isfinite(ys)
        if ok.sum() >= 2:
            order = np.argsort(xs[ok], kind="stable")
            curves.append(np.interp(grid, xs[ok][order], ys[ok][order]))
    if not curves:
        return grid, np.full_like(grid, np.nan), np.zeros_like(grid)
    se = np.std(curves, axis=0, ddof=1) / np.sqrt(len(curves)) if len(curves) > 1 else 0 * grid
    return grid, np.mean(curves, axis=0), se


def plot_curves(study: Study, curves: Any, path: Path) -> Path:
    """ROC and precision-recall curves (mean over repeats, a band of one standard error) at
    the largest n, per family."""
    plt = _pyplot()
    families = list(study.grid["family"])
    fig, axs = plt.subplots(len(families), 2, figsize=(8, 3.2 * len(families)), squeeze=False)
    n_max = max(study.grid["n"])
    axes_split = _varying(study)
    for i, family in enumerate(families):
        sub = curves[(curves["family"] == family) & (curves["n"] == n_max)]
        for key, group in sub.groupby(["learner", *axes_split], sort=False):
            label = _label(key[0], key[1:], axes_split)
            for ax, (x, y) in zip(axs[i], (("fpr", "tpr"), ("tpr", "tdr")), strict=True):
                grid, mean, se = _mean_curve(group, x, y)
                (line,) = ax.plot(grid, mean, label=label)
                ax.fill_between(grid, mean - se, mean + se, alpha=0.2, color=line.get_color(),
                                linewidth=0)  # fmt: skip
        axs[i][0].set(title=f"{family}, n = {n_max}: ROC", xlabel="FPR", ylabel="TPR")
        axs[i][1].set(title=f"{family}, n = {n_max}: PR", xlabel="recall (TPR)", ylabel="TDR")
    axs[0][1].legend(fontsize="small")
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=90))
    plt.close(fig)
    return path


def plot_seconds(study: Study, table: Any, path: Path) -> Path:
    """Fit time (median over repeats, a band from the fastest to the slowest, log scale)
    against n: one panel per family, one scale."""
    plt = _pyplot()
    families = list(study.grid["family"])
    fig, axs = plt.subplots(1, len(families), figsize=(4.2 * len(families), 3.2), squeeze=False,
                            sharey=True)  # fmt: skip
    rows = table[table["metric"] == "seconds"]
    for j, family in enumerate(families):
        ax = axs[0][j]
        sub = rows[rows["family"] == family]
        for learner, group in sub.groupby("learner", sort=False):
            stats = group.groupby("n")["value"].agg(["median", "min", "max"]).clip(lower=1e-6)
            (line,) = ax.plot(stats.index, stats["median"], marker="o", label=learner)
            ax.fill_between(stats.index, stats["min"], stats["max"], alpha=0.2,
                            color=line.get_color(), linewidth=0)  # fmt: skip
        ax.set(title=f"{family}: fit time (median, band: range)", xlabel="n",
               ylabel="seconds", yscale="log")  # fmt: skip
    axs[0][-1].legend(fontsize="small")
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=90))
    plt.close(fig)
    return path


def write_results(
    study: Study,
    folder: Path,
    payloads: list[Any],
    *,
    plots: bool | None,
    results_format: str | None = None,
    failures: list[dict[str, Any]] | None = None,
) -> tuple[Any, Any, list[Path]]:
    """``results.csv``, ``curves.csv``, plots, ``report.html``, and the table as a Dataset
    in ``results_format`` (``results.<suffix>``; default ``results.nc`` when netCDF4 is
    installed).

    ``failures`` (the failed cells and fits, :attr:`StudyError.failures`) are
    stored in ``failures.json``; the report lists the failed cells (the failed
    fits it reads from the table's ``status``).
    """
    import json

    import xarray as xr

    from spdgraph.study._config import FIT_TIME
    from spdgraph.study._report import write_report

    table = _frame(study, payloads, "records", ["metric", "value"])
    curves = _frame(study, payloads, "curves", ["point", "fpr", "tpr", "tdr"])
    files = [folder / "results.csv", folder / "curves.csv"]
    atomic_write(files[0], lambda tmp: table.to_csv(tmp, index=False))
    atomic_write(files[1], lambda tmp: curves.to_csv(tmp, index=False))
    name = results_format or ("netcdf" if importlib.util.find_spec("netCDF4") else None)
    if name not in (None, "csv"):  # the tidy table through the FileFormat table (csv: above)
        from spdgraph.io import file_formats, save_dataset

        ds = xr.Dataset.from_dataframe(table.rename_axis("row"))
        ds.attrs = {"study": study.name, "fingerprint": study.fingerprint()}
        files.append(folder / f"results{file_formats()[name].suffixes[0]}")
        save_dataset(ds, files[-1], overwrite=True, format=name)
    if plots is None:
        plots = importlib.util.find_spec("matplotlib") is not None
        if not plots:
            warnings.warn(
                'no plots: matplotlib is not installed (pip install "spdgraph[plots]").',
                stacklevel=3,
            )
    if plots and len(table):
        (folder / "plots").mkdir(exist_ok=True)
        files.append(plot_metrics(study, table, folder / "plots" / "metrics.png"))
        if len(curves):
            files.append(plot_curves(study, curves, folder / "plots" / "roc_pr.png"))
        if FIT_TIME in set(table["metric"]):
            files.append(plot_seconds(study, table, folder / "plots" / "seconds.png"))
    kept = ("cell", "coords", "learner", "repeat", "error")  # a failed fit has a learner
    failed = [{k: f[k] for k in kept if k in f} for f in failures or []]
    text = json.dumps(failed, indent=1, default=str)
    atomic_write(folder / "failures.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    figures = [f for f in files if f.suffix == ".png"]
    cells = [f for f in failed if "learner" not in f]  # the failed fits: the table's status
    files.append(write_report(study, folder, table, cells, figures))
    return table, curves, files
