"""Sparse scoring: every metric and curve area from sparse inputs equals the dense result.

The dense code (``select_edges``, ``confusion``, ``path_table`` on numpy
arrays) is the slow obviously-correct reference: the sparse path reads the
same pairs (an unstored pair is 0) and does the same arithmetic on each, so
the counts are equal and the metrics and areas equal to the bit.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse as sp

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.validation import (
    METRICS,
    Metric,
    confusion,
    curve_areas,
    edge_metrics,
    path_table,
    resolve_metric,
    score_selection,
    select_edges,
)

pydata = pytest.importorskip("sparse")


def n_missed(truth, selected):
    """A custom metric written for dense and sparse adjacencies alike."""
    return float((truth > selected).sum() // 2)


CUSTOM = Metric("n_missed", False, n_missed, "n_missed")


def same(a: float, b: float) -> bool:
    """Equal to the bit, NaN equal to NaN."""
    return (math.isnan(a) and math.isnan(b)) or a == b


# --- inputs: one random case, and every sparse container of it ------------------------------


def random_truth(p: int, rng: np.random.Generator) -> np.ndarray:
    upper = np.triu(rng.random((p, p)) < rng.uniform(0.0, 0.5), 1)
    return upper | upper.T


def random_estimate(p: int, truth: np.ndarray, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A dense estimate with exact zeros: a selection, tied scores or partial correlations."""
    keep = rng.random((p, p)) < rng.uniform(0.0, 0.6)
    if kind == "selection":
        return keep & ~np.eye(p, dtype=bool)
    values = rng.normal(size=(p, p)) + 1.5 * truth
    if kind == "ties":
        values = np.round(values)  # many tied |scores|, some exact zeros
    else:  # partial correlations: signed, in (-1, 1), some pairs of opposite signs
        values = np.tanh(values / 2) * rng.choice([-1.0, 1.0], size=(p, p))
    estimate = np.where(keep, values, 0.0)
    if kind == "ties" or rng.random() < 0.5:
        estimate = (estimate + estimate.T) / 2  # symmetric (the signs above: not always)
    np.fill_diagonal(estimate, 1.0)
    return estimate


def stored_as(dense: np.ndarray, storage: str) -> np.ndarray:
    """What a sparse estimate stores: both triangles, or one of them."""
    if storage == "upper":
        return np.triu(dense)
    if storage == "lower":
        return np.tril(dense)
    return dense


def meant(stored: np.ndarray) -> np.ndarray:
    """The dense estimate a sparse one means: one triangle is that of a symmetric matrix."""
    off = stored != 0
    np.fill_diagonal(off, False)
    if np.triu(off).any() and np.tril(off).any():
        return stored
    triangle = np.where(off, stored, 0)
    return np.where(off | off.T, triangle + triangle.T, stored)


def as_container(dense: np.ndarray, container: str, rng: np.random.Generator):
    """``dense`` (its nonzeros stored) in one sparse container, with a few stored zeros."""
    coo = sp.coo_array(dense)
    extra = rng.integers(0, dense.shape[0], size=(2, 3)) if dense.shape[0] else np.empty((2, 0))
    rows = np.r_[coo.row, extra[0]].astype(np.int64)
    cols = np.r_[coo.col, extra[1]].astype(np.int64)
    zero = np.zeros(extra.shape[1], dtype=dense.dtype)
    data = np.r_[coo.data, zero]
    fresh = np.ones(rows.size, dtype=bool)  # a stored zero only where nothing is stored
    fresh[coo.nnz :] = dense[rows[coo.nnz :], cols[coo.nnz :]] == 0
    rows, cols, data = rows[fresh], cols[fresh], data[fresh]
    shape = dense.shape
    if container == "csr_array":
        return sp.csr_array((data, (rows, cols)), shape=shape)
    if container == "csr_matrix":
        return sp.csr_matrix((data, (rows, cols)), shape=shape)
    if container == "coo_array":
        return sp.coo_array((data, (rows, cols)), shape=shape)
    fill = False if dense.dtype == bool else 0.0
    array = pydata.COO(np.stack([rows, cols]), data, shape=shape, fill_value=fill)
    if container == "pydata":
        return array
    if container == "gcxs":
        return array.asformat("gcxs")
    return xr.DataArray(array, dims=("node", "node_2"))  # a sparse simulation's variable


CONTAINERS = ("csr_array", "csr_matrix", "coo_array", "pydata", "gcxs", "dataarray")


