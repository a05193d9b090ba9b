"""Every dense certificate records the proven lower bound of the smallest eigenvalue.

A dense ``spdgraph.sample`` result carries ``attrs["certificate"]`` (the proofs
used) and ``attrs["certificate_lambda_min_lower_bound"]`` (a float: the smallest
over a stack), carried from the certifier that passed each matrix (weighted
dominance, a Cholesky factorization with its rounding bounded, the generator's
proven condition bound) through the block to the output. Each bound is checked
against NumPy's ``eigvalsh`` with the eigensolver's own backward error allowed
(``|lambda_hat - lambda| <= 4 p eps ||M||_F``, a bound of the algorithm, not of a
machine): the proof must never claim more than the matrix has.
"""

from __future__ import annotations

import types
from collections.abc import Iterator

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import random_adjacencies

import spdgraph
from spdgraph._kernels.certify import certifies
from spdgraph._kernels.dominance import proves_pd
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph._kernels.proofs import PROOF_NAMES
from spdgraph.plugins._builtin.gen_uniform import chordal_cover

KEY = "certificate_lambda_min_lower_bound"
METHODS = ["po", "dd", "huge", "port_chol", "uniform", "dag"]
EPS = float(np.finfo(np.float64).eps)


def _smallest_eigenvalue_allowing_its_error(values: np.ndarray) -> float:
    """The least computed eigenvalue of a matrix or stack plus the eigensolver's backward
    error bound (``4 p eps ||M||_F``): at least the true smallest eigenvalue."""
    stack = values if values.ndim == 3 else values[None]
    p = stack.shape[-1]
    slack = 4 * p * EPS * np.linalg.norm(stack, axis=(-2, -1))
    return float(np.min(np.linalg.eigvalsh(stack)[:, 0] + slack))


def _assert_proven(da, names: set[str] | None = None) -> float:
    bound = da.attrs[KEY]
    assert isinstance(bound, float)
    assert 0 < bound <= _smallest_eigenvalue_allowing_its_error(np.asarray(da.values))
    used = set(da.attrs["certificate"].split("; "))
    assert used <= set(PROOF_NAMES.values()), used
    if names is not None:
        assert used == names, used
    return bound


def _graph_for(method: str, adjacency: np.ndarray):
    if method == "uniform":
        return chordal_cover(adjacency, "min_degree")[0]
    if method == "dag":
        return spdgraph.DAG(np.triu(adjacency, 1))
    return adjacency


graphs = random_adjacencies(2, 30)


