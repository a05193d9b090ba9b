"""``DIR/report.html``: a study in one self-contained file that leads with the answer.

From the top: what was run (one paragraph); the best learner of every cell
and metric, by how much and how sure (the paired margin over the next one);
per metric, the learners ranked by cell with mean ± standard error and the
repeats behind each figure (with those that selected nothing, failed or
warned); the figures (error bars, fit times on a log scale); the failures;
at the end, collapsed, the study as a TOML file and each learner's code,
highlighted. Tables sort by a click on a header (a few lines of inline
script); figures are embedded PNG: nothing is fetched to view it. It is
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
from spdgraph.study._report_text import ANSWER_NOTE, code_html, failures_html, run_paragraph
from spdgraph.study._store import atomic_write
from spdgraph.study._summary import (
    decimals,
    higher_is_better,
    margin,
    number,
    places_of,
    summary_table,
)

__all__ = ["summary_table", "write_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.2em auto; max-width: 1400px;
  color: #222; padding: 0 1em; line-height: 1.4; }
h1 { margin: 0 0 .3em; font-size: 1.6em; } h2 { margin-top: 1.6em; } h3 { margin: 1em 0 .3em; }
p.run { max-width: 70em; margin: .3em 0 .8em; }
table { border-collapse: collapse; margin: .3em 0 1.2em; font-size: .88em; }
th, td { border: 1px solid #d4d4d4; padding: .2em .55em; text-align: right; vertical-align: top; }
th { background: #f1f3f5; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort=ascending]::after { content: " \\25B2"; } th[aria-sort=descending]::after
  { content: " \\25BC"; }
td.key, td.lrn { text-align: left; } tr.top td { background: #eef7ee; font-weight: 600; }
.small { color: #666; font-size: .85em; } .warn, .small.warn { color: #b35900; }
table.best td { text-align: left; }
table.best .v, table.best .lrn { white-space: nowrap; }
td, table.best b { font-variant-numeric: tabular-nums; } .tie { color: #8a6d00; }
pre { background: #f7f7f7; padding: .7em; overflow-x: auto; font-size: .85em; margin: .3em 0; }
details { margin: .4em 0; } summary { cursor: pointer; font-weight: 600; }
img { max-width: 100%; } figure { margin: 1em 0; } .fail td { text-align: left; }
.c { color: #6a737d; font-style: italic; } .s { color: #22863a; } .n { color: #005cc5; }
.k { color: #d73a49; font-weight: 600; } .f { color: #6f42c1; } .h { color: #b31d28; }
"""
#: Click a header: sort its table by that column (numbers by data-v, empty last).
_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, i) {
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      var key = function (row) {
        var c = row.cells[i];
        if (c.dataset.v === undefined) { return c.textContent.trim(); }
        return c.dataset.v === "" ? null : parseFloat(c.dataset.v);
      };
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === null || y === null) { return (x === null) - (y === null); }
        if (typeof x === "number" && typeof y === "number") { return dir * (x - y); }
        return dir * String(x).localeCompare(String(y), undefined, {numeric: true});
      });
      rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
    });
  });
});
"""


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _td(text: str, sort: Any = None, cls: str = "", extra: str = "") -> str:
    attrs = f' class="{cls}"' if cls else ""
    if sort is not None:
        attrs += f' data-v="{"" if not np.isfinite(sort) else repr(float(sort))}"'
    return f"<td{attrs}{extra}>{text}</td>"


def _axes(study: Study) -> list[str]:
    """The axes that tell the cells apart (those with more than one value)."""
    return [a for a in study.grid if len(study.grid[a]) > 1] or ["family"]


def _metrics(table: Any) -> list[str]:
    """The table's metrics in their order, fit time last."""
    names = list(table["metric"].drop_duplicates()) if len(table) else []
    return [*(m for m in names if m != FIT_TIME), *(m for m in names if m == FIT_TIME)]


def _direction_word(study: Study, metric: str) -> str:
    higher = higher_is_better(study, metric)
    return {True: "higher is better", False: "lower is better", None: "not ranked"}[higher]


def _counts_cells(row: Any, has_warnings: bool) -> str:
    shown = int(row["repeats"])
    cls = "warn" if shown < int(row["expected"]) else ""
    cells = _td(f"{shown} of {int(row['expected'])}", shown, cls)
    for key in ("selected_nothing", "failed", *(["warnings"] if has_warnings else [])):
        value = int(row[key]) if np.isfinite(row[key]) else 0
        cells += _td(str(value), value, "warn" if value else "")
    return cells


