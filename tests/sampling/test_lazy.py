"""spdgraph.sample(..., chunks=c): lazy, bit-for-bit equal to the eager call, bounded memory."""

import inspect
import sys
import tracemalloc

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.graphs import erdos_renyi
from spdgraph.sampling import _engine as _engine
from spdgraph.sampling import _lazy as _dask
from spdgraph.sampling import _make
from spdgraph.sampling import _memory as _memory

dask = pytest.importorskip("dask")
pytest.importorskip("dask.array")

G = nx.relabel_nodes(erdos_renyi(12, 0.3, seed=3), {i: f"n{i}" for i in range(12)})

#: Attrs only the eager call sets: the achieved spectrum, measured on the finished stack.
#: Known only once the matrices are made (the lazy result's docstring says so).
EAGER_ONLY_ATTRS = {
    "min_eigenvalue",
    "condition_number",
    "redraws",
    "certificate",
    "certificate_lambda_min_lower_bound",
}


def assert_matches_eager(lazy, eager):
    """Identical to the eager result (values bit for bit), but for the eager-only attrs."""
    assert set(eager.attrs) - set(lazy.attrs) <= EAGER_ONLY_ATTRS
    expected = eager.copy()
    expected.attrs = {k: v for k, v in eager.attrs.items() if k in lazy.attrs}
    assert lazy.identical(expected)
    np.testing.assert_array_equal(lazy.values.view(np.uint64), eager.values.view(np.uint64))


@pytest.fixture
def counting(monkeypatch):
    """Count generate_block calls (the chunk tasks) and the matrices each computes."""
    calls = []
    real = _dask.generate_block

    def wrapper(*args, **kwargs):
        n = len(kwargs["rngs"]) if kwargs["rngs"] is not None else len(kwargs["factors"])
        calls.append(n)
        return real(*args, **kwargs)

    monkeypatch.setattr(_dask, "generate_block", wrapper)
    return calls


@pytest.mark.parametrize("chunks", [1, 3, 7, 13, 100])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "po", "seed": 1},
        {"method": "po", "seed": 2, "kind": "precision", "normalize": False, "entries": "uniform"},
        {"method": "dd", "seed": 3},
        {"method": "po", "seed": np.random.SeedSequence(4).spawn(3)[2]},
    ],
)
def test_lazy_is_bit_for_bit_the_eager_result(chunks, kwargs):
    eager = spdgraph.sample(G, size=13, **kwargs)
    lazy = spdgraph.sample(G, size=13, chunks=chunks, **kwargs)
    assert lazy.chunks is not None
    assert lazy.chunks[0] == tuple(min(chunks, 13 - s) for s in range(0, 13, chunks))
    assert_matches_eager(lazy.compute(), eager)


@pytest.mark.parametrize(
    "targets",
    [{"condition_number": 10.0}, {"min_eigenvalue": 0.2}, {"negative_share": 0.3}],
)
def test_lazy_applies_the_other_sample_parameters(targets):
    params = inspect.signature(spdgraph.sample).parameters
    if not set(targets) <= set(params):
        pytest.skip("this spdgraph has no spectrum / sign control")
    eager = spdgraph.sample(G, size=7, seed=21, **targets)
    lazy = spdgraph.sample(G, size=7, seed=21, chunks=3, **targets)
    assert_matches_eager(lazy.compute(), eager)


def test_single_matrix_empty_stack_and_factors():
    one = spdgraph.sample(G, seed=5, chunks=4)
    assert one.dims == ("node", "node_2") and one.chunks is not None
    assert_matches_eager(one.compute(), spdgraph.sample(G, seed=5))
    empty = spdgraph.sample(G, seed=5, size=0, chunks=4)
    assert empty.shape == (0, 12, 12)
    assert_matches_eager(empty.compute(), spdgraph.sample(G, seed=5, size=0))
    factors = np.random.default_rng(0).standard_normal((5, 12, 12))
    lazy = spdgraph.sample(G, factor=factors, chunks=2)
    assert lazy.chunks[0] == (2, 2, 1)
    assert_matches_eager(lazy.compute(), spdgraph.sample(G, factor=factors))


