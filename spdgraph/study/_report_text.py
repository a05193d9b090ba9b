"""The report's prose: what was run, how to read the numbers, the failures, the code.

Companion of :mod:`spdgraph.study._report` (the tables and the page): the
paragraph that opens the report, the failed cells and failed fits with their
error text, and, collapsed at the end, the study as a TOML file and each
learner's code, highlighted by :mod:`spdgraph.study._highlight`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from spdgraph.study._config import FIT_TIME, Study
from spdgraph.study._highlight import highlight, study_toml, toml_entries
from spdgraph.study._summary import FAILED, SELECTED_NOTHING, higher_is_better

__all__ = ["ANSWER_NOTE", "code_html", "failures_html", "run_paragraph"]

ANSWER_NOTE = (
    '<p class="small">Each entry: the best learner of the cell (↑: higher is better, '
    "↓: lower), its mean ± standard error over the repeats with a value, n = how many "
    "repeats that is; under it the margin over the next learner, paired by repeat (every "
    "learner of a repeat saw the same data), ± its standard error; ≈ when the margin is "
    "within two standard errors. Numbers of one metric share their decimals (three "
    "significant digits of its largest value; fit times three significant digits each). "
    "The tables below rank every learner and count the repeats that selected nothing, "
    "failed or warned. Click a header to sort.</p>"
)


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _kind(entry: Mapping[str, Any]) -> str:
    for key, word in (("r", "R"), ("command", "command"), ("estimator", "estimator"),
                      ("function", "function")):  # fmt: skip
        if key in entry:
            return word
    return "built in"


def _listed(values: list[Any]) -> str:
    words = [_esc(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _grid_words(study: Study) -> str:
    grid = study.grid
    words = [f"the famil{'y' if len(grid['family']) == 1 else 'ies'} {_listed(grid['family'])}"]
    words += [f"{_esc(axis)} = {_listed(values)}" for axis, values in grid.items()
              if axis != "family"]  # fmt: skip
    return ", ".join(words)


def _status_counts(table: Any) -> str:
    """``N fits: a failed, b selected nothing, c warnings`` over every (cell, learner, repeat)."""
    if not len(table):
        return "no fit stored"
    keys = [c for c in table.columns if c not in ("metric", "value", "status", "warnings",
                                                  "error")]  # fmt: skip
    entries = table.drop_duplicates(keys)
    status = entries["status"] if "status" in entries else None
    words = [f"{len(entries)} fits"]
    if status is not None:
        words.append(f"{int((status == FAILED).sum())} failed")
        words.append(f"{int((status == SELECTED_NOTHING).sum())} selected nothing")
    if "warnings" in entries:
        words.append(f"{int(entries['warnings'].fillna(0).sum())} warnings")
    return words[0] + (": " + ", ".join(words[1:]) if len(words) > 1 else "")


def run_paragraph(study: Study, table: Any, failures: list[dict[str, Any]]) -> str:
    """What was run, in one paragraph: learners, grid, repeats, metrics, seed, counts."""
    learners = ", ".join(f"{_esc(e['name'])} ({_kind(e)})" for e in study.learners)
    metrics = [m for m in dict.fromkeys(table["metric"])] if len(table) else []
    arrows = {True: " ↑", False: " ↓", None: ""}
    scored = ", ".join(
        f"{_esc(m)}{arrows[higher_is_better(study, m)]}" for m in metrics if m != FIT_TIME
    )
    n_cells = len(study.cells())
    done = len(table[list(study.grid)].drop_duplicates()) if len(table) else 0
    timed = "; every fit timed (seconds)" if FIT_TIME in metrics else ""
    repeats = "repeat" if study.repeats == 1 else "repeats"
    return (
        f'<p class="run"><b>What was run.</b> {len(study.learners)} learners ({learners}) '
        f"on {_grid_words(study)}: {n_cells} cells, {study.repeats} {repeats} each (one "
        f"simulated data set per repeat, the same for every learner); scored by {scored}"
        f"{timed}. Truth: the {_esc(study.kind)} graph. Seed {study.seed} (each cell's "
        f"seed from it and the cell's coordinates). <b>{done} of {n_cells} cells stored"
        f"</b> ({len(failures)} failed); {_status_counts(table)}. Built by spdgraph from the "
        "stored cells (<code>spdgraph study report DIR</code> rebuilds it).</p>"
    )


def _failed_fits(study: Study, table: Any) -> str:
    if "status" not in table or not (table["status"] == FAILED).any():
        return ""
    keys = [*study.grid, "learner", "repeat"]
    rows = table[table["status"] == FAILED].drop_duplicates(keys)
    axes = [a for a in study.grid if len(study.grid[a]) > 1] or ["family"]
    body = "".join(
        "<tr>"
        + "".join(f"<td>{_esc(row[a])}</td>" for a in [*axes, "learner", "repeat"])
        + f"<td><pre>{_esc(row.get('error', '') or '')}</pre></td></tr>"
        for _, row in rows.iterrows()
    )
    head = "".join(f"<th>{_esc(h)}</th>" for h in [*axes, "learner", "repeat", "error"])
    return (
        f'<h3>Failed fits</h3><table class="fail sortable" id="failed-fits"><thead><tr>{head}'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )


def failures_html(study: Study, table: Any, failures: list[dict[str, Any]]) -> str:
    """The failed cells (no score stored) and the failed fits, each with its error text."""
    parts = ["<h2>Failures</h2>"]
    if failures:
        rows = "".join(
            f"<tr><td>{_esc(f['cell'])}</td><td><pre>{_esc(f['error'])}</pre></td></tr>"
            for f in failures
        )
        parts.append(
            '<h3>Failed cells</h3><table class="fail sortable" id="failures"><thead><tr>'
            f"<th>cell</th><th>error</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    fits = _failed_fits(study, table)
    parts.append(fits)
    if not failures and not fits:
        parts.append('<p id="failures">None: every cell and every fit finished.</p>')
    return "".join(parts)


def _learner_code(entry: Mapping[str, Any]) -> str:
    """A learner's code as written: R as R, a command's script in its language."""
    if "r" in entry:
        return highlight(str(entry["r"]).strip("\n"), "r")
    if "command" in entry and isinstance(entry["command"], list):
        parts = [str(p) for p in entry["command"]]
        line = " ".join("<script below>" if "\n" in p else p for p in parts)
        text = highlight(line, "text")
        language = "python" if "python" in parts[0] else "text"
        for script in (p for p in parts if "\n" in p):
            text += "\n\n" + highlight(script.strip("\n"), language)
        return text
    return highlight(toml_entries(entry), "toml")


def code_html(study: Study, as_run: Mapping[str, Any]) -> str:
    """Collapsed: the study as a TOML file, then each learner's code."""
    learners = as_run.get("learners") or study.config()["learners"]
    blocks = "".join(
        f"<details><summary>{_esc(e['name'])} ({_kind(e)})</summary>"
        f"<pre><code>{_learner_code(e)}</code></pre></details>"
        for e in learners
    )
    return (
        '<h2 id="study-as-run">The study as run</h2>'
        "<details><summary>The study as a TOML file (<code>spdgraph study run</code> takes it)"
        f'</summary><pre><code class="toml">{highlight(study_toml(as_run), "toml")}</code></pre>'
        f"</details><details><summary>Each learner's code</summary>{blocks}</details>"
    )
