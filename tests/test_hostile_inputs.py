"""Raw exceptions from hostile input, gone (issue 49, item 5).

Each case is a spdgraph error naming the input and the fix, raised before the
heavy work (the bound is on work: the sampler is never called, the file's data
never read), and one line with exit status 2 on the command line.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph
import spdgraph._machine
from spdgraph.cli import main
from spdgraph.errors import (
    FactorError,
    GraphError,
    InvalidOptionError,
    SpdgraphError,
    TooLargeError,
)
from spdgraph.marginals import Ordinal


def _one_line_exit_2(capsys, argv) -> str:
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and "Traceback" not in "\n".join(err)
    assert err[-1].startswith("spdgraph") or "error" in err[-1], err
    return "\n".join(err)


@pytest.fixture
def no_sampling(monkeypatch):
    """Fail the test if a sampler runs: a refusal must come first."""
    import spdgraph.simulation._core as core

    def refuse(*args, **kwargs):
        raise AssertionError("sample() ran before the input was refused")

    monkeypatch.setattr(core, "sample", refuse)


@pytest.mark.parametrize(
    ("data", "options", "match"),
    [
        ("ordinal(n_categories=10**9)", {}, "cannot read the marginal"),
        ("ordinal(n_categories=1000000000)", {}, "n_categories=1,000,000,000"),
        (Ordinal, {}, "n_categories"),
        ("categorical", {"cut": 10**9}, r"cut \(the number of categories\)"),
        ("categorical", {"cut": float("nan")}, "cut"),
        ("categorical", {"cut": 2.5}, "whole number"),
        ("mixed", {"cut": "4"}, "cut"),
        ("t", {"df": float("inf")}, "df must be a positive finite"),
        ("count", {"mean_count": -1.0}, "mean_count"),
        ("-" * 100_000 + "1", {}, "100,001 characters"),
        ("(" * 500 + ")" * 500, {}, "cannot read the marginal"),
    ],
)
def test_hostile_marginals_are_refused_before_sampling(no_sampling, data, options, match):
    if data is Ordinal:
        with pytest.raises(InvalidOptionError, match=match):
            Ordinal(n_categories=10**9)
        return
    with pytest.raises(InvalidOptionError, match=match):
        spdgraph.simulate("hub", n=10, p=6, seed=0, data=data, **options)


def test_long_cut_lists_are_refused():
    with pytest.raises(InvalidOptionError, match="at most 10,000 categories"):
        Ordinal(cuts=list(range(20_000)))
    with pytest.raises(InvalidOptionError, match="at most 10,000 categories"):
        Ordinal(probabilities=[1 / 20_000] * 20_000)


def test_a_po_stack_just_above_memory_is_refused_before_sampling(monkeypatch, no_sampling):
    from spdgraph.simulation._core import simulation_need

    size, p, n = 50, 30, 40
    need = simulation_need(size, p, n)
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: need - 1)
    with pytest.raises(TooLargeError, match=r"smaller size.*chunks") as info:
        spdgraph.simulate("hub", n=n, p=p, seed=0, size=size)
    assert "50 matrices of 30 x 30" in str(info.value)


def test_a_po_stack_just_within_memory_runs(monkeypatch):
    from spdgraph.simulation._core import check_simulation_memory

    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: 10**12)
    check_simulation_memory(50, 30, 40)  # no error
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: None)
    check_simulation_memory(10**9, 10**6, 10**6)  # unknown memory: sample's own guard decides


def _claiming_npy(path, shape, descr="<f8"):
    with open(path, "wb") as fh:  # a header only: no data
        np.lib.format.write_array_header_1_0(
            fh, {"descr": descr, "fortran_order": False, "shape": shape}
        )
    return path


def test_cli_readers_check_the_npy_header_first(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    graph = _claiming_npy(tmp_path / "g.npy", (10**7, 10**7), "|b1")  # 10^14 entries
    out = tmp_path / "o.nc"
    message = _one_line_exit_2(capsys, ["sample", graph, "-o", out])
    assert "10000000, 10000000" in message and "GiB" in message
    with pytest.raises(TooLargeError, match="graph file"):
        spdgraph.read_graph(graph)
    with pytest.raises(TooLargeError, match="graph file"):
        spdgraph.read_graph(graph, directed=True)
    small = tmp_path / "small.txt"
    small.write_text("0 1\n1 2\n")
    factor = _claiming_npy(tmp_path / "F.npy", (10**5, 10**5, 1000))
    message = _one_line_exit_2(capsys, ["sample", small, "--factor", factor, "-o", out])
    assert "factor file" in message and str(factor) in message
    assert not out.exists()


def test_option_values_are_read_with_a_length_bound(tmp_path, capsys):
    minuses = "-" * 100_000 + "1"
    out = tmp_path / "s.nc"
    base = ["simulate", "--graph", "hub", "--p", "5", "--n", "3", "-o", out]
    message = _one_line_exit_2(capsys, [*base, "--option", f"v={minuses}"])
    assert "100,001 characters" in message
    message = _one_line_exit_2(capsys, [*base, f"--data={minuses}"])
    assert "characters" in message
    deep = "[" * 5_000 + "]" * 5_000
    message = _one_line_exit_2(capsys, [*base, "--option", f"v={deep}"])
    assert "Traceback" not in message
    assert not out.exists()


def test_cli_marginals_are_bounded(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    saved = tmp_path / "m.nc"
    spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=1), saved)
    draw = ["draw", saved, "--n-obs", 3, "-o", tmp_path / "x.nc"]
    message = _one_line_exit_2(capsys, [*draw, "--marginals=" + "-" * 100_000 + "1"])
    assert "characters" in message
    message = _one_line_exit_2(capsys, [*draw, "--marginals", "ordinal(n_categories=1000000000)"])
    assert "n_categories" in message


def test_every_refusal_is_a_spdgraph_error():
    for cls in (InvalidOptionError, TooLargeError):
        assert issubclass(cls, SpdgraphError)


# --- sparse graph inputs (issue 57, item 1) --------------------------------------------
# Each hostile matrix is refused by every entry point with a GraphError (malformed) or a
# TooLargeError (its declared node count), within a CPU second and a few hundred MB,
# before scipy or PyData sparse converts it.

_MB = 2**20


def _csr_declaring(n: int):
    """A small valid CSR (two stored entries) whose declared shape is ``(n, n)``."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    matrix = scipy_sparse.csr_array(np.array([[0, 1], [1, 0]]))
    matrix._shape = (n, n)  # what a hand-built or unpickled matrix can declare
    return matrix


