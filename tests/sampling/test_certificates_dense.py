"""The dense path's Cholesky certificate is a proof (issue 54 item 1, dense path).

A floating-point Cholesky factorization that completes proves nothing by itself:
the matrices here are not positive definite (``C^T C - 2**-48 I`` with an integer
``C`` of one row fewer than columns: smallest eigenvalue exactly ``-2**-48``), yet
the textbook factorization in plain Python (IEEE arithmetic in a fixed order: the
same on every machine) runs through them. Before issue 54 the dense checks
accepted them wherever no condition bound was asked (``da.spd.check()``); now the
factorization passes a matrix only when its rounding bound is accounted
(:func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`), on every path.
"""

from __future__ import annotations

import types

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels.certify import certifies, factor_lower_bound
from spdgraph._kernels.cholesky_proof import dense_lower_bound, proven_lower_bounds
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph.errors import MatrixError, UncertifiedMatrixError

from .test_certificates_adversarial import planted

pytest.importorskip("sparse")

#: The shift below the singular Gram matrix: lambda_min = -SHIFT exactly.
SHIFT = 2.0**-48


def textbook_cholesky_completes(m: np.ndarray) -> bool:
    """The slow, obviously-ordered Cholesky (column by column, left-to-right sums)."""
    p = m.shape[0]
    a = m.tolist()
    lower = [[0.0] * p for _ in range(p)]
    for j in range(p):
        row_j = lower[j]
        t = a[j][j]
        for q in range(j):
            t -= row_j[q] * row_j[q]
        if not t > 0:
            return False
        root = t**0.5
        row_j[j] = root
        for i in range(j + 1, p):
            row_i = lower[i]
            s = a[i][j]
            for q in range(j):
                s -= row_i[q] * row_j[q]
            row_i[j] = s / root
    return True


def not_pd(p: int, seed: int) -> np.ndarray:
    """``C^T C - 2**-48 I`` (exact: integers below 2**9), ``C`` ``(p - 1, p)`` in {-1, 0, 1}."""
    c = np.random.default_rng(seed).integers(-1, 2, size=(p - 1, p)).astype(np.float64)
    m = c.T @ c - SHIFT * np.eye(p)
    assert np.array_equal(m + SHIFT * np.eye(p), c.T @ c)  # every entry exact
    return m


#: (p, seed) where the textbook factorization completes (checked by the test itself).
COMPLETING = [(100, 0), (100, 2), (200, 0), (300, 3)]


def _adjacency(m: np.ndarray) -> np.ndarray:
    adjacency = m != 0
    np.fill_diagonal(adjacency, False)
    return adjacency


@pytest.mark.parametrize(("p", "seed"), COMPLETING)
def test_a_matrix_not_pd_whose_cholesky_completes_is_refused_by_every_dense_check(p, seed):
    m = not_pd(p, seed)
    assert textbook_cholesky_completes(m)  # the premise: a completed factorization
    adjacency = _adjacency(m)
    # no condition bound (what da.spd.check() asks): on main, a completed Cholesky passed
    found = find_violation(m, adjacency)
    assert found is not None and found.problem in ("not_pd", "not_proven")
    assert find_violation(m, adjacency, condition_bound=MAX_SCALED_CONDITION) is not None
    stack = np.ascontiguousarray(m[None])
    assert not certifies(stack, adjacency, check_pd=True, condition_bound=MAX_SCALED_CONDITION)
    assert dense_lower_bound(m) == 0.0
    try:  # numpy's factorization (this machine's rounding) may complete too: still refused
        assert dense_lower_bound(m, np.linalg.cholesky(m)) == 0.0
    except np.linalg.LinAlgError:
        pass
    assert proven_lower_bounds(m).tolist() == [0.0]
    dims = ("node", "node_2")
    da = xr.DataArray(m, dims=dims, coords={"adjacency": (dims, adjacency)}, name="covariance")
    with pytest.raises(MatrixError, match=r"not (proven )?positive definite"):
        da.spd.check()


def _register(matrix: np.ndarray, name: str) -> None:
    csr = scipy.sparse.csr_array(matrix)
    gen = spdgraph.Generator(
        name, lambda adjacency, **kw: matrix.copy(), "test",
        sparse_function=lambda adjacency, **kw: csr.copy(),
    )  # fmt: skip
    module = types.ModuleType(f"{name}-plugin")
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    spdgraph.get_plugin_manager().register(module, name=f"{name}-plugin")


