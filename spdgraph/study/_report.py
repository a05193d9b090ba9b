"""``DIR/report.html``: a study in one self-contained file (figures embedded, no network).

The report holds the study as run (``study.json``: grid, learners, seed, R
and package versions), one table per metric (mean ± standard error over the
repeats, by cell and learner), the figures (TPR/TDR/F1 against n, ROC/PR,
fit time) as base64 PNG, and the failed cells with their error text. It is
rebuilt from the stored cells by ``spdgraph study report DIR``.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.study._config import FIT_TIME, Study
from spdgraph.study._store import atomic_write

__all__ = ["summary_table", "write_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.key { text-align: left; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
img { max-width: 100%; } .fail td { text-align: left; }
"""


def summary_table(study: Study, table: Any, metric: str) -> Any:
    """Mean and standard error over repeats of one metric: one row per cell and learner.

    Columns: the grid axes, ``learner``, ``mean``, ``se`` (NaN with one
    repeat) and ``repeats``.
    """
    import pandas as pd

    axes = list(study.grid)
    rows = table[table["metric"] == metric]
    if not len(rows):
        return pd.DataFrame(columns=[*axes, "learner", "mean", "se", "repeats"])
    grouped = rows.groupby([*axes, "learner"], sort=False)["value"]
    out = grouped.agg(mean="mean", sd="std", repeats="count").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["repeats"])
    return out[[*axes, "learner", "mean", "se", "repeats"]]


def _number(value: float, metric: str) -> str:
    if not np.isfinite(value):
        return "–"
    return f"{value:.4g}" if metric == FIT_TIME else f"{value:.4f}"


def _metric_html(study: Study, table: Any, metric: str) -> str:
    summary = summary_table(study, table, metric)
    axes = [a for a in study.grid if len(study.grid[a]) > 1] or ["family"]
    learners = [e["name"] for e in study.learners if e["name"] in set(summary["learner"])]
    head = "".join(f"<th>{html.escape(a)}</th>" for a in axes)
    head += "".join(f"<th>{html.escape(name)}</th>" for name in learners)
    body = []
    for key, group in summary.groupby(axes, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        cells = "".join(f'<td class="key">{html.escape(str(k))}</td>' for k in key)
        by_learner = {row["learner"]: row for _, row in group.iterrows()}
        for name in learners:
            row = by_learner.get(name)
            if row is None:
                cells += "<td>–</td>"
                continue
            mean, se = float(row["mean"]), float(row["se"])
            shown = _number(mean, metric)
            if np.isfinite(se):
                shown += f" ± {_number(se, metric)}"
            cells += (
                f'<td data-learner="{html.escape(name)}" data-mean="{mean!r}" '
                f'data-se="{se!r}">{shown}</td>'
            )
        body.append(f"<tr>{cells}</tr>")
    note = " (wall seconds of the fit alone)" if metric == FIT_TIME else ""
    return (
        f'<h3 id="metric-{html.escape(metric)}">{html.escape(metric)}{note}</h3>\n'
        f'<table class="metric" data-metric="{html.escape(metric)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _image(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def write_report(
    study: Study, folder: Path, table: Any, failures: list[dict[str, Any]], figures: list[Path]
) -> Path:
    """Write ``folder/report.html`` from the tidy table, the failures and the PNG figures."""
    as_run: Any
    try:
        as_run = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        as_run = {"name": study.name, "grid": study.grid, **study.config()}
    metrics = [m for m in study.metrics if m in set(table["metric"])]
    metrics += [m for m in ("roc_auc", "pr_auc") if m in set(table["metric"])]
    n_cells = len(study.cells())
    done = table[[*study.grid]].drop_duplicates().shape[0] if len(table) else 0
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Study {html.escape(study.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Study {html.escape(study.name)}</h1>",
        f"<p>{done} of {n_cells} cells stored, {study.repeats} repeat(s) each; "
        f"{len(study.learners)} learners; {len(failures)} failed cell(s). Tables: mean ± "
        "standard error over the repeats. Built by spdgraph from the stored cells "
        "(<code>spdgraph study report DIR</code> rebuilds it).</p>",
        "<h2>The study as run</h2>",
        f"<pre>{html.escape(json.dumps(as_run, indent=1, default=str))}</pre>",
        "<h2>Metrics by cell and learner</h2>",
        *(_metric_html(study, table, m) for m in metrics),
        "<h2>Figures</h2>",
        *(_image(path, path.stem) for path in figures if path.is_file()),
    ]
    if not figures:
        parts.append("<p>No figures (plots off, or matplotlib not installed).</p>")
    parts.append("<h2>Failures</h2>")
    if failures:
        rows = "".join(
            f"<tr><td>{html.escape(f['cell'])}</td><td><pre>{html.escape(f['error'])}</pre></td></tr>"
            for f in failures
        )
        parts.append(
            f'<table class="fail" id="failures"><thead><tr><th>cell</th><th>error</th></tr>'
            f"</thead><tbody>{rows}</tbody></table>"
        )
    else:
        parts.append('<p id="failures">None: every cell finished.</p>')
    parts.append("</body></html>")
    text = "\n".join(parts)
    path = folder / "report.html"
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
