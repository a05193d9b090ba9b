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


# ------------------------------------------------- files (issue 33: h32-formats rows)
# Each row: (name, setup(tmp) -> call, error, seconds). setup writes what the call
# needs; the call must raise the error within the time bound and MEMORY_BOUND.


def _saved(tmp: Path, name: str) -> Path:
    return spdgraph.save(spdgraph.sample(nx.cycle_graph(30), size=20, seed=1), tmp / name)


def _flip_h5(tmp: Path, variable: str) -> Path:
    import h5py

    path = _saved(tmp, f"{variable}.nc")
    with h5py.File(path, "r") as handle:
        offset = handle[variable].id.get_offset()
    raw = bytearray(path.read_bytes())
    raw[offset + 3] ^= 0x04
    path.write_bytes(bytes(raw))
    return path


def _zarr_without(tmp: Path, variable: str) -> Path:
    path = _saved(tmp, f"{variable}.zarr")
    next(p for p in (path / variable / "c").rglob("*") if p.is_file()).unlink()
    return path


def _labelled(labels: list) -> object:
    return spdgraph.sample(nx.relabel_nodes(nx.path_graph(3), dict(enumerate(labels))), seed=0)


def _huge_nc(tmp: Path) -> Path:
    import netCDF4

    path = tmp / "huge.nc"
    with netCDF4.Dataset(path, "w") as nc:
        for dim, size in (("sample", 10**7), ("node", 30), ("node_2", 30)):
            nc.createDimension(dim, size)
        nc.createVariable("covariance", "f8", ("sample", "node", "node_2"), chunksizes=(1, 30, 30))
    return path


def _huge_zarr(tmp: Path) -> Path:
    import zarr

    path = tmp / "huge.zarr"
    zarr.open_group(path, mode="w").create_array(
        "covariance",
        shape=(10**7, 30, 30),
        chunks=(1000, 30, 30),
        dtype="f8",
        dimension_names=["sample", "node", "node_2"],
    )
    return path


STACK3 = spdgraph.sample(nx.path_graph(3), size=2, seed=0)


def _opening(make: object, *args: object) -> object:
    """setup(tmp) -> a call opening the file ``make(tmp, *args)`` wrote."""

    def setup(tmp: Path) -> object:
        path = make(tmp, *args)  # type: ignore[operator]
        return lambda: spdgraph.open(path)

    return setup


def _saving(da: object, name: str, **kwargs: object) -> object:
    """setup(tmp) -> a call saving ``da`` to ``tmp / name`` (a str name, or an object)."""

    def setup(tmp: Path) -> object:
        target = tmp / name if isinstance(name, str) else name
        return lambda: spdgraph.save(da, target, **kwargs)

    return setup


def _graph_file(tmp: Path) -> Path:
    path = tmp / "g.txt"
    path.write_text("0 1\n")
    return path


FILE_CATALOGUE = [
    ("nc adjacency bit", _opening(_flip_h5, "adjacency"), E.FileError, 2),
    ("nc label bit", _opening(_flip_h5, "node"), E.FileError, 2),
    ("zarr values chunk gone", _opening(_zarr_without, "covariance"), E.FileError, 2),
    ("zarr adjacency chunk gone", _opening(_zarr_without, "adjacency"), E.FileError, 2),
    ("zarr labels chunk gone", _opening(_zarr_without, "node"), E.FileError, 2),
    ("NUL label", _saving(_labelled(["x\0y", 1, 2]), "l.nc"), E.InvalidOptionError, 2),
    ("surrogate label", _saving(_labelled(["\ud800", 1, 2]), "l.zarr"), E.InvalidOptionError, 2),
    ("2**70 attr", _saving(STACK3.assign_attrs(x=2**70), "a.nc"), E.InvalidOptionError, 1),
    ("NUL in path", _saving(STACK3, "a\0.nc"), E.FileError, 1),
    ("int path", _saving(STACK3, 5), E.FileError, 1),  # type: ignore[arg-type]
    ("int path open", lambda t: lambda: spdgraph.open(7), E.FileError, 1),
    ("300-char name", _saving(STACK3, "n" * 300 + ".nc"), E.FileError, 1),
    ("300-char open", lambda t: lambda: spdgraph.open(t / ("n" * 300 + ".nc")), E.FileError, 1),
    ("unknown suffix", _saving(STACK3, "a.h5"), E.FileError, 1),
    ("unknown format name", _saving(STACK3, "a", format="hdf"), E.FileError, 1),
    ("graph file opened", _opening(_graph_file), E.FileError, 1),
    ("truncated CSV folder", _opening(lambda t: _truncated_csv(t)), E.FileError, 2),
    ("huge netCDF header", _opening(lambda t: _huge_nc(t)), E.TooLargeError, 1),
    ("huge Zarr header", _opening(lambda t: _huge_zarr(t)), E.TooLargeError, 1),
]