def test_a_third_party_matrix_not_pd_is_refused_on_the_dense_path_saying_why():
    m = not_pd(*COMPLETING[0])
    graph = nx.from_numpy_array(_adjacency(m).astype(np.int64))
    _register(m, "toy-not-pd")
    try:
        with pytest.raises(
            UncertifiedMatrixError, match=r"not (proven )?positive definite|singular"
        ):
            spdgraph.sample(graph, "toy-not-pd", seed=1, normalize=False, max_redraws=1)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-not-pd-plugin")


@pytest.mark.parametrize("sparse", [False, True])
def test_uncertified_raise_names_the_option_and_the_alternative(sparse):
    b = np.array([[5.0, 2, -1], [2, 2, 2], [-1, 2, 5]])  # b @ [1, -2, 1] == 0
    _register(b, "toy-raise")
    try:
        with pytest.raises(UncertifiedMatrixError) as caught:
            spdgraph.sample(nx.complete_graph(3), "toy-raise", seed=1, sparse=sparse,
                            uncertified="raise")  # fmt: skip
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-raise-plugin")
    message = str(caught.value)
    assert "uncertified='raise'" in message
    assert "uncertified='redraw'" in message and "max_redraws" in message


@settings(
    max_examples=25, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(p=st.integers(20, 160), density=st.floats(0.05, 0.9), seed=st.integers(0, 2**16))
def test_dense_graphs_with_a_planted_null_vector_are_refused_and_a_shift_is_bounded(
    p, density, seed
):
    graph = nx.gnp_random_graph(p, density, seed=seed)
    graph.add_edges_from(nx.path_graph(p).edges)  # every node has an edge
    m = planted(graph, seed)  # singular: an exact integer null vector
    adjacency = _adjacency(m)
    assert find_violation(m, adjacency) is not None
    assert not certifies(np.ascontiguousarray(m[None]), adjacency, check_pd=True)
    assert dense_lower_bound(m) == 0.0
    try:
        assert dense_lower_bound(m, np.linalg.cholesky(m)) == 0.0
    except np.linalg.LinAlgError:
        pass
    shifted = m + 1e-2 * np.eye(p)  # positive definite: lambda_min = 1e-2 (rounded entries)
    truth = 1e-2 * (1 + 1e-9)
    assert 0 < dense_lower_bound(shifted) <= truth  # the shifted factorization
    factor = np.linalg.cholesky(shifted)
    from_factor = factor_lower_bound(shifted, factor, np.empty((3, p)))
    assert 0 <= from_factor <= truth  # 0: the majorant proves nothing (then shifted)
    assert 0 < dense_lower_bound(shifted, factor) <= truth
    assert find_violation(shifted, adjacency) is None


def test_check_shows_the_proven_lower_bound_on_dense_results():
    stack = spdgraph.sample(nx.cycle_graph(30), "dd", seed=3, size=2, kind="precision")
    del stack.attrs["certificate_lambda_min_lower_bound"]  # the sampler's: check() its own
    assert stack.spd.check() is stack
    bound = stack.attrs["certificate_lambda_min_lower_bound"]  # the smallest over the stack
    assert isinstance(bound, float)
    assert 0 < bound <= np.linalg.eigvalsh(stack.values)[:, 0].min()
    one = spdgraph.sample(nx.erdos_renyi_graph(80, 0.6, seed=1), seed=2)  # dense graph
    one.spd.check()
    assert 0 < one.attrs["certificate_lambda_min_lower_bound"] <= np.linalg.eigvalsh(one.values)[0]


def test_dense_po_matrices_the_majorant_cannot_prove_pass_by_the_shifted_factorization():
    stack = spdgraph.sample(nx.erdos_renyi_graph(100, 0.5, seed=1), "po", size=30, seed=1)
    values = np.ascontiguousarray(stack.values)
    adjacency = stack.adjacency.values
    assert certifies(values, adjacency, check_pd=True, condition_bound=MAX_SCALED_CONDITION)
    for m in values:  # where the factor's majorant is loose, the shifted proof holds
        truth = np.linalg.eigvalsh(m)[0]
        if factor_lower_bound(m, np.linalg.cholesky(m), np.empty((3, 100))) == 0.0:
            assert 0 < dense_lower_bound(m) <= truth
