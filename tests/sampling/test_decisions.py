"""Refusals decided by explicit bounds (the same verdict on every machine), PD proven on
the final form, and generators run with BLAS held at one thread (issue: same numbers on
every machine)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import spdgraph
from spdgraph._kernels.condition import (
    scaled_condition_estimate_upper,
    scaled_condition_estimates,
)
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph.errors import GeneratorOutputError, InvalidOptionError, NumericalError
from spdgraph.spectrum import MAX_CONDITION_TARGET


def _register(name, make_matrix):
    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            def generate(adjacency, *, rng, entries):
                return make_matrix(adjacency.shape[0])

            return [spdgraph.Generator(name, generate, "test generator")]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name=f"{name}-plugin")
    return pm, f"{name}-plugin"


def _two_by_two(off):
    return lambda p: np.array([[1.0, off], [off, 1.0]])


@pytest.mark.parametrize(
    ("off", "accepted"),
    [
        (1.0 - 1e-6, True),  # scaled condition 2e6: far below the bound
        (1.0 - 1e-10, True),  # 2e10
        (1.0 - 1e-14, False),  # 2e14: Cholesky succeeds here, the bound refuses it
        (1.0 - 1e-15, False),  # 2e15
    ],
)
@pytest.mark.parametrize("normalize", [True, False])
def test_numerical_singularity_is_decided_by_the_bound(off, accepted, normalize):
    pm, name = _register("test-near-singular", _two_by_two(off))
    try:
        if accepted:
            spdgraph.sample(nx.path_graph(2), "test-near-singular", seed=0, normalize=normalize)
        else:
            with pytest.raises(GeneratorOutputError, match="numerically singular"):
                spdgraph.sample(
                    nx.path_graph(2), "test-near-singular", seed=0, normalize=normalize
                )
    finally:
        pm.unregister(name=name)


@pytest.mark.parametrize("diagonal", [1e-310, 0.0, -1.0, 5e-324])
def test_subnormal_zero_or_negative_diagonals_are_refused(diagonal):
    pm, name = _register("test-tiny", lambda p: diagonal * np.eye(p))
    try:
        with pytest.raises(GeneratorOutputError, match="diagonal entry"):
            spdgraph.sample(nx.path_graph(2), "test-tiny", seed=0)
    finally:
        pm.unregister(name=name)


def test_normal_tiny_diagonals_normalize_exactly():
    pm, name = _register("test-small", lambda p: 1e-300 * np.eye(p))
    try:
        da = spdgraph.sample(nx.empty_graph(3), "test-small", seed=0)
        np.testing.assert_array_equal(da.values, np.eye(3))
    finally:
        pm.unregister(name=name)


def test_dense_dags_are_refused_whatever_the_rounding():
    # both far above the bound (scaled condition ~1e17): Cholesky fails on some CPUs and
    # not on others, the verdict is the same
    complete = spdgraph.DAG(np.triu(np.ones((100, 100)), 1))
    # after max_redraws redraws: an UncertifiedMatrixError naming the last failure
    with pytest.raises(spdgraph.UncertifiedMatrixError, match="sparser DAG or smaller weights"):
        spdgraph.sample(complete, "dag", seed=0, kind="precision")
    dense = nx.DiGraph([(i, j) for i in range(60) for j in range(i + 1, 60)])
    with pytest.raises(spdgraph.UncertifiedMatrixError, match=r"scaled condition number|Cholesky"):
        spdgraph.sample(dense, "dag", seed=7, kind="precision")
    # small weights: clearly on the other side, and PD in the returned (normalized) form
    small = spdgraph.sample(
        dense, "dag", seed=7, kind="precision", entries=lambda rng, s: rng.uniform(-0.1, 0.1, s)
    )
    np.linalg.cholesky(small.values)


def test_condition_targets_above_the_bound_are_refused_before_work():
    with pytest.raises(InvalidOptionError, match="smaller condition_number"):
        spdgraph.sample(nx.path_graph(5), seed=1, condition_number=MAX_CONDITION_TARGET * 10)
    da = spdgraph.sample(nx.path_graph(5), seed=1, condition_number=MAX_CONDITION_TARGET / 10)
    assert da.attrs["condition_number"] == pytest.approx(MAX_CONDITION_TARGET / 10, rel=1e-8)


def test_minimum_eigenvalue_targets_too_small_are_numerical_errors():
    with pytest.raises(NumericalError, match="larger min_eigenvalue"):
        spdgraph.sample(nx.cycle_graph(8), seed=1, min_eigenvalue=1e-9)


@pytest.mark.parametrize("p", [1, 2, 7, 40])
def test_condition_estimate_against_numpy(p):
    rng = np.random.default_rng(p)
    a = rng.normal(size=(3, p, p))
    m = a @ a.swapaxes(-1, -2) + 1e-2 * np.eye(p)
    d = np.sqrt(np.diagonal(m, axis1=-2, axis2=-1))
    h = m / (d[:, :, None] * d[:, None, :])
    exact = np.linalg.cond(h, 1)
    estimate = scaled_condition_estimates(m, np.linalg.cholesky(m))
    # a lower bound, almost always within a factor 3 (exact on these)
    assert np.all(estimate <= exact * (1 + 1e-8)) and np.all(estimate >= exact / 3)
    # invariant under a positive diagonal rescaling
    s = rng.uniform(0.1, 10.0, size=(3, p))
    scaled = m * s[:, :, None] * s[:, None, :]
    np.testing.assert_allclose(
        scaled_condition_estimates(scaled, np.linalg.cholesky(scaled)), estimate, rtol=1e-6
    )


@pytest.mark.parametrize("p", [1, 2, 7, 40, 300])
def test_condition_estimate_from_the_upper_storage_is_the_same(p):
    """The large-matrix check reads dpotrf's Fortran factor as U = L^T in place."""
    from scipy.linalg import lapack

    rng = np.random.default_rng(p + 100)
    a = rng.normal(size=(p, p))
    m = a @ a.T + 1e-3 * np.eye(p)
    m = (m + m.T) / 2
    factor, info = lapack.dpotrf(m.T, lower=1, clean=0)  # Fortran order, upper part garbage
    assert info == 0 and factor.flags.f_contiguous
    upper = factor.T
    assert upper.flags.c_contiguous  # no copy on the way in
    lower_estimate = scaled_condition_estimates(m[None], np.tril(factor)[None])[0]
    assert scaled_condition_estimate_upper(m, upper) == pytest.approx(lower_estimate, rel=1e-10)


