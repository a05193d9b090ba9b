"""huge with sparse=True: lambda_min by shift-invert Lanczos equals the dense path's (issue 46).

The reference is the dense path itself (``spdgraph.sample(..., sparse=False)``,
whose ``lambda_min`` is LAPACK's ``eigvalsh`` of the dense ``v A``) or, beyond
its reach, the closed form of a lattice's smallest eigenvalue.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
import spdgraph.graphs as families
from spdgraph._kernels import sparse_eigen
from spdgraph._kernels.blas import one_blas_thread
from spdgraph.plugins._builtin import gen_huge

pytest.importorskip("sparse")
pytest.importorskip("cvxopt")

KW = {"kind": "precision", "unit_variance": False, "normalize": False}


def _random_tree(p: int, seed: int) -> scipy.sparse.csr_array:
    """Each node after the first joined to an earlier one chosen at random."""
    parent = np.random.default_rng(seed).integers(0, np.arange(1, p))
    rows = np.arange(1, p)
    ones = np.ones(p - 1, dtype=np.int8)
    half = scipy.sparse.coo_array((ones, (rows, parent)), shape=(p, p))
    return scipy.sparse.csr_array(half + half.T)


def _family(name: str, p: int, seed: int) -> scipy.sparse.csr_array:
    """A graph of the family ``name`` on ``p`` nodes, as a scipy CSR adjacency."""
    if name == "band":
        return families.band(p, 1 + seed % 3, backend="scipy")
    if name == "lattice":
        rows = max(1, int(np.sqrt(p)) - seed % 5)
        return families.lattice(p, (rows, p // rows), backend="scipy")
    if name == "circle":
        return families.circle(p, backend="scipy")
    if name == "erdos_renyi":
        return families.erdos_renyi(p, 4.0 / p, seed=seed, backend="scipy")
    if name == "scale_free":
        return families.scale_free(p, seed=seed, backend="scipy")
    if name == "small_world":
        return families.small_world(p, seed=seed, backend="scipy")
    if name == "cluster":
        return families.cluster(p, seed=seed, backend="scipy")
    if name == "hub":
        return families.hub(p, backend="scipy")
    if name == "tree":
        return _random_tree(p, seed)
    raise AssertionError(name)


NAMES = [
    "band", "lattice", "circle", "erdos_renyi", "scale_free", "small_world", "cluster",
    "hub", "tree",
]  # fmt: skip


@st.composite
def large_graphs(draw: st.DrawFn, low: int = 500, high: int = 1500) -> scipy.sparse.csr_array:
    """A family's graph, maybe beside another one (disconnected), maybe with isolated nodes."""
    p = draw(st.integers(low, high))
    seed = draw(st.integers(0, 2**16))
    first = _family(draw(st.sampled_from(NAMES)), p, seed)
    blocks = [first]
    if draw(st.booleans()):  # a second component
        blocks.append(_family(draw(st.sampled_from(NAMES)), draw(st.integers(20, 300)), seed + 1))
    isolated = draw(st.sampled_from([0, 0, 1, 17]))
    if isolated:
        blocks.append(scipy.sparse.csr_array((isolated, isolated), dtype=np.int8))
    adjacency = scipy.sparse.csr_array(scipy.sparse.block_diag(blocks, format="csr"))
    order = np.random.default_rng(seed).permutation(adjacency.shape[0])  # mix the components
    return scipy.sparse.csr_array(adjacency[order][:, order])


def _dense_lambda_min(adjacency: scipy.sparse.csr_array, v: float = 0.3) -> float:
    with one_blas_thread():  # as the dense path: its bits
        return float(np.linalg.eigvalsh(np.where(adjacency.toarray() != 0, v, 0.0))[0])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(large_graphs())
def test_sparse_huge_equals_the_dense_path_above_the_dense_eigensolver(adjacency) -> None:
    dense = spdgraph.sample(adjacency.toarray() != 0, "huge", seed=1, **KW).values
    s = spdgraph.sample(adjacency, "huge", seed=1, sparse=True, **KW)
    assert s.attrs["lambda_min_method"].startswith("shift-invert Lanczos")
    assert "to 1e-14 relative" in s.attrs["lambda_min_method"]
    values = np.asarray(s.data.todense())
    assert np.abs(values - dense).max() <= 1e-10 * np.abs(dense).max()
    # the diagonal itself (|lambda_min| + 0.2): the value the eigensolver decides
    assert abs(values[0, 0] - dense[0, 0]) <= 1e-12 * dense[0, 0]
    lmin = _dense_lambda_min(adjacency)
    assert abs(s.attrs["lambda_min"] - lmin) <= 1e-12 * abs(lmin)
    # proven below lambda_min, and not vacuous
    bound = s.attrs["lambda_min_lower_bound"]
    assert bound < lmin and lmin - bound <= 1e-6 * abs(lmin)


