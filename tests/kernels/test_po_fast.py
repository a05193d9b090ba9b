"""The compiled PO kernel (spdgraph._kernels.po.fast) against the slow references.

Fast tests cover small and medium sizes; the paper's whole grid up to p = 1000
and the largest reference comparisons are marked slow (``pytest -m slow``).
"""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import cov2cor, normalized_error, po_matrix, po_reference, random_adjacency

import spdgraph
from spdgraph._kernels.po import fast as po_fast
from spdgraph._kernels.po import householder as po_numpy

PAPER_P = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000]
PAPER_D = [0.0025, 0.005, 0.025, 0.05, 0.25, 0.5]


def _factor(rng, p, dist):
    return rng.standard_normal((p, p)) if dist == "normal" else rng.random((p, p))


def _reference_gram(adjacency, factor):
    """po_reference zeroes the non-edges; return it and the fast raw Gram matrix."""
    raw = po_matrix(adjacency, factor)
    return raw, po_reference(adjacency, factor)


def _zeroed(m, adjacency):
    out = m.copy()
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    out[nonedge] = 0.0
    return out


# ----------------------------------------------------------------- agreement with references


@pytest.mark.parametrize("p", [1, 2, 3, 7, 30, 64])
@pytest.mark.parametrize("d", [0.0, 0.0025, 0.05, 0.25, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_kernel_matches_slow_reference(p, d, dist, rng):
    adjacency = random_adjacency(p, d, rng)
    factor = _factor(rng, p, dist)
    raw, ref = _reference_gram(adjacency, factor)
    assert po_numpy.max_nonedge_residual(raw, adjacency) <= 1e-12
    assert normalized_error(_zeroed(raw, adjacency), ref) <= 1e-10


@pytest.mark.parametrize("p, d", [(120, 0.25), (120, 0.5)])
@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_kernel_matches_numpy_version(p, d, dist, rng):
    """The NumPy version is itself checked against the slow reference in test_generators."""
    adjacency = random_adjacency(p, d, rng)
    factor = _factor(rng, p, dist)
    fast = po_matrix(adjacency, factor)
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    assert normalized_error(fast, slow) <= 1e-10


@pytest.mark.slow
@pytest.mark.parametrize("d", PAPER_D)
@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_kernel_matches_slow_reference_200(d, dist, rng):
    """The slow pure-Python reference at p = 200 (minutes in total)."""
    adjacency = random_adjacency(200, d, rng)
    factor = _factor(rng, 200, dist)
    raw, ref = _reference_gram(adjacency, factor)
    assert normalized_error(_zeroed(raw, adjacency), ref) <= 1e-10


@given(
    p=st.integers(1, 40),
    d=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    dist=st.sampled_from(["normal", "uniform"]),
)
def test_kernel_matches_numpy_version_property(p, d, seed, dist):
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, d, rng)
    factor = _factor(rng, p, dist)
    fast = po_matrix(adjacency, factor)
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    assert normalized_error(fast, slow) <= 1e-10
    assert po_numpy.max_nonedge_residual(fast, adjacency) <= 1e-12


def test_both_routes_and_special_rows(rng):
    """Rows with no earlier neighbour, only earlier neighbours, few of either."""
    p = 60
    adjacency = np.zeros((p, p), dtype=bool)
    adjacency[0, 1:] = adjacency[1:, 0] = True  # hub: every row has >= 1 neighbour
    dense = random_adjacency(p, 0.9, rng)  # direct route (few non-neighbours)
    adjacency[30:, 30:] |= dense[30:, 30:]
    adjacency[10, :10] = adjacency[:10, 10] = True  # row 10: only neighbours
    adjacency[55:, 5:] = adjacency[5:, 55:] = True  # rows 55..59: direct route
    np.fill_diagonal(adjacency, False)
    factor = _factor(rng, p, "normal")
    raw, ref = _reference_gram(adjacency, factor)
    assert normalized_error(_zeroed(raw, adjacency), ref) <= 1e-10
    _, _, n_complement, ok = po_fast.process_rows(po_fast.lower_coordinates(factor), adjacency)
    k = np.array([adjacency[i, :i].sum() for i in range(p)])
    j = np.arange(p) - k
    assert ok and n_complement == np.sum((k > 0) & (k < j)) > 10
    assert np.sum((j > 0) & (j <= k)) > 3  # and the direct route


def test_special_graphs(rng):
    p = 25
    factor = _factor(rng, p, "normal")
    complete = ~np.eye(p, dtype=bool)
    np.testing.assert_allclose(po_matrix(complete, factor), factor @ factor.T, rtol=1e-12)
    empty = np.zeros((p, p), dtype=bool)
    m = po_matrix(empty, factor)
    off = m - np.diag(np.diag(m))
    assert np.max(np.abs(off)) <= 1e-14 * np.max(np.diag(m))
    # the diagonal of the empty graph is the squared distance of q_i to span(q_<i)
    r = np.linalg.qr(factor.T, mode="r")
    np.testing.assert_allclose(np.diag(m), np.diag(r) ** 2, rtol=1e-12)


def _near_dependent_factor(rng, p, eps):
    """Rows 2k+1 = rows 2k + eps * noise: cond(factor) ~ 1/eps * p."""
    base = rng.standard_normal((p, p))
    factor = base.copy()
    factor[1::2] = base[0::2] + eps * rng.standard_normal((p // 2, p))
    return factor


@pytest.mark.parametrize("d", [0.3, 0.5, 0.7])
def test_ill_conditioned_factor_corrections_keep_kernel_exact(d):
    """cond(factor) ~ 1e5: the Gram subproblems need their correction steps."""
    rng = np.random.default_rng(7)
    p = 80
    factor = _near_dependent_factor(rng, p, 1e-3)
    adjacency = random_adjacency(p, d, rng)
    lmat = po_fast.lower_coordinates(factor)
    _, refinements, _n_complement, ok = po_fast.process_rows(lmat, adjacency)
    assert ok and refinements > 0
    m = po_fast.gram_matrix(lmat)
    assert po_numpy.max_nonedge_residual(m, adjacency) <= 1e-12
    # the problem itself is ill-conditioned: even Householder and Gram-Schmidt differ by
    # up to ~1e-8 here, and how close one of them comes to the reference depends on the
    # CPU's rounding; the kernel must stay within the conditioning's error scale,
    # 1000 eps cond(factor) (~2e-8 here), or within 100x of Householder's error
    ref = po_reference(adjacency, factor)
    householder = _zeroed(
        po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor)), adjacency
    )
    scale = 1000 * np.finfo(np.float64).eps * np.linalg.cond(factor)
    assert normalized_error(_zeroed(m, adjacency), ref) <= max(
        scale, 100 * normalized_error(householder, ref)
    )


def test_numerically_singular_subproblem_falls_back_to_householder():
    rng = np.random.default_rng(3)
    p = 80
    factor = _near_dependent_factor(rng, p, 1e-8)  # cond ~ 1e10: Gram squares it to 1e20
    adjacency = random_adjacency(p, 0.1, rng)
    lmat = po_fast.lower_coordinates(factor)
    *_, ok = po_fast.process_rows(lmat.copy(), adjacency)
    assert not ok
    m = po_fast.po_matrix_checked(adjacency, lmat, factor)
    slow = po_numpy.gram_matrix(po_numpy.partial_orthogonalize(adjacency, factor))
    np.testing.assert_array_equal(m, slow)
    assert po_numpy.max_nonedge_residual(m, adjacency) <= 1e-12
    # the generator takes the same path (the core would then reject the matrix: with
    # cond(factor) ~ 1e10 the product is not numerically positive definite)
    from spdgraph.plugins._builtin.gen_po import generate_po_batch

    raw = generate_po_batch(adjacency, rngs=None, entries=None, factors=factor[None])[0]
    np.testing.assert_array_equal(raw, _zeroed(slow, adjacency))


@pytest.mark.parametrize("n", [1, 5, 64, 65, 100, 130, 257])
def test_blocked_cholesky_matches_lapack(n, rng):
    a = rng.standard_normal((n, n + 3))
    spd = a @ a.T
    work = np.zeros((n + 4, n + 4))  # a larger buffer, as in the kernel
    work[:n, :n] = spd
    assert po_fast.small_cholesky(work, n)
    np.testing.assert_allclose(np.tril(work[:n, :n]), np.linalg.cholesky(spd), atol=1e-10)
    work[:n, :n] = -spd
    assert not po_fast.small_cholesky(work, n)


# ----------------------------------------------------------------- numerical quality on the grid


def _grid_case(p, d, seed, dist):
    rng = np.random.default_rng([p, int(d * 1e4), seed])
    adjacency = random_adjacency(p, d, rng)
    return adjacency, po_matrix(adjacency, _factor(rng, p, dist))


@pytest.mark.parametrize("p", [x for x in PAPER_P if x <= 100])
@pytest.mark.parametrize("d", PAPER_D)
def test_residual_at_rounding_level_small_grid(p, d):
    for seed, dist in [(0, "uniform"), (1, "normal")]:
        adjacency, m = _grid_case(p, d, seed, dist)
        assert po_numpy.max_nonedge_residual(m, adjacency) <= 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("p", [x for x in PAPER_P if x > 100])
@pytest.mark.parametrize("d", PAPER_D)
def test_residual_at_rounding_level_large_grid(p, d):
    for seed, dist in [(0, "uniform"), (1, "normal")]:
        adjacency, m = _grid_case(p, d, seed, dist)
        assert po_numpy.max_nonedge_residual(m, adjacency) <= 1e-12
        np.linalg.cholesky(m)  # positive definite


# ----------------------------------------------------------------- determinism and wiring


def test_public_po_uses_kernel(rng):
    adjacency = random_adjacency(50, 0.1, rng)
    factor = _factor(rng, 50, "normal")
    raw = spdgraph.sample(adjacency, "po", factor=factor, normalize=False).values
    # p < 256: the fused small-matrix path (same kernel, its own product loops)
    assert normalized_error(raw, _zeroed(po_matrix(adjacency, factor), adjacency)) < 1e-14
    ref = po_reference(adjacency, factor)
    norm = spdgraph.sample(adjacency, "po", factor=factor).values
    assert normalized_error(norm, cov2cor(ref)) <= 1e-10


def test_batch_bitwise_independent_of_size_and_threads():
    numba = pytest.importorskip("numba")
    g = spdgraph.graphs.erdos_renyi(70, 0.3, seed=4)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = spdgraph.sample(g, "po", size=4, seed=8, normalize=False).values
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two_threads = spdgraph.sample(g, "po", size=4, seed=8, normalize=False).values
        smaller = spdgraph.sample(g, "po", size=2, seed=8, normalize=False).values
        single = spdgraph.sample(g, "po", seed=8, normalize=False).values
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one_thread, two_threads)
    np.testing.assert_array_equal(smaller, two_threads[:2])
    np.testing.assert_array_equal(single, two_threads[0])


