"""Tidy score tables over groups and replications (related graphs, stacks of data)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from spdgraph.errors import InvalidOptionError
from spdgraph.validation._score import score

__all__ = ["score_table"]

_LEADING = ("group", "sample")


def truth_for(truth: object, group: int | None) -> object:
    import xarray as xr

    if group is None:
        return truth
    if isinstance(truth, xr.DataArray) and "group" in truth.dims:
        part = truth.isel(group=group)
        return part.isel(sample=0) if "sample" in part.dims else part
    if isinstance(truth, list | tuple):
        return truth[group]
    return truth


def score_table(
    data: Any,
    truth: object,
    learners: str | Sequence[Any] = "lasso",
    seed: int | None = None,
    *,
    criterion: str | None = None,
    gamma: float = 0.5,
    **options: Any,
) -> Any:
    """Score learners on every data set of a stack, per group, as one tidy table.

    Parameters
    ----------
    data
        What ``da.spd.draw`` returned: dims ``(obs, node)`` with optional
        leading ``group`` and/or ``sample`` dims (or a simulation: its ``data``).
    truth
        The true graph(s): a ``group``-stacked matrix array
        :func:`spdgraph.sample` returned for related graphs (each group's
        ``adjacency`` is its truth), a list with one graph per group, or one
        graph for all, or a simulation (its true matrix).
    learners
        A learner or a sequence of learners, as :func:`spdgraph.validation.score`
        takes them (built-in names, callables, estimators).
    seed
        Seeds the built-in learners' cross-validation folds.
    criterion, gamma
        How ``"glasso"`` chooses its penalty (passed to the glasso learner
        only; see :func:`~spdgraph.validation.score`).
    **options
        Passed to :func:`~spdgraph.validation.score` (``rule``, ``cutoff``, ``cv``).

    Returns
    -------
    pandas.DataFrame
        One row per (group, sample, learner): ``group`` and ``sample`` when
        the data have those dims, ``learner``, ``n_selected``, ``n_true``,
        ``true_positives`` and TPR, FPR, TDR, F1, MCC, SHD.

    Examples
    --------
    >>> import networkx as nx, spdgraph
    >>> from spdgraph.graphs import related_graphs
    >>> from spdgraph.validation import score_table
    >>> graphs = related_graphs(nx.cycle_graph(8), 2, n_add=2, n_remove=2, seed=0)
    >>> prec = spdgraph.sample(graphs, seed=0, kind="precision")
    >>> x = prec.spd.draw(200, seed=1)
    >>> table = score_table(x, prec, "shrink", seed=0)
    >>> table[["group", "learner", "n_true"]].values.tolist()
    [[0, 'shrink', 8], [1, 'shrink', 8]]
    """
    import pandas as pd
    import xarray as xr

    from spdgraph.io import simulation_inputs

    data, truth = simulation_inputs(data, truth)  # a simulation: its data / its true matrix
    if not isinstance(data, xr.DataArray) or "node" not in data.dims:
        raise InvalidOptionError("data must be a DataArray da.spd.draw returned (dims obs, node).")
    leading = [d for d in data.dims if d in _LEADING]
    if list(data.dims[: len(leading)]) != leading or data.ndim != len(leading) + 2:
        raise InvalidOptionError(
            f"data dims must be (group?, sample?, obs, node), got {data.dims}."
        )
    learner_list = (
        [learners]
        if isinstance(learners, str) or not isinstance(learners, Sequence)
        else list(learners)
    )
    rows = []
    for index in itertools.product(*(range(data.sizes[d]) for d in leading)):
        where = dict(zip(leading, index, strict=True))
        x = data.isel(where)
        graph = truth_for(truth, where.get("group"))
        for learner in learner_list:
            if isinstance(learner, str) and learner == "glasso":
                result = score(
                    x, graph, learner, seed, criterion=criterion, gamma=gamma, **options
                )
            else:
                result = score(x, graph, learner, seed, **options)
            row: dict[str, Any] = {}
            for dim, k in where.items():
                row[dim] = data[dim].values[k].item() if dim in data.coords else k
            rows.append({**row, **result.as_dict()})
    return pd.DataFrame(rows)
