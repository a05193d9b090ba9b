"""Scoring like the field scores: confusion counts, F1, MCC, SHD, ROC and PR curves.

A *path* is what a learner gives along its penalty: a sequence of estimated
matrices (boolean adjacencies, or partial correlations / precisions whose
nonzero off-diagonal entries are the selected edges), from sparse to dense.
A single real-valued ``(p, p)`` matrix of edge scores is a path too: its
edges are selected by decreasing ``|score|`` (every distinct threshold).
Only the upper triangle counts (an undirected graph; the estimate is
symmetrized by "or").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.validation._edges import edge_counts, is_sparse_matrix, sweep_counts, tie_counts

__all__ = [
    "METRICS",
    "confusion",
    "curve_areas",
    "edge_metrics",
    "learner_path",
    "path_table",
]

#: Metric columns of :func:`path_table` (and keys of :func:`edge_metrics`).
METRICS = ("tpr", "fpr", "tdr", "f1", "mcc", "shd")


def _truth(graph: object) -> Any:
    """The true adjacency: a boolean array, a sparse one as it is, else the graph adapted."""
    if (isinstance(graph, np.ndarray) and graph.dtype == bool) or is_sparse_matrix(graph):
        return graph
    return spdgraph.adapt_graph(graph).adjacency


def confusion(selected: Any, truth: Any) -> tuple[int, int, int, int]:
    """True/false positives and negatives ``(tp, fp, fn, tn)`` over the node pairs.

    ``selected`` is read by its nonzero off-diagonal entries, either triangle
    (``selected[i, j] or selected[j, i]``); ``truth`` is a symmetric boolean
    adjacency. Either may be sparse (``scipy.sparse``, PyData ``sparse``, a
    DataArray holding one; either triangle stored): the counts are then set
    intersections of their edges, in O(edges), never a ``(p, p)`` array.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import confusion
    >>> truth = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> confusion(np.array([[1, .3, .1], [.3, 1, 0], [.1, 0, 1]]), truth)
    (1, 1, 1, 0)
    >>> from scipy import sparse
    >>> confusion(sparse.triu(sparse.csr_array(truth), 1), truth)  # a sparse upper triangle
    (2, 0, 0, 1)
    """
    if is_sparse_matrix(selected) or is_sparse_matrix(truth):
        return edge_counts(selected, truth)
    sel = np.asarray(selected) != 0
    if sel.shape != truth.shape:
        raise InvalidOptionError(
            f"the estimate has shape {sel.shape} but the graph has {truth.shape[0]} nodes."
        )
    iu = np.triu_indices(truth.shape[0], 1)
    s = sel[iu] | sel.T[iu]
    t = truth[iu]
    tp = int(np.sum(s & t))
    fp = int(np.sum(s & ~t))
    fn = int(np.sum(~s & t))
    return tp, fp, fn, int(t.size - tp - fp - fn)


def edge_metrics(tp: int, fp: int, fn: int, tn: int) -> dict[str, float]:
    """TPR (recall), FPR, TDR (precision), F1, MCC and SHD from confusion counts.

    Undefined ratios (no true edge, no non-edge, nothing selected) are NaN,
    never a convention value; SHD, the structural Hamming distance of two
    undirected graphs, is ``fp + fn``.

    Examples
    --------
    >>> from spdgraph.validation import edge_metrics
    >>> m = edge_metrics(tp=8, fp=2, fn=2, tn=33)
    >>> round(m["f1"], 3), round(m["mcc"], 3), m["shd"]
    (0.8, 0.743, 4)
    """
    nan = math.nan
    tpr = tp / (tp + fn) if tp + fn else nan
    tdr = tp / (tp + fp) if tp + fp else nan
    denom = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    return {
        "tpr": tpr,
        "fpr": fp / (fp + tn) if fp + tn else nan,
        "tdr": tdr,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else nan,
        "mcc": (tp * tn - fp * fn) / math.sqrt(denom) if denom else nan,
        "shd": fp + fn,
    }


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` per row, NaN where ``den`` is 0 (integers below 2^53: the division of
    :func:`edge_metrics`, to the bit)."""
    out = np.full(num.shape, math.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _metric_columns(counts: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`edge_metrics` of each row ``(tp, fp, fn, tn)`` of ``counts``, as columns.

    Bit for bit the values of :func:`edge_metrics` (its MCC in exact integers,
    row by row), without a dict per row (a sweep of a million scores).
    """
    tp, fp, fn, tn = counts.T
    mcc = [
        (a * d - b * c) / math.sqrt(den)
        if (den := (a + b) * (a + c) * (d + b) * (d + c))
        else math.nan
        for a, b, c, d in counts.tolist()
    ]
    return {
        "tpr": _ratio(tp, tp + fn),
        "fpr": _ratio(fp, fp + tn),
        "tdr": _ratio(tp, tp + fp),
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "mcc": np.array(mcc, dtype=float),
        "shd": fp + fn,
    }


def _score_sweep(scores: np.ndarray, truth: Any) -> np.ndarray:
    """Confusion counts at every distinct threshold of ``|scores|``, sparse to dense."""
    if is_sparse_matrix(truth):
        return sweep_counts(scores, truth)
    if scores.shape != truth.shape:
        raise InvalidOptionError(
            f"the scores have shape {scores.shape} but the graph has {truth.shape[0]} nodes."
        )
    iu = np.triu_indices(truth.shape[0], 1)
    s = np.maximum(np.abs(scores[iu]), np.abs(scores.T[iu]))
    t = truth[iu]
    return tie_counts(s, t, t.size, int(t.sum()))


def _path_counts(path: Any, truth: Any) -> Any:
    """The confusion counts of each step of a path (a score matrix: of each threshold)."""
    if is_sparse_matrix(path):
        if path.dtype == bool:
            return [confusion(path, truth)]
        return sweep_counts(path, truth)  # checks the stored scores are finite
    steps = path if isinstance(path, np.ndarray) else list(path)
    if any(map(is_sparse_matrix, steps)):  # a path of sparse estimates
        return [confusion(est, truth) for est in steps]
    arr = np.asarray(steps)
    if arr.ndim == 2 and arr.dtype != bool:
        if not np.all(np.isfinite(arr)):
            raise InvalidOptionError("edge scores must be finite.")
        return _score_sweep(arr.astype(float), truth)
    if arr.ndim == 3 or (arr.ndim == 2 and arr.dtype == bool):
        return [confusion(est, truth) for est in (arr if arr.ndim == 3 else arr[None])]
    raise InvalidOptionError(
        f"a path is (K, p, p) estimates or one (p, p) score matrix, got shape {arr.shape}."
    )


def path_table(path: Any, graph: object) -> Any:
    """Confusion counts and metrics at each step of a learner's path, as a tidy table.

    Parameters
    ----------
    path
        ``(K, p, p)`` estimates (a sequence or an array; nonzero off-diagonal
        entries are selected edges), or one real ``(p, p)`` matrix of edge
        scores, swept over its distinct ``|score|`` thresholds (the empty
        selection first).
    graph
        The true graph: anything :func:`spdgraph.sample` accepts, or a boolean
        adjacency matrix.

    Returns
    -------
    pandas.DataFrame
        One row per step: ``step``, ``n_selected``, ``tp``, ``fp``, ``fn``,
        ``tn`` and the :data:`METRICS`.

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spdgraph.validation import path_table
    >>> g = nx.path_graph(4)
    >>> scores = np.array([[0, .9, .1, 0], [.9, 0, .5, .2], [.1, .5, 0, .8], [0, .2, .8, 0]])
    >>> table = path_table(scores, g)
    >>> table["n_selected"].tolist(), table["tp"].tolist()
    ([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 3, 3])
    >>> table["f1"].round(3).tolist()
    [0.0, 0.5, 0.8, 1.0, 0.857, 0.75]
    """
    import pandas as pd

    counts = np.asarray(_path_counts(path, _truth(graph)), dtype=np.int64).reshape(-1, 4)
    tp, fp, fn, tn = counts.T
    columns = {"step": np.arange(len(counts)), "n_selected": tp + fp}
    columns.update({"tp": tp, "fp": fp, "fn": fn, "tn": tn})
    return pd.DataFrame({**columns, **_metric_columns(counts)})


def curve_areas(table: Any) -> dict[str, float]:
    """Areas under the ROC and precision-recall curves of a :func:`path_table`.

    ROC: the points (FPR, TPR) sorted by FPR, closed by (0, 0) and (1, 1) (the
    empty and the complete graph end every path), trapezoids. PR: average
    precision, ``sum_k (R_k - R_{k-1}) P_k`` over the steps in order of recall
    (R_0 = 0; steps that select nothing have no precision and add nothing).

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spdgraph.validation import curve_areas, path_table
    >>> g = nx.path_graph(4)
    >>> perfect = nx.to_numpy_array(g)            # true edges score 1, others 0
    >>> curve_areas(path_table(perfect, g))
    {'roc_auc': 1.0, 'pr_auc': 1.0}
    """
    fpr = np.r_[0.0, table["fpr"].to_numpy(dtype=float), 1.0]
    tpr = np.r_[0.0, table["tpr"].to_numpy(dtype=float), 1.0]
    ok = np.isfinite(fpr) & np.isfinite(tpr)
    fpr, tpr = fpr[ok], tpr[ok]
    order = np.lexsort((tpr, fpr))
    roc = float(np.trapezoid(tpr[order], fpr[order])) if ok.sum() > 1 else math.nan
    recall = table["tpr"].to_numpy(dtype=float)
    precision = table["tdr"].to_numpy(dtype=float)
    have = np.isfinite(recall) & np.isfinite(precision)
    recall, precision = recall[have], precision[have]
    order = np.lexsort((-precision, recall))
    recall, precision = recall[order], precision[order]
    pr = float(np.sum(np.diff(np.r_[0.0, recall]) * precision)) if recall.size else math.nan
    return {"roc_auc": roc, "pr_auc": pr}


def learner_path(
    data: Any,
    n_penalties: int = 30,
    eps: float = 0.01,
    rule: str = "or",
    method: str = "lasso",
) -> np.ndarray:
    """The node-wise lasso (Meinshausen–Bühlmann) or graphical lasso selection path.

    Each node is regressed on the others (standardized columns, exact lasso
    path) at ``n_penalties`` penalties ``alpha_max * eps^(k / (K-1))``, its own
    ``alpha_max`` first (nothing selected); edge ``i - j`` is selected at step
    ``k`` when ``beta_ij != 0`` or (``rule="and"``: and) ``beta_ji != 0``.
    With ``method="glasso"``: the supports of the certified graphical lasso
    (:func:`~spdgraph.validation.graphical_lasso_path`) of the sample
    correlation at ``max |S_ij| * eps^(k / (K-1))`` (``rule`` is moot: the
    precision is symmetric).

    Returns
    -------
    numpy.ndarray
        ``(n_penalties, p, p)`` booleans, for :func:`path_table`.

    Examples
    --------
    >>> import spdgraph, networkx as nx
    >>> from spdgraph.validation import curve_areas, learner_path, path_table
    >>> g = nx.cycle_graph(6)
    >>> x = spdgraph.sample(g, seed=0, kind="precision").spd.draw(300, seed=1)
    >>> path = learner_path(x.values, n_penalties=10)
    >>> path.shape, int(path[0].sum())
    ((10, 6, 6), 0)
    >>> sorted(k for k, v in curve_areas(path_table(path, g)).items() if v > 0.9)
    ['pr_auc', 'roc_auc']
    >>> gpath = learner_path(x.values, n_penalties=10, method="glasso")
    >>> gpath.shape, int(gpath[0].sum()), bool(gpath[-1].sum() > 0)
    ((10, 6, 6), 0, True)
    """
    from spdgraph.validation._lasso import lasso_path
    from spdgraph.validation._shrink import standardize

    if rule not in ("or", "and"):
        raise InvalidOptionError(f"rule must be 'or' or 'and', got {rule!r}.")
    if isinstance(n_penalties, bool) or not isinstance(n_penalties, int) or n_penalties < 2:
        raise InvalidOptionError(f"n_penalties must be an integer >= 2, got {n_penalties!r}.")
    if not 0 < eps < 1:
        raise InvalidOptionError(f"eps must be in (0, 1), got {eps!r}.")
    if method not in ("lasso", "glasso"):
        raise InvalidOptionError(f"method must be 'lasso' or 'glasso', got {method!r}.")
    z = standardize(np.asarray(data, dtype=float))
    n, p = z.shape
    gram = z.T @ z
    if method == "glasso":
        from spdgraph.validation._glasso import graphical_lasso_path
        from spdgraph.validation._glasso_select import glasso_penalties

        rhos = glasso_penalties(gram / n, n, n_penalties, eps)
        sel = np.array([f.precision != 0 for f in graphical_lasso_path(gram / n, rhos)])
        sel[:, np.arange(p), np.arange(p)] = False
        return sel
    out = np.zeros((n_penalties, p, p), dtype=bool)
    steps = np.logspace(0.0, np.log10(eps), n_penalties)
    for i in range(p):
        others = np.r_[0:i, i + 1 : p]
        cross = gram[others, i]
        alpha_max = float(np.max(np.abs(cross))) / n
        coefs = lasso_path(gram[np.ix_(others, others)], cross, n, alpha_max * steps)
        out[:, i, others] = (coefs != 0).T
    both = out & out.transpose(0, 2, 1)
    either = out | out.transpose(0, 2, 1)
    return either if rule == "or" else both