def test_nothing_is_computed_until_asked(counting):
    lazy = spdgraph.sample(G, size=10, seed=1, chunks=4)
    assert counting == []
    lazy.isel(sample=5).compute()  # only the chunk holding matrix 5
    assert counting == [4]
    counting.clear()
    lazy.compute()
    assert sorted(counting) == [2, 4, 4]


def test_threaded_and_synchronous_schedulers_agree():
    eager = spdgraph.sample(G, size=9, seed=8)
    lazy = spdgraph.sample(G, size=9, seed=8, chunks=2)
    for scheduler in ("threads", "synchronous"):
        with dask.config.set(scheduler=scheduler):
            np.testing.assert_array_equal(lazy.values, eager.values)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"chunks": 0}, spdgraph.InvalidOptionError, "an integer >= 1"),
        ({"chunks": -2}, spdgraph.InvalidOptionError, "an integer >= 1"),
        ({"chunks": 2.5}, spdgraph.InvalidOptionError, "an integer >= 1"),
        ({"chunks": True}, spdgraph.InvalidOptionError, "an integer >= 1"),
        ({"chunks": 2, "method": "nope"}, spdgraph.UnknownMethodError, "unknown method"),
        ({"chunks": 2, "size": -1}, spdgraph.InvalidOptionError, "an integer >= 0"),
        ({"chunks": 2, "bogus": 1}, spdgraph.UnknownOptionError, "bogus"),
        ({"chunks": 2, "factor": np.eye(3)}, spdgraph.FactorError, "12 x 12"),
    ],
)
def test_arguments_are_checked_eagerly(kwargs, exc, match, counting):
    with pytest.raises(exc, match=match):
        spdgraph.sample(G, **kwargs)
    assert counting == []


def test_generator_errors_surface_at_compute(monkeypatch):
    real = _make.validate_matrix

    def reject_third(m, adjacency, k, gen, plugin, **kwargs):
        if np.array_equal(m, m) and reject_third.count == 2:
            raise spdgraph.GeneratorOutputError("matrix rejected")
        reject_third.count += 1
        return real(m, adjacency, k, gen, plugin, **kwargs)

    reject_third.count = 0
    monkeypatch.setattr(_make, "validate_matrix", reject_third)
    lazy = spdgraph.sample(G, method="dd", size=4, seed=1, chunks=1)
    with pytest.raises(spdgraph.GeneratorOutputError, match="rejected"):
        lazy.compute(scheduler="synchronous")


def test_memory_check_is_per_chunk(monkeypatch):
    monkeypatch.setattr(_memory, "available_memory", lambda: 50 * 2**20)
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sample(nx.path_graph(100), size=1000)  # 320 MB eagerly
    lazy = spdgraph.sample(nx.path_graph(100), size=1000, chunks=10, seed=0)  # 3.2 MB a chunk
    assert lazy.shape == (1000, 100, 100)
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sample(nx.path_graph(100), size=1000, chunks=1000)


def test_missing_dask_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.array", None)
    with pytest.raises(spdgraph.MissingDependencyError, match=r"spdgraph\[dask\]"):
        spdgraph.sample(G, size=3, chunks=1)
    assert spdgraph.sample(G, size=3, seed=0).shape == (3, 12, 12)  # eager still works