def _metric_html(study: Study, table: Any, metric: str, has_warnings: bool) -> str:
    """One sortable table: per cell the learners ranked, counts, the gap to the best."""
    summary = summary_table(study, table, metric)
    axes = _axes(study)
    places = decimals(summary["mean"], metric)
    heads = [*axes, "rank", "learner", "mean", "± se", "repeats", "selected nothing", "failed"]
    heads += ["warnings"] * has_warnings + ["vs best (paired)"]
    body = []
    for _, group in summary.groupby(axes, sort=False):
        best = group[group["best"]]
        for _, row in group.iterrows():
            mean, se = float(row["mean"]), float(row["se"])
            digits = places_of(mean, places)
            cells = "".join(_td(_esc(row[a]), cls="key") for a in axes)
            rank = row["rank"]
            cells += _td("★ 1" if row["best"] else number(rank, 0), rank)
            cells += _td(_esc(row["learner"]), cls="lrn")
            cells += _td(number(mean, digits), mean, extra=(
                f' data-learner="{_esc(row["learner"])}" data-mean="{mean!r}" data-se="{se!r}"'
            ))  # fmt: skip
            cells += _td(number(se, digits), se) + _counts_cells(row, has_warnings)
            gap = ""
            if len(best) and not row["best"] and np.isfinite(mean):
                first = best.iloc[0]
                coords = {a: first[a] for a in study.grid}
                diff, dse, _ = margin(table, study, metric, row["learner"], first["learner"],
                                      coords)  # fmt: skip
                gap = f"{number(diff, digits)} ± {number(dse, digits)}"
                if metric == FIT_TIME:  # times: a ratio of the means (log scale)
                    gap = _ratio(mean, float(first["mean"]))
            cells += _td(gap)
            body.append(f"<tr{' class=top' if row['best'] else ''}>{cells}</tr>")
    note = " (wall seconds of the fit alone)" if metric == FIT_TIME else ""
    head = "".join(f"<th>{_esc(h)}</th>" for h in heads)
    return (
        f'<h3 id="metric-{_esc(metric)}">{_esc(metric)}{note} '
        f'<span class="small">{_direction_word(study, metric)}</span></h3>\n'
        f'<table class="metric sortable" data-metric="{_esc(metric)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _best_entry(study: Study, table: Any, metric: str, group: Any, places: int | None) -> str:
    """One entry of the answer: the best learner, its mean ± se (n), its margin."""
    ranked = group[group["rank"].notna()]
    if not len(ranked):
        return _td("–")
    first = ranked.iloc[0]
    mean, se = float(first["mean"]), float(first["se"])
    digits = places_of(mean, places)
    shown, expected = int(first["repeats"]), int(first["expected"])
    n_text = f"n = {shown}" if shown >= expected else f"n = {shown} of {expected}"
    text = (
        f'<div class="lrn">{_esc(first["learner"])}</div><div class="v"><b>'
        f"{number(mean, digits)}</b> ± {number(se, digits)} "
        f'<span class="{"warn" if shown < expected else "small"}">{n_text}</span></div>'
    )
    lost = [f"{int(first[k])} {w}" for k, w in (("failed", "failed"), ("selected_nothing",
            "selected nothing")) if first[k] > 0]  # fmt: skip
    if lost:
        text += f'<div class="small warn">{", ".join(lost)}</div>'

    if len(ranked) > 1:
        second = ranked.iloc[1]
        coords = {a: first[a] for a in study.grid}
        text += _margin_words(study, table, metric, first, second, coords, digits)
    return _td(text, mean)


def _ratio(slower: float, faster: float) -> str:
    """``9.68× as long`` (the slower time in seconds when the faster one reads 0)."""
    return f"{slower / faster:.3g}× as long" if faster > 0 else f"{slower:.3g} s"


def _margin_words(
    study: Study, table: Any, metric: str, first: Any, second: Any, coords: dict, digits: int
) -> str:
    """``ahead of X by d ± se`` (paired by repeat); ``≈`` within two standard errors; fit
    times as a ratio of the means."""
    name = _esc(second["learner"])
    if metric == FIT_TIME:
        ratio = _ratio(float(second["mean"]), float(first["mean"]))
        return f'<div class="small">next: {name}, {ratio}</div>'
    diff, dse, n = margin(table, study, metric, first["learner"], second["learner"], coords)
    tie = bool(np.isfinite(dse) and abs(diff) <= 2 * dse)
    spread = f"± {number(dse, digits)}" if np.isfinite(dse) else f"({n} repeat)"
    word = f"≈ {name}: +" if tie else f"ahead of {name} by "
    return (
        f'<div class="small{" tie" if tie else ""}">{word}{number(abs(diff), digits)} '
        f"{spread}</div>"
    )


def _answer_html(study: Study, table: Any, metrics: list[str]) -> str:
    """Rows: the cells; columns: the metrics; entries: the best learner and its margin."""
    axes = _axes(study)
    ranked = [m for m in metrics if higher_is_better(study, m) is not None]
    summaries = {m: summary_table(study, table, m) for m in ranked}
    body = []
    for _, cell in table[axes].drop_duplicates().iterrows():
        row = "".join(_td(_esc(cell[a]), cls="key") for a in axes)
        for m in ranked:
            s = summaries[m]
            group = s[np.logical_and.reduce([s[a] == cell[a] for a in axes])]
            row += _best_entry(study, table, m, group, decimals(s["mean"], m))
        body.append(f"<tr>{row}</tr>")
    head = "".join(f"<th>{_esc(a)}</th>" for a in axes)
    head += "".join(f"<th>{_esc(m)} ({'↑' if higher_is_better(study, m) else '↓'})</th>"
                    for m in ranked)  # fmt: skip
    return (
        f'<table class="best sortable" id="answer"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _image(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def write_report(
    study: Study, folder: Path, table: Any, failures: list[dict[str, Any]], figures: list[Path]
) -> Path:
    """Write ``folder/report.html`` from the tidy table, the failed cells and the PNG figures."""
    as_run: Any
    try:
        as_run = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        as_run = {"name": study.name, "grid": study.grid, **study.config()}
    metrics = _metrics(table)
    has_warnings = "warnings" in table
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Study {_esc(study.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Study {_esc(study.name)}</h1>",
        run_paragraph(study, table, failures),
        "<h2>Best learner per cell and metric</h2>",
        _answer_html(study, table, metrics),
        ANSWER_NOTE,
        "<h2>Learners ranked, per metric</h2>",
        *(_metric_html(study, table, m, has_warnings) for m in metrics),
        "<h2>Figures</h2>",
        *(_image(path, path.stem) for path in figures if path.is_file()),
    ]
    if not figures:
        parts.append("<p>No figures (plots off, or matplotlib not installed).</p>")
    parts += [failures_html(study, table, failures), code_html(study, as_run)]
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    text = "\n".join(parts)
    path = folder / "report.html"
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