@pytest.mark.parametrize("bandwidth", [1, 2, 3])
def test_clustered_bottom_spectra_of_bands(bandwidth: int) -> None:
    # gaps of order 1 / p**2 at the bottom: a Ritz value can sit near another
    # eigenvalue with a small residual (band(2000, 2) did, 6e-10 above lambda_min)
    adjacency = families.band(2000, bandwidth, backend="scipy")
    weighted = scipy.sparse.csr_array(adjacency, dtype=np.float64) * 0.3
    found = sparse_eigen.smallest_adjacency_eigenvalue(weighted)
    lmin = _dense_lambda_min(adjacency)
    assert abs(found.value - lmin) <= 1e-13 * abs(lmin)
    assert found.lower_bound < lmin and lmin - found.lower_bound <= 1e-9 * abs(lmin)


@pytest.mark.parametrize("v", [0.3, -0.7, 2.5])
def test_the_eigenvalue_and_its_bound_for_other_edge_values(v: float) -> None:
    adjacency = families.small_world(800, seed=3, backend="scipy")
    weighted = scipy.sparse.csr_array(adjacency, dtype=np.float64) * v
    found = sparse_eigen.smallest_adjacency_eigenvalue(weighted)
    lmin = _dense_lambda_min(adjacency, v)
    assert abs(found.value - lmin) <= 1e-13 * abs(lmin)
    assert found.lower_bound is not None and found.lower_bound < lmin


@pytest.mark.parametrize("side", [150, 317])
def test_lattice_lambda_min_equals_its_closed_form_beyond_the_dense_path(side: int) -> None:
    # lambda_min of a side x side grid: twice a path's, 2 cos(pi side / (side + 1))
    adjacency = families.lattice(side * side, (side, side), backend="scipy")
    assert adjacency.shape == (side * side, side * side) and adjacency.nnz == 4 * side * (side - 1)
    found = sparse_eigen.smallest_adjacency_eigenvalue(scipy.sparse.csr_array(adjacency * 0.3))
    exact = 0.3 * 4 * np.cos(np.pi * side / (side + 1))
    assert abs(found.value - exact) <= 1e-13 * abs(exact)
    assert found.lower_bound < exact * (1 + 1e-15)  # the closed form's own rounding


def test_the_cholesky_rounding_bound_against_a_dense_reference() -> None:
    # a matrix whose shift sits just below lambda_min: the bound must stay below it
    from spdgraph._kernels.sparse_cholesky import SparseFactor, plan_factor

    adjacency = _random_tree(400, 5)
    weighted = scipy.sparse.csr_array(adjacency, dtype=np.float64) * 0.3
    lmin = _dense_lambda_min(adjacency)
    for gap in (1e-3, 1e-8, 1e-12):
        shift = lmin - gap * abs(lmin)
        shifted = scipy.sparse.csr_array(weighted - shift * scipy.sparse.eye_array(400))
        factor = SparseFactor(shifted, plan_factor(shifted, budget_bytes=None))
        rhs = np.random.default_rng(0).standard_normal(400)
        assert np.allclose(shifted @ factor.solve(rhs), rhs, rtol=0, atol=1e-6 / gap)
        bound = sparse_eigen.cholesky_shift_lower_bound(factor, shift)  # consumes the factor
        assert bound < shift < lmin
        # the rounding allowance is a few units of roundoff of ||v A||, not more
        assert shift - bound <= 1e-12


def test_without_cvxopt_lambda_min_comes_from_lobpcg(monkeypatch) -> None:
    # an even cycle: lambda_min(0.3 A) = -0.6; bipartite, so its certificate needs no cvxopt
    p = 600
    adjacency = families.circle(p, backend="scipy")
    monkeypatch.setitem(sys.modules, "cvxopt", None)  # import cvxopt raises ImportError
    s = spdgraph.sample(adjacency, "huge", seed=1, sparse=True, **KW)
    method = s.attrs["lambda_min_method"]
    assert method.startswith("LOBPCG") and "spdgraph[large]" in method
    assert "lambda_min_lower_bound" not in s.attrs
    lmin = s.attrs["lambda_min"]
    assert -0.6 <= lmin <= -0.6 * (1 - 1e-3)  # a Ritz value: above lambda_min, close to it
    expected = np.where(adjacency.toarray() != 0, 0.3, 0.0) + np.eye(p) * (abs(lmin) + 0.1 + 0.1)
    assert np.asarray(s.data.todense()).tobytes() == expected.tobytes()  # huge's rule


