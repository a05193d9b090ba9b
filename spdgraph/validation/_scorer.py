"""A scikit-learn scorer: how well a fitted estimator's graph matches the true graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.validation._curves import _truth, confusion, edge_metrics
from spdgraph.validation._kind import check_graph_of, truth_graph_of
from spdgraph.validation._metrics import resolve_metric

__all__ = ["estimated_graph", "graph_scorer"]


def estimated_graph(estimator: Any) -> np.ndarray:
    """The selected edges of a fitted estimator, as a symmetric boolean ``(p, p)`` matrix.

    Read from ``adjacency_``, ``partial_correlation_``, ``pcor_`` or
    ``precision_`` (nonzero off-diagonal entries), in that order.
    """
    for attr in ("adjacency_", "partial_correlation_", "pcor_", "precision_"):
        if hasattr(estimator, attr):
            est = np.asarray(getattr(estimator, attr)) != 0
            est = est | est.T
            np.fill_diagonal(est, False)
            return est
    raise InvalidOptionError(
        f"the estimator {type(estimator).__name__} has none of adjacency_, "
        "partial_correlation_, pcor_ or precision_; fit it first."
    )


def graph_scorer(
    graph: object, metric: str = "mcc", *, graph_of: str = "precision"
) -> Callable[..., float]:
    """A scikit-learn scorer ``scorer(estimator, X, y=None)`` against a known graph.

    Use it as ``scoring=`` of :class:`~sklearn.model_selection.GridSearchCV`
    to tune a graph estimator (e.g. :class:`~sklearn.covariance.GraphicalLasso`)
    on a simulated truth. Greater is better for every metric: ``"shd"`` is
    returned negated, and an undefined metric (nothing selected) scores as
    NaN, which scikit-learn ranks last.

    Parameters
    ----------
    graph
        The true graph (anything :func:`spdgraph.sample` accepts).
    metric
        One of ``"tpr"``, ``"tdr"``, ``"f1"``, ``"mcc"``, ``"shd"``, ``"fpr"``
        (``fpr`` negated too), or ``"module:function"`` (a custom metric,
        :func:`~spdgraph.validation.resolve_metric`; negated when its
        ``higher_is_better`` is False).
    graph_of
        The graph the tuned estimator estimates: ``"precision"`` (a graphical
        lasso's ``precision_``, the default) or ``"covariance"``. A truth
        that carries its kind (a matrix :func:`spdgraph.sample` returned)
        must match, else :class:`~spdgraph.InvalidOptionError` (sample it
        with ``kind="precision"`` for precision-graph estimators).

    Examples
    --------
    >>> import networkx as nx, spdgraph
    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.model_selection import GridSearchCV
    >>> from spdgraph.validation import graph_scorer
    >>> g = nx.cycle_graph(8)
    >>> x = spdgraph.sample(g, seed=0, kind="precision").spd.draw(400, seed=1).values
    >>> search = GridSearchCV(GraphicalLasso(), {"alpha": [0.02, 0.1, 0.3]}, cv=2,
    ...                       scoring=graph_scorer(g, "f1")).fit(x)
    >>> search.best_params_["alpha"] in (0.02, 0.1, 0.3)
    True
    """
    chosen = resolve_metric(metric)
    if chosen.source != "selection":  # curve areas, posterior scores, the clock
        raise InvalidOptionError(
            f"metric {chosen.name!r} is not a function of the selected edges; graph_scorer "
            "takes one of spdgraph.validation.metric_names('selection')."
        )
    check_graph_of(graph_of, truth_graph_of(graph), "the estimator graph_scorer scores")
    truth = _truth(graph)
    sign = 1.0 if chosen.higher_is_better else -1.0

    def scorer(estimator: Any, x: Any = None, y: Any = None) -> float:
        selected = estimated_graph(estimator)
        builtin = edge_metrics(*confusion(selected, truth))
        return sign * chosen.value(truth, selected, builtin)

    scorer.__name__ = f"graph_{chosen.name}"
    return scorer
