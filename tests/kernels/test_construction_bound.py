"""PO's proof of positive definiteness from its own factor (``GeneratorSpec.proves_pd``).

A PO matrix is ``fl(L L^T)`` for the lower-triangular ``L`` its kernel built,
non-edges then set to 0. ``spdgraph._kernels.certify.construction_bound``
turns ``L`` into a proven upper bound of the matrix's scaled 1-norm condition
number. Checked here against the slow, obvious value (the explicit inverse),
on every kernel that derives it, and through the core, which then skips its
factorization.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels.certify import construction_bound, factor_bound, majorant_forward
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION
from spdgraph._kernels.po import blocked as _po_blocked
from spdgraph._kernels.po.batch import po_batch
from spdgraph.plugins.types import standard_normal_entries
from spdgraph.sampling import _make


def scaled(m: np.ndarray) -> np.ndarray:
    """``H = S m S``, ``S = diag(m)^-1/2``: positive definite exactly when ``m`` is, and
    well scaled (``eigvalsh`` of ``m`` itself errs by ``eps ||m||``, which a diagonal
    spread over 10^8 makes larger than its smallest eigenvalue)."""
    s = 1.0 / np.sqrt(np.diag(m))
    return m * np.outer(s, s)


def scaled_condition(m: np.ndarray) -> float:
    """The slow reference: ``||H||_1 ||H^-1||_1`` for ``H = S m S``."""
    h = scaled(m)
    return float(np.linalg.norm(h, 1) * np.linalg.norm(np.linalg.inv(h), 1))


def _adjacency(p: int, d: float, seed: int) -> np.ndarray:
    upper = np.triu(np.random.default_rng(seed).random((p, p)) < d, 1)
    return upper | upper.T


def _po_with_bounds(adjacency: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rngs = [np.random.default_rng([seed, k]) for k in range(n)]
    bounds = np.full(n, -1.0)
    out = po_batch(
        adjacency, rngs=rngs, entries=standard_normal_entries, normal=True,
        condition_bounds=bounds,
    )  # fmt: skip
    return out, bounds


@settings(max_examples=30, deadline=None)
@given(p=st.integers(1, 48), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_small_batches_bound_the_condition_number(p: int, d: float, seed: int) -> None:
    """Every finite bound of the group and row kernels is a true bound, and proves PD."""
    adjacency = _adjacency(p, d, seed)
    out, bounds = _po_with_bounds(adjacency, 3, seed)
    assert not (bounds < 0).any()  # every entry written
    for m, bound in zip(out, bounds, strict=True):
        if np.isfinite(bound):
            assert np.linalg.eigvalsh(scaled(m)).min() > 0
            assert scaled_condition(m) <= bound * (1 + 1e-9)
    if d <= 0.1 and p >= 2:  # sparse graphs: the bound is within a small factor, never lost
        assert np.isfinite(bounds).all()


@pytest.mark.parametrize(("p", "d"), [(_po_blocked.MIN_P + 10, 0.01), (300, 0.1)])
def test_blocked_kernels_bound_the_condition_number(p: int, d: float) -> None:
    """The blocked and inverse-Gram kernels (p >= MIN_P), through the interleaved
    substitutions of ``gram_inplace``: finite and a true bound."""
    out, bounds = _po_with_bounds(_adjacency(p, d, 4), 1, 4)
    assert np.isfinite(bounds[0])
    assert scaled_condition(out[0]) <= bounds[0] * (1 + 1e-9)
    if d <= 0.01:  # tight for sparse graphs (loose, but far below 1e12, at d = 0.1)
        assert bounds[0] < 20 * scaled_condition(out[0])


@settings(max_examples=40, deadline=None)
@given(
    p=st.integers(1, 30),
    seed=st.integers(0, 2**31),
    spread=st.floats(0.0, 6.0),
    drop=st.floats(0.0, 1.0),
)
def test_factor_bound_of_any_triangular_factor(p: int, seed: int, spread: float, drop: float):
    """Any lower-triangular factor (diagonals spread over ``10^spread``, entries dropped
    at random), its product rounded: a finite bound is above the exact condition number;
    the upper triangle of the factor is never read."""
    rng = np.random.default_rng(seed)
    lower = np.tril(rng.standard_normal((p, p)) * (rng.random((p, p)) >= drop))
    lower[np.diag_indices(p)] = 10.0 ** rng.uniform(-spread, spread, p)
    m = lower @ lower.T
    m = (m + m.T) / 2
    garbage = lower + np.triu(rng.standard_normal((p, p)), 1)  # read: a wrong bound
    bound = factor_bound(m, garbage, 0.0, np.empty((2, p)))
    if np.isfinite(bound):
        assert np.linalg.eigvalsh(scaled(m)).min() > 0
        assert scaled_condition(m) <= bound * (1 + 1e-9)
    assert bound == factor_bound(m, lower, 0.0, np.empty((2, p)))


def test_a_large_residual_or_inverse_proves_nothing() -> None:
    assert construction_bound(3.0, 10.0, 100, 0.0) < np.inf
    assert construction_bound(3.0, 10.0, 100, 1e-3) == np.inf  # 10 * 100 * 2e-3 > 1/2
    assert construction_bound(3.0, 1e14, 100, 0.0) == np.inf
    assert construction_bound(3.0, np.nan, 100, 0.0) == np.inf
    m = np.eye(3)
    m[1, 1] = 0.0
    assert factor_bound(m, np.eye(3), 0.0, np.empty((2, 3))) == np.inf


def test_an_upper_entry_the_product_reads_voids_the_bound() -> None:
    """Inside a diagonal tile the tiled product reads right of the diagonal: such an
    entry not 0 means the product is not of the lower triangle, so no bound."""
    p, tile = 12, 4
    lower = np.tril(np.random.default_rng(1).standard_normal((p, p))) + 5 * np.eye(p)
    work, root = np.zeros(p), np.zeros(p)
    assert majorant_forward(lower, root, work, 0, p, tile)
    np.testing.assert_allclose(root, np.linalg.norm(lower, axis=1), rtol=1e-14)
    lower[5, 7] = 1e-300  # same tile as row 5 (4..7)
    assert not majorant_forward(lower, root, work, 0, p, tile)
    lower[5, 7] = 0.0
    lower[5, 8] = 1.0  # next tile: not read by the product's diagonal tile
    assert majorant_forward(lower, root, work, 0, p, tile)
    assert not _po_blocked.gram_inplace(np.triu(np.ones((3, 3))), 1, np.empty((2, 3)))


# --- the core -------------------------------------------------------------------


@pytest.fixture
def register():
    pm = spdgraph.get_plugin_manager()
    names: list[str] = []

    def _register(gen: spdgraph.Generator) -> None:
        mod = types.ModuleType(gen.name)

        @spdgraph.hookimpl
        def spdgraph_register_generators():
            return [gen]

        mod.spdgraph_register_generators = spdgraph_register_generators  # type: ignore[attr-defined]
        pm.register(mod, name=gen.name)
        names.append(gen.name)

    yield _register
    for name in names:
        pm.unregister(name=name)


def _claiming(name: str, matrix: np.ndarray, claim: float) -> spdgraph.Generator:
    """A generator that returns ``matrix`` and claims ``claim`` as its condition bound."""

    def batch(adjacency, *, rngs, entries, condition_bounds):
        condition_bounds[:] = claim
        return np.stack([matrix] * len(rngs))

    return spdgraph.Generator(
        name, lambda a, **k: matrix, "test", batch_function=batch, proves_pd=True
    )


#: positive diagonal, exact pattern of EDGE, eigenvalue -1
NOT_PD = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
EDGE = NOT_PD != 0
np.fill_diagonal(EDGE, False)


def test_the_core_checks_what_no_bound_proves(register) -> None:
    """Bounds left infinite, above the limit, or on a diagonal out of range: the full check."""
    register(_claiming("claims-nothing", NOT_PD, np.inf))
    register(_claiming("claims-too-much", NOT_PD, MAX_SCALED_CONDITION))
    tiny = np.array([[1e-150, 1e-70, 0.0], [1e-70, 1.0, 0.0], [0.0, 0.0, 1.0]])  # det < 0
    register(_claiming("claims-on-tiny", tiny, 1.0))
    for name in ("claims-nothing", "claims-too-much", "claims-on-tiny"):
        for normalize in (False, True):
            with pytest.raises(spdgraph.GeneratorOutputError, match="positive definite"):
                spdgraph.sample(EDGE, name, seed=1, normalize=normalize, uncertified="raise")


def test_a_proven_matrix_is_not_factored(register, monkeypatch) -> None:
    """A bound within the limit stands for the factorization (the generator's proof: a
    false claim is taken, which is why ``proves_pd`` is the generator's responsibility);
    the pattern is still checked."""
    register(_claiming("claims-a-proof", np.eye(3), 1.0))
    from spdgraph._kernels import certify

    def no_factorization(*args, **kwargs):
        raise AssertionError("factored a proven matrix")

    monkeypatch.setattr(certify, "_factors_pass", no_factorization)
    monkeypatch.setattr(_make, "find_violation", no_factorization)
    for normalize in (False, True):
        x = spdgraph.sample(np.zeros((3, 3), dtype=bool), "claims-a-proof", seed=1, size=4,
                            normalize=normalize)  # fmt: skip
        np.testing.assert_array_equal(x.values, np.stack([np.eye(3)] * 4))
    asymmetric = np.eye(3)
    asymmetric[0, 1] = 0.5
    register(_claiming("claims-on-asymmetric", asymmetric, 1.0))
    monkeypatch.undo()
    with pytest.raises(spdgraph.GeneratorOutputError, match="symmetric"):
        spdgraph.sample(np.ones((3, 3), dtype=bool) ^ np.eye(3, dtype=bool),
                        "claims-on-asymmetric", seed=1)  # fmt: skip


def test_po_matrices_skip_the_factorization(monkeypatch) -> None:
    """On a sparse graph every PO matrix of a batch is proven: no Cholesky in the core."""
    from spdgraph._kernels import certify

    def no_factorization(*args, **kwargs):
        raise AssertionError("factored a proven PO matrix")

    g = spdgraph.graphs.erdos_renyi(60, 0.05, seed=3)
    expected = spdgraph.sample(g, "po", seed=2, size=40).values
    monkeypatch.setattr(certify, "_factors_pass", no_factorization)
    monkeypatch.setattr(_make, "find_violation", no_factorization)
    np.testing.assert_array_equal(spdgraph.sample(g, "po", seed=2, size=40).values, expected)
