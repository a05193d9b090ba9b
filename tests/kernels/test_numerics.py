"""The numerics layer against slow, obviously correct references (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spdgraph._kernels import numerics as num


@st.composite
def spd_stacks(draw, max_p=8, max_n=3):
    p = draw(st.integers(1, max_p))
    n = draw(st.integers(1, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((p, p)) < draw(st.floats(0.0, 1.0)), 1)
    adjacency = upper | upper.T
    stack = np.empty((n, p, p))
    for k in range(n):
        a = rng.standard_normal((p, p)) * adjacency
        a = (a + a.T) / 2
        shift = max(0.0, -np.linalg.eigvalsh(a)[0]) + rng.uniform(0.1, 2.0)
        stack[k] = a + shift * np.eye(p)
    return stack, adjacency


def link_strength_reference(m, adjacency):
    best = 0.0
    p = m.shape[0]
    for i in range(p):
        for j in range(i + 1, p):
            if adjacency[i, j]:
                best = max(best, abs(m[i, j]) / m[i, i])
    return best


@settings(max_examples=60, deadline=None)
@given(spd_stacks())
def test_link_strength_matches_the_loop(case):
    stack, adjacency = case
    got = num.link_strength(stack, adjacency)
    assert got.shape == (stack.shape[0],)
    for k in range(stack.shape[0]):
        assert got[k] == link_strength_reference(stack[k], adjacency)
        assert num.link_strength(stack[k], adjacency) == got[k]


@settings(max_examples=60, deadline=None)
@given(spd_stacks())
def test_partial_correlation_and_inverse(case):
    stack, _ = case
    inv = num.cholesky_inverse(stack)
    for k in range(stack.shape[0]):
        np.testing.assert_allclose(inv[k], np.linalg.inv(stack[k]), rtol=1e-9, atol=1e-12)
    assert np.array_equal(inv, np.swapaxes(inv, -1, -2))  # exactly symmetric
    pcor = num.partial_correlation(stack)
    for k in range(stack.shape[0]):
        m = stack[k]
        d = np.sqrt(np.diag(m))
        expected = -m / np.outer(d, d)
        np.fill_diagonal(expected, 1.0)
        np.testing.assert_allclose(pcor[k], expected, rtol=1e-14, atol=1e-15)
    # exact zeros stay +0.0 and the diagonal is exactly 1
    zeros = stack == 0
    assert np.all(pcor[zeros] == 0) and not np.signbit(pcor[zeros]).any()
    assert np.all(np.diagonal(pcor, axis1=1, axis2=2) == 1.0)


@settings(max_examples=40, deadline=None)
@given(spd_stacks(max_n=1))
def test_gaussian_draws_have_the_right_covariance_both_ways(case):
    stack, _ = case
    sigma = stack[0]
    p = sigma.shape[0]
    z = np.random.default_rng(0).standard_normal((4, p))
    x_cov = num.gaussian_draws(z, np.linalg.cholesky(sigma), "covariance")
    np.testing.assert_allclose(x_cov, z @ np.linalg.cholesky(sigma).T)
    omega = np.linalg.inv(sigma)
    omega = (omega + omega.T) / 2
    x_prec = num.gaussian_draws(z, np.linalg.cholesky(omega), "precision")
    # x = L^{-T} z  <=>  L^T x = z
    np.testing.assert_allclose(x_prec @ np.linalg.cholesky(omega), z, atol=1e-8)


@settings(max_examples=60, deadline=None)
@given(spd_stacks())
def test_find_violation_accepts_valid_and_names_each_defect(case):
    stack, adjacency = case
    assert num.find_violation(stack, adjacency) is None
    n, p, _ = stack.shape
    k = n - 1
    broken = stack.copy()
    broken[k, 0, 0] = -1.0
    assert num.find_violation(broken, adjacency) == num.Violation("small_diagonal", k, 0, 0, -1.0)
    if p > 1:  # positive diagonal, not PD: [[1, 2], [2, 1]] in the leading block
        broken = stack.copy()
        scale = np.sqrt(broken[k, 0, 0] * broken[k, 1, 1])
        broken[k, 0, 1] = broken[k, 1, 0] = 2 * scale
        assert num.find_violation(broken, adjacency, structural=False) == num.Violation(
            "not_pd", k
        )
    nan = stack.copy()
    nan[k, -1, -1] = np.nan
    assert num.find_violation(nan, adjacency).problem == "nonfinite"
    nonedges = np.argwhere(num.nonedge_mask(adjacency))
    if len(nonedges):
        i, j = nonedges[0]
        filled = stack.copy()
        filled[k, i, j] = filled[k, j, i] = 1e-300
        v = num.find_violation(filled, adjacency)
        assert (v.problem, v.k, {v.i, v.j}) == ("nonzero", k, {int(i), int(j)})
        assert num.find_violation(filled, adjacency, structural=False) is None
    if p > 1:
        asym = stack.copy()
        asym[k, 0, 1] = np.nextafter(asym[k, 0, 1], np.inf)
        assert num.find_violation(asym, adjacency).problem == "asymmetric"


def test_unit_diagonal_rule_and_messages():
    adjacency = np.array([[False, True], [True, False]])
    m = np.array([[1.0, 0.2], [0.2, 1.5]])
    v = num.find_violation(m, adjacency, unit=True)
    assert v == num.Violation("diagonal", 0, 1, 1, 1.5)
    assert v.describe(["a", "b"]) == (
        "matrix 0 has diagonal entry 1.5 at node 'b'; it must be exactly 1."
    )
    assert num.find_violation(num.unit_diagonal(m), adjacency, unit=True) is None


def test_cholesky_errors_name_the_matrix():
    stack = np.stack([np.eye(2), -np.eye(2)])
    with pytest.raises(KeyError, match="item 1 is not positive definite"):
        num.cholesky_factors(stack, KeyError, "item")


def test_the_kernels_look_kinds_up_with_the_vocabulary():
    """One lookup of kind spellings: the kernels' name for it is the vocabulary's function."""
    from spdgraph import vocabulary

    assert num.canonical_kind is vocabulary.known_kind
    assert num.MATRIX_KIND_ALIASES is vocabulary.MATRIX_KIND_ALIASES


def test_find_violation_large_matrices_checked_one_by_one():
    """From p = 2048 on, PD is checked by ``dpotrf`` per matrix (one copy); same verdicts."""
    p = num._LARGE
    adjacency = np.zeros((p, p), dtype=bool)
    stack = np.stack([np.eye(p), np.eye(p)])
    assert num.find_violation(stack, adjacency) is None
    stack[1, 7, 7] = -1.0
    violation = num.find_violation(stack, adjacency)
    assert violation is not None and (violation.problem, violation.k) == ("small_diagonal", 1)
    stack[1, 7, 7] = 1.0
    stack[1, 7, 8] = stack[1, 8, 7] = 2.0
    violation = num.find_violation(stack, ~adjacency)
    assert violation is not None and (violation.problem, violation.k) == ("not_pd", 1)
    stack[1, 7, 8] = stack[1, 8, 7] = 1.0 - 1e-14  # Cholesky passes, the bound refuses
    violation = num.find_violation(stack, ~adjacency, condition_bound=num.MAX_SCALED_CONDITION)
    assert violation is not None and (violation.problem, violation.k) == ("ill_conditioned", 1)


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(1, 140),
    n=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    defect=st.sampled_from(["none", "nan", "inf", "asym", "nonzero", "several"]),
    structural=st.booleans(),
)
def test_compiled_pattern_checks_find_the_masks_first_violation(p, n, seed, defect, structural):
    """The large-matrix path (compiled passes, no masks) names the same first violation."""
    rng = np.random.default_rng(seed)
    adjacency = rng.random((p, p)) < 0.3
    adjacency = np.triu(adjacency, 1)
    adjacency = adjacency | adjacency.T
    stack = rng.standard_normal((n, p, p))
    stack = stack + np.swapaxes(stack, 1, 2)
    stack[:, ~adjacency & ~np.eye(p, dtype=bool)] = 0.0
    for _ in range(3 if defect == "several" else 1):
        k, i, j = int(rng.integers(n)), int(rng.integers(p)), int(rng.integers(p))
        kind = rng.choice(["nan", "inf", "asym", "nonzero"]) if defect == "several" else defect
        if kind in ("nan", "inf"):
            stack[k, i, j] = np.nan if kind == "nan" else -np.inf
        elif kind == "asym" and i != j:
            stack[k, i, j] += 1.0
        elif kind == "nonzero" and i != j and not adjacency[i, j]:
            stack[k, i, j] = stack[k, j, i] = 0.5
    masked = num._masked_pattern_violation(stack, adjacency, structural=structural)
    compiled = num._compiled_pattern_violation(stack, adjacency, structural=structural)
    if masked is None or compiled is None:
        assert masked is compiled is None
    else:
        assert (masked.problem, masked.k, masked.i, masked.j) == (
            compiled.problem,
            compiled.k,
            compiled.i,
            compiled.j,
        )
        if masked.problem in ("asymmetric", "nonzero"):
            assert masked.value == compiled.value
