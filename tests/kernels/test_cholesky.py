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