def upper_edges(selection) -> set[tuple[int, int]]:
    """The edges of a selection as pairs ``i < j`` (dense: symmetric; sparse: its triangle)."""
    if isinstance(selection, np.ndarray):
        return set(zip(*map(np.ndarray.tolist, np.nonzero(np.triu(selection, 1))), strict=True))
    coo = sp.coo_array(selection)
    assert (coo.row < coo.col).all() and coo.data.all()
    return set(zip(coo.row.tolist(), coo.col.tolist(), strict=True))


# --- sparse equals dense on every metric -----------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    p=st.one_of(st.integers(2, 30), st.integers(150, 200)),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["selection", "ties", "pcor"]),
    storage=st.sampled_from(["both", "upper", "lower"]),
    container=st.sampled_from(CONTAINERS),
    truth_container=st.sampled_from(CONTAINERS),
)
def test_sparse_metrics_equal_the_dense_metrics(
    p, seed, kind, storage, container, truth_container
):
    rng = np.random.default_rng(seed)
    truth = random_truth(p, rng)
    stored = stored_as(random_estimate(p, truth, kind, rng), storage)
    estimate, dense = as_container(stored, container, rng), meant(stored)
    sparse_truth = as_container(truth, truth_container, rng)
    for rule, cutoff in [("nonzero", 0.2), ("threshold", 0.5), ("threshold", 0.0)]:
        want = select_edges(dense, rule, cutoff)
        got = select_edges(estimate, rule, cutoff)
        assert sp.issparse(got) and got.format == "csr" and got.dtype == bool
        assert upper_edges(got) == upper_edges(want)
        counts = confusion(want, truth)
        assert confusion(got, sparse_truth) == counts
        assert confusion(got, truth) == counts  # a sparse selection, a dense truth
        assert confusion(want, sparse_truth) == counts  # a dense selection, a sparse truth
        builtin = score_selection(got, sparse_truth, "x").metrics()
        dense_builtin = score_selection(want, truth, "x").metrics()
        for metric in [*map(resolve_metric, METRICS), CUSTOM]:  # the built-ins and one of ours
            assert same(
                metric.value(sparse_truth, got, builtin), metric.value(truth, want, dense_builtin)
            ), metric.name
    if kind == "selection":
        return
    want_table = path_table(np.abs(dense), truth)
    got_table = path_table(abs(sp.csr_array(dense)), sparse_truth)
    pd.testing.assert_frame_equal(got_table, want_table, check_exact=True)
    pd.testing.assert_frame_equal(path_table(estimate, truth), want_table, check_exact=True)
    want_areas, got_areas = curve_areas(want_table), curve_areas(got_table)
    assert all(same(got_areas[k], want_areas[k]) for k in ("roc_auc", "pr_auc"))


def test_a_path_of_sparse_estimates_equals_the_dense_path():
    rng = np.random.default_rng(5)
    truth = random_truth(40, rng)
    steps = [random_estimate(40, truth, "pcor", rng) for _ in range(4)]
    want = path_table(np.array(steps), truth)
    got = path_table([sp.csr_array(s) for s in steps], sp.csr_array(truth))
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    boolean = path_table(sp.csr_array(steps[0] != 0), sp.csr_array(truth))
    pd.testing.assert_frame_equal(boolean, path_table(steps[0] != 0, truth), check_exact=True)


def test_path_table_columns_are_edge_metrics_to_the_bit():
    rng = np.random.default_rng(11)
    truth = random_truth(60, rng)
    table = path_table(random_estimate(60, truth, "pcor", rng), truth)
    for row in table.itertuples():
        want = edge_metrics(row.tp, row.fp, row.fn, row.tn)
        assert all(same(getattr(row, k), want[k]) for k in want)


@pytest.mark.slow  # the first sparse simulation in a process compiles for ~15 s
def test_the_adjacency_of_a_sparse_simulation_is_a_truth():
    sim = spdgraph.simulate("band", p=30, n=10, sparse=True, seed=1, method="dd")
    truth = sim["adjacency"]
    dense_truth = truth.data.todense()
    scores = sim["partial_correlation"].data.todense()
    scores = scores + 0.01 * np.random.default_rng(0).normal(size=scores.shape) * (scores == 0)
    np.fill_diagonal(scores, 1.0)
    for estimate in (sim["partial_correlation"], sp.csr_array(scores)):
        dense = np.asarray(estimate.data.todense() if hasattr(estimate, "dims") else scores)
        want = select_edges(dense, "threshold", 0.05)
        assert confusion(select_edges(estimate, "threshold", 0.05), truth) == confusion(
            want, dense_truth
        )
        pd.testing.assert_frame_equal(
            path_table(estimate, truth), path_table(dense, dense_truth), check_exact=True
        )
    assert confusion(sim["precision"], truth) == (29, 0, 0, 435 - 29)  # the stored graph


