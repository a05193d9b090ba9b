"""``da.spd.draw(n, chunks=...)``: dask blocks from one factor, the same bits as in memory.

The rows are drawn in units (``spdgraph.accessor._units``): the tests shrink the
unit to a few rows so that blocks of 7 and 13 rows cut units, and compare the
draws with a slow reference that draws each unit from its stream by hand.
"""

from __future__ import annotations

import dask
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency
from scipy import stats

import spdgraph
from spdgraph._kernels.numerics import gaussian_draws
from spdgraph.accessor import _draw, _units
from spdgraph.seeds import DRAW, seed_sequence, unit_stream

CHUNKINGS = (None, 7, 13)


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of 4 rows on 5 nodes (2 on 10), so that blocks of 7 or 13 rows cut units."""
    monkeypatch.setattr(_units, "UNIT_ENTRIES", 20)


def _dense(kind: str, p: int = 5) -> object:
    return spdgraph.sample(nx.path_graph(p), seed=0, kind=kind)


def _sparse(kind: str = "precision", p: int = 10) -> object:
    return spdgraph.sample(nx.path_graph(p), seed=0, kind=kind, sparse=True, method="dd")


def _draws(matrix: object, n_obs: int, **options: object) -> list[np.ndarray]:
    with dask.config.set(scheduler="threads"):
        return [
            np.asarray(matrix.spd.draw(n_obs, seed=3, chunks=c, **options).values)
            for c in CHUNKINGS
        ]


def _all_equal(draws: list[np.ndarray]) -> bool:
    return all(np.array_equal(draws[0], d, equal_nan=True) for d in draws[1:])


@pytest.mark.usefixtures("small_units")
@pytest.mark.parametrize("kind", ["covariance", "precision"])
def test_dense_draws_are_the_same_bits_whatever_the_chunks(kind):
    assert _all_equal(_draws(_dense(kind), 100))
    options = {"marginals": [stats.t(df=5), "binary", "gaussian", stats.poisson(3),
               "standardized"], "missing": 0.2}  # fmt: skip
    draws = _draws(_dense(kind), 100, **options)
    assert _all_equal(draws) and np.isnan(draws[0]).any()


@pytest.mark.usefixtures("small_units")
@pytest.mark.parametrize(("kind", "method"), [("precision", "cholesky"), ("covariance",
                         "cholesky"), ("precision", "cg")])  # fmt: skip
def test_sparse_draws_are_the_same_bits_whatever_the_chunks(kind, method):
    assert _all_equal(_draws(_sparse(kind), 60, method=method))


def test_a_stack_chunked_is_the_stack_in_memory():
    stack = spdgraph.sample(nx.cycle_graph(6), seed=1, size=3)
    lazy = stack.spd.draw(50, seed=2, chunks=13)
    assert lazy.dims == ("sample", "obs", "node") and lazy.data.chunks[1] == (13, 13, 13, 11)
    assert np.array_equal(lazy.values, stack.spd.draw(50, seed=2).values)


def _reference(matrix: np.ndarray, n_obs: int, seed: int, unit: int) -> np.ndarray:
    """Unit by unit by hand: unit ``u``'s normals from its stream, one transform each."""
    root, factor = seed_sequence(seed), np.linalg.cholesky(matrix)
    parts = []
    for u, first in enumerate(range(0, n_obs, unit)):
        rows = min(unit, n_obs - first)
        z = unit_stream(root, DRAW, 0, u).standard_normal((rows, matrix.shape[0]))
        parts.append(gaussian_draws(z, factor, "covariance"))
    return np.concatenate(parts)


@pytest.mark.usefixtures("small_units")
def test_the_draw_is_its_units_drawn_one_by_one():
    matrix = _dense("covariance")
    assert _units.unit_rows(5) == 4
    expected = _reference(matrix.values, 30, 3, 4)
    for chunks in CHUNKINGS:
        assert np.array_equal(matrix.spd.draw(30, seed=3, chunks=chunks).values, expected)


def test_units_are_powers_of_two_fixed_by_the_node_count():
    assert [_units.unit_rows(p) for p in (1, 3, 1000, 2**18, 10**7)] == [2**18, 2**16, 256, 1, 1]
    assert _units.aligned_chunks(1000, 1000) == 768 and _units.aligned_chunks(100, 1000) == 100


@settings(max_examples=20, deadline=None)
@given(
    p=st.integers(2, 7),
    density=st.floats(0.0, 1.0),
    n_obs=st.integers(0, 40),
    chunks=st.integers(1, 25),
    seed=st.integers(0, 2**32 - 1),
    sparse=st.booleans(),
)
def test_any_graph_any_chunks_the_same_bits(p, density, n_obs, chunks, seed, sparse):
    graph = nx.from_numpy_array(random_adjacency(p, density, np.random.default_rng(seed)))
    options = {"sparse": True, "method": "dd"} if sparse else {}
    matrix = spdgraph.sample(graph, seed=seed, kind="precision", **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_units, "UNIT_ENTRIES", 3 * p)  # units of 2 rows: cut by odd chunks
        whole = matrix.spd.draw(n_obs, seed=seed).values
        lazy = matrix.spd.draw(n_obs, seed=seed, chunks=chunks)
        assert isinstance(lazy.data, dask.array.Array)
        assert np.array_equal(whole, lazy.values)


