"""A standing fuzz harness: bad input gives an spdgraph error (or exit 2 and one line).

The catalogue keeps the hostile and unlucky inputs found so far, each with the
error class it must raise and a time bound; the hypothesis tests mutate valid
graph files and netCDF files and accept only success or an spdgraph error.
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
import scipy.stats as st
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_h

import spdgraph
from spdgraph import errors as E
from spdgraph.cli import main

G = nx.path_graph(["a", "b", "c"])

CATALOGUE = [
    ("bad seed", lambda: spdgraph.sample(G, seed="stop"), E.InvalidOptionError, 1),
    ("unknown method", lambda: spdgraph.sample(G, "nope"), E.UnknownMethodError, 1),
    ("unknown option", lambda: spdgraph.sample(G, bogus=1), E.UnknownOptionError, 1),
    ("directed graph", lambda: spdgraph.sample(nx.DiGraph([(0, 1)])), E.GraphError, 1),
    ("asymmetric", lambda: spdgraph.sample(np.array([[0, 1], [0, 0]])), E.GraphError, 1),
    ("NaN array", lambda: spdgraph.sample(np.full((3, 3), np.nan)), E.GraphError, 1),
    ("empty array", lambda: spdgraph.sample(np.zeros((0, 0))), E.GraphError, 1),
    ("unknown object", lambda: spdgraph.sample(object()), E.GraphTypeError, 1),
    ("a list of numbers", lambda: spdgraph.sample([1, 2, 3]), E.SpdgraphError, 1),
    ("negative size", lambda: spdgraph.sample(G, size=-1), E.InvalidOptionError, 1),
    ("bool size", lambda: spdgraph.sample(G, size=True), E.InvalidOptionError, 1),
    ("normalize text", lambda: spdgraph.sample(G, normalize="yes"), E.InvalidOptionError, 1),
    ("bad kind", lambda: spdgraph.sample(G, kind="cov"), E.InvalidOptionError, 1),
    ("cond > bound", lambda: spdgraph.sample(G, condition_number=1e9), E.InvalidOptionError, 1),
    (
        "cond NaN",
        lambda: spdgraph.sample(G, condition_number=float("nan")),
        E.InvalidOptionError,
        1,
    ),
    ("portable text", lambda: spdgraph.sample(G, portable="yes"), E.InvalidOptionError, 1),
    (
        "portable uniform",
        lambda: spdgraph.sample(G, "uniform", portable=True),
        E.InvalidOptionError,
        1,
    ),
    ("progress int", lambda: spdgraph.sample(G, progress=3), E.InvalidOptionError, 1),
    ("chunks zero", lambda: spdgraph.sample(G, chunks=0), E.InvalidOptionError, 1),
    ("factor shape", lambda: spdgraph.sample(G, factor=np.eye(2)), E.FactorError, 1),
    (
        "p = 200,000 sparse",
        lambda: spdgraph.sample(scipy.sparse.eye(200_000, format="csr")),
        E.TooLargeError,
        1,
    ),
    (
        "dense DAG",
        lambda: spdgraph.sample(
            spdgraph.DAG(np.triu(np.ones((100, 100)), 1)), "dag", seed=0, kind="precision"
        ),
        E.NumericalError,
        5,
    ),
    (
        "deterministic hub seed",
        lambda: spdgraph.graphs.hub(10, 2, seed=3),
        E.InvalidOptionError,
        1,
    ),
    (
        "invalid marginal",
        lambda: spdgraph.sample(G, seed=0).spd.draw(5, marginals=st.t(df=-1)),
        E.InvalidOptionError,
        1,
    ),
    ("huge draw", lambda: spdgraph.sample(G, seed=0).spd.draw(10**12), E.TooLargeError, 1),
    ("draw text", lambda: spdgraph.sample(G, seed=0).spd.draw("5"), E.InvalidOptionError, 1),
    ("backend", lambda: spdgraph.sample(G, seed=0).spd.graph("gt"), E.InvalidOptionError, 1),
    ("plot view", lambda: spdgraph.sample(G, seed=0).spd.plot(view="x"), E.SpdgraphError, 5),
    ("hub p=1e10", lambda: spdgraph.graphs.hub(10**10), E.TooLargeError, 1),
    ("band p=1e10", lambda: spdgraph.graphs.band(10**10, 3), E.TooLargeError, 1),
    ("scale-free p=1e10", lambda: spdgraph.graphs.scale_free(10**10), E.TooLargeError, 1),
    ("ER p=1e6", lambda: spdgraph.graphs.erdos_renyi(10**6, 0.001), E.TooLargeError, 1),
    ("cluster p=1e6", lambda: spdgraph.graphs.cluster(10**6, 10), E.TooLargeError, 1),
    (
        "small world p=1e10",
        lambda: spdgraph.graphs.small_world(10**10, 2, 0.1),
        E.TooLargeError,
        1,
    ),
]

#: No refusal may allocate more than this (tracemalloc sees numpy's arrays too).
MEMORY_BOUND = 200 * 2**20


@pytest.mark.parametrize(
    ("name", "call", "error", "seconds"), CATALOGUE, ids=[c[0] for c in CATALOGUE]
)
def test_catalogue_of_bad_api_input(name, call, error, seconds):
    if name == "plot view":
        pytest.importorskip("matplotlib")
    start = time.perf_counter()
    with pytest.raises(error):
        call()
    assert time.perf_counter() - start < seconds
    tracemalloc.start()  # again, for the memory (tracemalloc slows the call down)
    try:
        with pytest.raises(error):
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{name}: {peak / 2**20:.0f} MiB"


def _cli_cases(tmp: Path) -> list[list[str]]:
    edges = tmp / "g.txt"
    edges.write_text("a b\nb c\n")
    bad = tmp / "bad.txt"
    bad.write_text("a b c\n")
    out = str(tmp / "out.nc")
    saved = spdgraph.save(spdgraph.sample(nx.path_graph(50), seed=0), tmp / "saved.nc")
    return [
        ["sample", str(tmp / "missing.txt"), "-o", out],
        ["sample", str(bad), "-o", out],
        ["sample", str(edges), "--method", "nope", "-o", out],
        ["sample", str(edges), "-o", str(tmp / "out.txt")],
        ["sample", str(edges), "--option", "bogus=1", "-o", out],
        ["graph", "hub", "--p", "10", "--seed", "3", "-o", str(tmp / "h.txt")],
        ["info", str(tmp / "nothing.nc")],
        ["draw", str(tmp / "nothing.nc"), "--n-obs", "3", "-o", out],
        ["graph", "hub", "--p", str(10**10), "-o", str(tmp / "h.txt")],
        ["sample", "--graph-family", "hub", "--graph-option", "p=1000000", "-o", out],
        [
            "sample",
            "--graph-family",
            "ar1",
            "--graph-option",
            f"p={10**10}",
            "-m",
            "dd",
            "-o",
            out,
        ],
        ["draw", str(saved), "--n-obs", "100000000", "-o", str(tmp / "d.nc")],
    ]


def test_catalogue_of_bad_cli_input(tmp_path, capsys):
    for argv in _cli_cases(tmp_path):
        start = time.perf_counter()
        code = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (argv, err)
        assert len(err) == 1 and err[0].startswith("spdgraph: error:"), (argv, err)
        assert time.perf_counter() - start < 5, argv


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st_h.binary(min_size=0, max_size=60), cut=st_h.integers(0, 40))
def test_mutated_edge_lists_give_a_graph_or_a_file_error(tmp_path, data, cut):
    valid = b"a b\nb c 0.5\nc d\n# comment\n"
    mutated = valid[:cut] + data + valid[cut:]
    path = tmp_path / "m.txt"
    path.write_bytes(mutated)
    try:
        graph = spdgraph.read_graph(path)
        spdgraph.sample(graph, seed=0)
    except spdgraph.SpdgraphError:
        pass  # refused with spdgraph's own error: fine


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(offset=st_h.floats(0.0, 0.99), length=st_h.integers(1, 2048), byte=st_h.integers(0, 255))
def test_mutated_netcdf_files_open_intact_or_fail_clearly(tmp_path, offset, length, byte):
    pytest.importorskip("netCDF4")
    da = spdgraph.sample(nx.cycle_graph(12), seed=1, size=4)
    path = tmp_path / "m.nc"
    if path.exists():
        path.unlink()
    spdgraph.save(da, path)
    raw = bytearray(path.read_bytes())
    start = int(len(raw) * offset)
    raw[start : start + length] = bytes([byte]) * len(raw[start : start + length])
    path.write_bytes(bytes(raw))
    try:
        back = spdgraph.open(path)
    except spdgraph.SpdgraphError:
        return
    # opened: then the values are exactly the ones saved (no silent change)
    assert back.values.tobytes() == da.values.tobytes()
