"""The crossing matrix: every entry point against every layout a result comes in.

Each pair (entry point, layout) either works or is refused with a named
:class:`spdgraph.SpdgraphError` subclass before any heavy work; :data:`TABLE`
says which, cell by cell, so a regression either way (a crossing that stops
working, or a refusal that becomes a crash or a silent success) fails here.
The layouts (:mod:`spdgraph.layout`): a dense matrix, a stack, a lazy (dask)
stack, a sparse result (``sample(..., sparse=True)``), a simulation Dataset
dense and sparse, and a DAG's matrix. One sparse cell at p = 300,000 checks
that the sparse path stays light (its peak traced memory).
"""

from __future__ import annotations

import contextlib
import io
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import xarray as xr

import spdgraph
from spdgraph.cli import main
from spdgraph.io import simulation_truth
from spdgraph.plugins.backends import graph_backends

pytest.importorskip("netCDF4")
pytest.importorskip("sparse")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

#: How a cell ends: ``ok`` (works), an error class's short name (refused with it),
#: ``xfail`` (a known bug another change fixes: strict, so it flips when merged),
#: ``-`` (no such crossing). Rows are entry points, columns layouts.
TABLE = """
entry            dense  stack  lazy   sparse    sim    sim_sparse  dag
sample           ok     ok     ok     ok        ok     ok          ok
simulate         ok     ok     ok     ok        ok     ok          ok
save             ok     ok     ok     ok        ok     ok          ok
save_zarr        ok     ok     ok     ok        ok     ok          ok
save_csv         ok     ok     ok     File      ok     File        ok
open             ok     ok     ok     ok        ok     ok          ok
open_lazy        ok     ok     ok     ok        ok     ok          ok
info             ok     ok     ok     ok        ok     ok          ok
draw             ok     ok     ok     ok        ok     ok          ok
check            ok     ok     ok     ok        ok     ok          ok
plot             ok     ok     ok     ok        ok     ok          ok
inverse          ok     ok     ok     ok        ok     ok          ok
partial_corr     ok     ok     ok     ok        ok     ok          ok
adjacency        ok     ok     ok     ok        ok     ok          ok
to_numpy         ok     ok     ok     ok        ok     ok          ok
diagnostics      ok     ok     ok     ok        ok     ok          ok
score            ok     ok     ok     ok        ok     ok          Option
graph            ok     ok     ok     ok        ok     ok          ok
cli_info         ok     ok     ok     ok        ok     ok          ok
cli_draw         ok     ok     ok     ok        ok     ok          ok
cli_score        -      -      -      -         ok     ok          -
study            -      -      -      -         ok     -           -
"""

#: The short names of :data:`TABLE`'s refusals.
ERRORS: dict[str, type[spdgraph.SpdgraphError]] = {
    "File": spdgraph.FileError,
    "Option": spdgraph.InvalidOptionError,
    "TooLarge": spdgraph.TooLargeError,
}


def _read_table() -> dict[tuple[str, str], str]:
    header, *rows = [line.split() for line in TABLE.strip().splitlines()]
    layouts = header[1:]
    cells = {}
    for entry, *outcomes in rows:
        assert len(outcomes) == len(layouts), entry
        cells.update({(entry, layout): o for layout, o in zip(layouts, outcomes, strict=True)})
    return cells


CELLS = _read_table()
LAYOUTS = TABLE.split()[1:8]

BAND = 30


def _make(layout: str) -> Any:
    cycle = nx.cycle_graph(8)
    if layout == "dense":
        return spdgraph.sample(cycle, seed=1, kind="precision")
    if layout == "stack":
        return spdgraph.sample(cycle, seed=1, size=3, kind="precision")
    if layout == "lazy":
        pytest.importorskip("dask")
        return spdgraph.sample(cycle, seed=1, size=4, chunks=2, kind="precision")
    band = spdgraph.graphs.band(BAND, 2, backend="scipy")
    if layout == "sparse":
        return spdgraph.sample(band, "dd", kind="precision", sparse=True, seed=1)
    if layout == "sim":
        return spdgraph.simulate("band", n=20, p=8, seed=1)
    if layout == "sim_sparse":
        return spdgraph.simulate("band", n=20, p=BAND, method="dd", sparse=True, seed=1)
    assert layout == "dag"
    return spdgraph.sample(nx.gn_graph(8, seed=1), "dag", seed=1)


@pytest.fixture(scope="module")
def made() -> dict[str, Any]:
    return {}


def _matrix(obj: Any) -> xr.DataArray:
    """The array an accessor entry point works on (a simulation's true matrix)."""
    return simulation_truth(obj) if isinstance(obj, xr.Dataset) else obj


def _one(da: xr.DataArray) -> xr.DataArray:
    return da.isel(sample=0) if "sample" in da.dims else da


def _data(obj: Any) -> xr.DataArray:
    if isinstance(obj, xr.Dataset):
        return obj["data"]
    return _matrix(obj).spd.draw(40, seed=1)


