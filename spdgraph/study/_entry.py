"""One learner on one repeat of a cell: fitted by its kind, scored, its warnings and failure
its own.

An entry is one (cell, learner, repeat). Its fit runs through the learner's
kind (:func:`spdgraph.study.learner_kinds`); the warnings it raises are
captured (counted in the table's ``warnings`` column, their messages kept in
the cell file), never printed between progress lines; an exception fails this
entry alone (status ``"failed"``, its metrics NaN, the one-line reason in
``error``): the other learners of the cell are scored and stored. A result
whose off-diagonal values are only 0 and 1 (any dtype) is a selection and gets
the selection metrics only; ``output =`` in the learner's table declares it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.study._config import FIT_TIME, Study

__all__ = [
    "STATUSES",
    "current_payload",
    "entry_failures",
    "fit_entry",
    "learner_failures_message",
    "output_of",
    "pending",
    "reusable_entries",
    "stored_results",
    "true_graph",
]

#: The status of an entry: scored, failed, or scored with no edge selected.
STATUSES = ("ok", "failed", "selected nothing")
#: Points kept of each ROC/PR curve (evenly along the path, ends included).
CURVE_POINTS = 41
#: Default cutoff of continuous precision draws' edge scores (probabilities of
#: direction): a pair is selected when its central 95% credible interval excludes 0.
CREDIBLE_CUTOFF = 0.95
#: Warning messages kept per entry (all are counted).
KEPT_WARNINGS = 20
#: Characters kept of a failure's reason.
REASON_CHARS = 1000


def reason(exc: BaseException) -> str:
    """An exception as one line: ``Type: message`` (whitespace folded, bounded)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."


def posterior_metrics() -> list[str]:
    """What a learner's posterior draws add to the table (the registry's posterior metrics)."""
    from spdgraph.validation import metric_names

    return metric_names("posterior")


def _zero_one(values: np.ndarray) -> bool:
    """Whether a square matrix's off-diagonal entries are all 0 or 1 (a selection)."""
    if values.dtype == bool:
        return True
    if values.dtype.kind not in "iuf" or values.size == 0:
        return False
    off = values[~np.eye(values.shape[0], dtype=bool)]
    return bool(np.all((off == 0) | (off == 1)))


def _sparse_output(study: Study, entry: Mapping[str, Any], estimate: Any) -> tuple[str, Any]:
    """A learner's scipy.sparse result: ``(kind, csr_array)`` (densified in a dense study)."""
    from spdgraph.study._output import sparse_pcor, sparse_result

    declared = entry.get("output", "auto")
    if declared == "draws":
        raise InvalidOptionError(
            f"learner {entry['name']!r} returned a sparse matrix; draws are (draws, p, p) arrays."
        )
    values = sparse_result(estimate, estimate.shape[-1], f"learner {entry['name']!r}")
    if declared == "precision":  # partial correlations on the stored entries
        values, declared = sparse_pcor(values, f"learner {entry['name']!r}"), "scores"
    off = values.data[np.repeat(np.arange(values.shape[0]), np.diff(values.indptr)) !=
                      values.indices]  # fmt: skip
    if declared == "selection" or (declared == "auto" and np.all(off == 1)):
        kind, values = "selection", values.astype(bool)
    else:
        kind = "scores"
    return kind, (values if study.sparse else values.toarray())