def test_a_factor_that_would_not_fit_falls_back_to_lobpcg(monkeypatch) -> None:
    monkeypatch.setattr(gen_huge, "_factor_budget", lambda: 0)
    adjacency = families.circle(600, backend="scipy")
    s = spdgraph.sample(adjacency, "huge", seed=1, sparse=True, **KW)
    assert s.attrs["lambda_min_method"].startswith("LOBPCG")
    assert "would be too large" in s.attrs["lambda_min_method"]
    assert "lambda_min_lower_bound" not in s.attrs
    assert -0.6 <= s.attrs["lambda_min"] <= -0.6 * (1 - 1e-3)


def test_out_of_steps_says_not_converged_and_keeps_its_bounds(monkeypatch) -> None:
    # one Lanczos run allowed: the value is a Ritz value (above lambda_min), still bracketed
    monkeypatch.setattr(sparse_eigen, "MAX_LANCZOS_STEPS", sparse_eigen.LANCZOS_STEPS)
    adjacency = families.band(1200, 2, backend="scipy")
    weighted = scipy.sparse.csr_array(adjacency, dtype=np.float64) * 0.3
    found = sparse_eigen.smallest_adjacency_eigenvalue(weighted)
    lmin = _dense_lambda_min(adjacency)
    assert found.method.endswith("not converged")
    assert found.lower_bound < lmin <= found.value * (1 - 1e-15)
    assert found.value - lmin <= 1e-3 * abs(lmin)  # LOBPCG's estimate or better


def test_a_failed_last_check_refactorizes_the_last_completed_shift(monkeypatch) -> None:
    # the third factorization (the check below the converged value) fails and is the
    # last allowed: the bound comes from the shift below it, factorized again
    from spdgraph._kernels import sparse_cholesky
    from spdgraph.errors import NumericalError

    calls = []

    class Flaky(sparse_cholesky.SparseFactor):
        def __init__(self, *args, **kwargs) -> None:
            calls.append(len(calls) + 1)
            if len(calls) == 3:
                raise NumericalError("a failure forced by the test")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sparse_cholesky, "SparseFactor", Flaky)
    monkeypatch.setattr(sparse_eigen, "MAX_SHIFTS", 3)
    adjacency = families.band(1500, 2, backend="scipy")
    weighted = scipy.sparse.csr_array(adjacency, dtype=np.float64) * 0.3
    found = sparse_eigen.smallest_adjacency_eigenvalue(weighted)
    lmin = _dense_lambda_min(adjacency)
    assert calls == [1, 2, 3, 4] and found.method.endswith("not converged")
    assert "1 not positive definite" in found.method
    assert found.lower_bound < lmin and abs(found.value - lmin) <= 1e-9 * abs(lmin)


def test_a_graph_without_edges_and_below_the_dense_threshold() -> None:
    empty = scipy.sparse.csr_array((700, 700), dtype=np.float64)
    found = sparse_eigen.smallest_adjacency_eigenvalue(empty)
    assert (found.value, found.lower_bound) == (0.0, 0.0)
    small = scipy.sparse.csr_array(families.band(300, 2, backend="scipy"), dtype=np.float64) * 0.3
    found = sparse_eigen.smallest_adjacency_eigenvalue(small)
    assert found.method == "dense eigvalsh" and found.lower_bound is None
    assert found.value == _dense_lambda_min(families.band(300, 2, backend="scipy"))  # bits


def test_the_same_value_on_every_run() -> None:
    weighted = scipy.sparse.csr_array(families.erdos_renyi(900, 5 / 900, seed=4, backend="scipy"))
    first = sparse_eigen.smallest_adjacency_eigenvalue(weighted * 0.3)
    again = sparse_eigen.smallest_adjacency_eigenvalue(weighted * 0.3)
    assert first == again


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(large_graphs(low=1500, high=4000))
def test_sparse_huge_equals_the_dense_path_on_larger_graphs(adjacency) -> None:
    dense = spdgraph.sample(adjacency.toarray() != 0, "huge", seed=1, **KW).values
    s = spdgraph.sample(adjacency, "huge", seed=1, sparse=True, **KW)
    values = np.asarray(s.data.todense())
    assert np.abs(values - dense).max() <= 1e-10 * np.abs(dense).max()
    assert s.attrs["lambda_min_lower_bound"] < _dense_lambda_min(adjacency)


@pytest.mark.slow
def test_band_of_a_hundred_thousand_nodes_converges_with_a_bound() -> None:
    p = 100_000
    weighted = scipy.sparse.csr_array(families.band(p, 2, backend="scipy"), dtype=np.float64)
    found = sparse_eigen.smallest_adjacency_eigenvalue(weighted * 0.3)
    assert "to 1e-14 relative" in found.method
    # the symbol 2 cos t + 2 cos 2t has its minimum -2.25 inside: lambda_min -> -0.675
    assert -0.675 < found.lower_bound < found.value < -0.675 * (1 - 1e-8)