def test_find_violation_names_ill_conditioned_matrices():
    m = np.array([[1.0, 1.0 - 1e-14], [1.0 - 1e-14, 1.0]])
    ones = np.ones((2, 2), dtype=bool)
    assert find_violation(m, ones) is None  # Cholesky alone accepts it
    found = find_violation(m, ones, condition_bound=MAX_SCALED_CONDITION)
    assert found is not None and found.problem == "ill_conditioned"
    assert "numerically singular" in found.describe()


def _gwishart_or_skip():
    if "gwishart" not in spdgraph.methods():
        pytest.skip("the spdgraph-gwishart plugin is not installed")


def test_every_generator_runs_with_one_blas_thread():
    """A plugin's generator sees one BLAS thread whatever the user's settings."""
    seen = []

    def spy(p):
        from threadpoolctl import threadpool_info

        seen.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"])
        return np.eye(p)

    pm, name = _register("test-spy", spy)
    try:
        with threadpool_limits(limits=2, user_api="blas"):
            spdgraph.sample(nx.path_graph(3), "test-spy", seed=0, size=2)
    finally:
        pm.unregister(name=name)
    assert seen and all(all(n == 1 for n in threads) for threads in seen)


def test_gwishart_bits_do_not_depend_on_blas_threads():
    _gwishart_or_skip()
    g = nx.random_labeled_tree(33, seed=1)
    kw = {"kind": "precision", "normalize": False, "size": 4, "seed": 7}
    with threadpool_limits(limits=1, user_api="blas"):
        one = spdgraph.sample(g, "gwishart", **kw).values
    with threadpool_limits(limits=2, user_api="blas"):
        two = spdgraph.sample(g, "gwishart", **kw).values
    assert one.tobytes() == two.tobytes()
