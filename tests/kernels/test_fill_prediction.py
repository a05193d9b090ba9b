"""The factor's fill predicted on a contracted minor before AMD runs (issue 46, item 4).

A large pattern is contracted to a minor (:mod:`spdgraph._kernels.coarsen`),
ordered by AMD and counted; a minor whose factor is already far beyond the
limits is refused before AMD orders the full pattern. Checked here: the
contraction against a slow reference (connected groups, the quotient graph),
the pattern helpers against scipy, the refusal (its message, that the full AMD
never ran, the same refusal every run), and that the prediction never refuses
what the full AMD plan accepts (graph families and hypothesis over random
graphs, with the budget set at the full factor's exact size).
"""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels import cholmod, sparse_cholesky
from spdgraph.errors import TooLargeError

pytest.importorskip("cvxopt")

from spdgraph._kernels.coarsen import (
    aggregate_level,
    contract_level,
    contracted_pattern,
    lower_triplets_by_column,
    permuted_pattern,
)
from spdgraph._kernels.sparse_cholesky import (
    BYTES_PER_FACTOR_ENTRY,
    plan_factor,
    predict_fill,
)


def _precision(adjacency) -> scipy.sparse.csr_array:
    """``0.3 A + 2 I``: positive definite for mean degrees below about 6."""
    a = scipy.sparse.csr_array(adjacency, dtype=np.float64)
    a = scipy.sparse.csr_array((a + a.T) != 0, dtype=np.float64)
    a.setdiag(0)
    a.eliminate_zeros()
    p = a.shape[0]
    return scipy.sparse.csr_array(0.3 * a + 2.0 * scipy.sparse.eye_array(p))


def _pattern(matrix) -> tuple[np.ndarray, np.ndarray]:
    return matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64)


def _quotient_reference(matrix, group: np.ndarray, groups: int) -> set[tuple[int, int]]:
    """The contracted graph's edges from networkx, slowly."""
    graph = nx.from_scipy_sparse_array(matrix)
    edges = set()
    for u, v in graph.edges():
        gu, gv = int(group[u]), int(group[v])
        if u != v and gu >= 0 and gv >= 0 and gu != gv:
            edges.add((gu, gv))
            edges.add((gv, gu))
    return edges


def _check_groups(matrix, group: np.ndarray, groups: int) -> None:
    graph = nx.from_scipy_sparse_array(matrix)
    graph.remove_edges_from(nx.selfloop_edges(graph))
    for v in graph.nodes:
        assert (group[v] == -1) == (graph.degree(v) == 0)  # only isolated nodes deleted
    assert set(group[group >= 0].tolist()) == set(range(groups))
    for c in range(groups):
        members = np.flatnonzero(group == c).tolist()
        assert nx.is_connected(graph.subgraph(members))  # a contraction, not a merge