def _peak_bytes(run):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def _check_bounded_memory(method, n, p, chunks, counting):
    graph = erdos_renyi(p, 0.1, seed=1)
    # warm up (first-time imports and JIT allocate too), checking the reduction on the way
    head = spdgraph.sample(graph, method=method, size=2 * chunks, seed=3, chunks=chunks)
    eager = spdgraph.sample(graph, method=method, size=2 * chunks, seed=3)
    with dask.config.set(scheduler="threads", num_workers=2):
        np.testing.assert_allclose(float(head.sum().compute()), float(eager.sum()), rtol=1e-12)
    # the memory one chunk needs: generate it (with all work space) and reduce it
    _, one_chunk = _peak_bytes(
        lambda: float(spdgraph.sample(graph, method=method, size=chunks, seed=3).sum())
    )
    counting.clear()
    lazy = spdgraph.sample(graph, method=method, size=n, seed=3, chunks=chunks)
    total_bytes = n * p * p * 8
    with dask.config.set(scheduler="threads", num_workers=2):
        total, peak = _peak_bytes(lambda: float(lazy.sum().compute()))
    assert counting == [chunks] * (n // chunks)
    assert np.isfinite(total)
    # two workers each hold one chunk's work at a time, plus small change; never the stack
    assert one_chunk >= chunks * p * p * 8
    assert peak < 3 * one_chunk, (peak, one_chunk)
    assert peak < total_bytes / 8, (peak, total_bytes)


def test_tracemalloc_sees_numpy_allocations():
    _, peak = _peak_bytes(lambda: np.ones(10**6).sum())
    assert peak >= 8 * 10**6  # otherwise the memory tests below would prove nothing


def test_ten_thousand_matrices_hold_only_a_few_chunks(counting):
    """10,000 matrices with p = 50 (200 MB), reduced with 100 matrices (2 MB) per chunk."""
    _check_bounded_memory("dd", 10_000, 50, 100, counting)


@pytest.mark.slow
def test_ten_thousand_po_matrices_hold_only_a_few_chunks(counting):
    _check_bounded_memory("po", 10_000, 50, 100, counting)


# ------------------------------------------------------------------ a real cluster


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            worker_dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.integration
def test_local_cluster_gives_the_eager_result(client):
    for kwargs in (
        {"method": "po", "seed": 11},
        {"method": "dd", "seed": 12, "kind": "precision"},
    ):
        eager = spdgraph.sample(G, size=10, **kwargs)
        lazy = spdgraph.sample(G, size=10, chunks=3, **kwargs)
        future = client.compute(lazy.data)
        np.testing.assert_array_equal(future.result(), eager.values)
        # the active client is also the default scheduler of .compute()
        assert_matches_eager(lazy.compute(), eager)
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert all(address.startswith("tcp://127.0.0.1:") for address in workers)


@pytest.mark.integration
def test_local_cluster_writes_a_lazy_stack(client, tmp_path):
    pytest.importorskip("zarr")
    eager = spdgraph.sample(G, size=8, seed=13)
    spdgraph.save(spdgraph.sample(G, size=8, seed=13, chunks=3), tmp_path / "m.zarr")
    assert_matches_eager(spdgraph.open(tmp_path / "m.zarr"), eager)


@pytest.mark.integration
def test_cli_on_a_scheduler_address(client, tmp_path, monkeypatch, capsys):
    pytest.importorskip("netCDF4")
    from spdgraph import cli

    (tmp_path / "g.txt").write_text("a b\nb c\nc d\n")
    monkeypatch.setattr(cli._sample, "_stderr_is_tty", lambda: True)
    monkeypatch.setattr(spdgraph.sampling, "PROGRESS_DELAY", 0.0)  # read by the command
    address = client.scheduler.address
    out = tmp_path / "out.nc"
    argv = [
        "sample",
        str(tmp_path / "g.txt"),
        "--size",
        "12",
        "--seed",
        "1",
        "--chunks",
        "4",
        "--scheduler",
        address,
        "-o",
        str(out),
    ]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert "wrote 12 covariance matrices" in captured.out
    assert "writing" in captured.err  # the progress bar, driven by the scheduler
    eager = spdgraph.sample(nx.path_graph(["a", "b", "c", "d"]), size=12, seed=1)
    np.testing.assert_array_equal(spdgraph.open(out).values, eager.values)
    bad = [
        "sample",
        str(tmp_path / "g.txt"),
        "--scheduler",
        "tcp://127.0.0.1:1",
        "--scheduler-timeout",
        "1",
        "-o",
        str(tmp_path / "x.nc"),
    ]
    assert cli.main(bad) == 2
    assert "cannot reach the dask scheduler" in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists()