def test_batch_of_factors_matches_one_by_one(rng):
    adjacency = random_adjacency(40, 0.2, rng)
    factors = rng.standard_normal((3, 40, 40))
    stack = spdgraph.sample(adjacency, "po", factor=factors, normalize=False).values
    for k in range(3):
        one = spdgraph.sample(adjacency, "po", factor=factors[k], normalize=False).values
        np.testing.assert_array_equal(stack[k], one)


def test_blas_steps_do_not_depend_on_blas_threads(rng):
    """The QR and the final product run in BLAS; their rounding must not depend on threads."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    adjacency = random_adjacency(300, 0.05, rng)
    factor = _factor(rng, 300, "normal")
    default = po_matrix(adjacency, factor)
    with threadpoolctl.threadpool_limits(1):
        single = po_matrix(adjacency, factor)
    np.testing.assert_array_equal(default, single)


def test_concurrent_calls_share_the_blas_limit_and_restore_it():
    """sample() from several threads at once (as dask's threaded scheduler does)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from concurrent.futures import ThreadPoolExecutor

    g = spdgraph.graphs.erdos_renyi(120, 0.1, seed=2)
    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()]
    expected = [spdgraph.sample(g, "po", seed=s, normalize=False).values for s in range(6)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        got = list(pool.map(lambda s: spdgraph.sample(g, "po", seed=s, normalize=False), range(6)))
    for a, b in zip(expected, got, strict=True):
        np.testing.assert_array_equal(a, b.values)
    assert [lib["num_threads"] for lib in threadpoolctl.threadpool_info()] == before


def test_degenerate_entries_give_a_clear_error():
    g = spdgraph.graphs.erdos_renyi(30, 0.3, seed=1)
    for entries in (lambda rng, shape: np.ones(shape), lambda rng, shape: np.zeros(shape)):
        with pytest.raises(spdgraph.NumericalError, match="residual"):
            spdgraph.sample(g, "po", entries=entries, size=2)


def test_residual_check_applies_to_batches():
    from spdgraph.plugins._builtin.gen_po import generate_po_batch
    from spdgraph.sampling._entries import resolve_entries

    # the batch function itself (spdgraph.sample refuses a negative tolerance up front)
    adjacency = spdgraph.adapt_graph(spdgraph.graphs.erdos_renyi(10, 0.2, seed=1)).adjacency
    rngs = [np.random.default_rng(k) for k in range(3)]
    entries, _ = resolve_entries("normal", None)
    with pytest.raises(spdgraph.NumericalError, match="residual_tolerance"):
        generate_po_batch(adjacency, rngs=rngs, entries=entries, residual_tolerance=-1.0)


def test_import_spdgraph_does_not_import_numba():
    code = "import sys, spdgraph; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