def _quiet(run: Callable[[], Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return run()


def _cli(argv: list[str]) -> None:
    code = _quiet(lambda: main(argv))
    assert code == 0, argv


def _saved(obj: Any, tmp: Path, name: str = "x.nc") -> Path:
    return spdgraph.save(obj, tmp / name)


def _plot(obj: Any, tmp: Path) -> None:
    import matplotlib.pyplot as plt

    plt.close(_matrix(obj).spd.plot())


def _simulate(obj: Any, tmp: Path) -> Any:
    return spdgraph.simulate(_one(_matrix(obj)), n=5, seed=2)


def _simulate_dag(obj: Any, tmp: Path) -> Any:
    return spdgraph.simulate(nx.gn_graph(20, seed=1), method="dag", n=10)


def _save_csv(obj: Any, tmp: Path) -> None:
    target = tmp / "x.csv"
    try:
        spdgraph.save(obj, target)
    finally:  # a refusal leaves nothing behind
        assert target.exists() or list(tmp.iterdir()) == []


def _graphs(obj: Any, tmp: Path) -> None:
    """Every registered backend that builds graphs, each equal to networkx's graph."""
    da = _one(_matrix(obj))
    reference = da.spd.graph("networkx")
    for backend, _ in graph_backends():
        if backend.from_graph is None and backend.from_sparse is None:
            continue
        built = da.spd.graph(backend.name)
        back = spdgraph.adapt_graph(built)
        assert back.labels == list(reference.nodes), backend.name
        assert int(back.adjacency.sum()) == 2 * reference.number_of_edges(), backend.name


def _score(obj: Any, tmp: Path) -> Any:
    return spdgraph.validation.score(_one(_data(obj)), _one(_matrix(obj)), "shrink")


def _cli_draw(obj: Any, tmp: Path) -> None:
    _cli(["draw", str(_saved(obj, tmp)), "--n-obs", "5", "--seed", "1", "-o", str(tmp / "d.nc")])


def _cli_score(obj: Any, tmp: Path) -> None:
    path = str(_saved(obj, tmp))
    _cli(["score", path, path, "--learner", "shrink", "-o", str(tmp / "s.csv")])


def _study(obj: Any, tmp: Path) -> None:
    import spdgraph.study

    spec = {"seed": 1, "grid": {"family": ["band"], "p": [8], "n": [20]},
            "learners": [{"name": "shrink"}]}  # fmt: skip
    result = spdgraph.study.run(spec, tmp / "study", workers=1, plots=False)
    assert len(result.table) > 0


ENTRIES: dict[str, Callable[[Any, Path], Any]] = {
    "sample": lambda o, t: spdgraph.sample(_matrix(o), seed=2),
    "simulate": _simulate,
    "save": lambda o, t: spdgraph.open(_saved(o, t)),
    "save_zarr": lambda o, t: spdgraph.open(_saved(o, t, "x.zarr")),
    "save_csv": _save_csv,
    "open": lambda o, t: spdgraph.open(_saved(o, t)).load(),
    "open_lazy": lambda o, t: spdgraph.open(_saved(o, t), chunks=1).load(),
    "info": lambda o, t: _cli(["info", str(_saved(o, t))]),
    "draw": lambda o, t: _matrix(o).spd.draw(5, seed=1),
    "check": lambda o, t: _matrix(o).spd.check(),
    "plot": _plot,
    "inverse": lambda o, t: _matrix(o).spd.inverse(),
    "partial_corr": lambda o, t: _matrix(o).spd.partial_correlation(),
    "adjacency": lambda o, t: _matrix(o).spd.adjacency(),
    "to_numpy": lambda o, t: _matrix(o).spd.to_numpy(),
    "diagnostics": lambda o, t: spdgraph.diagnostics(_matrix(o)),
    "score": _score,
    "graph": _graphs,
    "cli_info": lambda o, t: _cli(["info", str(_saved(o, t)), "--plot", str(t / "m.png")]),
    "cli_draw": _cli_draw,
    "cli_score": _cli_score,
    "study": _study,
}


def test_the_table_covers_every_entry_point_and_layout():
    assert {entry for entry, _ in CELLS} == set(ENTRIES)
    assert LAYOUTS == ["dense", "stack", "lazy", "sparse", "sim", "sim_sparse", "dag"]
    assert {o for o in CELLS.values()} <= {"ok", "xfail", "-", *ERRORS}


def _params() -> list[Any]:
    out = []
    for (entry, layout), outcome in CELLS.items():
        marks: list[Any] = []
        if outcome == "-":
            continue
        if outcome == "xfail":
            marks.append(pytest.mark.xfail(strict=True, reason="a known bug another change fixes"))
        if entry == "study":
            marks.append(pytest.mark.integration)
        out.append(pytest.param(entry, layout, outcome, marks=marks, id=f"{entry}-{layout}"))
    return out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("entry", "layout", "outcome"), _params())
def test_crossing(entry, layout, outcome, made, tmp_path):
    if layout not in made:
        made[layout] = _make(layout)
    obj = made[layout]
    run = _simulate_dag if (entry, layout) == ("simulate", "dag") else ENTRIES[entry]
    if outcome in ("ok", "xfail"):
        run(obj, tmp_path)
    else:
        with pytest.raises(ERRORS[outcome]):
            run(obj, tmp_path)


def test_a_sparse_result_at_p_300000_stays_light(tmp_path):
    """Sample, save, open, summarise and refuse the dense inverse of a p = 300,000 sparse
    result: the peak traced memory stays proportional to its stored entries (about 1.5
    million), far from the 670 GiB of one dense matrix."""
    p = 300_000
    tracemalloc.start()
    try:
        prec = spdgraph.sample(
            spdgraph.graphs.band(p, 2, backend="scipy"), "dd", kind="precision", sparse=True,
            seed=0,
        )  # fmt: skip
        path = spdgraph.save(prec, tmp_path / "big.nc")
        back = spdgraph.open(path)
        graph = back.spd.graph("scipy")
        with pytest.raises(spdgraph.TooLargeError, match="dense values of this sparse result"):
            back.spd.inverse()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert back.shape == (p, p) and graph.nnz == 2 * (2 * p - 3)
    assert spdgraph.layout.layout_of(back) == "sparse"
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MiB"
