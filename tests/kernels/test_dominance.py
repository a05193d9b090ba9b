"""Positive definiteness proved by weighted diagonal dominance (spdgraph._kernels.dominance)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph._kernels import dominance
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation, unit_diagonal


def _scaled_condition_1(m):
    """The exact 1-norm condition number of ``D^-1/2 M D^-1/2`` (dense inverse)."""
    d = 1.0 / np.sqrt(np.diag(m))
    h = m * d[:, None] * d[None, :]
    return np.linalg.norm(h, 1) * np.linalg.norm(np.linalg.inv(h), 1)


def _symmetric_on(adjacency, rng, diagonal):
    p = adjacency.shape[0]
    m = np.triu(rng.standard_normal((p, p)) * adjacency, 1)
    m = m + m.T
    m[np.diag_indices(p)] = diagonal
    return m


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(2, 40),
    density=st.floats(0.0, 1.0),
    scale=st.floats(0.05, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_proof_is_never_wrong(p, density, scale, seed):
    """Whatever it certifies is PD with a scaled condition number within the bound."""
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, density, rng)
    m = _symmetric_on(adjacency, rng, scale * (1.0 + rng.random(p)) * (1 + adjacency.sum(1)))
    bound = 1e6
    if dominance.proves_pd(m[None], adjacency, bound):
        assert np.linalg.eigvalsh(m)[0] > 0.0
        assert _scaled_condition_1(m) <= bound


@settings(max_examples=30, deadline=None)
@given(p=st.integers(2, 60), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_diagonally_dominant_matrices_are_proved_raw_and_normalized(p, density, seed):
    """``dd``'s rule (m_ii = sum_j |m_ij| + 2|eps_i|) is proved in both forms (s = sqrt(diag))."""
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, density, rng)
    m = _symmetric_on(adjacency, rng, 0.0)
    m[np.diag_indices(p)] = np.abs(m).sum(1) + 2.0 * np.abs(rng.standard_normal(p)) + 0.01
    assert dominance.proves_pd(m[None], adjacency, MAX_SCALED_CONDITION)
    assert dominance.proves_pd(unit_diagonal(m)[None], adjacency, MAX_SCALED_CONDITION)


def test_not_proved_is_not_a_verdict():
    adjacency = np.array([[False, True], [True, False]])
    singular = np.array([[[1.0, 1.0], [1.0, 1.0]]])
    assert not dominance.proves_pd(singular, adjacency, MAX_SCALED_CONDITION)
    assert find_violation(singular, adjacency).problem in {"not_pd", "ill_conditioned"}
    # PD but not an H-matrix: no weights exist, the Cholesky decides
    c = np.full((3, 3), 0.6) + 0.4 * np.eye(3)
    full = ~np.eye(3, dtype=bool)
    assert not dominance.proves_pd(c[None], full, MAX_SCALED_CONDITION)
    assert find_violation(c, full) is None
    # a condition bound the proof cannot reach: not proved (the estimate decides)
    near = np.array([[[1.0, 1 - 1e-9], [1 - 1e-9, 1.0]]])
    assert not dominance.proves_pd(near, adjacency, 1e6)
    assert find_violation(near, adjacency, condition_bound=1e6).problem == "ill_conditioned"


def test_a_stack_is_proved_only_whole():
    adjacency = np.array([[False, True], [True, False]])
    good = np.array([[2.0, 1.0], [1.0, 2.0]])
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert dominance.proves_pd(np.stack([good, good]), adjacency, MAX_SCALED_CONDITION)
    assert not dominance.proves_pd(np.stack([good, bad]), adjacency, MAX_SCALED_CONDITION)
    assert find_violation(np.stack([good, bad]), adjacency).k == 1


def test_dd_output_is_proved_without_cholesky(monkeypatch):
    """``dd`` samples never reach a Cholesky factorization; the guarantee is unchanged."""
    graph = spdgraph.graphs.erdos_renyi(300, 0.02, seed=1)

    def no_cholesky(*args, **kwargs):
        raise AssertionError("a Cholesky factorization ran")

    monkeypatch.setattr(np.linalg, "cholesky", no_cholesky)
    for normalize in (True, False):
        da = spdgraph.sample(graph, "dd", seed=3, size=3, normalize=normalize)
        assert np.all(np.linalg.eigvalsh(da.values)[:, 0] > 0)


@pytest.mark.parametrize("p", [2, 7])
def test_po_matrices_still_go_through_the_cholesky(p):
    """A proof, when found, agrees with the Cholesky; PO output is checked either way."""
    da = spdgraph.sample(np.ones((p, p)) - np.eye(p), "po", seed=1, size=4)
    adjacency = ~np.eye(p, dtype=bool)
    if dominance.proves_pd(da.values, adjacency, MAX_SCALED_CONDITION):
        assert np.all(np.linalg.eigvalsh(da.values)[:, 0] > 0)
    assert find_violation(da.values, adjacency, condition_bound=MAX_SCALED_CONDITION) is None
