"""A study's answer in numbers: per cell and metric, the learners ranked with their counts.

Every figure of the report comes from here: the mean and standard error over
the repeats with a value, how many repeats that is, how many selected nothing,
failed or warned (from the table's ``status`` and ``warnings`` columns when
present; a table of an older study without them counts no failure), each
learner's rank in the metric's direction (``higher_is_better``), and the
best learner's margin over the next one (paired over the repeats both have:
every learner of a repeat saw the same data).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from spdgraph.study._config import FIT_TIME, Study

__all__ = [
    "FAILED",
    "SELECTED_NOTHING",
    "decimals",
    "higher_is_better",
    "margin",
    "number",
    "places_of",
    "summary_table",
]

#: The ``status`` of an entry whose learner selected no edge (TDR undefined) or failed.
SELECTED_NOTHING, FAILED = "selected nothing", "failed"
#: Metrics tabled beside the study's own, and whether larger is better (None: neither).
_EXTRA_DIRECTION: dict[str, bool | None] = {
    "roc_auc": True,
    "pr_auc": True,
    "brier": False,
    "stein_loss": False,
    "frobenius_relative": False,
    "coverage": None,  # the nominal level is best, not the largest value
    FIT_TIME: False,
}


def higher_is_better(study: Study, metric: str) -> bool | None:
    """Whether a larger value of ``metric`` is better (None: no direction, not ranked)."""
    from spdgraph.errors import SpdgraphError
    from spdgraph.validation import resolve_metric

    if metric in _EXTRA_DIRECTION:
        return _EXTRA_DIRECTION[metric]
    for spec in study.metrics:
        try:
            resolved = resolve_metric(spec)
        except SpdgraphError:  # a module gone since the run: no ranking by it
            continue
        if resolved.name == metric:
            return resolved.higher_is_better
    return None


def _entries(study: Study, table: Any) -> Any:
    """One row per (cell, learner, repeat): its status and warnings (from any metric row)."""
    import pandas as pd

    keys = [*study.grid, "learner", "repeat"]
    frame = table[keys].copy()
    frame["status"] = table["status"].fillna("ok") if "status" in table else "ok"
    warned = table["warnings"] if "warnings" in table else pd.Series(0, index=table.index)
    frame["warnings"] = pd.to_numeric(warned, errors="coerce").fillna(0).astype(int)
    rank = frame["status"].map({FAILED: 2, SELECTED_NOTHING: 1}).fillna(0)
    frame = frame.assign(_rank=rank).sort_values("_rank", ascending=False, kind="stable")
    return frame.drop_duplicates(keys).drop(columns="_rank")


def _counts(study: Study, table: Any) -> Any:
    """Per (cell, learner): repeats present, failed, selected nothing, warnings."""
    entries = _entries(study, table)
    grouped = entries.groupby([*study.grid, "learner"], sort=False)
    counts = grouped.agg(
        present=("repeat", "nunique"),
        failed=("status", lambda s: int((s == FAILED).sum())),
        selected_nothing=("status", lambda s: int((s == SELECTED_NOTHING).sum())),
        warnings=("warnings", "sum"),
    )
    return counts.reset_index()


def summary_table(study: Study, table: Any, metric: str) -> Any:
    """Per cell and learner, one metric: mean, standard error, counts and rank.

    Columns: the grid axes, ``learner``, ``mean`` and ``se`` (over the
    repeats with a finite value; ``se`` NaN with fewer than two),
    ``repeats`` (how many values the mean is of), ``expected`` (the study's
    repeats), ``selected_nothing``, ``failed`` and ``warnings`` (repeats of
    that status, warnings raised, from the table's ``status`` and
    ``warnings`` columns when present), ``rank`` (1 = best in the metric's
    direction within the cell; NaN without a value or without a direction)
    and ``best``. Rows: the cells in grid order, the learners by rank.

    Examples
    --------
    >>> import pandas as pd
    >>> from spdgraph.study import load_study, summary_table
    >>> study = load_study({"seed": 1, "repeats": 2, "grid": {"family": ["hub"], "p": [8],
    ...     "n": [40]}, "learners": [{"name": "shrink"}, {"name": "ridge"}],
    ...     "scores": {"metrics": ["tdr"]}})
    >>> cell = {"family": "hub", "p": 8, "n": 40, "method": "po", "data": "gaussian"}
    >>> table = pd.DataFrame([
    ...     {**cell, "repeat": r, "learner": l, "metric": "tdr", "value": v, "status": s}
    ...     for r, l, v, s in [(0, "shrink", 0.5, "ok"), (1, "shrink", 0.7, "ok"),
    ...                        (0, "ridge", 0.9, "ok"), (1, "ridge", float("nan"),
    ...                                                  "selected nothing")]])
    >>> summary_table(study, table, "tdr")[["learner", "mean", "repeats", "selected_nothing",
    ...                                     "rank", "best"]]
      learner  mean  repeats  selected_nothing  rank   best
    0   ridge   0.9        1                 1   1.0   True
    1  shrink   0.6        2                 0   2.0  False
    """
    import pandas as pd

    axes, cells = list(study.grid), [*study.grid, "learner"]
    columns = [*cells, "mean", "se", "repeats", "expected", "selected_nothing", "failed"]
    columns += ["warnings", "rank", "best"]
    rows = table[table["metric"] == metric]
    if not len(rows):
        return pd.DataFrame(columns=columns)
    values = pd.to_numeric(rows["value"], errors="coerce")
    finite = rows.assign(value=values.where(np.isfinite(values)))
    out = finite.groupby(cells, sort=False)["value"].agg(mean="mean", sd="std", repeats="count")
    out = out.reset_index().merge(_counts(study, rows), on=cells, how="left")
    out["se"] = out["sd"] / np.sqrt(out["repeats"])
    out["expected"] = study.repeats
    order = {name: k for k, name in enumerate(e["name"] for e in study.learners)}
    out["_order"] = out["learner"].map(order).fillna(len(order))
    direction = higher_is_better(study, metric)
    key = out["mean"] if direction is None or direction is False else -out["mean"]
    out["_key"] = key.fillna(np.inf) if direction is not None else 0.0
    out["_cell"] = out.groupby(axes, sort=False).ngroup()
    out = out.sort_values(["_cell", "_key", "_order"], kind="stable").reset_index(drop=True)
    ranked = out["mean"].notna() & (direction is not None)
    out["rank"] = out[ranked].groupby("_cell").cumcount().add(1).reindex(out.index).astype(float)
    out["best"] = out["rank"] == 1
    return out[columns]


def margin(table: Any, study: Study, metric: str, ahead: str, behind: str, cell: dict) -> Any:
    """The mean and standard error of ``ahead - behind`` in one cell, paired by repeat."""
    rows = table[table["metric"] == metric]
    for axis in study.grid:
        rows = rows[rows[axis] == cell[axis]]
    wide = rows.pivot_table(index="repeat", columns="learner", values="value", aggfunc="first")
    if ahead not in wide or behind not in wide:
        return math.nan, math.nan, 0
    diff = (wide[ahead] - wide[behind]).to_numpy(float)
    diff = diff[np.isfinite(diff)]
    if not len(diff):
        return math.nan, math.nan, 0
    se = float(np.std(diff, ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.nan
    return float(np.mean(diff)), se, len(diff)


def decimals(values: Any, metric: str) -> int | None:
    """Decimals giving the metric's values three significant digits at the scale of the
    largest |value| (rates in [0, 1]: three decimals; None: fit times, each number to three
    significant digits of its own)."""
    if metric == FIT_TIME:
        return None
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if not len(finite):
        return 3
    # the largest value's leading digit: 0.79 and 1.0 alike at 10^-1 (a rate's three decimals)
    leading = math.ceil(math.log10(float(finite.max()))) - 1
    return int(min(6, max(0, 2 - leading)))


def places_of(value: float, places: int | None) -> int:
    """The decimals to show ``value`` (and its error) with: ``places``, or three
    significant digits of ``value`` when ``places`` is None."""
    if places is not None:
        return places
    if not np.isfinite(value) or value == 0:
        return 3
    return int(min(9, max(0, 2 - math.floor(math.log10(abs(value))))))


def number(value: float, places: int) -> str:
    """``value`` with ``places`` decimals; ``–`` for NaN."""
    return f"{value:.{places}f}" if np.isfinite(value) else "–"