def _hostile_sparse(name: str):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    if name == "negative column":
        return scipy_sparse.csr_array(
            (np.ones(2), np.array([-3, 0]), np.array([0, 1, 2])), shape=(2, 2)
        )
    if name == "column past p":
        return scipy_sparse.csr_array(
            (np.ones(2), np.array([1, 7]), np.array([0, 1, 2])), shape=(2, 2)
        )
    if name == "decreasing indptr":
        matrix = scipy_sparse.csr_array(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))
        matrix.indptr = np.array([0, 2, 1, 2])
        return matrix
    if name == "indptr end":
        matrix = scipy_sparse.csr_array(np.array([[0, 1], [1, 0]]))
        matrix.indptr = np.array([0, 1, 5])
        return matrix
    if name == "non-square":
        return scipy_sparse.csr_array((2, 3))
    if name == "nan value":
        return scipy_sparse.csr_array(np.array([[0, np.nan], [np.nan, 0]]))
    if name == "coo row past p":
        matrix = scipy_sparse.coo_array(np.array([[0, 1], [1, 0]]))
        matrix.coords = (np.array([0, 9]), np.array([1, 0]))  # scipy checks only when built
        return matrix
    if name == "shape 2**62":
        rows = np.array([0, 1])
        return scipy_sparse.coo_array((np.ones(2), (rows, rows[::-1])), shape=(2**62, 2**62))
    if name == "int64 near overflow":
        big = np.array([2**63 - 2, 0])
        return scipy_sparse.coo_array((np.ones(2), (big, big[::-1])), shape=(2**63 - 1,) * 2)
    if name == "csr 2**31+3":
        return _csr_declaring(2**31 + 3)
    sparse = pytest.importorskip("sparse")
    if name == "pydata 3e9 nodes":
        return sparse.COO(np.array([[0, 1], [1, 0]]), np.ones(2), shape=(3 * 10**9,) * 2)
    assert name == "pydata negative"
    array = sparse.COO(np.array([[0, 1], [1, 0]]), np.ones(2), shape=(2, 2))
    array.coords = np.array([[0, -1], [-1, 0]])  # PyData checks only when built
    return array


_SPARSE_CASES = {
    "negative column": (GraphError, r"negative column index -3 \(stored entry 0, in row 0\)"),
    "column past p": (GraphError, r"column index 7 \(stored entry 1, in row 1\)"),
    "decreasing indptr": (GraphError, r"indptr that decreases at row 1"),
    "indptr end": (GraphError, r"indptr of 3 entries from 0 to 5"),
    "non-square": (GraphError, r"square 2-D matrix, got shape \(2, 3\)"),
    "nan value": (GraphError, r"non-finite value \(nan at stored entry 0\)"),
    "coo row past p": (GraphError, r"row index 9 \(stored entry 1\)"),
    "shape 2**62": (TooLargeError, "4611686018427387904 nodes"),
    "int64 near overflow": (TooLargeError, "9223372036854775807 nodes"),
    "csr 2**31+3": (TooLargeError, r"2,147,483,651.*GiB.*fewer nodes"),
    "pydata 3e9 nodes": (TooLargeError, r"3,000,000,000.*GiB.*fewer nodes"),
}

