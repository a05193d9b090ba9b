"""The Bartlett draw of PO's coordinates ``L0`` (spdgraph._kernels.po.bartlett).

With ``entries="normal"`` PO draws ``L0`` (``Q = L0 U^T``) from its known law
instead of a Gaussian factor ``Q`` and its QR. These tests check the draw
itself (layout, order, pieces), its law against chi-square / normal and
against ``Q Q^T`` of Gaussian factors, that PO matrices made this way have the
law of PO matrices made from Gaussian factors (with a negative control that a
wrong law is detected), and that every path (small batches, the blocked
kernels, portable mode, the Householder fallback) computes the same matrix
from the drawn ``L0`` as from ``L0`` given as a factor.
"""

import numpy as np
import pytest
from reference import random_adjacency
from scipy import stats

from spdgraph._kernels.po import bartlett
from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph.plugins._builtin import gen_po
from spdgraph.plugins.types import standard_normal_entries


def _draw(seed, p):
    return bartlett.draw_lower_coordinates(np.random.default_rng(seed), np.full((p, p), 7.0))


def test_layout_and_order_of_the_draws():
    p = 6
    low = _draw(1, p)
    assert np.all(np.triu(low, 1) == 0.0)
    assert np.all(np.diag(low) > 0.0)
    rng = np.random.default_rng(1)
    normals = rng.standard_normal(p * (p - 1) // 2)
    chi2 = rng.chisquare(np.arange(p, 0, -1, dtype=np.float64))
    np.testing.assert_array_equal(low[np.tril_indices(p, -1)], normals)  # row by row
    np.testing.assert_array_equal(np.diag(low), np.sqrt(chi2))


@pytest.mark.parametrize("chunk", [1, 5, 17])
def test_pieces_do_not_change_the_draw(monkeypatch, chunk):
    whole = _draw(3, 40)
    monkeypatch.setattr(bartlett, "CHUNK", chunk)
    np.testing.assert_array_equal(_draw(3, 40), whole)


@pytest.mark.parametrize("i0", [0, 1, 2, 500, 1449, 1450, 1451, 19999])
def test_row_end_respects_the_chunk(i0):
    p = 20000
    i1 = bartlett._row_end(i0, p)
    count = i1 * (i1 - 1) // 2 - i0 * (i0 - 1) // 2
    assert i1 > i0
    assert count <= bartlett.CHUNK or i1 == i0 + 1
    if i1 < p:  # as many rows as fit
        assert count + i1 > bartlett.CHUNK


def test_entries_follow_the_bartlett_law():
    p, n = 5, 4000
    draws = np.stack([_draw(seed, p) for seed in range(n)])
    for i in range(p):
        assert stats.kstest(draws[:, i, i] ** 2, stats.chi2(p - i).cdf).pvalue > 1e-4
    below = draws[:, np.arange(p)[:, None] > np.arange(p)[None, :]]
    assert stats.kstest(below.ravel(), stats.norm.cdf).pvalue > 1e-4
    # and L0 L0^T has the law of Q Q^T for Gaussian Q
    rng = np.random.default_rng(12345)
    q = rng.standard_normal((n, p, p))
    wishart = q @ np.swapaxes(q, 1, 2)
    gram = draws @ np.swapaxes(draws, 1, 2)
    for i, j in [(0, 0), (4, 4), (2, 2), (4, 0), (3, 1)]:
        assert stats.ks_2samp(gram[:, i, j], wishart[:, i, j]).pvalue > 1e-4


def _gaussian_factor(rng, shape):
    """N(0, 1) entries by a sampler that is not ``standard_normal_entries``: the QR path."""
    return rng.standard_normal(shape)


def _normalized(stack):
    d = np.sqrt(np.einsum("kii->ki", stack))
    return stack / d[:, :, None] / d[:, None, :]


def _po_law_pvalues(draw_bartlett_like, n=1500):
    """KS p-values of PO entries: Bartlett-like draws vs Gaussian factors (5-cycle + chord)."""
    p = 5
    adjacency = np.zeros((p, p), dtype=bool)
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 3)]:
        adjacency[a, b] = adjacency[b, a] = True
    by_law = gen_po.generate_po_batch(
        adjacency, rngs=None, entries=_gaussian_factor, factors=draw_bartlett_like(n, p)
    )
    rngs = [np.random.default_rng([7, k]) for k in range(n)]
    by_factor = gen_po.generate_po_batch(adjacency, rngs=rngs, entries=_gaussian_factor)
    a, b = _normalized(by_law), _normalized(by_factor)
    pairs = [(0, 1), (1, 2), (1, 3), (3, 4), (0, 4)]
    raw = [(0, 0), (2, 2), (4, 4)]
    pv = [stats.ks_2samp(a[:, i, j], b[:, i, j]).pvalue for i, j in pairs]
    pv += [stats.ks_2samp(by_law[:, i, j], by_factor[:, i, j]).pvalue for i, j in raw]
    return pv


