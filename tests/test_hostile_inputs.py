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
from spdgraph.errors import InvalidOptionError, SpdgraphError, TooLargeError
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
