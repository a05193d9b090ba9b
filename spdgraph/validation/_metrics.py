"""Metrics as open as learners: one registry of every metric with its direction.

Every metric spdgraph tables has one record here (:class:`Metric`, in the
spirit of scikit-learn's ``get_scorer_names`` / ``make_scorer(greater_is_better=)``):
the confusion-count metrics (:data:`~spdgraph.validation.METRICS`), the curve areas
(``roc_auc``, ``pr_auc``), the posterior metrics and the fit time
(``seconds``), each with whether larger is better and where its value comes
from (``source``). :func:`metric_names` lists them, :func:`register_metric`
adds one, :func:`resolve_metric` finds one (a registered name, or
``"module:function"``: imported where it is resolved).

A metric of a study (``[scores] metrics``) or of
:func:`~spdgraph.validation.graph_scorer` is either one of
:data:`~spdgraph.validation.METRICS` (computed from the confusion counts) or
the import path ``"package.module:function"`` of a function called as
``function(truth, selected)`` with two boolean ``(p, p)`` adjacencies
(symmetric, ``False`` on the diagonal) that returns a real number; when the
truth or the selection is sparse (a sparse study), both are symmetric
boolean ``scipy.sparse.csr_array`` (so write it with operations both
support: ``(truth * selected).sum()`` counts the true positives and
``(truth > selected).sum()`` twice the missed edges of either). Whether a
larger value is better is the function's attribute ``higher_is_better``
(``True`` when absent), as it is for a built-in in :data:`HIGHER_IS_BETTER`.
A custom metric is tabled and plotted under the function's ``__name__``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.validation._curves import METRICS
from spdgraph.validation._edges import is_sparse_matrix, sparse_adjacency
from spdgraph.vocabulary import import_path

__all__ = ["HIGHER_IS_BETTER", "Metric", "metric_names", "register_metric", "resolve_metric"]

#: Where a metric's value comes from: the selected edges (a function of the true and
#: the selected adjacency), the edge scores' ROC/PR curves, posterior draws, the fit's clock.
SOURCES = ("selection", "curves", "posterior", "time")


@dataclass(frozen=True)
class Metric:
    """A resolved metric: its table name, whether higher is better, and its function.

    ``function`` is None for a built-in (read from the values the study
    computes: confusion counts, curve areas, posterior scores, the clock).
    ``higher_is_better`` is None for a metric with no direction (``coverage``:
    best near its nominal level); ``source`` is one of :data:`SOURCES`.
    """

    name: str
    higher_is_better: bool | None
    function: Callable[[np.ndarray, np.ndarray], float] | None = None
    spec: str = ""
    source: str = "selection"

    def value(self, truth: Any, selected: Any, builtin: dict[str, float]) -> float:
        """The metric of ``selected`` against ``truth`` (``builtin``: the built-in values).

        A custom metric gets both as dense boolean symmetric adjacencies, or,
        when either is sparse, both as symmetric boolean ``scipy.sparse.csr_array``
        (never a ``(p, p)`` dense array of a sparse input).
        """
        if self.function is None:
            return float(builtin[self.name])
        if is_sparse_matrix(truth) or is_sparse_matrix(selected):
            result = self.function(sparse_adjacency(truth), sparse_adjacency(selected))
        else:
            result = self.function(_adjacency(truth), _adjacency(selected))
        if isinstance(result, bool) or not isinstance(result, numbers.Real):
            raise InvalidOptionError(
                f"metric {self.spec!r} returned {written(result)}; a metric returns a real "
                "number (a float)."
            )
        return float(result)


def _adjacency(matrix: np.ndarray) -> np.ndarray:
    """A boolean symmetric adjacency with a False diagonal (either triangle selects an edge)."""
    selected = np.asarray(matrix) != 0
    selected = selected | selected.T
    np.fill_diagonal(selected, False)
    return selected


def _import(spec: str) -> Callable[..., object]:
    obj = import_path(spec, "metric")
    if not callable(obj):
        raise InvalidOptionError(f"metric {spec!r} is not a function; got {written(obj)}.")
    return obj


def _builtin(name: str, higher: bool | None, source: str) -> Metric:
    return Metric(name, higher, None, name, source)


#: The one registry: name -> Metric (built-ins first, then registered ones in order).
_REGISTRY: dict[str, Metric] = {
    m.name: m
    for m in (
        *(_builtin(n, n not in ("fpr", "shd"), "selection") for n in METRICS),
        _builtin("roc_auc", True, "curves"),
        _builtin("pr_auc", True, "curves"),
        _builtin("brier", False, "posterior"),
        _builtin("stein_loss", False, "posterior"),
        _builtin("frobenius_relative", False, "posterior"),
        _builtin("coverage", None, "posterior"),  # best near the nominal 0.95
        _builtin("seconds", False, "time"),
    )
}
_BUILTIN_NAMES = frozenset(_REGISTRY)
#: Whether a larger value of each confusion-count metric is better (read from the registry).
HIGHER_IS_BETTER: dict[str, bool] = {n: bool(_REGISTRY[n].higher_is_better) for n in METRICS}


def metric_names(source: str | None = None) -> list[str]:
    """The registered metrics' names (all, or those of one ``source``), in registry order.

    Examples
    --------
    >>> from spdgraph.validation import metric_names
    >>> metric_names("curves")
    ['roc_auc', 'pr_auc']
    >>> "seconds" in metric_names()
    True
    """
    if source is not None and source not in SOURCES:
        raise InvalidOptionError(
            f"source must be one of {', '.join(SOURCES)}, got {written(source)}."
        )
    return [n for n, m in _REGISTRY.items() if source is None or m.source == source]


def register_metric(
    function: Callable[[np.ndarray, np.ndarray], float],
    *,
    name: str | None = None,
    higher_is_better: bool = True,
) -> Metric:
    """Register ``function(truth, selected) -> float`` as a selection metric (under ``name``).

    ``name`` defaults to the function's ``__name__``. Registering the same
    function again under its name returns its record; a name taken by a
    built-in or by another function is refused. A study running on worker
    processes needs the metric registered there too: name it as
    ``"module:function"`` in the study (registered on first use), or register
    it when your module is imported.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import register_metric, resolve_metric
    >>> def n_missed(truth, selected):
    ...     return float(np.sum(truth & ~selected) // 2)
    >>> register_metric(n_missed, higher_is_better=False).name
    'n_missed'
    >>> resolve_metric("n_missed").higher_is_better
    False
    """
    if not callable(function):
        raise InvalidOptionError(f"a metric must be a function; got {written(function)}.")
    if not isinstance(higher_is_better, bool | np.bool_):
        raise InvalidOptionError(
            f"metric {name or function!r}: higher_is_better must be True or False, got "
            f"{written(higher_is_better)}."
        )
    label = str(name or getattr(function, "__name__", ""))
    if not label or ":" in label:
        raise InvalidOptionError(f"metric {function!r} needs a name (name='...', no colon).")
    known = _REGISTRY.get(label)
    if known is not None and known.function is not function:
        raise InvalidOptionError(
            f"metric name {label!r} is taken by "
            f"{'a built-in metric' if label in _BUILTIN_NAMES else repr(known.spec)}; rename "
            "the function or pass name='...'."
        )
    spec = f"{getattr(function, '__module__', '')}:{getattr(function, '__qualname__', label)}"
    metric = Metric(label, bool(higher_is_better), function, spec)
    _REGISTRY[label] = metric
    return metric


def resolve_metric(spec: object) -> Metric:
    """The :class:`Metric` a registered name or ``"module:function"`` names.

    A ``"module:function"`` is imported where it is resolved (a worker
    process, a dask worker: nothing needs registering there) and tabled under
    the function's ``__name__``, larger being better unless its attribute
    ``higher_is_better`` is False; only a built-in metric's name is refused
    (two such functions of one name in a study are refused by the study).

    Raises
    ------
    InvalidOptionError
        An unknown name, a path that does not import, a function named like a
        built-in metric, or a ``higher_is_better`` that is not True or False.

    Examples
    --------
    >>> from spdgraph.validation import resolve_metric
    >>> resolve_metric("shd").higher_is_better
    False
    >>> resolve_metric("numpy:sum").name
    'sum'
    """
    if isinstance(spec, str) and spec in _REGISTRY:
        return _REGISTRY[spec]
    module, sep, attr = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not (isinstance(spec, str) and sep and module and attr):
        raise InvalidOptionError(
            f"unknown metric {written(spec)}; a metric is one of {metric_names()} or "
            "'package.module:function' (a function of the true and the selected adjacency)."
        )
    function = _import(spec)
    name = str(getattr(function, "__name__", attr.rpartition(".")[2]))
    if name in _BUILTIN_NAMES:
        raise InvalidOptionError(
            f"metric {spec!r} is named {name!r} like a built-in metric; rename the function."
        )
    higher = getattr(function, "higher_is_better", True)
    if not isinstance(higher, bool | np.bool_):
        raise InvalidOptionError(
            f"metric {spec!r}: higher_is_better must be True or False, got {written(higher)}."
        )
    return Metric(
        name, bool(higher), cast("Callable[[np.ndarray, np.ndarray], float]", function), spec
    )
