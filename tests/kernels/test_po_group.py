"""The matrix-innermost group kernel (spdgraph/_kernels/po/group.py) against the row kernel."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import normalized_error, po_reference, random_adjacency

import spdgraph
from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po import fast as po_fast
from spdgraph._kernels.po import group as _po_group
from spdgraph._kernels.po import residual as _po_residual
from spdgraph._kernels.po import small as _po_small
from spdgraph._kernels.po.bartlett import draw_lower_coordinates


def _coordinates(p, n, seed):
    rng = np.random.default_rng(seed)
    return np.stack([draw_lower_coordinates(rng, np.empty((p, p))) for _ in range(n)])


def _group(adjacency, lmats):
    """Processed coordinates of every matrix by the group kernel, and the ``bad`` flags."""
    ptr, idx = _po_blocked.earlier_neighbours(np.ascontiguousarray(adjacency, dtype=np.bool_))
    lm = lmats.transpose(1, 2, 0).copy()  # a copy also when G = 1 (then already contiguous)
    bad = np.zeros(lmats.shape[0], dtype=np.bool_)
    _po_group.process_group(lm, ptr, idx, bad, np.empty_like(lm))
    return np.ascontiguousarray(lm.transpose(2, 0, 1)), bad


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(1, 50),
    d=st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.6, 1.0]),
    n=st.integers(1, 9),
    seed=st.integers(0, 2**31 - 1),
)
def test_same_matrices_as_the_row_kernel(p, d, n, seed):
    """Random graphs: L L^T of both kernels agree to rounding; orthogonality to non-neighbours."""
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    lmats = _coordinates(p, n, seed)
    got, bad = _group(adjacency, lmats)
    assert not bad.any()
    for k in range(n):
        rows = lmats[k].copy()
        assert po_fast.process_rows(rows, adjacency)[3]
        m_group, m_rows = got[k] @ got[k].T, rows @ rows.T
        # two backward-stable routes differ by about eps * cond (1.3e-12 seen at cond 2.7e6)
        tolerance = max(1e-12, 50 * np.finfo(np.float64).eps * np.linalg.cond(m_rows))
        assert normalized_error(m_group, m_rows) <= tolerance
        assert np.array_equal(np.triu(got[k], 1), np.zeros((p, p)))  # still lower triangular
        assert np.array_equal(np.diag(got[k]), np.diag(lmats[k]))  # L[i, i] never changes


def test_against_the_gram_schmidt_reference(rng):
    """The paper's algorithm on a factor (slow reference in the tests) at p = 60."""
    adjacency = random_adjacency(60, 0.1, rng)
    factor = rng.standard_normal((60, 60))
    got, _ = _group(adjacency, po_fast.lower_coordinates(factor)[None])
    m = got[0] @ got[0].T
    m[~adjacency & ~np.eye(60, dtype=bool)] = 0.0
    assert normalized_error(m, po_reference(adjacency, factor)) <= 1e-10


def test_bits_do_not_depend_on_the_group_or_the_lane():
    """The matrix index is innermost and vectorised without fastmath: same bits anywhere."""
    adjacency = random_adjacency(45, 0.1, np.random.default_rng(1))
    lmats = _coordinates(45, 21, 7)
    whole, _ = _group(adjacency, lmats)
    for lo, hi in [(0, 1), (3, 4), (2, 9), (5, 21), (0, 16), (4, 20)]:
        part, _ = _group(adjacency, lmats[lo:hi])
        np.testing.assert_array_equal(part, whole[lo:hi])
    shuffled = np.array([20, 3, 11, 0, 7])
    part, _ = _group(adjacency, lmats[shuffled])
    np.testing.assert_array_equal(part, whole[shuffled])


def test_the_batch_takes_the_group_kernel_on_sparse_graphs(monkeypatch):
    """Sparse graphs below MIN_P run the group kernel (drawn straight into its layout),
    dense ones the row kernel; bits per matrix."""
    calls = {"group": 0, "rows": 0}
    real_group, real_rows = _po_small.group_first_laid_out, _po_small.small_group

    def group_spy(*args):
        calls["group"] += 1
        return real_group(*args)

    def rows_spy(*args):
        calls["rows"] += 1
        return real_rows(*args)

    monkeypatch.setattr(_po_small, "group_first_laid_out", group_spy)
    monkeypatch.setattr(_po_small, "small_group", rows_spy)
    sparse = spdgraph.graphs.erdos_renyi(60, 0.05, seed=2)
    a = spdgraph.sample(sparse, size=40, seed=4, normalize=False).values
    assert calls == {"group": 2, "rows": 0}  # groups of 32 matrices
    spdgraph.sample(spdgraph.graphs.erdos_renyi(60, 0.7, seed=2), size=3, seed=4)
    assert calls["rows"] == 1
    b = spdgraph.sample(sparse, size=3, seed=4, normalize=False).values
    np.testing.assert_array_equal(a[:3], b)


@pytest.mark.parametrize(("d", "pays"), [(0.02, True), (0.1, True), (0.6, False), (1.0, False)])
def test_cost_rule(d, pays):
    adjacency = random_adjacency(100, d, np.random.default_rng(0))
    ptr, _ = _po_blocked.earlier_neighbours(adjacency)
    assert _po_small.group_first_pays(ptr) is pays


@settings(max_examples=30, deadline=None)
@given(
    p=st.integers(1, 30),
    d=st.sampled_from([0.0, 0.2, 0.7, 1.0]),
    seed=st.integers(0, 2**31 - 1),
    poison=st.sampled_from([None, "nan", "zero_diagonal"]),
)
def test_group_residual_is_the_checks_residual(p, d, seed, poison):
    """The group path's one-pass residual over the lower non-edges: the residual of
    ``nonedge_residual`` to rounding (inf for NaN or a zero diagonal), every non-edge 0."""
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, d, rng)
    x = rng.standard_normal((p, p))
    m = x @ x.T
    m = np.tril(m) + np.tril(m, -1).T  # exactly symmetric, as _gram_into mirrors
    if poison == "nan" and p > 1:
        m[p - 1, 0] = m[0, p - 1] = np.nan
    if poison == "zero_diagonal":
        m[0, 0] = 0.0
    expected = _po_residual.nonedge_residual(m.copy(), adjacency) if p > 1 else 0.0
    rows, cols = _po_small.lower_nonedges(adjacency)
    assert rows.size == np.count_nonzero(np.tril(~adjacency, -1))
    got = _po_small._take_residual(m, rows, cols, np.empty(p))
    if np.isfinite(expected):
        assert got == pytest.approx(expected, rel=1e-14, abs=0.0)
    elif rows.size:
        assert got == np.inf
    off = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.array_equal(m[off], np.zeros(np.count_nonzero(off)))
    assert np.array_equal(m, m.T, equal_nan=True)