# --- refusals ------------------------------------------------------------------------------


def test_sparse_inputs_are_refused_by_name():
    pcor = sp.csr_array(np.array([[1.0, 0.3, 0.0], [0.3, 1.0, -0.2], [0.0, -0.2, 1.0]]))
    with pytest.raises(InvalidOptionError, match=r"rule 'lfdr'.*threshold.*toarray"):
        select_edges(pcor, "lfdr")
    with pytest.raises(InvalidOptionError, match=r"cutoff -0\.1 below 0.*cutoff >= 0"):
        select_edges(pcor, "threshold", -0.1)
    with pytest.raises(InvalidOptionError, match="rule must be"):
        select_edges(pcor, "maximum")
    with pytest.raises(InvalidOptionError, match=r"\(p, p\)"):
        select_edges(sp.csr_array(np.ones((2, 3))))
    with pytest.raises(InvalidOptionError, match="non-finite"):
        select_edges(sp.csr_array(np.array([[0, np.nan], [np.nan, 0]])))
    with pytest.raises(InvalidOptionError, match=r"fill value is 1\.0"):
        select_edges(pydata.COO.from_numpy(np.eye(3), fill_value=1.0))
    with pytest.raises(InvalidOptionError, match="3 nodes but the graph has 4 nodes"):
        confusion(select_edges(pcor), sp.csr_array(np.eye(4, dtype=bool)))
    with pytest.raises(InvalidOptionError, match="3 nodes but the graph has 4 nodes"):
        path_table(pcor, sp.csr_array(np.eye(4, dtype=bool)))
    # a boolean estimate is returned symmetrized whatever the rule, dense or sparse
    adjacency = sp.csr_array(np.array([[0, 1, 0], [0, 0, 0], [1, 0, 0]], dtype=bool))
    assert upper_edges(select_edges(adjacency, "lfdr")) == {(0, 1), (0, 2)}


# --- p = 10^5: edge sets only ----------------------------------------------------------------


def band_truth(p: int, width: int) -> sp.csr_array:
    rows = np.repeat(np.arange(p), width)
    cols = rows + np.tile(np.arange(1, width + 1), p)
    keep = cols < p
    return sp.csr_array((np.ones(keep.sum(), dtype=bool), (rows[keep], cols[keep])), shape=(p, p))


def test_a_hundred_thousand_nodes_are_scored_on_their_edges():
    p, width = 100_000, 3
    rng = np.random.default_rng(7)
    truth = band_truth(p, width)  # ~3e5 edges, upper triangle stored
    true_rows, true_cols = truth.nonzero()
    false_rows, false_cols = band_truth(p, 10)[:, :].nonzero()  # pairs i, i + 4 .. i + 10
    false = false_cols - false_rows > width  # never a band edge
    false_rows, false_cols = false_rows[false], false_cols[false]
    n_false = false_rows.size
    rows, cols = np.r_[true_cols, false_cols], np.r_[true_rows, false_rows]  # lower triangle
    values = np.r_[
        np.round(rng.uniform(0.4, 1.0, true_rows.size), 3),  # true edges score above 0.4
        -np.round(rng.uniform(0.0, 0.5, n_false), 3),  # false pairs below 0.5 (signed)
    ]
    scores = sp.coo_array((values, (rows, cols)), shape=(p, p)).tocsr()
    n_stored, n_pairs = scores.nnz, p * (p - 1) // 2
    assert n_stored > 900_000
    tracemalloc.start()
    try:
        selected = select_edges(scores, "threshold", 0.5)
        result = score_selection(selected, truth, "band")
        metrics = {m: resolve_metric(m).value(truth, selected, result.metrics()) for m in METRICS}
        table = path_table(abs(scores), truth)
        areas = curve_areas(table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * n_stored  # O(stored entries), p x p would be 1e10 bytes
    n_true = int(truth.nnz)
    above = int((np.round(values[: true_rows.size], 3) > 0.5).sum())
    assert (result.true_positives, result.n_selected, result.n_true) == (above, above, n_true)
    assert metrics["fpr"] == 0.0 and metrics["tdr"] == 1.0 and metrics["shd"] == n_true - above
    assert table["tn"].iloc[0] == n_pairs - n_true and table["tp"].iloc[-1] == n_true
    assert areas["roc_auc"] < 1.0 and 0.5 < areas["pr_auc"] < 1.0  # a tie at 0.4 .. 0.5
