"""The fused small-matrix PO path (spdgraph._kernels.po.small) against the slow references.

``spdgraph.sample(..., "po")`` takes it for ``p < MIN_P``: one stacked QR and
one compiled call per group of matrices (kernel, product, residual, zeros).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import cov2cor, normalized_error, po_matrix, po_reference, random_adjacency

import spdgraph
from spdgraph._kernels.po import batch as po_batch
from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po import fast as po_fast
from spdgraph._kernels.po import householder as po_numpy
from spdgraph._kernels.po import small as _po_small
from spdgraph.plugins._builtin import gen_po


def _fused(adjacency, factors, limit=po_fast.FALLBACK_ABOVE, kernel="auto"):
    """The compiled group on ``factors`` directly: (matrices, residuals).

    ``kernel``: "rows" (the row kernel matrix by matrix), "group" (matrix-innermost)
    or "auto" (as the batch chooses).
    """
    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    n, p = factors.shape[0], adjacency.shape[0]
    out = np.empty((n, p, p))
    residuals = np.zeros(n)
    bounds = np.zeros(n)
    ptr, idx = _po_blocked.earlier_neighbours(adjacency)
    if kernel == "auto":
        kernel = "group" if _po_small.group_first_pays(ptr) else "rows"
    with po_fast.one_blas_thread():
        lmats = po_fast.lower_coordinates(factors)
        if kernel == "group":
            _po_small.group_first(adjacency, ptr, idx, lmats, out, limit, residuals, bounds)
        else:
            _po_small.small_group(adjacency, lmats, out, 0, limit, residuals, bounds)
    return out, residuals


def _check_structure(m, adjacency):
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    assert (m[nonedge] == 0.0).all()  # exact zeros
    assert (m == m.T).all()  # exact symmetry
    np.linalg.cholesky(m)  # positive definite


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(1, 60),
    d=st.sampled_from([0.0, 0.0025, 0.05, 0.25, 0.5, 0.9, 1.0]),
    seed=st.integers(0, 2**31 - 1),
    uniform=st.booleans(),
    kernel=st.sampled_from(["rows", "group"]),
)
def test_fused_matches_numpy_reference(p, d, seed, uniform, kernel):
    """Random graphs and factors: the slow Householder reference, exact zeros, symmetry, PD."""
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, d, rng)
    factors = rng.random((2, p, p)) if uniform else rng.standard_normal((2, p, p))
    out, residuals = _fused(adjacency, factors, kernel=kernel)
    for k in range(2):
        if kernel == "group" and residuals[k] == np.inf and (uniform or d > 0.25):
            continue  # not certified (no correction steps): the batch redoes it by rows
        assert residuals[k] <= 1e-12
        _check_structure(out[k], adjacency)
        slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factors[k]))
        nonedge = ~adjacency
        np.fill_diagonal(nonedge, False)
        slow[nonedge] = 0.0
        assert normalized_error(out[k], slow) <= 1e-10


@pytest.mark.parametrize("d", [0.0025, 0.05, 0.25, 0.5])
def test_fused_matches_gmat_reference_at_p100(d, rng):
    adjacency = random_adjacency(100, d, rng)
    factor = rng.standard_normal((100, 100))
    out, _ = _fused(adjacency, factor[None])
    assert normalized_error(out[0], po_reference(adjacency, factor)) <= 1e-10
    # the row path (NumPy QR, BLAS product) gives the same matrix to rounding
    rows = po_matrix(adjacency, factor)
    assert normalized_error(out[0], rows) <= 1e-13


def test_sample_takes_the_fused_path_below_min_p(rng):
    adjacency = random_adjacency(_po_blocked.MIN_P - 1, 0.02, rng)
    factor = rng.standard_normal(adjacency.shape)
    raw = spdgraph.sample(adjacency, "po", factor=factor, normalize=False).values
    np.testing.assert_array_equal(raw, _fused(adjacency, factor[None])[0][0])
    norm = spdgraph.sample(adjacency, "po", factor=factor).values
    assert normalized_error(norm, cov2cor(raw)) <= 1e-14
    assert (np.diagonal(norm) == 1.0).all()


@pytest.mark.parametrize("p", [20, 40])  # groups of 64 and of 32 matrices
def test_groups_threads_and_batch_size_do_not_change_bits(p):
    """More matrices than one group: the same bits for 1 and 2 threads and any batch size."""
    numba = pytest.importorskip("numba")
    g = spdgraph.graphs.erdos_renyi(p, 0.1, seed=3)
    step = po_batch.group_size(p)
    n = 2 * step + 3
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = spdgraph.sample(g, "po", size=n, seed=9, normalize=False).values
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two_threads = spdgraph.sample(g, "po", size=n, seed=9, normalize=False).values
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one_thread, two_threads)
    prefix = spdgraph.sample(g, "po", size=step + 1, seed=9, normalize=False).values
    np.testing.assert_array_equal(prefix, two_threads[: step + 1])
    one = spdgraph.sample(g, "po", size=1, seed=9, normalize=False).values
    np.testing.assert_array_equal(one[0], two_threads[0])


def test_flagged_matrix_in_a_batch_takes_the_householder_fallback():
    """One numerically singular factor among good ones: only it is redone, in place."""
    rng = np.random.default_rng(3)
    p = 80
    base = rng.standard_normal((p // 2, p))
    bad = np.empty((p, p))
    bad[0::2] = base
    bad[1::2] = base + 1e-8 * rng.standard_normal((p // 2, p))
    adjacency = random_adjacency(p, 0.1, rng)
    factors = np.stack([rng.standard_normal((p, p)), bad, rng.standard_normal((p, p))])
    _, residuals = _fused(adjacency, factors)
    assert residuals[1] > po_fast.FALLBACK_ABOVE and residuals[[0, 2]].max() <= 1e-12
    got = gen_po.generate_po_batch(adjacency, rngs=None, entries=None, factors=factors)
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, bad))
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    slow[nonedge] = 0.0
    np.testing.assert_array_equal(got[1], slow)
    np.testing.assert_array_equal(got[[0, 2]], _fused(adjacency, factors[[0, 2]])[0])
