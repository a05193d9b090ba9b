"""Metrics as open as learners: a built-in name or ``"module:function"``.

A metric of a study (``[scores] metrics``) or of
:func:`~spdgraph.validation.graph_scorer` is either one of
:data:`~spdgraph.validation.METRICS` (computed from the confusion counts) or
the import path ``"package.module:function"`` of a function called as
``function(truth, selected)`` with two boolean ``(p, p)`` adjacencies
(symmetric, ``False`` on the diagonal) that returns a real number. Whether a
larger value is better is the function's attribute ``higher_is_better``
(``True`` when absent), as it is for a built-in in :data:`HIGHER_IS_BETTER`.
A custom metric is tabled and plotted under the function's ``__name__``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.validation._curves import METRICS
from spdgraph.vocabulary import import_path

__all__ = ["HIGHER_IS_BETTER", "Metric", "resolve_metric"]

#: Whether a larger value of each built-in metric is better.
HIGHER_IS_BETTER: dict[str, bool] = {
    "tpr": True,
    "fpr": False,
    "tdr": True,
    "f1": True,
    "mcc": True,
    "shd": False,
}


@dataclass(frozen=True)
class Metric:
    """A resolved metric: its table name, whether higher is better, and its function.

    ``function`` is None for a built-in (read from the confusion counts).
    """

    name: str
    higher_is_better: bool
    function: Callable[[np.ndarray, np.ndarray], float] | None = None
    spec: str = ""

    def value(self, truth: np.ndarray, selected: np.ndarray, builtin: dict[str, float]) -> float:
        """The metric of ``selected`` against ``truth`` (``builtin``: the built-in values)."""
        if self.function is None:
            return float(builtin[self.name])
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


def resolve_metric(spec: object) -> Metric:
    """The :class:`Metric` a built-in name or ``"module:function"`` names.

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
    if isinstance(spec, str) and spec in METRICS:
        return Metric(spec, HIGHER_IS_BETTER[spec], None, spec)
    module, sep, attr = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not (isinstance(spec, str) and sep and module and attr):
        raise InvalidOptionError(
            f"unknown metric {written(spec)}; a metric is one of {list(METRICS)} or "
            "'package.module:function' (a function of the true and the selected adjacency)."
        )
    function = _import(spec)
    name = str(getattr(function, "__name__", attr.rpartition(".")[2]))
    if name in METRICS:
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