def output_of(
    entry: Mapping[str, Any], estimate: Any, study: Study | None = None
) -> tuple[str, Any]:
    """``(output kind, estimate)``: "selection", "scores" or "draws", by declaration or values.

    A scipy.sparse result stays sparse in a sparse study (``sparse = true``);
    its stored off-diagonal entries all 1 make it a selection.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.study._entry import output_of
    >>> output_of({"name": "r"}, np.array([[1.0, 1.0], [1.0, 1.0]]))[0]
    'selection'
    >>> output_of({"name": "r"}, np.array([[1.0, 0.3], [0.3, 1.0]]))[0]
    'scores'
    """
    from spdgraph.study._output import is_scipy_sparse
    from spdgraph.validation import precision_to_pcor

    if is_scipy_sparse(estimate):
        return _sparse_output(study or Study("", 0, {}, []), entry, estimate)
    declared = entry.get("output", "auto")
    values = np.asarray(estimate)
    if values.ndim == 3 and declared in ("auto", "draws"):
        return "draws", values
    if values.ndim != 2 or values.shape[0] != values.shape[1]:
        also = " or (draws, p, p)." if declared in ("auto", "draws") else f" ({declared!r})."
        raise InvalidOptionError(
            f"learner {entry['name']!r} returned shape {values.shape}; expected (p, p){also}"
        )
    if values.dtype != bool and values.dtype.kind in "iuf" and not np.all(np.isfinite(values)):
        bad = np.argwhere(~np.isfinite(values))
        raise InvalidOptionError(
            f"learner {entry['name']!r} returned {len(bad)} non-finite value(s), first at "
            f"{tuple(int(i) for i in bad[0])}."
        )
    if declared == "precision":
        prec = values.astype(float)
        pcor = precision_to_pcor(prec)
        pcor[prec == 0] = 0.0
        return "scores", pcor
    if declared == "selection" or (declared == "auto" and _zero_one(values)):
        return "selection", values != 0
    return "scores", values


def _posterior(
    study: Study, entry: Mapping[str, Any], draws: Any, sim: Any
) -> tuple[np.ndarray, dict[str, float], float]:
    """Precision draws ``(k, p, p)`` -> (edge scores, posterior metrics, default cutoff).

    Draws with exact zeros give inclusion probabilities (the share of draws
    with a nonzero entry): the default cutoff 0.5 selects the median
    probability graph. Continuous draws (no exact zero, e.g. a Wishart
    posterior on the complete graph) give the probability of direction of
    each partial correlation, ``|2 P(rho > 0) - 1|``: not an inclusion
    probability (about half of the non-edges score above 0.5 by chance), so
    the default cutoff is :data:`CREDIBLE_CUTOFF`, which selects the pairs
    whose central 95% credible interval excludes zero.
    """
    import xarray as xr

    from spdgraph.validation import posterior_scores

    if study.kind != "precision":
        raise InvalidOptionError(
            f"learner {entry['name']!r} returned precision draws, scored against the "
            "concentration graph: use kind = 'precision' in the study."
        )
    values = np.asarray(draws, dtype=float)
    scores = posterior_scores(
        xr.DataArray(values, dims=("draw", "node", "node_2")),
        np.asarray(sim["precision"].values),
        kind="precision",
    )
    p = values.shape[1]
    iu = np.triu_indices(p, 1)
    inclusion = np.zeros((p, p))
    inclusion[iu] = np.asarray(scores.pairs["inclusion"], dtype=float)
    cutoff = CREDIBLE_CUTOFF if scores.inclusion_from == "probability of direction" else 0.5
    return inclusion + inclusion.T, {m: scores[m] for m in posterior_metrics()}, cutoff


