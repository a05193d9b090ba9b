"""Figures in the style of the paper's (matplotlib, Agg canvas, no global state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plot_condition", "plot_kramer", "plot_ratio", "plot_timing"]


def _figure(
    ncols: int, nrows: int = 1, width: float = 5.2, height: float = 3.8, sharey: bool = False
) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    return fig, axes


def _save(fig: Any, path: Path) -> Path:
    from spdgraph.io import write_atomically

    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = path.suffix.lstrip(".") or "png"  # the temporary's name has no telling suffix
    return write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=110, format=fmt))


def plot_ratio(df: pd.DataFrame, out: Path, setting: str = "paper") -> list[Path]:
    """Figure 2 (mean R vs p per d, PO | DD) and Figure 3 (PO vs DD, extreme d, ±1 sd)."""
    sub = df[df["setting"] == setting]
    if sub.empty:
        return []
    stats = sub.groupby(["method", "d", "p"])["R"].agg(["mean", "std"]).reset_index()
    label = "U(0,1) entries, raw" if setting == "paper" else "N(0,1) entries, unit diagonal"
    paths = []
    methods = sorted(stats["method"].unique(), key=lambda m: (m != "po", m))
    fig, axes = _figure(len(methods))
    for ax, method in zip(axes[0], methods, strict=True):
        for d, grp in stats[stats["method"] == method].groupby("d"):
            ax.plot(grp["p"], grp["mean"], marker="o", ms=3, label=f"d = {d:g}")
        ax.set(xlabel="p", ylabel="mean R", title=f"{method.upper()} ({label})")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    paths.append(_save(fig, out / f"fig2_ratio_{setting}.png"))
    ds = sorted(stats["d"].unique())
    extremes = [ds[0], ds[-1]] if len(ds) > 1 else ds
    fig, axes = _figure(len(extremes))
    for ax, d in zip(axes[0], extremes, strict=True):
        for method in methods:
            grp = stats[(stats["method"] == method) & (stats["d"] == d)]
            sd = grp["std"].fillna(0.0)
            ax.plot(grp["p"], grp["mean"], marker="o", ms=3, label=method.upper())
            ax.fill_between(grp["p"], grp["mean"] - sd, grp["mean"] + sd, alpha=0.25)
        ax.set(xlabel="p", ylabel="mean R (± 1 sd)", title=f"d = {d:g} ({label})")
        ax.legend(fontsize=8)
    paths.append(_save(fig, out / f"fig3_ratio_extremes_{setting}.png"))
    return paths


def plot_condition(df: pd.DataFrame, out: Path) -> list[Path]:
    """Figure 1: median condition number vs p per d (dense | sparse), with the p^2 line."""
    paths = []
    for method, msub in df.groupby("method"):
        med = msub.groupby(["d", "p"])["cond"].median().reset_index()
        dense = sorted(d for d in med["d"].unique() if d >= 0.25)
        sparse = sorted(d for d in med["d"].unique() if d < 0.25)
        panels = [(dense, "dense"), (sparse, "sparse")]
        panels = [(ds, name) for ds, name in panels if ds]
        fig, axes = _figure(len(panels))
        for ax, (ds, name) in zip(axes[0], panels, strict=True):
            for d in ds:
                grp = med[med["d"] == d]
                ax.plot(grp["p"], grp["cond"], marker="o", ms=3, label=f"d = {d:g}")
            ps = np.sort(med["p"].unique())
            ax.plot(ps, ps.astype(float) ** 2, "k--", lw=1, label="p²")
            ax.set(
                xlabel="p",
                ylabel="median condition number",
                yscale="log",
                title=f"{method.upper()}, {name} graphs (U(0,1), raw)",
            )
            ax.legend(fontsize=8)
        paths.append(_save(fig, out / f"fig1_condition_{method}.png"))
    return paths


def plot_timing(df: pd.DataFrame, out: Path) -> list[Path]:
    """Figure 4: time to simulate a batch vs p, one panel per method, a line per d."""
    methods = sorted(df["method"].unique(), key=lambda m: (m != "po", m))
    fig, axes = _figure(len(methods), sharey=True)
    batch = int(df["batch"].iloc[0])
    for ax, method in zip(axes[0], methods, strict=True):
        for d, grp in df[df["method"] == method].groupby("d"):
            grp = grp.sort_values("p")
            ax.plot(grp["p"], grp["seconds"], marker="o", ms=3, label=f"d = {d:g}")
        ax.set(xlabel="p", ylabel=f"seconds for {batch} matrices", yscale="log", title=method)
        ax.legend(fontsize=8)
    return [_save(fig, out / "fig4_timing.png")]


def plot_kramer(df: pd.DataFrame, out: Path) -> list[Path]:
    """Figure 5: mean TPR and TDR vs n per learner; columns = generators; one file per d.

    With two or more replications a band shows one standard error of the mean
    (over the replications where the value exists: TDR is missing when a
    learner selects nothing). A point whose TDR is missing in every
    replication (nothing selected) is drawn as a cross at 0 and the panel says so.
    """
    paths = []
    gens = sorted(df["generator"].unique(), key=lambda g: (g != "dd", g))
    for d, dsub in df.groupby("d"):
        fig, axes = _figure(len(gens), 2, width=4.6, height=3.4)
        notes = np.zeros(axes.shape, dtype=bool)
        for col, gen in enumerate(gens):
            gsub = dsub[dsub["generator"] == gen]
            grouped = gsub.groupby(["learner", "n"])[["tpr", "tdr"]]
            means = grouped.mean().reset_index()
            sems = grouped.sem().reset_index()
            for row, metric in enumerate(("tpr", "tdr")):
                ax = axes[row, col]
                for learner, grp in means.groupby("learner"):
                    (line,) = ax.plot(grp["n"], grp[metric], marker="o", ms=3, label=learner)
                    missing = grp[grp[metric].isna()]
                    if len(missing):  # TDR undefined: nothing selected in any replication
                        ax.plot(
                            missing["n"], np.zeros(len(missing)), marker="x", ms=6,
                            linestyle="none", color=line.get_color(), clip_on=False,
                        )  # fmt: skip
                        notes[row, col] = True
                    err = sems.loc[sems["learner"] == learner, metric].to_numpy()
                    if np.isfinite(err).any():
                        ax.fill_between(
                            grp["n"],
                            grp[metric] - err,
                            grp[metric] + err,
                            color=line.get_color(),
                            alpha=0.15,
                            linewidth=0,
                        )
                ax.set(
                    xlabel="n",
                    ylabel=metric.upper(),
                    ylim=(-0.02, 1.02),
                    title=f"{gen.upper()} truth, p = {int(gsub['p'].iloc[0])}, d = {d:g}",
                )
                ax.legend(fontsize=7)
                if notes[row, col]:
                    ax.text(
                        0.02, 0.04, "× at 0: nothing selected (TDR undefined)",
                        transform=ax.transAxes, fontsize=7,
                    )  # fmt: skip
        paths.append(_save(fig, out / f"fig5_kramer_d{d:g}.png"))
    return paths
