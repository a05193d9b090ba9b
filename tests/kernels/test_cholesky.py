"""The blocked two-thread Cholesky of the large-matrix checks (spdgraph._kernels.cholesky)."""

import numpy as np
import pytest

from spdgraph._kernels import cholesky as chol
from spdgraph._kernels.blas import one_blas_thread


def _spd(p, rng, shift=1e-2):
    a = rng.standard_normal((p, p))
    m = a @ a.T / p + shift * np.eye(p)
    return (m + m.T) / 2


@pytest.mark.parametrize("p", [1, 5, chol.PANEL, chol.PANEL + 1, 3 * chol.PANEL + 17])
def test_factor_matches_numpy(p):
    m = _spd(p, np.random.default_rng(p))
    with one_blas_thread():
        upper = chol.cholesky_upper(m, threads=2)
    assert upper is not None
    np.testing.assert_allclose(np.triu(upper), np.linalg.cholesky(m).T, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(np.tril(upper, -1), np.tril(m, -1))  # the input's, as documented


def test_bits_do_not_depend_on_threads():
    m = _spd(900, np.random.default_rng(1))
    with one_blas_thread():
        one = chol.cholesky_upper(m, threads=1)
        two = chol.cholesky_upper(m, threads=2)
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("where", [3, chol.PANEL + 40, 700])
def test_not_positive_definite_in_any_panel_is_none(where):
    p = 720
    m = _spd(p, np.random.default_rng(where))
    # make the leading (where + 1) block singular-then-indefinite at row `where`
    v = np.linalg.cholesky(m)[where, :where]
    m[where, where] = float(v @ v) - 1.0
    with one_blas_thread():
        assert chol.cholesky_upper(m, threads=2) is None
    assert np.linalg.eigvalsh(m).min() < 0


def test_input_is_not_modified():
    m = _spd(600, np.random.default_rng(3))
    kept = m.copy()
    with one_blas_thread():
        chol.cholesky_upper(m, threads=2)
    np.testing.assert_array_equal(m, kept)


# --- the rounding bound of a completed factorization (the dense and sparse proofs) ----


@pytest.mark.parametrize("blocked", [False, True])
def test_the_rounding_bound_covers_the_exact_residual(blocked):
    """``||L L^T - A||_2 <= factor_rounding_bound`` (Higham Thm 10.5), residual in exact
    rational arithmetic: a theorem, checked on this machine's factor (any rounding)."""
    from fractions import Fraction

    from spdgraph._kernels.condition import factor_rounding_bound

    p = 24
    m = _spd(p, np.random.default_rng(7), shift=1e-6)
    if blocked:
        with one_blas_thread():
            lower = np.triu(chol.cholesky_upper(m)).T
    else:
        lower = np.linalg.cholesky(m)
    exact = [[Fraction(x) for x in row] for row in lower.tolist()]
    squares = Fraction(0)
    for i in range(p):
        for j in range(p):
            product = sum((exact[i][q] * exact[j][q] for q in range(min(i, j) + 1)), Fraction(0))
            squares += (product - Fraction(float(m[i, j]))) ** 2
    magnitudes = np.abs(lower)
    eta = factor_rounding_bound(magnitudes.sum(axis=0).max(), magnitudes.sum(axis=1).max(),
                                p + 1, p + 1)  # fmt: skip
    assert 0 < squares <= Fraction(eta) ** 2  # ||E||_2 <= ||E||_F <= eta


def test_the_dense_proof_bounds_a_known_smallest_eigenvalue_from_below():
    """An even cycle's adjacency + (2 + 4 t) I: lambda_min = m_00 - 2 (alternating vector)."""
    from spdgraph._kernels.cholesky_proof import dense_lower_bound

    for p, t in [(40, 1e-3), (300, 1e-6), (300, 1e-8)]:
        cycle = np.roll(np.eye(p), 1, axis=1)
        m = cycle + cycle.T + (2.0 + 4.0 * t) * np.eye(p)
        truth = m[0, 0] - 2.0  # lambda_min of the stored matrix, exactly (Sterbenz)
        shifted = dense_lower_bound(m)
        assert 0 < shifted <= truth
        assert 0 < dense_lower_bound(m, np.linalg.cholesky(m)) <= truth
        singular = cycle + cycle.T + 2.0 * np.eye(p)
        assert dense_lower_bound(singular) == 0.0
