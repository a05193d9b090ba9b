"""A full or read-only disk under every writer, API and CLI alike (issue 49, item 2).

On a 1 MiB tmpfs (skipped when it cannot be mounted): ``spdgraph.save``,
``spdgraph sample -o``, ``save_simulation`` and ``spdgraph simulate -o`` end in a
FileError naming the path and the cause (one line, exit status 2 on the command
line), the old file stays whole and no temporary is left.
"""

from __future__ import annotations

import hashlib

import networkx as nx
import pytest
from fulldisk import fill, read_only, small_disk

import spdgraph
from spdgraph.cli import main
from spdgraph.errors import FileError
from spdgraph.simulation import save_simulation

FORMATS = ["m.nc", "m.zarr"]


def _digest(path):
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    sha = hashlib.sha256()
    for file in files:
        sha.update(file.read_bytes())
    return sha.hexdigest()


def _hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _one_line(capsys, argv, path):
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("spdgraph: error:"), err
    assert str(path) in err[0]
    return err[0]


@pytest.mark.parametrize("name", FORMATS)
def test_sample_and_save_on_a_full_disk(tmp_path, name, capsys):
    pytest.importorskip("netCDF4" if name.endswith(".nc") else "zarr")
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {j}\n" for i in range(60) for j in range(i + 1, 60)))
    with small_disk(tmp_path / "disk", "1m") as disk:
        path = spdgraph.save(spdgraph.sample(nx.path_graph(5), seed=0), disk / name)
        before = _digest(path)
        big = spdgraph.sample(nx.complete_graph(60), size=200, seed=1)  # 5.8 MB, dense
        with pytest.raises(FileError) as info:
            spdgraph.save(big, path)
        assert str(path) in str(info.value)
        assert _hidden(disk) == [] and _digest(path) == before
        argv = ["sample", graph, "--size", "200", "--seed", "1", "-o", path, "--overwrite"]
        _one_line(capsys, argv, path)
        assert _hidden(disk) == [] and _digest(path) == before
        fill(disk)  # no room at all
        with pytest.raises(FileError):
            spdgraph.save(spdgraph.sample(nx.path_graph(5), seed=2), path)
        _one_line(capsys, ["sample", graph, "--seed", "1", "-o", path, "--overwrite"], path)
        assert _hidden(disk) == [] and _digest(path) == before
        assert spdgraph.open(path).identical(spdgraph.sample(nx.path_graph(5), seed=0))


@pytest.mark.parametrize("name", FORMATS)
def test_every_writer_on_a_read_only_disk(tmp_path, name, capsys):
    pytest.importorskip("netCDF4" if name.endswith(".nc") else "zarr")
    with small_disk(tmp_path / "disk", "1m") as disk:
        path = spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=0), disk / name)
        sim_path = save_simulation(spdgraph.simulate("hub", n=5, p=4, seed=0), disk / ("s" + name))
        before, sim_before = _digest(path), _digest(sim_path)
        read_only(disk)
        with pytest.raises(FileError, match="read-only"):
            spdgraph.save(spdgraph.sample(nx.path_graph(4), seed=1), path)
        with pytest.raises(FileError, match="read-only"):
            save_simulation(spdgraph.simulate("hub", n=5, p=4, seed=1), sim_path, overwrite=True)
        argv = ["simulate", "--graph", "hub", "--p", "4", "--n", "5", "--seed", "1"]
        assert "read-only" in _one_line(capsys, [*argv, "-o", sim_path, "--overwrite"], sim_path)
        assert _digest(path) == before and _digest(sim_path) == sim_before
        assert _hidden(disk) == []
