"""spdgraph.save / spdgraph.open: exact round trips and atomic writes."""

import os
import sys

import networkx as nx
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph import io

pytest.importorskip("netCDF4")
pytest.importorskip("zarr")

SUFFIXES = [".nc", ".zarr"]
STRINGS = nx.relabel_nodes(nx.cycle_graph(5), {i: f"gene_{i}é" for i in range(5)})


def _listing(folder):
    return sorted(os.listdir(folder))


def _assert_same(back, da):
    assert back.identical(da)
    assert back.name == da.name and back.dims == da.dims
    assert back.dtype == da.dtype
    np.testing.assert_array_equal(
        back.values.view(np.uint64) if back.dtype == np.float64 else back.values,
        da.values.view(np.uint64) if da.dtype == np.float64 else da.values,
    )  # bit for bit
    for name in da.coords:
        assert back[name].dtype == da[name].dtype, name
        np.testing.assert_array_equal(back[name].values, da[name].values)
    assert back.attrs == da.attrs
    assert [type(v) for v in back.attrs.values()] == [type(v) for v in da.attrs.values()]


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(
    "graph, kwargs",
    [
        (STRINGS, {"size": 3, "seed": 1}),
        (nx.karate_club_graph(), {"seed": 2, "kind": "precision", "normalize": False}),
        (nx.path_graph(4), {"method": "dd", "size": 2, "entries": "uniform", "seed": 3}),
        (nx.empty_graph(3), {"seed": 4, "size": 0}),
        (nx.path_graph(3), {"seed": 5, "size": 1}),  # one-element list attrs stay lists
    ],
)
def test_round_trip_is_exact(tmp_path, suffix, graph, kwargs):
    da = spdgraph.sample(graph, **kwargs)
    path = spdgraph.save(da, tmp_path / f"m{suffix}")
    assert path == tmp_path / f"m{suffix}"
    back = spdgraph.open(path)
    _assert_same(back, da)
    assert _listing(tmp_path) == [f"m{suffix}"]  # no temporary left
    if da.sizes.get("sample", 1):  # the graph is recoverable from the file
        again = spdgraph.sample(back, **kwargs)
        np.testing.assert_array_equal(again.values, da.values)
        assert back.spd.graph().edges == da.spd.graph().edges


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_round_trip_of_derived_arrays_and_data(tmp_path, suffix):
    prec = spdgraph.sample(STRINGS, seed=5, size=2, kind="precision")
    for i, da in enumerate(
        [prec.spd.inverse(), prec.spd.partial_correlation(), prec.spd.draw(6, seed=1)]
    ):
        path = spdgraph.save(da, tmp_path / f"d{i}{suffix}")
        _assert_same(spdgraph.open(path), da)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_lazy_save_and_open(tmp_path, suffix):
    pytest.importorskip("dask.array")
    eager = spdgraph.sample(STRINGS, seed=6, size=7)
    lazy = spdgraph.sample(STRINGS, seed=6, size=7, chunks=3)
    path = spdgraph.save(lazy, tmp_path / f"lazy{suffix}")
    _assert_same(spdgraph.open(path), lazy.compute())
    np.testing.assert_array_equal(spdgraph.open(path).values, eager.values)
    opened = spdgraph.open(path, chunks=7)
    assert opened.chunks is not None
    np.testing.assert_array_equal(opened.values, eager.values)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_overwrite_replaces_only_when_complete(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    first = spdgraph.sample(STRINGS, seed=1)
    second = spdgraph.sample(STRINGS, seed=2, size=2)
    spdgraph.save(first, path)
    spdgraph.save(second, path)
    _assert_same(spdgraph.open(path), second)
    assert _listing(tmp_path) == [path.name]
    with pytest.raises(spdgraph.FileError, match="overwrite=True"):
        spdgraph.save(first, path, overwrite=False)


def _snapshot(path):
    if path.is_dir():
        return {
            str(p.relative_to(path)): p.read_bytes()
            for p in sorted(path.rglob("*"))
            if p.is_file()
        }
    return path.read_bytes()


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("existing", [False, True])
def test_failure_mid_write_leaves_nothing(tmp_path, suffix, existing):
    """A chunk fails after the file was created and partly written."""
    dask_array = pytest.importorskip("dask.array")
    import dask

    path = tmp_path / f"m{suffix}"
    if existing:
        spdgraph.save(spdgraph.sample(STRINGS, seed=9), path)
        before = _snapshot(path)
    good = spdgraph.sample(STRINGS, seed=1, size=6, chunks=2)
    written = []

    def explode(block):
        if len(written) == 2:  # the third chunk to be computed fails
            raise RuntimeError("disk on fire")
        written.append(block.shape)
        return block

    broken = good.copy(data=dask_array.map_blocks(explode, good.data, dtype=np.float64))
    with dask.config.set(scheduler="synchronous"), pytest.raises(RuntimeError, match="fire"):
        spdgraph.save(broken, path)
    assert written  # the write really had started
    kept = [] if suffix != ".zarr" else _resumable(tmp_path)
    if suffix == ".zarr":  # written block by block: kept hidden for resume=True
        assert len(kept) == 1
    if existing:
        assert _listing(tmp_path) == sorted([path.name, *kept])
        assert _snapshot(path) == before
    else:
        assert _listing(tmp_path) == kept
    if kept:  # a save that does not resume starts over and removes it
        spdgraph.save(good, path)
        assert _listing(tmp_path) == [path.name]


def _resumable(folder):
    """The hidden temporaries of interrupted block-wise saves in ``folder``."""
    return [p.name for p in folder.iterdir() if (p / io._atomic.RESUMABLE).is_dir()]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_interrupt_after_write_before_rename(tmp_path, suffix, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(io._atomic, "_rename", interrupted)
    with pytest.raises(KeyboardInterrupt):
        spdgraph.save(spdgraph.sample(STRINGS, seed=1), tmp_path / f"m{suffix}")
    assert _listing(tmp_path) == []


def test_zarr_swap_failure_restores_the_old_store(tmp_path, monkeypatch):
    path = tmp_path / "m.zarr"
    spdgraph.save(spdgraph.sample(STRINGS, seed=1), path)
    before = _snapshot(path)
    real_rename = io._atomic._rename
    calls = []
    monkeypatch.setattr(io._atomic, "_exchange", lambda first, second: False)

    def flaky(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new store moving into place
            raise OSError("no space")
        return real_rename(src, dst)

    monkeypatch.setattr(io._atomic, "_rename", flaky)
    with pytest.raises(OSError, match="no space"):
        spdgraph.save(spdgraph.sample(STRINGS, seed=2), path)
    assert _listing(tmp_path) == ["m.zarr"]
    assert _snapshot(path) == before


def test_unstorable_content_is_refused_before_writing(tmp_path):
    tuples = spdgraph.sample(
        nx.relabel_nodes(nx.path_graph(3), {0: (0, 1), 1: (1, 2), 2: (2, 3)}), seed=0
    )
    with pytest.raises(spdgraph.InvalidOptionError, match="relabel the nodes"):
        spdgraph.save(tuples, tmp_path / "t.nc")
    da = spdgraph.sample(STRINGS, seed=0)
    for bad in (True, None, {"a": 1}, [1, None]):
        with pytest.raises(spdgraph.InvalidOptionError, match="cannot be stored"):
            spdgraph.save(da.assign_attrs(extra=bad), tmp_path / "a.zarr")
    with pytest.raises(spdgraph.InvalidOptionError, match="DataArray"):
        spdgraph.save(da.values, tmp_path / "d.nc")
    assert _listing(tmp_path) == []


def test_path_errors(tmp_path):
    da = spdgraph.sample(STRINGS, seed=0)
    with pytest.raises(spdgraph.FileError, match=r"suffix '\.h5'"):
        spdgraph.save(da, tmp_path / "m.h5")
    with pytest.raises(spdgraph.FileError, match="does not exist"):
        spdgraph.save(da, tmp_path / "missing" / "m.nc")
    (tmp_path / "folder.nc").mkdir()
    with pytest.raises(spdgraph.FileError, match="is a directory"):
        spdgraph.save(da, tmp_path / "folder.nc")
    (tmp_path / "notzarr.zarr").mkdir()
    (tmp_path / "notzarr.zarr" / "precious.txt").write_text("keep me")
    with pytest.raises(spdgraph.FileError, match="not a Zarr store"):
        spdgraph.save(da, tmp_path / "notzarr.zarr")
    assert (tmp_path / "notzarr.zarr" / "precious.txt").read_text() == "keep me"
    with pytest.raises(spdgraph.FileError, match="no such file"):
        spdgraph.open(tmp_path / "nothing.nc")
    (tmp_path / "garbage.nc").write_bytes(b"this is not netCDF")
    with pytest.raises(spdgraph.FileError, match="cannot read"):
        spdgraph.open(tmp_path / "garbage.nc")
    with pytest.raises(OSError):  # FileError is an OSError too
        spdgraph.open(tmp_path / "garbage.nc")
    xr.Dataset({"a": ("x", [1.0]), "b": ("x", [2.0])}).to_netcdf(tmp_path / "two.nc")
    with pytest.raises(spdgraph.FileError, match="one DataArray"):
        spdgraph.open(tmp_path / "two.nc")


def test_missing_dependencies_are_named(tmp_path, monkeypatch):
    da = spdgraph.sample(STRINGS, seed=0)
    for name in ("netCDF4", "h5netcdf", "h5py", "zarr"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(spdgraph.MissingDependencyError, match=r"spdgraph\[netcdf\]"):
        spdgraph.save(da, tmp_path / "m.nc")
    with pytest.raises(spdgraph.MissingDependencyError, match=r"spdgraph\[zarr\]"):
        spdgraph.save(da, tmp_path / "m.zarr")
    with pytest.raises(ImportError):
        spdgraph.save(da, tmp_path / "m.zarr")
    assert _listing(tmp_path) == []


# ------------------------------------------------------------------ graph files


def _write_edge_list(graph, path):
    lines = [f"{n}" for n in graph.nodes] + [f"{u} {v}" for u, v in graph.edges]
    path.write_text("# nodes, then edges\n" + "\n".join(lines) + "\n")


def test_read_graph_is_public_and_reads_every_format(tmp_path):
    import pandas as pd

    assert spdgraph.read_graph is io.read_graph
    g = nx.Graph([("a", "b"), ("b", "c")])
    g.add_node("d")
    _write_edge_list(g, tmp_path / "g.txt")
    nx.write_graphml(g, tmp_path / "g.graphml")
    nx.write_gml(g, tmp_path / "g.gml")
    adj = nx.to_numpy_array(g, nodelist=list(g.nodes))
    np.save(tmp_path / "g.npy", adj)
    pd.DataFrame(adj.astype(int), index=list(g.nodes), columns=list(g.nodes)).to_csv(
        tmp_path / "g.csv"
    )
    want = spdgraph.adapt_graph(g)
    for name in ("g.txt", "g.graphml", "g.gml", "g.csv"):
        got = spdgraph.adapt_graph(spdgraph.read_graph(tmp_path / name))
        assert got.labels == want.labels, name
        np.testing.assert_array_equal(got.adjacency, want.adjacency)
    got = spdgraph.adapt_graph(spdgraph.read_graph(str(tmp_path / "g.npy")))
    assert got.labels == [0, 1, 2, 3]
    np.testing.assert_array_equal(got.adjacency, want.adjacency)


def test_sample_accepts_a_path_like_the_cli(tmp_path):
    g = nx.cycle_graph(["x", "y", "z", "w"])
    _write_edge_list(g, tmp_path / "cycle.txt")
    want = spdgraph.sample(g, seed=3, size=2)
    for path in (tmp_path / "cycle.txt", str(tmp_path / "cycle.txt")):
        got = spdgraph.sample(path, seed=3, size=2)
        assert got.identical(want)
    assert spdgraph.adapt_graph(tmp_path / "cycle.txt").labels == ["x", "y", "z", "w"]


@pytest.mark.parametrize("graph", ["no-such-graph.txt", "a b"])
def test_a_string_that_is_no_file_is_a_clear_error(graph):
    with pytest.raises(spdgraph.FileError, match=f"graph '{graph}' is a path, but no such"):
        spdgraph.sample(graph)


def test_a_path_to_a_broken_file_names_it(tmp_path):
    (tmp_path / "bad.graphml").write_text("<graphml><oops")
    with pytest.raises(spdgraph.FileError, match=r"cannot read graph file .*bad\.graphml"):
        spdgraph.sample(tmp_path / "bad.graphml")
    (tmp_path / "asym.npy").write_bytes(b"")
    np.save(tmp_path / "asym.npy", np.triu(np.ones((3, 3)), 1))
    with pytest.raises(spdgraph.GraphError, match="symmetric"):
        spdgraph.sample(tmp_path / "asym.npy")


def test_netcdf_engine_is_the_one_picker(monkeypatch):
    assert io.netcdf_engine() in ("netcdf4", "h5netcdf")
    for name in ("netCDF4", "h5netcdf", "h5py"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(spdgraph.MissingDependencyError, match=r"spdgraph\[netcdf\]"):
        io.netcdf_engine()


@settings(max_examples=15, deadline=None)
@given(
    p=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    graph_seed=st.integers(0, 2**16),
    seed=st.integers(0, 2**16),
    method=st.sampled_from(["po", "dd"]),
)
def test_sampling_a_written_edge_list_gives_the_same_bits(
    tmp_path_factory, p, density, graph_seed, seed, method
):
    g = nx.gnp_random_graph(p, density, seed=graph_seed)
    path = tmp_path_factory.mktemp("edges") / "g.txt"
    _write_edge_list(g, path)
    got = spdgraph.sample(path, method=method, seed=seed)
    want = spdgraph.sample(g, method=method, seed=seed)
    assert got.identical(want)
    assert np.all(got.values[~want["adjacency"].values & ~np.eye(p, dtype=bool)] == 0)