def _factor_keys(data: object) -> list[object]:
    graph = data.data.__dask_graph__()
    return [k for k in graph if str(k).startswith(_units.FACTOR_TASK)]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_the_factor_is_one_task_computed_once(monkeypatch, sparse):
    calls = []
    name = "sparse_drawer" if sparse else "dense_drawer"
    module = spdgraph.accessor._sparse if sparse else _draw
    made = getattr(module, name)

    def counted(*args: object) -> object:
        calls.append(1)
        return made(*args)

    monkeypatch.setattr(module, name, counted)
    matrix = _sparse() if sparse else _dense("precision")
    data = matrix.spd.draw(100, seed=1, chunks=10)
    assert data.data.numblocks[0] == 10 and len(_factor_keys(data)) == 1
    assert not calls  # nothing computed yet
    with dask.config.set(scheduler="threads"):
        data.compute()
    assert len(calls) == 1


def test_a_stack_has_one_factor_task_per_matrix():
    stack = spdgraph.sample(nx.cycle_graph(6), seed=1, size=3)
    assert len(_factor_keys(stack.spd.draw(50, seed=2, chunks=7))) == 3


@pytest.mark.parametrize("chunks", [0, -1, 2.5, "7", True])
def test_bad_chunks_are_refused(chunks):
    with pytest.raises(spdgraph.SpdgraphError, match="chunks"):
        _dense("covariance").spd.draw(10, seed=1, chunks=chunks)


def test_the_guard_names_the_chunks_that_fit(monkeypatch):
    matrix = _dense("covariance", p=10)
    need = _draw.draw_need(1, 10**8, 10)
    monkeypatch.setattr(_draw, "available_memory", lambda: need // 4)
    with pytest.raises(spdgraph.TooLargeError, match=r"chunks=[\d,]+ .*Zarr") as info:
        matrix.spd.draw(10**8, seed=1)
    rows = int(info.value.args[0].split("chunks=")[1].split()[0].replace(",", ""))
    assert rows % _units.unit_rows(10) == 0
    lazy = matrix.spd.draw(10**8, seed=1, chunks=rows)  # accepted: a block per thread fits
    assert lazy.shape == (10**8, 10) and isinstance(lazy.data, dask.array.Array)
    with pytest.raises(spdgraph.TooLargeError, match="use smaller blocks"):
        matrix.spd.draw(10**8, seed=1, chunks=10**8)


def test_a_sparse_simulation_draws_its_data_in_blocks():
    options = {"p": 40, "method": "dd", "sparse": True, "seed": 5}
    whole = spdgraph.simulate("band", n=300, **options)
    lazy = spdgraph.simulate("band", n=300, chunks=70, **options)
    assert isinstance(lazy["data"].data, dask.array.Array)
    assert np.array_equal(whole["data"].values, lazy["data"].values)


def test_a_sparse_simulation_too_large_is_told_how_to_chunk(monkeypatch):
    monkeypatch.setattr(_draw, "available_memory", lambda: 10**8)
    with pytest.raises(spdgraph.TooLargeError, match=r"chunks=[\d,]+"):
        spdgraph.simulate("band", n=10**6, p=100, method="dd", sparse=True, seed=1)


@pytest.mark.integration
def test_a_local_cluster_gives_the_same_bits():
    distributed = pytest.importorskip("distributed")
    dense, sparse = _dense("precision", p=8), _sparse()
    expected = [m.spd.draw(200, seed=4).values for m in (dense, sparse)]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        for matrix, values in zip((dense, sparse), expected, strict=True):
            for chunks in (7, 13):
                assert np.array_equal(matrix.spd.draw(200, seed=4, chunks=chunks).values, values)


def test_a_sparse_drawer_pickled_draws_the_same_rows():
    """A worker in another process gets the factor pickled: factorized again there in the
    planned order, it draws the same bits."""
    import pickle

    matrix = _sparse()
    data = matrix.spd.draw(40, seed=6, chunks=40)
    (key,) = _factor_keys(data)
    drawer = dask.get(data.data.__dask_graph__(), key)
    copy = pickle.loads(pickle.dumps(drawer))
    assert copy.factor is not drawer.factor
    assert np.array_equal(copy.rows(0, 40), drawer.rows(0, 40))
    assert np.array_equal(copy.rows(0, 40), matrix.spd.draw(40, seed=6).values)
