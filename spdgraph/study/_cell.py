"""One cell of a study: simulate each repeat, fit every learner, score it.

A cell's seed is the study seed with a spawn key made of its coordinates
(``sha256("axis=value")`` words in axis-name order): its result depends on
the study seed, its coordinates and the study's configuration, never on the
other cells, the order they run in or the machine's scheduler. Repeat ``r``
simulates from the child ``(…, r)``; the learners' folds from ``(…, r,
LEARNER_DOMAIN)``. BLAS runs on one thread, so the bits do not depend on the
worker either.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph.seeds import sub_root
from spdgraph.study._config import FIT_TIME, Study, import_object

__all__ = ["LEARNER_DOMAIN", "cell_key", "cell_seed", "compute_cell"]

#: Spawn-key entry of the learners' streams (ASCII "lrnr").
LEARNER_DOMAIN = 0x6C726E72
#: Points kept of each ROC/PR curve (evenly along the path, ends included).
CURVE_POINTS = 41


def _word(axis: str, value: Any) -> int:
    digest = hashlib.sha256(f"{axis}={value!r}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def cell_seed(seed: int, coords: Mapping[str, Any]) -> np.random.SeedSequence:
    """The SeedSequence of a cell: the study seed and its coordinates, nothing else.

    Examples
    --------
    >>> from spdgraph.study import cell_seed
    >>> a = cell_seed(1, {"family": "hub", "n": 50})
    >>> a.spawn_key == cell_seed(1, {"n": 50, "family": "hub"}).spawn_key
    True
    """
    words = tuple(_word(axis, coords[axis]) for axis in sorted(coords))
    return np.random.SeedSequence(int(seed), spawn_key=words)


def cell_key(coords: Mapping[str, Any]) -> str:
    """A file name for a cell: its coordinates, readable, plus a short hash (unique)."""
    text = ",".join(f"{k}={v}" for k, v in coords.items())
    digest = hashlib.sha256(repr(sorted(coords.items())).encode()).hexdigest()[:8]
    return re.sub(r"[^A-Za-z0-9=.,_+-]", "_", text)[:150] + "-" + digest


def _timed(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: np.random.SeedSequence
) -> tuple[Any, str, float]:
    """``(estimate, rule, seconds)``: the fit's wall time alone (R's own clock for R learners)."""
    if "r" in entry or "command" in entry:
        from spdgraph.study._command import fit_command
        from spdgraph.study._rbridge import fit_r

        estimate, seconds = (fit_r if "r" in entry else fit_command)(entry, x, labels, seed)
        return estimate, entry.get("rule", "nonzero"), seconds
    start = time.perf_counter()
    estimate, rule = _estimate(entry, x, seed)
    return estimate, rule, time.perf_counter() - start


def _takes_seed(function: Any) -> bool:
    """Whether a function learner has a ``seed`` parameter (it then gets the learner seed)."""
    import inspect

    try:
        return "seed" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


def _estimate(entry: Mapping[str, Any], x: np.ndarray, seed: np.random.SeedSequence) -> Any:
    """``(estimate, rule)`` of one learner on data ``x``."""
    from spdgraph.validation import SELECTION_RULES, fit_learners, precision_to_pcor

    options = dict(entry.get("options", {}))
    if "estimator" in entry:
        spec = entry["estimator"]
        cls = import_object(spec) if isinstance(spec, str) else spec
        est = cls(**options)
        fitted = est.fit(x)
        fitted = est if fitted is None else fitted
        for attr in ("adjacency_", "partial_correlation_", "pcor_"):
            if hasattr(fitted, attr):
                return np.asarray(getattr(fitted, attr)), entry.get("rule", "nonzero")
        prec = np.asarray(fitted.precision_, dtype=float)
        pcor = precision_to_pcor(prec)
        pcor[prec == 0] = 0.0
        return pcor, entry.get("rule", "nonzero")
    if "function" in entry:
        spec = entry["function"]
        function = import_object(spec) if isinstance(spec, str) else spec
        if "seed" not in options and _takes_seed(function):
            options["seed"] = seed  # the cell's learner stream: same cell, same draws
        return np.asarray(function(x, **options)), entry.get("rule", "nonzero")
    name = entry["name"]
    estimate = fit_learners(x, [name], seed=seed, cv=int(options.get("cv", 5)))[name]
    return estimate, entry.get("rule", SELECTION_RULES[name])


#: What a learner's posterior draws add to the table (spdgraph.validation.posterior_scores).
POSTERIOR_METRICS = ("brier", "stein_loss", "frobenius_relative", "coverage")
#: Default cutoff of continuous precision draws' edge scores (probabilities of
#: direction): a pair is selected when its central 95% credible interval excludes 0.
CREDIBLE_CUTOFF = 0.95


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

    from spdgraph.errors import InvalidOptionError
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
    return inclusion + inclusion.T, {m: scores[m] for m in POSTERIOR_METRICS}, cutoff


def _curve_rows(table: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
    keep = np.unique(np.linspace(0, len(table) - 1, CURVE_POINTS).round().astype(int))
    return [
        {**base, "point": int(i), "fpr": float(table["fpr"].iloc[i]),
         "tpr": float(table["tpr"].iloc[i]), "tdr": float(table["tdr"].iloc[i])}
        for i in keep
    ]  # fmt: skip


def _simulation(study: Study, coords: Mapping[str, Any], seed: np.random.SeedSequence) -> Any:
    from spdgraph.simulation import simulate

    family, method = coords["family"], coords["method"]
    extra = {k: v for k, v in coords.items() if k not in ("family", "p", "n", "method", "data")}
    options = {**study.families.get(family, {}), **study.methods.get(method, {}), **extra}
    return simulate(
        family,
        int(coords["n"]),
        p=int(coords["p"]),
        method=method,
        kind=study.kind,
        data=coords["data"],
        seed=seed,
        **options,
    )


def _score_repeat(study: Study, coords: Mapping[str, Any], r: int, root: Any) -> tuple[list, list]:
    from spdgraph.validation import (
        curve_areas,
        path_table,
        resolve_metric,
        score_selection,
        select_edges,
    )

    # "module:function" imported here; "seconds" is the fit's own clock, not a score
    metrics = [resolve_metric(m) for m in study.metrics if m != FIT_TIME]
    seed = sub_root(root, r)
    sim = _simulation(study, coords, seed)
    x = np.asarray(sim["data"].values, dtype=float)
    labels = [str(v) for v in np.asarray(sim["data"][sim["data"].dims[-1]].values)]
    truth = np.asarray(sim["adjacency"].values, dtype=bool)
    records: list[dict[str, Any]] = []
    curves: list[dict[str, Any]] = []
    for entry in study.learners:
        learner_seed = sub_root(root, r, LEARNER_DOMAIN)
        estimate, rule, seconds = _timed(entry, x, labels, learner_seed)
        extra: dict[str, float] = {}
        threshold_cutoff = 0.5
        if np.ndim(estimate) == 3:  # posterior draws: scored as a posterior
            estimate, extra, threshold_cutoff = _posterior(study, entry, estimate, sim)
            rule = entry.get("rule", "threshold")
        default_cutoff = threshold_cutoff if rule == "threshold" else 0.2
        selected = select_edges(estimate, rule, float(entry.get("cutoff", default_cutoff)))
        builtin = score_selection(selected, truth, entry["name"]).metrics()
        values = {m.name: m.value(truth, selected, builtin) for m in metrics}
        base = {**coords, "repeat": r, "learner": entry["name"]}
        if study.curves and np.asarray(estimate).dtype != bool:
            table = path_table(np.abs(np.asarray(estimate, dtype=float)), truth)
            values.update(curve_areas(table))
            curves.extend(_curve_rows(table, base))
        values.update(extra)
        if "seconds" in study.metrics:
            values["seconds"] = float(seconds)
        records.extend({**base, "metric": m, "value": v} for m, v in values.items())
    return records, curves


def compute_cell(study: Study, coords: Mapping[str, Any]) -> dict[str, Any]:
    """Every repeat of one cell: ``{"records": tidy metric rows, "curves": ROC/PR points}``.

    Runs anywhere (a local process, a dask worker): everything it needs is in
    its arguments, and BLAS is held to one thread so that the bits do not
    depend on the worker.
    """
    from spdgraph._threads import thread_budget

    root = cell_seed(study.seed, coords)
    records: list[dict[str, Any]] = []
    curves: list[dict[str, Any]] = []
    with thread_budget(blas_threads=1):  # and Numba x BLAS threads within the cores
        for r in range(study.repeats):
            rec, cur = _score_repeat(study, coords, r, root)
            records.extend(rec)
            curves.extend(cur)
    return {"records": records, "curves": curves}
