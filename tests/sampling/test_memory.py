"""The memory guard (issue 12, item 2): refuse from the node count, before any p x p array."""

from __future__ import annotations

import dataclasses
import resource
import tracemalloc

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph.plugins import find_generator
from spdgraph.sampling import _memory as _memory
from spdgraph.sampling._adapt import count_nodes
from spdgraph.sampling._memory import CHECK_BYTES, GRAPH_BYTES_PER_ENTRY, estimate_bytes

MiB = 2**20


def _refusal(graph, **kwargs):
    """(error, traced peak bytes, growth of the resident peak) of a refused call.

    The work is bounded, not the time: a refusal that built a p x p array (or any
    structure growing with p squared) would show in the traced and resident peaks.
    """
    spdgraph.methods()  # plugins loaded (entry points), as after any first call
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    try:
        with pytest.raises(spdgraph.TooLargeError) as info:
            spdgraph.sample(graph, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) * 1024
    return info.value, peak, grown


def test_200000_nodes_sparse_refused_at_once():
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 200_000, size=(2, 400_000))
    graph = scipy.sparse.coo_matrix((np.ones(u.size), (u, v)), shape=(200_000, 200_000))
    graph = (graph + graph.T).tocsr()
    error, peak, grown = _refusal(graph)
    assert peak < 200 * MiB and grown < 200 * MiB
    message = str(error)
    assert "200000 x 200000" in message and "GiB of working memory" in message
    assert "is available" in message and "p can be at most about" in message
    assert "fewer nodes" in message  # what to change


def _sparse_200000(directed=False):
    """A random graph on 200,000 nodes, 400,000 edges, as a scipy.sparse csr matrix."""
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 200_000, size=(2, 400_000))
    graph = scipy.sparse.coo_matrix((np.ones(u.size), (u, v)), shape=(200_000, 200_000))
    return scipy.sparse.triu(graph, 1).tocsr() if directed else (graph + graph.T).tocsr()


def _networkx_200000(dag=False):
    """A networkx DiGraph on 200,000 nodes and 20,000 random edges (i < j for a DAG).

    The refusal reads the node count only: fewer edges than the other backends'
    400,000 keep the same case while building the graph stays cheap.
    """
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 200_000, size=(2, 20_000))
    if dag:
        u, v = np.minimum(u, v), np.maximum(u, v)
        u, v = u[u < v], v[u < v]
    graph = nx.DiGraph()
    graph.add_nodes_from(range(200_000))
    graph.add_edges_from(zip(u.tolist(), v.tolist(), strict=True))
    return graph


def _backends_200000():
    """(name, build, method): a sparse graph on 200,000 nodes in every backend (issue 26)."""
    import igraph as ig
    import networkit as nk
    import rustworkx as rx
    import sparse

    p, m = 200_000, 400_000
    return [
        ("networkx DiGraph", _networkx_200000, "dag"),
        ("DAG(networkx DiGraph)", lambda: spdgraph.DAG(_networkx_200000(dag=True)), "dag"),
        ("igraph", lambda: ig.Graph.Erdos_Renyi(n=p, m=m), "po"),
        (
            "DAG(igraph)",
            lambda: spdgraph.DAG(ig.Graph.Erdos_Renyi(n=p, m=m, directed=True)),
            "dag",
        ),
        ("rustworkx PyGraph", lambda: rx.undirected_gnm_random_graph(p, m, seed=0), "po"),
        ("rustworkx PyDiGraph", lambda: rx.directed_gnm_random_graph(p, m, seed=0), "dag"),
        ("networkit", lambda: nk.generators.ErdosRenyiGenerator(p, 4 / p).generate(), "po"),
        (
            "networkit directed",
            lambda: nk.generators.ErdosRenyiGenerator(p, 2 / p, directed=True).generate(),
            "dag",
        ),
        ("sparse COO", lambda: sparse.COO.from_scipy_sparse(_sparse_200000()), "dd"),
        ("sparse GCXS", lambda: sparse.GCXS.from_scipy_sparse(_sparse_200000()), "po"),
        (
            "DAG(sparse COO)",
            lambda: spdgraph.DAG(sparse.COO.from_scipy_sparse(_sparse_200000(True))),
            "dag",
        ),
        ("DAG(scipy.sparse)", lambda: spdgraph.DAG(_sparse_200000(True)), "dag"),
        (
            "xarray over sparse COO",
            lambda: xr.DataArray(sparse.COO.from_scipy_sparse(_sparse_200000()), dims=("a", "b")),
            "po",
        ),
        ("pandas sparse", lambda: pd.DataFrame.sparse.from_spmatrix(_sparse_200000()), "po"),
    ]


# 200,000 sparse columns take seconds to build whatever the edges: in the long run only
_SLOW_TO_BUILD = {"pandas sparse"}


