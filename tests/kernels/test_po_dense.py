"""The dense PO kernel (spdgraph._kernels.po.dense): the direct route on two cores.

The kernel runs for p >= 256 on dense graphs (``_po_dispatch.kernel_for``, d ~ 0.45
to 0.69 for Erdős–Rényi graphs). These tests compare it with the row-by-row
kernel and the NumPy reference (hypothesis over random graphs of any density,
normal and uniform factors), check its special rows (no earlier neighbour, no
earlier non-neighbour, blocks of one row), that its bits do not depend on the
number of threads, that ``sample`` takes it with the same bits in batches and
chunks, and that a failed or uncertified result is recomputed by rows.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import po_matrix, potrf_lower_t, random_adjacency

import spdgraph
from spdgraph._kernels import raw_blas as _raw_blas
from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po import dense as _po_dense
from spdgraph._kernels.po import dispatch as _po_dispatch
from spdgraph._kernels.po import fast as po_fast
from spdgraph._kernels.po import householder as po_numpy
from spdgraph._kernels.po import residual as _po_residual

#: Agreement with the row-by-row kernel and the NumPy reference, relative to the
#: diagonal (the same corrections from the vectors as the row kernel).
AGREE = 1e-12


def _scaled_diff(a, b):
    d = np.sqrt(np.abs(np.diag(b)))
    return float(np.max(np.abs(a - b) / np.outer(d, d)))


def _dense(adjacency, factor, threads=1):
    out = np.empty(adjacency.shape)
    with po_fast.one_blas_thread():
        residual = _po_dense.po_dense_into(adjacency, factor, out, threads)
    return residual is not None, out


def _special_adjacency(p, d, rng):
    """Random graph plus rows with no earlier non-neighbour, a hub and isolated rows."""
    adjacency = random_adjacency(p, d, rng)
    adjacency[:20, :20] = True  # a clique across block boundaries
    adjacency[p // 2, : p // 2 : 3] = adjacency[: p // 2 : 3, p // 2] = True  # a hub
    adjacency[p - 5 :, :] = adjacency[:, p - 5 :] = False  # isolated last rows
    adjacency[60:63, :] = adjacency[:, 60:63] = False  # isolated rows inside a block
    np.fill_diagonal(adjacency, False)
    return adjacency


@pytest.mark.parametrize("d", [0.05, 0.5, 0.8])
@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_matches_row_by_row(d, dist, rng):
    p = 203  # many blocks, the last one partial
    adjacency = _special_adjacency(p, d, rng)
    factor = rng.standard_normal((p, p)) if dist == "normal" else rng.random((p, p))
    kept = factor.copy()
    ok, got = _dense(adjacency, factor)
    assert ok
    np.testing.assert_array_equal(factor, kept)  # the factor is not modified
    assert _scaled_diff(got, po_matrix(adjacency, factor)) <= AGREE
    assert _po_residual.nonedge_residual(got, adjacency) <= _po_blocked.CERTIFY_ABOVE
    np.testing.assert_array_equal(got, got.T)
    off = ~adjacency
    np.fill_diagonal(off, False)
    assert not got[off].any()  # exact zeros on the non-edges


@pytest.mark.parametrize("d", [0.0, 1.0])
def test_empty_and_complete_graphs(d, rng):
    p = 60
    adjacency = random_adjacency(p, d, rng)
    factor = rng.standard_normal((p, p))
    ok, got = _dense(adjacency, factor)
    assert ok
    if d == 1.0:
        assert _scaled_diff(got, factor @ factor.T) <= 1e-13
    else:
        expected = np.diag(po_fast.lower_coordinates(factor)) ** 2
        np.testing.assert_allclose(np.diag(got), expected, rtol=1e-13)
        np.testing.assert_array_equal(got, np.diag(np.diag(got)))


def test_matches_numpy_reference(rng):
    p = 120
    adjacency = _special_adjacency(p, 0.5, rng)
    factor = rng.standard_normal((p, p))
    ok, got = _dense(adjacency, factor)
    assert ok
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    assert _scaled_diff(got, slow) <= AGREE


@settings(max_examples=15, deadline=None)
@given(
    p=st.integers(1, 90),
    d=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    uniform=st.booleans(),
)
def test_matches_numpy_reference_property(p, d, seed, uniform):
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, d, rng)
    factor = rng.random((p, p)) if uniform else rng.standard_normal((p, p))
    ok, got = _dense(adjacency, factor)
    assert ok
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    assert _scaled_diff(got, slow) <= AGREE
    np.testing.assert_array_equal(got, got.T)


@pytest.mark.parametrize("d", [0.3, 0.55])
def test_bits_do_not_depend_on_threads(d, rng):
    p = 300
    adjacency = random_adjacency(p, d, rng)
    factor = rng.standard_normal((p, p))
    ok1, one = _dense(adjacency, factor, 1)
    ok2, two = _dense(adjacency, factor, 2)
    assert ok1 and ok2
    np.testing.assert_array_equal(one, two)


def test_sample_uses_it_with_same_bits_in_batches():
    numba = pytest.importorskip("numba")
    g = spdgraph.graphs.erdos_renyi(300, 0.55, seed=5)
    adjacency = spdgraph.adapt_graph(g).adjacency
    ptr, _ = _po_blocked.earlier_neighbours(adjacency)
    assert _po_dispatch.kernel_for(ptr) == "dense"
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = spdgraph.sample(g, "po", size=2, seed=4, normalize=False).values
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        batch = spdgraph.sample(g, "po", size=2, seed=4, normalize=False).values
        single = spdgraph.sample(g, "po", seed=4, normalize=False).values
        chunked = spdgraph.sample(g, "po", size=2, seed=4, normalize=False, chunks=1).values
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one_thread, batch)
    np.testing.assert_array_equal(single, batch[0])
    np.testing.assert_array_equal(chunked, batch)
    assert spdgraph._kernels.numerics.find_violation(batch[1], adjacency) is None


@pytest.mark.parametrize("how", ["uncertified", "singular"])
def test_failed_result_is_recomputed_by_rows(how, rng, monkeypatch):
    p = 260
    adjacency = random_adjacency(p, 0.55, rng)
    factor = rng.standard_normal((p, p))
    ptr, _ = _po_blocked.earlier_neighbours(adjacency)
    assert _po_dispatch.kernel_for(ptr) == "dense"
    if how == "uncertified":
        monkeypatch.setattr(_po_blocked, "CERTIFY_ABOVE", -1.0)
    else:  # every factorization reports a matrix that is not positive definite
        monkeypatch.setattr(_po_dense, "_factor_row", lambda *args: -1)
    out = np.empty((p, p))
    with po_fast.one_blas_thread():
        assert _po_dense.po_dense_into(adjacency, factor, np.empty((p, p))) is None
        expected = po_fast.po_matrix_checked(adjacency, po_fast.lower_coordinates(factor), factor)
        assert po_fast.po_matrix_into(adjacency, factor, out) is None
    np.testing.assert_array_equal(out, expected)


def test_raw_blas_cholesky_and_product_match_numpy(rng):
    x = rng.standard_normal((30, 50))
    a = x @ x.T
    big = np.zeros((40, 45))
    block = big[3:33, 5:35]  # a view with row stride 45
    block[...] = np.triu(a)
    assert potrf_lower_t(block, 30)
    r = np.triu(block)
    np.testing.assert_allclose(r.T @ r, a, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.tril(block, -1), 0.0)  # not touched
    block[...] = -np.eye(30)
    assert not potrf_lower_t(block, 30)
    lower = np.tril(rng.standard_normal((20, 20)))
    rows = rng.standard_normal((4, 20))
    got = np.zeros((6, 25))[1:5, 2:22]
    got[...] = rows
    _raw_blas.times_lower_transposed(lower + np.triu(np.ones((20, 20)), 1), got)  # lower read
    np.testing.assert_allclose(got, rows @ lower.T, rtol=1e-13, atol=1e-12)
    with pytest.raises(ValueError, match="shapes"):
        _raw_blas.times_lower_transposed(lower, rows[:, :5])
