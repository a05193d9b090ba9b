"""The fast certificate (spdgraph._kernels.certify) and the compiled unit-diagonal rescaling.

``certifies`` may say True only where the detailed checks (find_violation) pass;
each kind of defect must make it say False. The compiled rescaling must give
the NumPy expression's bits.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels import scaling
from spdgraph._kernels.certify import certifies
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation, unit_diagonal


def _sampled(p: int, d: float, n: int, seed: int, method: str = "po"):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((p, p)) < d, 1)
    adjacency = upper | upper.T
    x = spdgraph.sample(adjacency, method=method, size=n, seed=seed, normalize=False)
    return np.ascontiguousarray(x.values), adjacency


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(1, 40),
    d=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31),
    method=st.sampled_from(["po", "dd"]),
)
def test_sampled_stacks_are_certified_and_agree(p: int, d: float, seed: int, method: str) -> None:
    stack, adjacency = _sampled(p, d, 3, seed, method)
    kw = {"check_pd": True, "condition_bound": MAX_SCALED_CONDITION}
    assert certifies(stack, adjacency, **kw)
    assert find_violation(stack, adjacency, **kw) is None
    normalized = unit_diagonal(stack.copy())
    assert certifies(normalized, adjacency, unit=True, **kw)


@pytest.mark.parametrize(
    "defect",
    ["nan", "inf", "asymmetric", "nonedge", "unit", "small_diagonal", "not_pd", "singular"],
)
def test_each_defect_is_refused(defect: str) -> None:
    stack, adjacency = _sampled(12, 0.3, 4, 7)
    stack = unit_diagonal(stack)
    i, j = np.argwhere(~adjacency & ~np.eye(12, dtype=bool))[0]
    k = 2
    unit = defect == "unit"
    if defect == "nan":
        stack[k, 3, 3] = np.nan
    elif defect == "inf":
        stack[k, i, j] = stack[k, j, i] = np.inf
    elif defect == "asymmetric":
        e, f = np.argwhere(adjacency)[0]
        stack[k, e, f] += 1e-16 * max(1.0, abs(stack[k, e, f])) + 1e-300
    elif defect == "nonedge":
        stack[k, i, j] = stack[k, j, i] = 1e-300
    elif defect == "unit":
        stack[k, 0, 0] = np.nextafter(1.0, 2.0)
    elif defect == "small_diagonal":
        stack[k, 5, :] = stack[k, :, 5] = 0.0
        stack[k, 5, 5] = 1e-310
    elif defect == "not_pd":  # unit diagonal, the graph's zeros, a negative eigenvalue
        stack[k] = np.eye(12) - 0.9 * adjacency
        assert np.linalg.eigvalsh(stack[k])[0] < 0
    elif defect == "singular":  # PD in exact terms but scaled condition ~1e14
        e, f = np.argwhere(adjacency)[0]
        stack[k] = np.eye(12)
        stack[k, e, f] = stack[k, f, e] = 1.0 - 1e-14
    kw = {"check_pd": True, "condition_bound": MAX_SCALED_CONDITION, "unit": unit}
    assert not certifies(stack, adjacency, **kw)
    assert find_violation(stack, adjacency, **kw) is not None
    assert certifies(np.delete(stack, k, axis=0), adjacency, **kw)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e308])
@pytest.mark.parametrize("where", ["edge", "nonedge"])
def test_a_known_pattern_still_refuses_non_finite_entries(value: float, where: str) -> None:
    """``pattern_known`` skips the pattern pass: a non-finite (or overflowing) symmetric
    entry must still fail, through the dominance test and the factorization."""
    stack, adjacency = _sampled(12, 0.3, 3, 5)
    stack = unit_diagonal(stack)
    kw = {"check_pd": True, "condition_bound": MAX_SCALED_CONDITION, "pattern_known": True}
    assert certifies(stack, adjacency, **kw)
    mask = adjacency if where == "edge" else ~adjacency & ~np.eye(12, dtype=bool)
    i, j = np.argwhere(np.triu(mask, 1))[0]
    stack[1, i, j] = stack[1, j, i] = value
    assert not certifies(stack, adjacency, **kw)
    assert find_violation(stack, adjacency, check_pd=True) is not None


@settings(max_examples=40, deadline=None)
@given(
    p=st.integers(1, 30), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31), spread=st.floats(0, 6)
)
def test_majorant_bounds_the_scaled_condition_number(p, d, seed, spread) -> None:
    """The fast path's cheap bound is at least the exact scaled 1-norm condition number
    (so a matrix it lets through would pass the estimator too)."""
    from spdgraph._kernels.certify import _cholesky_into, _majorant_condition

    stack, _ = _sampled(p, d, 1, seed)
    scale = 10.0 ** np.random.default_rng(seed).uniform(-spread, spread, p)
    m = stack[0] * np.outer(scale, scale)
    lower = np.empty((p, p))
    assert _cholesky_into(m, lower)
    h = unit_diagonal(m)
    exact = np.abs(h).sum(axis=0).max() * np.abs(np.linalg.inv(h)).sum(axis=0).max()
    assert _majorant_condition(m, lower, np.empty((2, p))) >= exact * (1 - 1e-9)


def test_stacks_it_does_not_take() -> None:
    stack, adjacency = _sampled(6, 0.5, 2, 1)
    assert not certifies(stack.astype(np.float32), adjacency)
    assert not certifies(np.asfortranarray(stack), adjacency)
    assert not certifies(stack, adjacency.astype(np.int8))
    assert not certifies(stack[:, :5, :5], adjacency)


@settings(max_examples=30, deadline=None)
@given(p=st.integers(1, 30), n=st.integers(1, 5), seed=st.integers(0, 2**31))
def test_compiled_rescaling_has_numpys_bits(p: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, p, p))
    m = a @ a.transpose(0, 2, 1) + np.eye(p) * rng.uniform(1e-3, 1e3)
    d = 1.0 / np.sqrt(np.diagonal(m, axis1=-2, axis2=-1))
    expected = m * (d[:, :, None] * d[:, None, :])
    expected[:, np.arange(p), np.arange(p)] = 1.0
    out = np.empty_like(m)
    assert scaling.unit_diagonal_stack(m, out)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(unit_diagonal(m), expected)
    in_place = m.copy()
    unit_diagonal(in_place, out=in_place)
    np.testing.assert_array_equal(in_place, expected)
    np.testing.assert_array_equal(unit_diagonal(m[0]), expected[0])  # one matrix


def test_rescaling_of_views_takes_numpy() -> None:
    m = np.tile(np.array([[4.0, 2.0], [2.0, 9.0]]), (3, 1, 1))
    view = m[::2]  # not contiguous: the NumPy path, same result
    np.testing.assert_array_equal(unit_diagonal(view)[0], unit_diagonal(m[0]))
    assert not scaling.unit_diagonal_stack(view, np.empty_like(view))