def test_po_matrices_have_the_law_of_gaussian_factors():
    def bartlett_draws(n, p):
        return np.stack([_draw([8, k], p) for k in range(n)])

    assert min(_po_law_pvalues(bartlett_draws)) > 1e-4


def test_the_law_comparison_detects_a_wrong_diagonal():
    """Negative control: chi-square degrees of freedom off by two are rejected."""

    def wrong_draws(n, p):
        out = np.stack([_draw([8, k], p) for k in range(n)])
        rng = np.random.default_rng(99)
        for k in range(n):
            out[k][np.diag_indices(p)] = np.sqrt(rng.chisquare(np.arange(p, 0, -1) + 2.0))
        return out

    assert min(_po_law_pvalues(wrong_draws)) < 1e-6


@pytest.mark.parametrize(
    ("p", "d", "portable"),
    [(30, 0.2, False), (30, 0.2, True), (300, 0.01, False), (300, 0.2, False), (300, 0.5, False)],
)
def test_every_path_uses_the_drawn_coordinates(p, d, portable):
    """Drawn L0 == L0 given as a factor (its QR is L0 up to column signs): equal to rounding."""
    adjacency = random_adjacency(p, d, np.random.default_rng(p))
    seeds = [11, 12]
    drawn = gen_po.generate_po_batch(
        adjacency,
        rngs=[np.random.default_rng(s) for s in seeds],
        entries=standard_normal_entries,
        portable=portable,
    )
    given = gen_po.generate_po_batch(
        adjacency,
        rngs=None,
        entries=standard_normal_entries,
        factors=np.stack([_draw(s, p) for s in seeds]),
        portable=portable,
    )
    scale = np.sqrt(np.einsum("kii->ki", given))
    diff = np.abs(drawn - given) / scale[:, :, None] / scale[:, None, :]
    assert float(diff.max()) < 1e-9
    assert np.all(drawn[:, ~adjacency & ~np.eye(p, dtype=bool)] == 0.0)


def test_fallback_after_a_kernel_overwrote_the_output(monkeypatch):
    """A blocked kernel that fails after writing into the output: the fallback redraws L0."""
    from spdgraph._kernels.po import inverse_gram

    p = _po_blocked.MIN_P + 4
    adjacency = random_adjacency(p, 0.02, np.random.default_rng(3))

    def scribble(adjacency, factor, ptr, idx, out, threads=1, coordinates=False, bound=None):
        out[...] = np.nan
        return None

    monkeypatch.setattr(_po_blocked, "po_blocked_into", scribble)
    monkeypatch.setattr(inverse_gram, "po_inverse_gram_into", scribble)
    redrawn = gen_po.generate_po_batch(
        adjacency, rngs=[np.random.default_rng(9)], entries=standard_normal_entries
    )
    rows = gen_po.generate_po_batch(
        adjacency, rngs=None, entries=standard_normal_entries, factors=_draw(9, p)[None]
    )
    assert np.isfinite(redrawn).all()
    np.testing.assert_allclose(redrawn, rows, rtol=1e-9, atol=1e-12)


def test_small_batch_fallback_rebuilds_the_drawn_coordinates(monkeypatch):
    """p < MIN_P: a flagged matrix is redone from its own kept draws, the others untouched."""
    from spdgraph._kernels.po import small as _po_small

    p = 40
    adjacency = random_adjacency(p, 0.2, np.random.default_rng(5))
    seeds = [21, 22, 23]

    def batch():
        rngs = [np.random.default_rng(s) for s in seeds]
        return gen_po.generate_po_batch(adjacency, rngs=rngs, entries=standard_normal_entries)

    clean = batch()
    real = _po_small.small_group

    def flag_the_middle(adjacency, lmats, out, k0, limit, residuals, bounds):
        real(adjacency, lmats, out, k0, limit, residuals, bounds)
        for g in range(lmats.shape[0]):
            if k0 + g == 1:
                out[1] = np.nan
                residuals[1] = np.inf

    real_group = _po_small.group_first

    def flag_the_middle_of_a_group(adjacency, ptr, idx, lmats, out, limit, residuals, bounds):
        real_group(adjacency, ptr, idx, lmats, out, limit, residuals, bounds)
        out[1] = np.nan
        residuals[1] = np.inf

    monkeypatch.setattr(_po_small, "small_group", flag_the_middle)
    monkeypatch.setattr(_po_small, "group_first", flag_the_middle_of_a_group)
    redone = batch()
    np.testing.assert_array_equal(redone[[0, 2]], clean[[0, 2]])
    scale = np.sqrt(np.diag(clean[1]))
    assert float(np.abs(redone[1] - clean[1]).max() / scale.max() ** 2) < 1e-12