@st.composite
def random_graphs(draw: st.DrawFn) -> scipy.sparse.csr_array:
    p = draw(st.integers(2, 60))
    kind = draw(st.sampled_from(["gnp", "tree", "star", "lattice", "band", "components"]))
    seed = draw(st.integers(0, 2**16))
    if kind == "gnp":
        graph = nx.gnp_random_graph(p, draw(st.floats(0.0, 0.4)), seed=seed)
    elif kind == "tree":
        graph = nx.random_labeled_tree(p, seed=seed)
    elif kind == "star":
        graph = nx.star_graph(p - 1)
    elif kind == "lattice":
        graph = nx.convert_node_labels_to_integers(nx.grid_2d_graph(2, max(1, p // 2)))
    elif kind == "band":
        graph = nx.circulant_graph(p, list(range(1, min(4, p // 2) + 1)))
    else:
        left = nx.gnp_random_graph(p // 2, 0.3, seed=seed)
        graph = nx.disjoint_union(left, nx.gnp_random_graph(p - p // 2, 0.1, seed=seed + 1))
    return _precision(nx.to_scipy_sparse_array(graph))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs(), st.integers(0, 2**16), st.integers(2, 6))
def test_levels_contract_connected_groups_to_the_quotient_graph(matrix, seed, largest) -> None:
    indptr, indices = _pattern(matrix)
    p = matrix.shape[0]
    visit = np.random.default_rng(seed).permutation(p).astype(np.int64)
    for group, groups in (
        contract_level(indptr, indices, visit, p),
        contract_level(indptr, indices, visit, max(1, p // 4)),
        aggregate_level(indptr, indices, visit, largest),
        aggregate_level(indptr, indices, visit, p),
    ):
        _check_groups(matrix, group, groups)
        out_ptr, out_idx = contracted_pattern(indptr, indices, group, groups)
        rows = np.repeat(np.arange(groups), np.diff(out_ptr))
        got = set(zip(rows.tolist(), out_idx.tolist(), strict=True))
        assert len(got) == out_idx.size  # no duplicates, no diagonal
        assert got == _quotient_reference(matrix, group, groups)
    # a maximal matching (no cap) leaves every non-isolated node in a group of two or more
    group, groups = contract_level(indptr, indices, visit, p)
    sizes = np.bincount(group[group >= 0], minlength=groups)
    assert np.all(sizes >= 2)


@settings(max_examples=40, deadline=None)
@given(random_graphs(), st.integers(0, 2**16))
def test_pattern_helpers_match_scipy(matrix, seed) -> None:
    indptr, indices = _pattern(matrix)
    p = matrix.shape[0]
    rows, cols = lower_triplets_by_column(indptr, indices)
    lower = scipy.sparse.tril(matrix).tocsc()
    lower.sort_indices()
    expected_cols = np.repeat(np.arange(p), np.diff(lower.indptr))
    assert rows.tolist() == lower.indices.tolist() and cols.tolist() == expected_cols.tolist()
    order = np.random.default_rng(seed).permutation(p).astype(np.int64)
    out_ptr, out_idx = permuted_pattern(indptr, indices, order)
    got = scipy.sparse.csr_array((np.ones(out_idx.size), out_idx, out_ptr), shape=(p, p))
    expected = matrix[order][:, order]
    assert (got != 0).toarray().tolist() == (expected != 0).toarray().tolist()


def _families(p: int, seed: int) -> dict[str, scipy.sparse.csr_array]:
    graphs = spdgraph.graphs
    out = {
        "band": graphs.band(p, 3, backend="scipy"),
        "lattice": graphs.lattice(p, (p // 20, 20), backend="scipy"),
        "tree": nx.to_scipy_sparse_array(nx.random_labeled_tree(p, seed=seed)),
        "star": graphs.star(p, backend="scipy"),
        "scale_free": graphs.scale_free(p, seed=seed, backend="scipy"),
        "small_world": graphs.small_world(p, seed=seed, backend="scipy"),
        "cluster": graphs.cluster(p, seed=seed, backend="scipy"),
        "hub": graphs.hub(p, backend="scipy"),
        "erdos_renyi_1": graphs.erdos_renyi(p, 1.0 / p, seed=seed, backend="scipy"),
        "erdos_renyi_3": graphs.erdos_renyi(p, 3.0 / p, seed=seed, backend="scipy"),
        "erdos_renyi_8": graphs.erdos_renyi(p, 8.0 / p, seed=seed, backend="scipy"),
        "disconnected": scipy.sparse.block_diag(
            [
                graphs.erdos_renyi(p // 2, 4.0 / p, seed=seed, backend="scipy"),
                graphs.band(p - p // 2, 2, backend="scipy"),
            ]
        ),
    }
    return {name: _precision(a) for name, a in out.items()}


def _exact_limits(matrix, monkeypatch) -> int:
    """The full AMD plan's exact size as the limits (memory and flops): it just fits."""
    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", 1e30)
    plan = plan_factor(matrix, budget_bytes=None, predict=False)
    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", plan.flops)
    budget = plan.factor_entries * BYTES_PER_FACTOR_ENTRY
    assert plan_factor(matrix, budget_bytes=budget, predict=False).factor_entries == (
        plan.factor_entries
    )
    return budget


@pytest.mark.parametrize("p", [200, 2000])
def test_no_family_is_refused_by_the_prediction_when_its_factor_fits(p, monkeypatch) -> None:
    for name, matrix in _families(p, seed=p).items():
        budget = _exact_limits(matrix, monkeypatch)
        for nodes in (p // 16, p // 4, p):
            plan = plan_factor(matrix, budget_bytes=budget, predict=True, prediction_nodes=nodes)
            assert plan.bytes <= budget, name
            # and the lower estimate itself is below the full factor, margin aside
            indptr, indices = _pattern(matrix)
            prediction = predict_fill(indptr, indices, nodes=nodes)
            assert prediction.nodes <= nodes, name
            assert prediction.factor_entries <= budget // BYTES_PER_FACTOR_ENTRY, name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs(), st.integers(1, 60), st.integers(0, 3))
def test_the_prediction_never_refuses_what_the_full_plan_accepts(matrix, nodes, slack) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        budget = _exact_limits(matrix, monkeypatch) + slack * BYTES_PER_FACTOR_ENTRY
        plan = plan_factor(matrix, budget_bytes=budget, predict=True, prediction_nodes=nodes)
        assert plan.bytes <= budget


def _erdos_renyi_precision(p: int, degree: float, seed: int = 0) -> scipy.sparse.csr_array:
    return _precision(spdgraph.graphs.erdos_renyi(p, degree / p, seed=seed, backend="scipy"))


def test_a_minor_far_beyond_the_budget_is_refused_before_amd_on_the_full_pattern(
    monkeypatch,
) -> None:
    matrix = _erdos_renyi_precision(20_000, 5.0)
    indptr, indices = _pattern(matrix)
    prediction = predict_fill(indptr, indices, nodes=2_000)
    assert prediction.nodes == 2_000 and not prediction.partial
    budget_entries = int(prediction.factor_entries / 3)  # the minor alone is 3x over

    def no_full_amd(*args, **kwargs):
        raise AssertionError("AMD ran on the full pattern")

    monkeypatch.setattr(sparse_cholesky, "_lower_spmatrix", no_full_amd)
    messages = set()
    for _ in range(2):
        with pytest.raises(TooLargeError) as refused:
            plan_factor(
                matrix,
                budget_bytes=budget_entries * BYTES_PER_FACTOR_ENTRY,
                predict=True,
                prediction_nodes=2_000,
                what="matrix 0",
            )
        messages.add(str(refused.value))
    (message,) = messages  # the same refusal every run
    assert "contracted minor of 2,000 nodes" in message
    # the predicted fill: the count stopped past twice the budget (the margin)
    held = re.search(r"holds more than ([\d,]+) entries", message)
    assert held is not None and 2 * budget_entries < int(held.group(1).replace(",", ""))
    assert int(held.group(1).replace(",", "")) <= prediction.factor_entries
    assert "lower estimate" in message and "memory available" in message
    assert "matrix 0" in message and "p = 20,000" in message
    assert "method='cg'" in message
    # below the margin the full plan decides (and refuses here on its exact count)
    monkeypatch.undo()
    with pytest.raises(TooLargeError, match="in AMD order") as exact:
        plan_factor(
            matrix,
            budget_bytes=int(prediction.factor_entries / 1.5) * BYTES_PER_FACTOR_ENTRY,
            predict=True,
            prediction_nodes=2_000,
        )
    assert "contracted minor" not in str(exact.value)


def test_the_flops_of_a_minor_are_refused_too_and_the_size_decides_when(monkeypatch) -> None:
    matrix = _erdos_renyi_precision(20_000, 5.0)
    indptr, indices = _pattern(matrix)
    prediction = predict_fill(indptr, indices, nodes=2_000)
    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", prediction.flops / 3)
    monkeypatch.setattr(sparse_cholesky, "PREDICT_ABOVE_NODES", 10_000)  # automatic
    monkeypatch.setattr(sparse_cholesky, "PREDICTION_NODES", 2_000)
    with pytest.raises(TooLargeError, match="floating-point operations") as refused:
        plan_factor(matrix, budget_bytes=None)
    assert "contracted minor of 2,000 nodes" in str(refused.value)
    # a smaller pattern goes straight to the full plan (which refuses on its exact flops)
    small = _erdos_renyi_precision(5_000, 5.0)
    with pytest.raises(TooLargeError) as exact:
        plan_factor(small, budget_bytes=None)
    assert "contracted minor" not in str(exact.value)


def test_a_graph_without_edges_predicts_a_diagonal_factor() -> None:
    matrix = scipy.sparse.csr_array(scipy.sparse.eye_array(50))
    indptr, indices = _pattern(matrix)
    prediction = predict_fill(indptr, indices, nodes=10)
    assert (prediction.nodes, prediction.factor_entries, prediction.flops) == (0, 50, 0.0)
    assert plan_factor(matrix, budget_bytes=50 * 40, predict=True).factor_entries == 50


def test_draw_refuses_with_the_predicted_fill(monkeypatch) -> None:
    pytest.importorskip("sparse")
    graph = spdgraph.graphs.erdos_renyi(3_000, 8.0 / 3_000, seed=1, backend="scipy")
    precision = spdgraph.sample(graph, "dd", seed=1, sparse=True, kind="precision")
    monkeypatch.setattr(sparse_cholesky, "PREDICT_ABOVE_NODES", 1_000)
    monkeypatch.setattr(sparse_cholesky, "PREDICTION_NODES", 1_000)
    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", 1e4)
    with pytest.raises(TooLargeError, match="contracted minor of 1,000 nodes"):
        precision.spd.draw(5, seed=1)


@pytest.mark.slow
def test_a_million_node_erdos_renyi_factor_is_refused_on_its_minor() -> None:
    matrix = _erdos_renyi_precision(10**6, 5.0)
    with pytest.raises(TooLargeError, match="contracted minor of") as refused:
        plan_factor(matrix, budget_bytes=8 * 2**30)
    assert "floating-point operations" in str(refused.value)


@settings(max_examples=40, deadline=None)
@given(random_graphs(), st.integers(0, 8))
def test_cvxopt_matrices_are_built_the_same_with_long_columns_transposed(matrix, long) -> None:
    """A star's centre column went in as a column in quadratic time (23 s at 300,000)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(cholmod, "LONG_COLUMN", long)
        built = cholmod.lower_spmatrix(matrix)
    expected = scipy.sparse.tril(matrix, format="csc")
    expected.sort_indices()
    colptr, rowind, values = (np.asarray(x).ravel() for x in built.CCS)
    assert colptr.tolist() == expected.indptr.tolist()
    assert rowind.tolist() == expected.indices.tolist()
    assert values.tolist() == expected.data.tolist()  # the same bits