_ENTRY_POINTS = {
    "sample": lambda graph: spdgraph.sample(graph, seed=0),
    "sample sparse": lambda graph: spdgraph.sample(graph, "dd", seed=0, sparse=True),
    "simulate": lambda graph: spdgraph.simulate(graph, n=3, seed=0),
    "simulate sparse": lambda graph: spdgraph.simulate(
        graph, method="dd", n=3, seed=0, sparse=True
    ),
}


@pytest.fixture(scope="module")
def warm_entry_points():
    """Run each entry point once on a valid graph: the bound is on the refusal, not imports."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    pytest.importorskip("sparse")
    valid = scipy_sparse.csr_array(np.array([[0, 1], [1, 0]]))
    for run in _ENTRY_POINTS.values():
        run(valid)


def _refused_within_bounds(run, error, match):
    """``run()`` raises ``error`` (matching) within a CPU second and 300 MB traced."""
    import time
    import tracemalloc

    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(error, match=match) as info:
            run()
        cpu, peak = time.process_time() - start, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cpu < 1.0 and peak < 300 * _MB, (cpu, peak / _MB)
    return info.value


@pytest.mark.parametrize("entry", sorted(_ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(_SPARSE_CASES))
def test_hostile_sparse_graphs_are_refused_by_every_entry_point(
    warm_entry_points, monkeypatch, no_sampling, case, entry
):
    monkeypatch.setattr(spdgraph._machine, "available_memory", lambda: 16 * 2**30)
    graph = _hostile_sparse(case)
    error, match = _SPARSE_CASES[case]
    if error is TooLargeError and entry in ("sample", "simulate") and "GiB" in match:
        match = "GiB"  # the dense paths' own guards may speak first, in their words
    _refused_within_bounds(lambda: _ENTRY_POINTS[entry](graph), error, match)


def test_hostile_pydata_and_dag_inputs_are_refused(warm_entry_points, no_sampling):
    graph = _hostile_sparse("pydata negative")
    for run in _ENTRY_POINTS.values():
        _refused_within_bounds(lambda run=run: run(graph), GraphError, "negative row index -1")
    dag = spdgraph.DAG(_hostile_sparse("negative column"))
    _refused_within_bounds(
        lambda: spdgraph.sample(dag, "dag", seed=0), GraphError, "DAG sparse adjacency"
    )


def _save_npz_arrays(path, **arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(
    ("arrays", "error", "match"),
    [
        ({"indices": [-3, 0], "indptr": [0, 1, 2], "shape": [2, 2]}, GraphError, "negative"),
        ({"indices": [1, 0], "indptr": [0, 2, 1, 2], "shape": [3, 3]}, GraphError, "decreases"),
        ({"indices": [1, 0], "indptr": [0, 1, 2], "shape": [2, 3]}, GraphError, "square"),
        ({"indices": [1, 0], "indptr": [0, 1, 2], "shape": [2**62] * 2}, TooLargeError, "nodes"),
    ],
)
def test_hostile_npz_graph_files_are_refused(warm_entry_points, tmp_path, arrays, error, match):
    shape = arrays.pop("shape")
    arrays = {key: np.asarray(value) for key, value in arrays.items()}
    path = _save_npz_arrays(
        tmp_path / "g.npz",
        format=np.bytes_(b"csr"),
        shape=np.asarray(shape),
        data=np.ones(2),
        **arrays,
    )
    refusal = _refused_within_bounds(lambda: spdgraph.read_graph(path), error, match)
    assert str(path) in str(refusal)
    if error is TooLargeError:  # the path guards count the header's nodes first
        match = "nodes|GiB"
    for run in _ENTRY_POINTS.values():
        _refused_within_bounds(lambda run=run: run(path), error, match)


def test_a_sparse_factor_is_refused_before_densifying():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(FactorError, match="real numeric array"):
        spdgraph.sample(nx.path_graph(2), "po", factor=scipy_sparse.eye(2, format="csr"), seed=0)


@pytest.mark.parametrize(
    ("case", "error"), [("negative column", GraphError), ("shape 2**62", TooLargeError)]
)
def test_a_hostile_sparse_base_of_related_graphs_is_refused(case, error):
    from spdgraph.graphs import related_graphs

    with pytest.raises(error, match="the sparse base"):
        related_graphs(_hostile_sparse(case), 2, seed=0)