@given(
    adjacency=graphs,
    method=st.sampled_from(METHODS),
    normalize=st.booleans(),
    size=st.sampled_from([None, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_built_in_method_records_a_proven_bound(adjacency, method, normalize, size, seed):
    kind = "precision" if method == "huge" else "covariance"
    da = spdgraph.sample(_graph_for(method, adjacency), method, seed=seed, size=size,
                         kind=kind, normalize=normalize)  # fmt: skip
    _assert_proven(da)  # a stack's: the smallest over it (a stack may take another proof)


# --- third-party generators -----------------------------------------------------------------


def _weighted(adjacency: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``I + c W`` (``W`` symmetric, entries in [0.2, 1] on the edges) with ``c`` putting
    its smallest eigenvalue at about 1/2: on a clique no H-matrix (dominance fails)."""
    p = adjacency.shape[0]
    w = np.triu(rng.uniform(0.2, 1.0, (p, p)) * adjacency, 1)
    w = w + w.T
    low = float(np.linalg.eigvalsh(w)[0]) if p else 0.0
    return np.eye(p) + (0.5 / -low) * w if low < 0 else np.eye(p)


def _third_party() -> list[spdgraph.Generator]:
    def one(adjacency, *, rng, entries):
        return _weighted(adjacency, rng)

    def batch(adjacency, *, rngs, entries, condition_bounds):
        out = np.stack([_weighted(adjacency, rng) for rng in rngs])
        # an honest proof of the scaled 1-norm condition number (unit diagonal):
        # ||M||_1 ||M^-1||_1 <= ||M||_1 sqrt(p) / lambda_min, lambda_min >= 1/2 less roundings
        norms = np.abs(out).sum(axis=1).max(axis=1)
        condition_bounds[:] = norms * np.sqrt(adjacency.shape[0]) / 0.499
        return out

    def flaky(adjacency, *, rng, entries):
        if rng.random() < 0.5:  # the all-ones matrix on a clique: singular, refused
            return np.ones(adjacency.shape)
        return _weighted(adjacency, rng)

    return [
        spdgraph.Generator("toy-weighted", one, "test"),
        spdgraph.Generator("toy-proving", one, "test", batch_function=batch, proves_pd=True),
        spdgraph.Generator("toy-flaky", flaky, "test"),
    ]


@pytest.fixture(scope="module")
def third_party() -> Iterator[None]:
    module = types.ModuleType("toy-bounds-plugin")
    module.spdgraph_register_generators = spdgraph.hookimpl(_third_party)  # type: ignore[attr-defined]
    spdgraph.get_plugin_manager().register(module, name="toy-bounds-plugin")
    yield
    spdgraph.get_plugin_manager().unregister(name="toy-bounds-plugin")


@given(adjacency=graphs, normalize=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_a_third_party_generator_gets_a_proven_bound(third_party, adjacency, normalize, seed):
    for name in ("toy-weighted", "toy-proving"):
        for size in (None, 3):
            da = spdgraph.sample(adjacency, name, seed=seed, size=size, normalize=normalize)
            _assert_proven(da)


def test_each_proof_is_named(third_party) -> None:
    dense = nx.complete_graph(12)  # positive off-diagonals on a clique: no dominance
    cholesky = spdgraph.sample(dense, "toy-weighted", seed=1, size=2)
    _assert_proven(cholesky, {PROOF_NAMES[2.0]})
    dd = spdgraph.sample(nx.cycle_graph(12), "dd", seed=1)
    _assert_proven(dd, {PROOF_NAMES[1.0]})
    claimed = spdgraph.sample(dense, "toy-proving", seed=1, size=2)
    _assert_proven(claimed, {PROOF_NAMES[3.0]})


def test_spectrum_targets_redraws_and_progress_keep_the_bound() -> None:
    target = spdgraph.sample(nx.path_graph(10), "po", seed=1, size=2, min_eigenvalue=0.3,
                             normalize=False)  # fmt: skip
    assert _assert_proven(target) <= min(target.attrs["min_eigenvalue"])
    shrunk = spdgraph.sample(nx.path_graph(10), "po", seed=1, condition_number=5.0)
    _assert_proven(shrunk)
    whole = spdgraph.sample(nx.cycle_graph(20), "po", seed=4, size=6)
    runs = spdgraph.sample(nx.cycle_graph(20), "po", seed=4, size=6, progress=True)
    assert (
        runs.attrs[KEY] == whole.attrs[KEY]
        and runs.attrs["certificate"] == whole.attrs["certificate"]
    )


def test_a_redrawn_matrix_carries_the_bound_of_its_redraw(third_party) -> None:
    clique = nx.complete_graph(8)
    da = spdgraph.sample(clique, "toy-flaky", seed=1, size=6)
    assert sum(da.attrs["redraws"]) > 0  # some of its matrices were redrawn
    _assert_proven(da)
    with pytest.raises(spdgraph.errors.UncertifiedMatrixError):
        spdgraph.sample(clique, "toy-flaky", seed=1, size=6, uncertified="raise")


def test_a_lazy_stack_records_the_bound_once_computed_and_checked() -> None:
    pytest.importorskip("dask")
    lazy = spdgraph.sample(nx.cycle_graph(10), "po", seed=1, size=4, chunks=2)
    assert KEY not in lazy.attrs  # made at compute(): documented
    eager = spdgraph.sample(nx.cycle_graph(10), "po", seed=1, size=4)
    computed = lazy.compute()
    computed.spd.check()
    assert 0 < computed.attrs[KEY] <= _smallest_eigenvalue_allowing_its_error(computed.values)
    np.testing.assert_array_equal(computed.values, eager.values)


def test_info_shows_the_bound(tmp_path, capsys) -> None:
    from spdgraph.cli import main

    da = spdgraph.sample(nx.cycle_graph(10), "dd", seed=1, size=2)
    path = tmp_path / "m.nc"
    spdgraph.save(da, path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert KEY in out and "certificate" in out
    assert spdgraph.open(path).attrs[KEY] == da.attrs[KEY]


# --- the kernels ----------------------------------------------------------------------------


@given(adjacency=graphs, seed=st.integers(0, 2**32 - 1), shift=st.floats(0.0, 2.0))
def test_the_kernels_bounds_are_below_lambda_min(adjacency, seed, shift) -> None:
    rng = np.random.default_rng(seed)
    p = adjacency.shape[0]
    w = np.triu(rng.uniform(-1.0, 1.0, (p, p)) * adjacency, 1)
    m = w + w.T
    m += np.diag(np.abs(m).sum(axis=1) * rng.uniform(0.3, 1.2, p) + shift + 1e-3)
    stack = m[None].copy()
    truth = _smallest_eigenvalue_allowing_its_error(m)
    bounds = np.zeros(1)
    if proves_pd(stack, adjacency, MAX_SCALED_CONDITION, bounds):
        assert 0 < bounds[0] <= truth
    proven = np.full((2, 1), np.nan)
    if certifies(stack, adjacency, check_pd=True, condition_bound=MAX_SCALED_CONDITION,
                 proven=proven):  # fmt: skip
        assert 0 < proven[0, 0] <= truth and proven[1, 0] in PROOF_NAMES
    proven = np.full((2, 1), np.nan)
    if (
        find_violation(stack, adjacency, condition_bound=MAX_SCALED_CONDITION, proven=proven)
        is None
    ):
        assert 0 < proven[0, 0] <= truth and proven[1, 0] in PROOF_NAMES


def test_find_violation_bounds_a_large_matrix() -> None:
    """From p = 2048 on the one-copy factorization: its bound too (lambda_min = 1/2)."""
    p = 2048
    m = np.full((1, p, p), 0.5)
    m[0][np.diag_indices(p)] = 1.0
    proven = np.full((2, 1), np.nan)
    adjacency = ~np.eye(p, dtype=bool)
    assert (
        find_violation(m, adjacency, condition_bound=MAX_SCALED_CONDITION, proven=proven) is None
    )
    assert 0 < proven[0, 0] <= 0.5 and PROOF_NAMES[proven[1, 0]].startswith("Cholesky")


def test_related_graphs_record_one_bound_and_the_proofs_once() -> None:
    graphs = [nx.cycle_graph(12), nx.complete_graph(12)]
    groups = spdgraph.sample(graphs, "po", seed=3, size=2)
    bound = groups.attrs[KEY]
    assert isinstance(bound, float) and isinstance(groups.attrs["certificate"], str)
    assert 0 < bound <= _smallest_eigenvalue_allowing_its_error(groups.values.reshape(-1, 12, 12))
    assert len(groups.attrs["certificate"].split("; ")) == len(
        set(groups.attrs["certificate"].split("; "))
    )


def test_a_sparse_stack_records_one_bound_as_the_dense_one() -> None:
    pytest.importorskip("sparse")
    stack = spdgraph.sample(nx.cycle_graph(30), "dd", seed=3, size=3, sparse=True,
                            kind="precision")  # fmt: skip
    bound = stack.attrs[KEY]
    assert isinstance(bound, float)
    assert 0 < bound <= _smallest_eigenvalue_allowing_its_error(stack.data.todense())
    del stack.attrs[KEY]
    stack.spd.check()  # proves them again: the same kind of number
    assert isinstance(stack.attrs[KEY], float) and 0 < stack.attrs[KEY]