@pytest.mark.parametrize(
    ("name", "build", "method"),
    [
        pytest.param(*b, id=b[0], marks=[pytest.mark.slow] if b[0] in _SLOW_TO_BUILD else [])
        for b in _backends_200000()
    ],
)
def test_200000_nodes_refused_at_once_in_every_backend(name, build, method):
    graph = build()
    error, peak, grown = _refusal(graph, method=method)
    assert peak < 200 * MiB and grown < 200 * MiB, name
    assert "200000 x 200000" in str(error), name


def test_networkx_path_graph_refused_without_densifying():
    graph = nx.path_graph(40_000)
    error, peak, grown = _refusal(graph, method="dd")
    assert peak < 200 * MiB and grown < 200 * MiB
    assert "estimate_need(graph, method)" in str(error)


def test_a_stack_that_does_not_fit_suggests_chunks():
    error, *_ = _refusal(nx.path_graph(3_000), size=10**5)
    assert "100000 matrices" in str(error) and "chunks=c" in str(error)


def test_lazy_requests_count_the_chunks_in_flight(monkeypatch):
    pytest.importorskip("dask.array")
    gen, _ = find_generator("dd")
    work = dict(
        normalize=False, work_per_matrix=gen.work_per_matrix, work_per_call=gen.work_per_call
    )
    need = estimate_bytes(500, 1000, chunks=10, workers=2, **work)
    assert need.matrices == 20  # two chunks at once on two workers
    assert need.bytes < estimate_bytes(500, 1000, **work).bytes
    monkeypatch.setattr(_memory, "available_memory", lambda: need.bytes - 1)
    monkeypatch.setattr(_memory, "available_cores", lambda: 2)
    with pytest.raises(spdgraph.TooLargeError, match="20 matrices"):
        spdgraph.sample(nx.path_graph(500), "dd", size=1000, chunks=10, normalize=False)


def test_the_model_grows_with_every_part_of_the_request():
    base = estimate_bytes(100, 1)
    assert estimate_bytes(100, 2).bytes > base.bytes
    assert estimate_bytes(100, 1, normalize=False).bytes < base.bytes
    assert estimate_bytes(100, 1, targets=True).bytes > base.bytes
    assert estimate_bytes(100, 1, work_per_call=10).bytes > base.bytes
    fixed = CHECK_BYTES  # the only term that does not grow with p
    unscaled = estimate_bytes(100, 1, normalize=False).bytes - fixed
    assert estimate_bytes(200, 1, normalize=False).bytes - fixed == 4 * unscaled
    assert estimate_bytes(100, 0).bytes == GRAPH_BYTES_PER_ENTRY * 100 * 100  # the adjacency


@pytest.mark.parametrize("method", ["po", "dd"])
@pytest.mark.parametrize("size", [None, 3])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("target", [None, 0.05])
def test_the_model_bounds_the_measured_peak(method, size, normalize, target):
    """The estimate is never below what numpy allocates (traced) during the call."""
    adjacency = random_adjacency(300, 0.1, np.random.default_rng(1))
    kwargs = dict(seed=1, size=size, normalize=normalize, min_eigenvalue=target)
    spdgraph.sample(adjacency, method, **kwargs)  # warm (compiled kernels loaded)
    tracemalloc.start()
    try:
        spdgraph.sample(adjacency, method, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    gen, _ = find_generator(method)
    need = estimate_bytes(
        300,
        size or 1,
        normalize=normalize,
        targets=target is not None,
        work_per_matrix=gen.work_per_matrix,
        work_per_call=gen.work_per_call,
    )
    assert peak <= need.bytes


def _inputs(adjacency):
    p = adjacency.shape[0]
    labels = [f"n{i}" for i in range(p)]
    g = nx.from_numpy_array(adjacency.astype(int))
    return [
        adjacency,
        scipy.sparse.csr_matrix(adjacency),
        scipy.sparse.coo_array(adjacency),
        pd.DataFrame(adjacency, index=labels, columns=labels),
        xr.DataArray(adjacency, dims=("a", "b")),
        g,
        nx.MultiGraph(g),
        spdgraph.sample(adjacency, "dd", seed=0),
    ]


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 12), st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_count_equals_the_adapted_node_count(p, density, seed):
    adjacency = random_adjacency(p, density, np.random.default_rng(seed))
    for graph in _inputs(adjacency):
        assert count_nodes(graph) == spdgraph.adapt_graph(graph).adjacency.shape[0] == p


def test_a_path_is_counted_from_its_header_and_read_once(tmp_path, monkeypatch):
    from spdgraph.plugins import graph_files as _graph_files

    path = tmp_path / "g.txt"
    path.write_text("a b\nb c\nd\n")
    reads = []
    real = _graph_files.read_graph
    monkeypatch.setattr(
        _graph_files, "read_graph", lambda p, **kw: reads.append(p) or real(p, **kw)
    )
    assert count_nodes(path) == 4 and not reads  # counted in a streaming pass
    da = spdgraph.sample(str(path), seed=0)
    assert da.shape == (4, 4) and len(reads) == 1  # read once, by the one backend
    assert count_nodes(tmp_path / "missing.txt") is None  # to_graph reports it
    with pytest.raises(spdgraph.FileError, match="no such file"):
        spdgraph.sample(tmp_path / "missing.txt")