def _truncated_csv(tmp: Path) -> Path:
    path = spdgraph.save(STACK3, tmp / "tables", format="csv")
    table = path / "sample_1.csv"
    table.write_text(table.read_text().splitlines()[0] + "\n0.5,0.1\n")
    return path


@pytest.mark.parametrize(
    ("name", "setup", "error", "seconds"), FILE_CATALOGUE, ids=[c[0] for c in FILE_CATALOGUE]
)
def test_catalogue_of_bad_files(tmp_path, name, setup, error, seconds):
    pytest.importorskip("netCDF4")
    pytest.importorskip("zarr")
    pytest.importorskip("h5py")
    call = setup(tmp_path)
    with pytest.raises(error):
        call()  # once for the imports
    start = time.perf_counter()
    with pytest.raises(error):
        call()
    assert time.perf_counter() - start < seconds
    tracemalloc.start()
    try:
        with pytest.raises(error):
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{name}: {peak / 2**20:.0f} MiB"
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # no temporary


def _file_cli_cases(tmp: Path) -> list[list[str]]:
    edges = tmp / "g.txt"
    edges.write_text("a b\nb c\n")
    zarr_gone = _zarr_without(tmp, "adjacency")
    flipped = _flip_h5(tmp, "adjacency")
    return [
        ["info", str(edges)],  # a graph file: every registered format named
        ["info", str(zarr_gone)],
        ["info", str(flipped)],
        ["info", str(_huge_nc(tmp))],
        ["info", str(_huge_zarr(tmp))],
        ["draw", str(flipped), "--n-obs", "3", "-o", str(tmp / "d.nc")],
        ["sample", str(edges), "-o", str(tmp / ("n" * 300 + ".nc"))],
        ["sample", str(edges), "-o", str(tmp / "x.nc"), "--format", "hdf"],
        ["sample", str(edges), "-o", str(tmp / "nowhere" / "x.zarr")],
        ["score", str(flipped), str(flipped)],
    ]


def test_catalogue_of_bad_file_cli_input(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    pytest.importorskip("zarr")
    pytest.importorskip("h5py")
    for argv in _file_cli_cases(tmp_path):
        start = time.perf_counter()
        code = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (argv, err)
        assert len(err) == 1 and err[0].startswith("spdgraph: error:"), (argv, err)
        assert time.perf_counter() - start < 5, argv


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st_h.integers(0, 10**6),
    offset=st_h.floats(0.0, 0.99),
    length=st_h.integers(1, 64),
    byte=st_h.integers(0, 255),
    delete=st_h.booleans(),
)
def test_mutated_zarr_stores_open_identical_or_fail_clearly(
    tmp_path, which, offset, length, byte, delete
):
    pytest.importorskip("zarr")
    import shutil

    da = spdgraph.sample(nx.cycle_graph(12), seed=1, size=4)
    path = tmp_path / "m.zarr"
    shutil.rmtree(path, ignore_errors=True)
    spdgraph.save(da, path)
    files = sorted(p for p in path.rglob("*") if p.is_file())
    target = files[which % len(files)]
    if delete:
        target.unlink()
    else:
        raw = bytearray(target.read_bytes())
        start = int(len(raw) * offset)
        raw[start : start + length] = bytes([byte]) * len(raw[start : start + length])
        target.write_bytes(bytes(raw))
    try:
        back = spdgraph.open(path)
    except spdgraph.SpdgraphError:
        return
    # opened: then everything is exactly what was saved (values, graph, labels, attrs)
    assert back.identical(da)
    assert back.values.tobytes() == da.values.tobytes()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(offset=st_h.floats(0.0, 0.99), length=st_h.integers(1, 256), byte=st_h.integers(0, 255))
def test_mutated_netcdf_files_open_identical_or_fail_clearly(tmp_path, offset, length, byte):
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
    assert back.identical(da)  # not only the values: the graph, labels and attrs too
