"""Score a Bayesian GGM's posterior against the true precision matrix.

:func:`posterior_scores` reads precision draws (or edge inclusion
probabilities) from an ArviZ ``InferenceData``/``DataTree``, an xarray
``Dataset`` or a ``DataArray`` with ``chain``/``draw`` dims, and scores them
against a truth from :func:`spdgraph.sample` (or any precision matrix): ROC
and PR areas of the edge scores, the Brier score and a calibration table of
the inclusion probabilities, Stein's loss and the Frobenius error of the
posterior mean, and the coverage of central credible intervals of the
partial correlations. No PPL is imported here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError
from spdgraph.validation._kind import truth_graph_of

__all__ = ["PosteriorScores", "posterior_scores"]

_SAMPLE_DIMS = ("chain", "draw")


@dataclass(frozen=True)
class PosteriorScores:
    """Result of :func:`posterior_scores`.

    Attributes
    ----------
    scores
        Tidy table (pandas ``DataFrame``, columns ``metric``, ``value``):
        ``roc_auc``, ``pr_auc``, ``brier``, ``stein_loss``, ``frobenius``,
        ``frobenius_relative``, ``coverage``, ``coverage_edges``,
        ``coverage_non_edges``, ``interval_width`` (mean), ``n_draws``.
        Metrics that the input cannot give (a loss from inclusion
        probabilities alone) are NaN.
    calibration
        One row per bin of inclusion probability: ``lower``, ``upper``,
        ``n_pairs``, ``mean_probability``, ``edge_rate`` (the share of true
        edges among the pairs of the bin).
    pairs
        One row per node pair ``i < j``: ``node``, ``node_2``, ``edge``
        (truth), ``inclusion``, ``pcor_true`` and, from precision draws,
        ``pcor_mean``, ``lower``, ``upper``, ``covered``.
    inclusion_from
        How the inclusion probabilities were obtained: ``"given"``,
        ``"exact zeros"`` (the share of draws with a nonzero entry) or
        ``"probability of direction"`` (``|2 P(rho > 0) - 1|`` of the partial
        correlation, when no draw has an exact zero).
    """

    scores: Any
    calibration: Any
    pairs: Any
    inclusion_from: str

    def __getitem__(self, metric: str) -> float:
        """The value of one metric of :attr:`scores`, e.g. ``result["brier"]``."""
        table = self.scores.set_index("metric")["value"]
        if metric not in table.index:
            raise KeyError(f"no metric {metric!r}; the metrics are {list(table.index)}")
        return float(table[metric])


def posterior_scores(
    posterior: Any,
    truth: Any,
    *,
    var_name: str | None = None,
    kind: str | None = None,
    credible: float = 0.9,
    bins: int = 10,
) -> PosteriorScores:
    """Score posterior precision draws (or inclusion probabilities) against the truth.

    Parameters
    ----------
    posterior
        ArviZ ``InferenceData`` or ``DataTree`` (its ``posterior`` group is
        read), an xarray ``Dataset`` (``var_name`` picks the variable; by
        default the only one whose last two dims are square) or a
        ``DataArray``. Precision draws need ``chain`` and/or ``draw`` dims
        followed by two node dims (``node``, ``node_2`` when labelled: they
        are then aligned to the truth's node labels). Inclusion probabilities
        may have sample dims (averaged) or none.
    truth
        The true precision matrix: a ``DataArray`` from ``spdgraph.sample``
        (``kind="precision"``) or a
        ``(p, p)`` array. Its exact zeros are the true non-edges. A
        covariance (``attrs["kind"] == "covariance"``) is refused: its zeros
        are not the concentration graph.
    var_name
        The variable of a ``Dataset`` or ``InferenceData``.
    kind
        ``"precision"`` (draws of the precision matrix) or ``"inclusion"``
        (edge inclusion probabilities or 0/1 graph draws); by default taken
        from ``attrs["kind"]`` when present, else ``"inclusion"`` when every
        value is in ``[0, 1]`` with a zero diagonal, else ``"precision"``.
    credible
        Mass of the central credible intervals of the partial correlations.
    bins
        Number of equal-width bins of the calibration table.

    Returns
    -------
    PosteriorScores

    Notes
    -----
    Stein's loss of the posterior mean ``K_hat`` is
    ``tr(K_hat S) - log det(K_hat S) - p`` with ``S`` the true covariance;
    the Frobenius error is ``||K_hat - K||_F`` (relative: divided by
    ``||K||_F``). The partial correlation of a draw is
    ``-K_ij / sqrt(K_ii K_jj)``; coverage is the share of pairs whose true
    partial correlation lies in the central ``credible`` interval of its
    draws. ROC and PR areas are those of
    :func:`~spdgraph.validation.curve_areas` over the inclusion
    probabilities.

    Examples
    --------
    >>> import numpy as np, networkx as nx, xarray as xr, spdgraph
    >>> from spdgraph.validation import posterior_scores
    >>> k = spdgraph.sample(nx.path_graph(4), "po", kind="precision", seed=1)
    >>> draws = xr.DataArray(np.broadcast_to(k.values, (2, 50, 4, 4)),
    ...                      dims=("chain", "draw", "node", "node_2"))
    >>> result = posterior_scores(draws, k)
    >>> result["roc_auc"], result["brier"], round(result["frobenius"], 12)
    (1.0, 0.0, 0.0)
    """
    if not 0.0 < float(credible) < 1.0:
        raise InvalidOptionError(f"credible must be in (0, 1), got {credible!r}.")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidOptionError(f"bins must be a positive integer, got {bins!r}.")
    if kind not in (None, "precision", "inclusion"):
        raise InvalidOptionError(f"kind must be None, 'precision' or 'inclusion', got {kind!r}.")
    true_k, labels = _truth_precision(truth)
    draws = _posterior_array(posterior, var_name)
    values = _aligned_values(draws, labels, true_k.shape[0])
    kind = kind or _infer_kind(draws, values)
    if kind == "precision" and values.ndim < 3:
        raise InvalidOptionError(
            "precision draws need sample dims (chain and/or draw) before the two node dims; "
            "pass kind='inclusion' for a matrix of inclusion probabilities."
        )
    return _score(values.reshape((-1, *true_k.shape)), true_k, labels, kind, credible, bins)


def _truth_precision(truth: Any) -> tuple[np.ndarray, list[Any]]:
    values = np.asarray(getattr(truth, "values", truth), dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != values.shape[1] or values.shape[0] < 2:
        raise InvalidOptionError(
            f"truth must be one square precision matrix of at least 2 nodes, got shape "
            f"{values.shape}; select one matrix of a stack (e.g. truth.isel(sample=0))."
        )
    if not np.all(np.isfinite(values)):
        raise InvalidOptionError("truth has non-finite entries; pass a valid precision matrix.")
    if truth_graph_of(truth) == "covariance":
        kind = (getattr(truth, "attrs", {}) or {}).get("kind")
        raise InvalidOptionError(
            f"truth is a {kind} matrix (its zeros are a covariance graph); a GGM's "
            "posterior is scored against the precision matrix: sample the truth with "
            "kind='precision'."
        )
    coords: Any = getattr(truth, "coords", None)
    has_labels = coords is not None and "node" in coords
    labels = list(np.asarray(coords["node"].values)) if has_labels else []
    return values, labels


def _posterior_array(posterior: Any, var_name: str | None) -> Any:
    import xarray as xr

    group = getattr(posterior, "posterior", None)
    if group is None and hasattr(posterior, "children") and "posterior" in posterior.children:
        group = posterior["posterior"]
    if group is not None:
        posterior = group
    if hasattr(posterior, "to_dataset") and not isinstance(posterior, xr.DataArray):
        posterior = posterior.to_dataset()  # a DataTree node
    if isinstance(posterior, xr.Dataset):
        if var_name is not None:
            if var_name not in posterior.data_vars:
                raise InvalidOptionError(
                    f"the posterior has no variable {var_name!r}; its variables are "
                    f"{list(posterior.data_vars)}."
                )
            return posterior[var_name]
        square = [n for n, v in posterior.data_vars.items() if _square(v)]
        if len(square) != 1:
            raise InvalidOptionError(
                f"cannot tell which variable holds the matrices (square ones: {square}); "
                "pass var_name=..."
            )
        return posterior[square[0]]
    if isinstance(posterior, xr.DataArray):
        return posterior
    if isinstance(posterior, np.ndarray):
        return xr.DataArray(posterior)
    raise InvalidOptionError(
        f"posterior must be ArviZ InferenceData/DataTree, an xarray Dataset or DataArray, "
        f"got {type(posterior).__name__}."
    )


def _square(var: Any) -> bool:
    return var.ndim >= 2 and var.shape[-1] == var.shape[-2]


def _aligned_values(draws: Any, labels: list[Any], p: int) -> np.ndarray:
    if not _square(draws) or draws.shape[-1] != p:
        raise InvalidOptionError(
            f"the posterior's matrices are {draws.shape[-2:]} but the truth has {p} nodes."
        )
    extra = [d for d in draws.dims[:-2] if d not in _SAMPLE_DIMS]
    if extra:
        raise InvalidOptionError(
            f"the posterior has dims {extra} besides chain/draw and the two node dims; "
            "select one value of them first."
        )
    row, col = draws.dims[-2:]
    if labels and row in draws.coords and col in draws.coords:
        have = list(np.asarray(draws[row].values))
        if sorted(map(str, have)) != sorted(map(str, labels)):
            raise InvalidOptionError(
                "the posterior's node labels are not the truth's; relabel one of them."
            )
        if have != labels:
            draws = draws.sel({row: labels, col: labels})
    return np.asarray(draws.values, dtype=np.float64)


def _infer_kind(draws: Any, values: np.ndarray) -> str:
    stated = (getattr(draws, "attrs", {}) or {}).get("kind")
    if stated in ("precision", "inclusion"):
        return str(stated)
    diag = np.diagonal(values, axis1=-2, axis2=-1)
    if np.all((values >= 0) & (values <= 1)) and np.all(diag == 0):
        return "inclusion"
    return "precision"


def _score(
    draws: np.ndarray, true_k: np.ndarray, labels: list[Any], kind: str, credible: float, bins: int
) -> PosteriorScores:
    import pandas as pd

    from spdgraph.validation._curves import curve_areas, path_table

    p = true_k.shape[0]
    iu = np.triu_indices(p, 1)
    edge = true_k[iu] != 0
    true_pcor = _pcor(true_k[None])[0][iu]
    pairs: dict[str, Any] = {
        "node": np.asarray(labels or range(p), dtype=object)[iu[0]],
        "node_2": np.asarray(labels or range(p), dtype=object)[iu[1]],
        "edge": edge,
        "pcor_true": true_pcor,
    }
    nan = math.nan
    metrics = dict.fromkeys(
        ("stein_loss", "frobenius", "frobenius_relative", "coverage", "coverage_edges",
         "coverage_non_edges", "interval_width"),
        nan,
    )  # fmt: skip
    if kind == "inclusion":
        inclusion = np.clip(draws.mean(axis=0), 0.0, 1.0)
        inclusion = np.maximum(inclusion[iu], inclusion.T[iu])
        source = "given"
    else:
        inclusion, source = _inclusion_from_draws(draws, iu)
        metrics.update(_losses(draws.mean(axis=0), true_k))
        pcor = _pcor(draws)[:, iu[0], iu[1]]
        lower, upper = np.quantile(pcor, [(1 - credible) / 2, (1 + credible) / 2], axis=0)
        covered = (lower <= true_pcor) & (true_pcor <= upper)
        pairs.update(pcor_mean=pcor.mean(axis=0), lower=lower, upper=upper, covered=covered)
        metrics.update(
            coverage=float(covered.mean()),
            coverage_edges=float(covered[edge].mean()) if edge.any() else nan,
            coverage_non_edges=float(covered[~edge].mean()) if (~edge).any() else nan,
            interval_width=float((upper - lower).mean()),
        )
    pairs["inclusion"] = inclusion
    scores_matrix = np.zeros((p, p))
    scores_matrix[iu] = inclusion
    areas = curve_areas(path_table(scores_matrix, true_k != 0))
    rows = {
        **areas,
        "brier": float(np.mean((inclusion - edge) ** 2)),
        **metrics,
        "n_draws": float(draws.shape[0]),
    }
    scores = pd.DataFrame({"metric": list(rows), "value": [float(v) for v in rows.values()]})
    return PosteriorScores(
        scores=scores,
        calibration=_calibration(inclusion, edge, bins),
        pairs=pd.DataFrame(pairs),
        inclusion_from=source,
    )


def _pcor(k: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diagonal(k, axis1=-2, axis2=-1))
    out = -k / (d[..., :, None] * d[..., None, :])
    idx = np.arange(k.shape[-1])
    out[..., idx, idx] = 1.0
    return out


def _inclusion_from_draws(draws: np.ndarray, iu: tuple[np.ndarray, ...]) -> tuple[np.ndarray, str]:
    upper = draws[:, iu[0], iu[1]]
    if np.any(upper == 0):
        return (upper != 0).mean(axis=0), "exact zeros"
    positive = (upper < 0).mean(axis=0)  # a negative K_ij is a positive partial correlation
    return np.abs(2 * positive - 1), "probability of direction"


def _losses(mean: np.ndarray, true_k: np.ndarray) -> dict[str, float]:
    p = true_k.shape[0]
    product = np.linalg.solve(true_k, mean)  # K^{-1} K_hat: the same trace and determinant
    sign, logdet = np.linalg.slogdet(product)
    stein = float(np.trace(product) - logdet - p) if sign > 0 else math.inf
    error = float(np.linalg.norm(mean - true_k))
    return {
        "stein_loss": stein,
        "frobenius": error,
        "frobenius_relative": error / float(np.linalg.norm(true_k)),
    }


def _calibration(inclusion: np.ndarray, edge: np.ndarray, bins: int) -> Any:
    import pandas as pd

    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, inclusion, side="right") - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        mine = which == b
        rows.append(
            {
                "lower": edges[b],
                "upper": edges[b + 1],
                "n_pairs": int(mine.sum()),
                "mean_probability": float(inclusion[mine].mean()) if mine.any() else math.nan,
                "edge_rate": float(edge[mine].mean()) if mine.any() else math.nan,
            }
        )
    return pd.DataFrame(rows)
