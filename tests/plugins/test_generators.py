"""PO and DD against slow references, and their documented rules."""

import numpy as np
import pytest
from reference import (
    cov2cor,
    dd_reference,
    normalized_error,
    po_reference,
    random_adjacency,
)

import spdgraph
from spdgraph._kernels.po import householder as po_numpy


@pytest.mark.parametrize("p", [1, 2, 5, 17, 40])
@pytest.mark.parametrize("d", [0.0, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_po_matches_reference_for_same_factor(p, d, dist, rng):
    adjacency = random_adjacency(p, d, rng)
    factor = rng.standard_normal((p, p)) if dist == "normal" else rng.random((p, p))
    raw = spdgraph.sample(adjacency, "po", factor=factor, normalize=False).values
    ref = po_reference(adjacency, factor)
    assert normalized_error(raw, ref) <= 1e-10
    norm = spdgraph.sample(adjacency, "po", factor=factor).values
    assert normalized_error(norm, cov2cor(ref)) <= 1e-10


def test_po_first_row_untouched_and_gram_structure(rng):
    adjacency = random_adjacency(12, 0.3, rng)
    factor = rng.standard_normal((12, 12))
    raw = spdgraph.sample(adjacency, "po", factor=factor, normalize=False).values
    # row 0 is never modified, so m_00 = |q_0|^2
    assert raw[0, 0] == pytest.approx(factor[0] @ factor[0], rel=1e-13)


def test_po_rows_orthogonal_to_earlier_non_neighbours(rng):
    adjacency = random_adjacency(30, 0.2, rng)
    q = po_numpy.partial_orthogonalize(adjacency, rng.standard_normal((30, 30)))
    m = q @ q.T
    assert po_numpy.max_nonedge_residual(m, adjacency) < 1e-12


def test_po_residual_check_raises_instead_of_zeroing(rng):
    from spdgraph._kernels.po.residual import zero_nonedges_checked

    adjacency = np.zeros((3, 3), dtype=bool)
    m = np.eye(3)
    m[0, 2] = m[2, 0] = 1e-6  # a residual on a non-edge, above the tolerance
    with pytest.raises(spdgraph.NumericalError, match="residual"):
        zero_nonedges_checked(m.copy(), adjacency, 1e-8)
    assert zero_nonedges_checked(m.copy(), adjacency, 1e-5)[0, 2] == 0.0
    # a negative tolerance is refused before any work, not reported as ill-conditioning
    with pytest.raises(spdgraph.InvalidOptionError, match="must be a number > 0"):
        spdgraph.sample(adjacency, "po", seed=0, residual_tolerance=-1.0)


def test_po_complete_graph_is_plain_gram_matrix(rng):
    p = 6
    adjacency = ~np.eye(p, dtype=bool)
    factor = rng.standard_normal((p, p))
    raw = spdgraph.sample(adjacency, "po", factor=factor, normalize=False).values
    m = factor @ factor.T
    assert normalized_error(raw, m) < 1e-14


def test_po_empty_graph_is_diagonal(rng):
    raw = spdgraph.sample(np.zeros((8, 8)), "po", seed=1, normalize=False).values
    assert np.count_nonzero(raw - np.diag(np.diag(raw))) == 0
    assert np.all(np.diag(raw) > 0)


@pytest.mark.parametrize("dist", ["normal", "uniform"])
def test_dd_follows_gmat_rule(dist, rng):
    adjacency = random_adjacency(25, 0.3, rng)
    raw = spdgraph.sample(adjacency, "dd", seed=7, normalize=False, entries=dist).values
    # replay the documented draws: child stream 0 of seed 7, edges first, then eps
    child = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7, spawn_key=(0,))))
    n_edges = int(np.triu(adjacency, 1).sum())
    draw = child.standard_normal if dist == "normal" else child.random
    edges = draw((n_edges,))
    eps = draw((25,))
    ref = dd_reference(adjacency, edges, eps)
    off = ~np.eye(25, dtype=bool)
    np.testing.assert_array_equal(raw[off], ref[off])  # same draws, same places
    np.testing.assert_allclose(np.diag(raw), np.diag(ref), rtol=1e-14)  # sum order aside


def test_dd_is_diagonally_dominant(rng):
    adjacency = random_adjacency(30, 0.5, rng)
    raw = spdgraph.sample(adjacency, "dd", seed=1, normalize=False).values
    off = np.abs(raw).sum(axis=1) - np.abs(np.diag(raw))
    assert np.all(np.diag(raw) > off)


def test_po_links_stronger_than_dd_when_dense():
    """The paper's point: DD's link strength vanishes with p d; PO's does not."""
    g = spdgraph.graphs.erdos_renyi(100, 0.5, seed=11)

    def mean_ratio(method):
        da = spdgraph.sample(g, method, size=3, seed=5, normalize=False, entries="uniform")
        adj = np.triu(da["adjacency"].values, 1)
        iu, ju = np.nonzero(adj)
        return np.mean([np.max(np.abs(m[iu, ju]) / np.diag(m)[iu]) for m in da.values])

    assert mean_ratio("po") > 5 * mean_ratio("dd")


def test_erdos_renyi_density_and_reproducibility():
    g = spdgraph.graphs.erdos_renyi(200, 0.1, seed=3)
    assert g.number_of_nodes() == 200
    n_pairs = 200 * 199 / 2
    assert abs(g.number_of_edges() / n_pairs - 0.1) < 0.01
    assert sorted(g.edges) == sorted(spdgraph.graphs.erdos_renyi(200, 0.1, seed=3).edges)
    assert spdgraph.graphs.erdos_renyi(5, 0.0, seed=0).number_of_edges() == 0
    assert spdgraph.graphs.erdos_renyi(5, 1.0, seed=0).number_of_edges() == 10


@pytest.mark.parametrize("p, d", [(0, 0.5), (-1, 0.5), (2.5, 0.5), (5, -0.1), (5, 1.5), (5, "x")])
def test_erdos_renyi_rejects_bad_arguments(p, d):
    with pytest.raises(spdgraph.InvalidOptionError):
        spdgraph.graphs.erdos_renyi(p, d)
