"""Which matrix's zeros are the graph: the truth's kind against the learner's graph type.

A graph learner estimates one of two graphs: the *concentration* graph (the
zeros of the precision; every built-in learner, and anything reading a
precision or partial correlations) or the *covariance* graph (the zeros of
the covariance: marginal independence). A truth sampled with
``kind="covariance"`` (the default of :func:`spdgraph.sample`) has the graph
as the zeros of its covariance, and the data drawn from it have a
concentration graph that is generally complete; scoring a precision-graph
learner against it measures nothing. These helpers read the kind that
travels in the attrs (``kind``/``graph_kind`` of a matrix, ``source_kind``/
``matrix_graph_kind`` of drawn data) and refuse a mismatch before any fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written

__all__ = [
    "GRAPH_TYPES",
    "check_graph_of",
    "graph_of_kind",
    "refuse_matrix_data",
    "truth_graph_of",
]

#: The two graph types a learner can estimate.
GRAPH_TYPES = ("precision", "covariance")

_OF_KIND = {
    "precision": "precision",
    "partial_correlation": "precision",
    "covariance": "covariance",
    "correlation": "covariance",
}


def graph_of_kind(kind: object) -> str | None:
    """The graph type whose zeros a matrix of ``kind`` carries (``None`` if unknown)."""
    return _OF_KIND.get(str(kind)) if kind is not None else None


def _attrs(obj: object) -> dict[str, Any]:
    attrs = getattr(obj, "attrs", None)
    return attrs if isinstance(attrs, dict) else {}


def _of_matrix(obj: object) -> str | None:
    attrs = _attrs(obj)
    if attrs.get("graph_kind") in GRAPH_TYPES:
        return str(attrs["graph_kind"])
    return graph_of_kind(attrs.get("kind"))


def _of_data(obj: object) -> str | None:
    attrs = _attrs(obj)
    if attrs.get("matrix_graph_kind") in GRAPH_TYPES:
        return str(attrs["matrix_graph_kind"])
    return graph_of_kind(attrs.get("source_kind"))


def truth_graph_of(graph: object, data: object = None) -> str | None:
    """Which matrix's zeros are the true graph, from the truth's or the data's attrs.

    ``None`` when neither says (a plain graph and a plain array). When both
    say and disagree, the data were not drawn from the truth's matrix: refused.
    """
    of_truth, of_data = _of_matrix(graph), _of_data(data)
    if of_truth and of_data and of_truth != of_data:
        raise InvalidOptionError(
            f"the truth is a {of_truth} matrix (its zeros are the {of_truth} graph) but the "
            f"data were drawn from a {of_data} matrix: score data against the matrix they "
            "were drawn from (matrix.spd.draw(n) then score(data, matrix, ...))."
        )
    return of_truth or of_data


def check_graph_of(learner_graph: str, truth: str | None, who: str) -> None:
    """Refuse a learner whose graph type is not the truth's (``truth`` ``None``: unknown).

    ``who`` names the learner in the message (e.g. ``"learner 'glasso'"``).
    """
    if learner_graph not in GRAPH_TYPES:
        raise InvalidOptionError(
            f"graph_of must be 'precision' or 'covariance', got {written(learner_graph)}."
        )
    if truth is None or truth == learner_graph:
        return
    if learner_graph == "precision":
        raise InvalidOptionError(
            f"{who} estimates the precision (concentration) graph, but the "
            "truth's graph is the zero pattern of a covariance (kind='covariance', "
            "spdgraph.sample's default): data drawn from it have a different, generally "
            'complete, concentration graph. Sample the truth with kind="precision" '
            '(spdgraph.sample(g, kind="precision")), or pass graph_of="covariance" '
            "for a learner that estimates the covariance graph."
        )
    raise InvalidOptionError(
        f"{who} estimates the covariance graph (graph_of='covariance'), but the "
        "truth's graph is the zero pattern of a precision (kind='precision'). Sample the "
        'truth with kind="covariance", or score a precision-graph learner '
        '(graph_of="precision").'
    )


def refuse_matrix_data(data: object) -> None:
    """Refuse a ``(p, p)`` matrix passed where ``(n, p)`` observations are expected."""
    dims = getattr(data, "dims", None)
    if dims is not None and "node" in dims and "node_2" in dims:
        raise InvalidOptionError(
            f"data has dims {tuple(dims)}: it is a (node, node_2) matrix, not observations. "
            "Scoring needs (n, p) observations: draw them with matrix.spd.draw(n, seed=...) "
            "(or spdgraph.validation.draw_gaussian(precision, n))."
        )
    if dims is not None:
        return
    x = np.asarray(data) if isinstance(data, np.ndarray | list) else None
    if (
        x is not None
        and x.ndim == 2
        and x.shape[0] == x.shape[1] > 1
        and x.dtype.kind in "fiub"
        and np.array_equal(x, x.T)
    ):
        raise InvalidOptionError(
            f"data is a symmetric {x.shape[0]} x {x.shape[1]} matrix, not observations. "
            "Scoring needs (n, p) observations (rows are draws): draw them with "
            "matrix.spd.draw(n, seed=...) or spdgraph.validation.draw_gaussian(precision, n)."
        )