def _curve_rows(table: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
    keep = np.unique(np.linspace(0, len(table) - 1, CURVE_POINTS).round().astype(int))
    return [
        {**base, "point": int(i), "fpr": float(table["fpr"].iloc[i]),
         "tpr": float(table["tpr"].iloc[i]), "tdr": float(table["tdr"].iloc[i])}
        for i in keep
    ]  # fmt: skip


def _scored(
    study: Study, entry: Mapping[str, Any], fitted: tuple[Any, float], sim: Any, base: dict
) -> tuple[dict[str, float], list[dict[str, Any]], str]:
    """(metric values, curve rows, status) of one fitted learner."""
    from spdgraph.study._kinds import kind_of
    from spdgraph.study._output import is_scipy_sparse
    from spdgraph.validation import (
        curve_areas,
        path_table,
        resolve_metric,
        score_selection,
        select_edges,
    )

    truth = true_graph(sim)
    output, estimate = output_of(entry, fitted[0], study)
    extra: dict[str, float] = {}
    default_cutoff = 0.2  # the lfdr rule's
    if output == "draws":  # posterior draws: scored as a posterior
        estimate, extra, default_cutoff = _posterior(study, entry, estimate, sim)
        rule = entry.get("rule", "threshold")
    elif output == "selection":
        rule = "nonzero"
    else:
        rule = entry.get("rule", kind_of(entry).default_rule(entry))
        default_cutoff = 0.5 if rule == "threshold" else default_cutoff
    selected = select_edges(estimate, rule, float(entry.get("cutoff", default_cutoff)))
    builtin = score_selection(selected, truth, entry["name"]).metrics()
    metrics = [resolve_metric(m) for m in study.metrics]
    values = {
        m.name: m.value(truth, selected, builtin) for m in metrics if m.source == "selection"
    }
    curves: list[dict[str, Any]] = []
    if study.curves and output != "selection":
        scores = (
            abs(estimate) if is_scipy_sparse(estimate) else np.abs(np.asarray(estimate, float))
        )
        table = path_table(scores, truth)
        values.update(curve_areas(table))
        curves = _curve_rows(table, base)
    values.update(extra)
    if FIT_TIME in study.metrics:
        values[FIT_TIME] = float(fitted[1])
    edges: Any = selected  # a boolean array, or a csr_array of a sparse study
    chosen = edges.count_nonzero() if is_scipy_sparse(edges) else np.any(edges)
    return values, curves, ("ok" if chosen else "selected nothing")


def true_graph(sim: Any) -> Any:
    """The true adjacency a repeat is scored against: a boolean ``(p, p)`` array, or for a
    sparse truth (``sparse = true``) a boolean ``csr_array`` of its stored entries."""
    from spdgraph.layout import is_sparse

    if is_sparse(sim["adjacency"]):
        from scipy import sparse

        return sparse.csr_array(sim["adjacency"].data.tocsr(), dtype=bool)
    return np.asarray(sim["adjacency"].values, dtype=bool)


def fit_entry(
    study: Study,
    entry: Mapping[str, Any],
    sim: Any,
    seed: np.random.SeedSequence,
    base: dict[str, Any],
    x: np.ndarray | None = None,
    timings: dict[str, float] | None = None,
) -> dict[str, Any]:
    """One (cell, learner, repeat): ``{"entry": its record, "records": rows, "curves": rows}``.

    ``base`` holds the cell's coordinates, ``repeat`` and ``learner``; ``x``
    the data (:func:`spdgraph.study._cell.learner_data`; default: the
    simulation's); ``timings`` gets the seconds of the fit and of the scoring
    added. Never raises for the learner's faults (an ``Exception``): they fail
    this entry.
    """
    import time

    from spdgraph.study._kinds import kind_of
    from spdgraph.validation import resolve_metric

    x = np.asarray(sim["data"].values, dtype=float) if x is None else x
    labels = [str(v) for v in np.asarray(sim["data"][sim["data"].dims[-1]].values)]
    error = ""
    timings = {} if timings is None else timings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            start = time.perf_counter()
            fitted = kind_of(entry).fit(entry, x, labels, seed)
            middle = time.perf_counter()
            values, curves, status = _scored(study, entry, fitted, sim, base)
            timings["fits"] = timings.get("fits", 0.0) + middle - start
            timings["scoring"] = timings.get("scoring", 0.0) + time.perf_counter() - middle
        except Exception as exc:  # this learner's fault: its entry fails, the others go on
            values = {resolve_metric(m).name: float("nan") for m in study.metrics}
            values = values or {FIT_TIME: float("nan")}
            curves, status, error = [], "failed", reason(exc)
    messages = [f"{w.category.__name__}: {w.message}" for w in caught]
    rows = [
        {**base, "metric": m, "value": v, "status": status, "warnings": len(messages),
         "error": error}
        for m, v in values.items()
    ]  # fmt: skip
    record = {
        "learner": base["learner"],
        "repeat": base["repeat"],
        "fingerprint": study.learner_fingerprint(base["learner"]),
        "status": status,
        "error": error,
        "warnings": len(messages),
        "messages": list(dict.fromkeys(messages))[:KEPT_WARNINGS],
    }
    return {"entry": record, "records": rows, "curves": curves}


def _valid_entries(study: Study, payload: Mapping[str, Any] | None) -> dict[tuple[str, int], dict]:
    """The stored entries of the study's learners as they are now, by (learner, repeat)."""
    if not payload or not isinstance(payload.get("entries"), list):
        return {}  # a cell stored before entries (or none): computed anew
    prints = {e["name"]: study.learner_fingerprint(e["name"]) for e in study.learners}
    return {
        (e["learner"], e["repeat"]): e
        for e in payload["entries"]
        if isinstance(e, dict)
        and prints.get(e.get("learner")) == e.get("fingerprint")
        and isinstance(e.get("repeat"), int)
        and 0 <= e["repeat"] < study.repeats
    }


def reusable_entries(
    study: Study, payload: Mapping[str, Any] | None
) -> dict[tuple[str, int], dict[str, Any]]:
    """The entries of a stored cell a rerun keeps (done, learner unchanged), with their rows."""
    keep = {k: e for k, e in _valid_entries(study, payload).items() if e["status"] != "failed"}
    parts: dict[tuple[str, int], dict[str, Any]] = {
        k: {"entry": e, "records": [], "curves": []} for k, e in keep.items()
    }
    for key in ("records", "curves"):
        for row in (payload or {}).get(key, []):
            part = parts.get((row.get("learner"), row.get("repeat")))
            if part is not None:
                part[key].append(row)
    return parts


def pending(study: Study, payload: Mapping[str, Any] | None) -> bool:
    """Whether a cell has a (learner, repeat) to compute: missing, failed or changed."""
    done = reusable_entries(study, payload)
    return any((e["name"], r) not in done for e in study.learners for r in range(study.repeats))


def current_payload(study: Study, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A stored cell restricted to the study's learners and repeats as they are now."""
    valid = _valid_entries(study, payload)

    def kept(rows: Any) -> list[dict[str, Any]]:
        return [r for r in rows if (r.get("learner"), r.get("repeat")) in valid]

    return {
        **payload,
        "records": kept(payload.get("records", [])),
        "curves": kept(payload.get("curves", [])),
        "entries": list(valid.values()),
    }


def entry_failures(
    study: Study, cell: str, coords: Mapping[str, Any], payload: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The failed (learner, repeat) entries of a stored cell (key ``cell``), as
    ``failures.json`` lists them."""
    return [
        {"cell": cell, "coords": dict(coords), "learner": e["learner"],
         "repeat": e["repeat"], "error": f"learner {e['learner']!r}, repeat {e['repeat']}: "
         f"{e['error']}"}
        for e in _valid_entries(study, payload).values()
        if e["status"] == "failed"
    ]  # fmt: skip


def stored_results(
    study: Study, store: Any, cells: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The stored cells as the tables read them (:func:`current_payload`) and their failed
    (learner, repeat) entries (:func:`entry_failures`); ``store`` a study's CellStore."""
    payloads, failures = [], []
    for coords in cells:
        payload = store.load(coords)
        if payload is not None:
            payloads.append(current_payload(study, payload))
            failures += entry_failures(study, store.path(coords).stem, coords, payload)
    return payloads, failures


def learner_failures_message(failures: list[dict[str, Any]], listed: int = 20) -> str:
    """What a StudyError says of failed (learner, repeat) entries (the rest was stored)."""
    learners = sorted({f["learner"] for f in failures})
    lines = "\n".join(f"  {f['cell']}: {f['error']}" for f in failures[:listed])
    more = f"\n  ... and {len(failures) - listed} more" if len(failures) > listed else ""
    return (
        f"{len(failures)} learner fit(s) failed ({', '.join(map(repr, learners))}); every "
        "other learner's scores are stored, and the failed ones are in results.csv (status "
        "'failed', with the reason) and failures.json. Fix the cause and rerun: only what "
        f"failed or is missing is computed.\nFailed fits:\n{lines}{more}"
    )