def _huge_npy(path, p):
    with open(path, "wb") as fh:  # a header claiming p x p, and no data
        np.lib.format.write_array_header_1_0(
            fh, {"descr": "<f8", "fortran_order": False, "shape": (p, p)}
        )


@pytest.mark.parametrize("suffix", [".npy", ".npz", ".txt", ".csv", ".graphml"])
def test_a_graph_file_claiming_a_huge_size_is_refused_before_reading(
    tmp_path, suffix, monkeypatch
):
    import zipfile

    from spdgraph.plugins import graph_files as _graph_files

    path = tmp_path / f"huge{suffix}"
    if suffix == ".npy":  # the header claims 10^7 x 10^7 (800 TB of float64)
        _huge_npy(path, 10**7)
    elif suffix == ".npz":
        _huge_npy(tmp_path / "adjacency.npy", 10**7)
        with zipfile.ZipFile(path, "w") as archive:
            archive.write(tmp_path / "adjacency.npy", "adjacency.npy")
    elif suffix == ".csv":  # a header row of 10^6 labels
        path.write_text("," + ",".join(map(str, range(10**6))) + "\n")
    else:  # 5,000 nodes against a guard set to 10 MB: counted in one streaming pass
        monkeypatch.setattr(_memory, "available_memory", lambda: 10**7)
        if suffix == ".txt":
            path.write_text("\n".join(f"{i} {i + 1}" for i in range(5_000)))
        else:
            nx.write_graphml(nx.path_graph(5_000), path)
    monkeypatch.setattr(_graph_files, "read_graph", lambda *a, **k: pytest.fail("file read"))
    for graph in (path, str(path), spdgraph.DAG(path)):  # refused without reading the file
        with pytest.raises(spdgraph.TooLargeError):
            spdgraph.sample(graph, "dag" if isinstance(graph, spdgraph.DAG) else "po", seed=0)


def test_a_backend_without_a_count_is_checked_after_adapting(monkeypatch):
    class Box:
        def __init__(self, p):
            self.p = p

    box = spdgraph.GraphBackend(
        "box",
        recognises=lambda obj: isinstance(obj, Box),
        to_graph=lambda g: spdgraph.GraphData(np.zeros((g.p, g.p), bool), list(range(g.p))),
    )

    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_graph_backends(self):
            return [box]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="box-backend")
    try:
        assert count_nodes(Box(3)) is None
        assert spdgraph.sample(Box(3), seed=0).shape == (3, 3)
        monkeypatch.setattr(_memory, "available_memory", lambda: 10**4)
        with pytest.raises(spdgraph.TooLargeError):
            spdgraph.sample(Box(50), seed=0)
    finally:
        pm.unregister(name="box-backend")


def test_a_bad_count_is_named():
    numpy_backend, _ = spdgraph.plugins.graph_backend("numpy")
    bad = dataclasses.replace(numpy_backend, name="bad-count", count_nodes=lambda obj: "many")

    class Plugin:
        @spdgraph.hookimpl
        def spdgraph_graph_backends(self):
            return [bad]

    pm = spdgraph.get_plugin_manager()
    pm.register(Plugin(), name="bad-count")
    try:
        with pytest.raises(spdgraph.GraphTypeError, match=r"'bad-count'.*not a node count"):
            spdgraph.sample(np.zeros((2, 2)))
    finally:
        pm.unregister(name="bad-count")


def test_the_address_space_limit_is_respected():
    """Under ``ulimit -v`` the guard refuses (TooLargeError), not a bare MemoryError."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import resource
        import numpy as np
        import spdgraph
        from spdgraph._machine import available_memory
        limit = 3 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        assert available_memory() <= limit
        try:
            spdgraph.sample(np.zeros((6000, 6000)), "dd", size=20, seed=0)
        except spdgraph.TooLargeError as exc:
            print("refused:", str(exc)[:60])
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "refused:" in run.stdout


def test_work_freed_before_the_matrices_counts_the_larger_of_the_two():
    """``GeneratorSpec.work_apart`` (huge: its work is freed before its copies are made)."""
    kw = dict(normalize=False, work_per_matrix=0.0, work_per_call=6.0)
    graph, fixed = GRAPH_BYTES_PER_ENTRY * 100 * 100, CHECK_BYTES
    assert estimate_bytes(100, 4, **kw, work_apart=True).bytes == graph + 8e4 * 6 + fixed
    assert estimate_bytes(100, 4, **kw).bytes == graph + 8e4 * (4 + 6) + fixed
    assert estimate_bytes(100, 9, **kw, work_apart=True).bytes == graph + 8e4 * 9 + fixed
    gen, _ = find_generator("huge")
    assert gen.work_apart and not find_generator("po")[0].work_apart
