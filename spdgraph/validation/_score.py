"""Score a structure learner against a true graph (TPR, TDR, number of selections)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import spdgraph
from spdgraph._threads import check_blas_threads, thread_budget
from spdgraph.errors import InvalidOptionError
from spdgraph.validation._curves import confusion, edge_metrics
from spdgraph.validation._edges import check_selection_rule, is_sparse_matrix, select_stored
from spdgraph.validation._glasso_select import GLASSO_CRITERION
from spdgraph.validation._kind import check_graph_of, refuse_matrix_data, truth_graph_of
from spdgraph.validation._learners import LEARNER_GRAPHS, SELECTION_RULES, fit_learners
from spdgraph.validation._lfdr import local_fdr
from spdgraph.validation._shrink import precision_to_pcor

__all__ = ["Score", "score", "select_edges"]


@dataclass(frozen=True, repr=False)
class Score:
    """Result of :func:`score`.

    Attributes
    ----------
    tpr
        True positive rate (power): true positives / true edges (NaN when the
        graph has no edge).
    tdr
        True discovery rate: true positives / selected edges; NaN (missing)
        when nothing is selected.
    n_selected
        Number of selected edges.
    n_true
        Number of edges of the true graph.
    true_positives
        Selected edges that are true edges.
    selected
        Boolean ``(p, p)`` symmetric matrix of the selected edges (as given to
        :func:`score_selection`: a sparse selection, e.g. the upper-triangle
        ``csr_array`` :func:`select_edges` returns for a sparse estimate).
    learner
        Name of the learner.
    graph_of
        The graph the learner estimates and the truth's zeros are:
        ``"precision"`` (concentration graph) or ``"covariance"``.
    threads
        ``{"blas_threads": b, "numba_threads": m}`` in force while the
        learner ran (:func:`spdgraph._threads.thread_budget`); empty when
        the selection was given (:func:`score_selection`).
    """

    tpr: float
    tdr: float
    n_selected: int
    n_true: int
    true_positives: int
    selected: Any
    learner: str
    graph_of: str = "precision"
    threads: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        p = self.selected.shape[0]
        return (
            f"Score(learner={self.learner!r}, graph_of={self.graph_of!r}, tpr={self.tpr:.3g}, "
            f"tdr={self.tdr:.3g}, n_selected={self.n_selected}, n_true={self.n_true}, "
            f"true_positives={self.true_positives}, selected=<{p} x {p} bool>)"
        )

    def metrics(self) -> dict[str, float]:
        """TPR, FPR, TDR, F1, MCC and SHD (:func:`~spdgraph.validation.edge_metrics`)."""
        from spdgraph.validation._curves import edge_metrics

        p = self.selected.shape[0]
        tp = self.true_positives
        fp, fn = self.n_selected - tp, self.n_true - tp
        tn = p * (p - 1) // 2 - tp - fp - fn
        return edge_metrics(tp, fp, fn, tn)

    def as_dict(self) -> dict[str, Any]:
        """The scalar fields and :meth:`metrics` as a dict."""
        return {
            "learner": self.learner,
            "graph_of": self.graph_of,
            "n_selected": self.n_selected,
            "n_true": self.n_true,
            "true_positives": self.true_positives,
            **self.metrics(),
        }


def select_edges(estimate: Any, rule: str = "nonzero", cutoff: float = 0.2) -> Any:
    """Edges of an estimated partial-correlation (or adjacency) matrix.

    Parameters
    ----------
    estimate
        ``(p, p)`` partial correlations, or a boolean adjacency matrix (then
        returned as is, symmetrized). A sparse estimate (``scipy.sparse``, a
        PyData ``sparse`` array, or a DataArray holding one) is read on its
        stored entries, every other pair being 0, in O(stored entries); one
        whose nonzero off-diagonal entries all lie in one triangle is that
        triangle of a symmetric matrix (its values are taken as they are, not
        averaged with the other triangle's zeros).
    rule
        ``"nonzero"``: every nonzero off-diagonal entry; ``"lfdr"``: local fdr
        of the upper-triangle values under a fitted correlation null below
        ``cutoff`` (dense estimates only: the null is fitted to every pair);
        ``"threshold"``: absolute values above ``cutoff``
        (posterior edge probabilities with ``cutoff=0.5``: the median
        probability graph, as BDgraph's ``select``).
    cutoff
        lfdr threshold (0.2 in the study), or the ``"threshold"`` rule's.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_array
        A dense estimate: the symmetric boolean ``(p, p)`` selection. A sparse
        one: the selection's upper triangle, a boolean ``csr_array`` (the
        edges of the dense estimate it stores, value ``(e_ij + e_ji) / 2``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from spdgraph.validation import select_edges
    >>> pcor = np.array([[1, 0.3, 0], [0.3, 1, 0], [0, 0, 1]])
    >>> select_edges(pcor).sum()
    np.int64(2)
    >>> upper = select_edges(sparse.csr_array(pcor))   # sparse in: the upper triangle
    >>> upper.format, upper.nnz, upper[0, 1]
    ('csr', 1, np.True_)
    """
    if is_sparse_matrix(estimate):
        return select_stored(estimate, rule, cutoff)
    est = np.asarray(estimate)
    if est.ndim != 2 or est.shape[0] != est.shape[1]:
        raise InvalidOptionError(f"the learner returned shape {est.shape}; expected (p, p).")
    p = est.shape[0]
    if est.dtype == bool:
        sel = est | est.T
        np.fill_diagonal(sel, False)
        return sel
    check_selection_rule(rule)
    est = est.astype(float)
    if not np.all(np.isfinite(est)):
        raise InvalidOptionError("the learner returned non-finite values.")
    iu, ju = np.triu_indices(p, 1)
    vals = (est[iu, ju] + est[ju, iu]) / 2.0
    if rule == "nonzero":
        keep = vals != 0
    elif rule == "lfdr":
        keep = local_fdr(np.clip(vals, -1.0, 1.0)).lfdr < cutoff
    else:
        keep = np.abs(vals) > cutoff
    sel = np.zeros((p, p), dtype=bool)
    sel[iu[keep], ju[keep]] = True
    return sel | sel.T


def _as_matrix(data: object, labels: list) -> np.ndarray:
    import xarray as xr

    if isinstance(data, xr.DataArray):
        if data.ndim != 2 or "node" not in data.dims:
            raise InvalidOptionError(
                f"data as a DataArray needs dims (observation, 'node'), got {data.dims}."
            )
        obs = next(d for d in data.dims if d != "node")
        data = data.transpose(obs, "node")
        if "node" in data.coords:
            have = list(data["node"].values)
            if have != list(labels):
                if sorted(map(str, have)) != sorted(map(str, labels)):
                    raise InvalidOptionError(
                        "the data's node labels do not match the graph's nodes; pass data "
                        "and graph over the same nodes."
                    )
                data = data.sel(node=list(labels))
        return np.asarray(data.values, dtype=float)
    x = np.asarray(data, dtype=float)
    if x.ndim != 2:
        raise InvalidOptionError(f"data must be 2-D (observations, nodes), got shape {x.shape}.")
    return x


def _custom_estimate(learner: Any, x: np.ndarray) -> np.ndarray:
    if hasattr(learner, "fit") and not isinstance(learner, type):
        fitted = learner.fit(x)
        fitted = learner if fitted is None else fitted
        for attr in ("adjacency_", "partial_correlation_", "pcor_"):
            if hasattr(fitted, attr):
                return np.asarray(getattr(fitted, attr))
        if hasattr(fitted, "precision_"):
            prec = np.asarray(fitted.precision_, dtype=float)
            pc = precision_to_pcor(prec)
            pc[prec == 0] = 0.0
            np.fill_diagonal(pc, 1.0)
            return pc
        raise InvalidOptionError(
            f"the estimator {type(learner).__name__} has none of adjacency_, "
            "partial_correlation_, pcor_ or precision_ after fit(X)."
        )
    if callable(learner):
        return np.asarray(learner(x))
    raise InvalidOptionError(
        f"learner must be a built-in name {sorted(SELECTION_RULES)}, a callable X -> (p, p) "
        f"matrix or an estimator with fit(X), got {type(learner).__name__}."
    )


def score(
    data: object,
    graph: object,
    learner: str | Callable[[np.ndarray], np.ndarray] | Any = "lasso",
    seed: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    rule: str | None = None,
    cutoff: float = 0.2,
    cv: int = 5,
    criterion: str | None = None,
    gamma: float = 0.5,
    graph_of: str | None = None,
    blas_threads: int | None = 1,
) -> Score:
    """Learn a graph from data and score it against the true graph.

    Parameters
    ----------
    data
        ``(n, p)`` observations: a numpy array, or a DataArray with a ``node``
        dim and one observation dim (node labels are matched to the graph's),
        or a simulation (:func:`spdgraph.simulate`'s Dataset: its ``data``).
    graph
        The true graph: anything :func:`spdgraph.sample` accepts (including a
        matrix spdgraph returned), or a simulation (its true matrix).
    learner
        A built-in name (``"lasso"``, ``"adalasso"``, ``"ridge"``, ``"pls"``,
        ``"shrink"``, ``"glasso"``), a callable ``X -> (p, p)`` matrix (partial
        correlations, or a boolean adjacency), or a scikit-learn-style
        estimator whose ``fit(X)`` sets ``adjacency_``,
        ``partial_correlation_``, ``pcor_`` or ``precision_``.
    seed
        Seeds the cross-validation folds of the built-in learners.
    rule
        ``"nonzero"`` or ``"lfdr"``; default: the study's rule for built-in
        learners (lfdr for ridge, pls, shrink) and ``"nonzero"`` otherwise.
    cutoff
        lfdr threshold.
    cv
        Number of cross-validation folds of built-in learners.
    criterion, gamma
        How ``"glasso"`` chooses its penalty: ``"stars"`` (the default, chosen
        by the table in docs/validation.md), ``"ebic"`` with ``gamma`` or
        ``"cv"`` (:func:`~spdgraph.validation.select_glasso`).
    graph_of
        The graph the learner estimates: ``"precision"`` (built-in learners,
        and the default for custom ones) or ``"covariance"``; a custom
        learner may also say so with a ``graph_of`` attribute. It must match
        the truth's kind when the truth or the data carry one (a matrix's
        ``attrs["kind"]``, data's ``attrs["source_kind"]``), else
        :class:`~spdgraph.InvalidOptionError`.
    blas_threads
        BLAS threads while the learner (built-in or custom) runs: 1 by
        default (many small problems, where more threads only add
        contention), or ``None`` to leave BLAS as it is; Numba x BLAS
        threads stay within the cores. Recorded in ``Score.threads``.

    Returns
    -------
    Score
        ``tpr``, ``tdr`` (NaN when nothing is selected), ``n_selected``,
        ``threads`` and more.

    Examples
    --------
    >>> import numpy as np
    >>> import spdgraph
    >>> from spdgraph.graphs import erdos_renyi
    >>> from spdgraph.validation import draw_gaussian, score
    >>> g = erdos_renyi(8, 0.3, seed=1)
    >>> prec = spdgraph.sample(g, "po", seed=1, kind="precision")
    >>> x = draw_gaussian(prec.values, 200, seed=2)
    >>> s = score(x, g, "shrink", seed=0)
    >>> 0 <= s.tpr <= 1, s.n_true == g.number_of_edges()
    (True, True)
    >>> score(x, g, lambda x: np.eye(8)).tdr      # nothing selected: TDR missing
    nan
    >>> cov = spdgraph.sample(g, "po", seed=1)    # kind="covariance": not glasso's graph
    >>> score(cov.spd.draw(200, seed=2), cov, "glasso")
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: learner 'glasso' estimates the precision ...
    """
    from spdgraph.io import simulation_inputs

    data, graph = simulation_inputs(data, graph)  # a simulation: its data / its true matrix
    refuse_matrix_data(data)
    name, learner_graph = _learner_graph(learner, graph_of)
    check_graph_of(learner_graph, truth_graph_of(graph, data), f"learner {name!r}")
    if criterion is not None and learner != "glasso":
        raise InvalidOptionError(
            f"criterion chooses the graphical lasso's penalty; learner {name!r} has none "
            "(drop criterion, or use learner='glasso')."
        )
    graph_data = spdgraph.adapt_graph(graph)
    labels = list(graph_data.labels)
    truth = graph_data.adjacency
    x = _as_matrix(data, labels)
    p = truth.shape[0]
    if x.shape[1] != p:
        raise InvalidOptionError(
            f"data have {x.shape[1]} columns but the graph has {p} nodes; columns must be "
            "the graph's nodes in order."
        )
    with thread_budget(check_blas_threads(blas_threads)) as threads:
        if isinstance(learner, str):
            estimate = fit_learners(
                x, [learner], seed=seed, cv=cv, gamma=gamma, blas_threads=blas_threads,
                criterion=GLASSO_CRITERION if criterion is None else criterion,
            )[learner]  # fmt: skip
            rule = SELECTION_RULES[learner] if rule is None else rule
        else:
            estimate = _custom_estimate(learner, x)
            rule = "nonzero" if rule is None else rule
    if estimate.shape != (p, p):
        raise InvalidOptionError(
            f"the learner returned shape {estimate.shape}; expected {(p, p)}."
        )
    selected = select_edges(estimate, rule, cutoff)
    return replace(score_selection(selected, truth, name, learner_graph), threads=dict(threads))


def _learner_graph(learner: object, graph_of: str | None) -> tuple[str, str]:
    """The learner's name and the graph it estimates (declared, or given by ``graph_of``)."""
    if isinstance(learner, str):
        if learner not in SELECTION_RULES:
            raise InvalidOptionError(
                f"unknown learner {learner!r}; built-in learners are {sorted(SELECTION_RULES)}."
            )
        own = LEARNER_GRAPHS[learner]
        if graph_of is not None and graph_of != own:
            raise InvalidOptionError(
                f"learner {learner!r} estimates the {own} graph; graph_of={graph_of!r} does "
                "not apply to it (pass a covariance-graph learner, or drop graph_of)."
            )
        return learner, own
    name = getattr(learner, "__name__", type(learner).__name__)
    declared = getattr(learner, "graph_of", None)
    return name, str(graph_of or declared or "precision")


def score_selection(
    selected: Any, truth: Any, learner: str = "", graph_of: str = "precision"
) -> Score:
    """TPR, TDR and counts of a boolean selection against a true adjacency
    (:func:`~spdgraph.validation.confusion` and :func:`~spdgraph.validation.edge_metrics`).

    Either may be sparse (``scipy.sparse``, PyData ``sparse``, a DataArray
    holding one): the counts are then set intersections of their edges, in
    O(edges), equal to the dense counts.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from spdgraph.validation import score_selection
    >>> truth = sparse.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool))
    >>> chosen = sparse.csr_array(np.array([[0, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=bool))
    >>> s = score_selection(chosen, truth)
    >>> s.true_positives, s.n_selected, s.n_true, s.metrics()["shd"]
    (1, 2, 2, 2)
    """
    tp, fp, fn, _ = counts = confusion(selected, truth)
    metrics = edge_metrics(*counts)
    return Score(
        tpr=metrics["tpr"],
        tdr=metrics["tdr"],
        n_selected=tp + fp,
        n_true=tp + fn,
        true_positives=tp,
        selected=selected,
        learner=learner,
        graph_of=graph_of,
    )
