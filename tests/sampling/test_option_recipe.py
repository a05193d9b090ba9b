"""The recipe "add a ``sample()`` option" (docs/architecture.md) touches the table, the
code that uses the option and its test, nothing else: here one row added to the table
at run time is checked by ``sample``, reaches the request and the generator, appears in
``spdgraph sample --help`` and is refused with the table's message, from the API, the
command line and a study's check alike."""

from __future__ import annotations

from typing import ClassVar

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.cli import main
from spdgraph.parameters import SAMPLE_PARAMETERS, Interval, Parameter, check_sample_arguments
from spdgraph.sampling import _core

ROW = Parameter(
    "sharpness", 2, Interval(int, 0, 10), "how sharp the toy's diagonal is", to_generator=True
)


class ToyPlugin:
    """A generator that takes the new option (as the code that uses it would)."""

    seen: ClassVar[list[int]] = []

    @spdgraph.hookimpl
    def spdgraph_register_generators(self):
        def toy(adjacency, *, rng, entries, sharpness):
            ToyPlugin.seen.append(sharpness)
            return np.where(adjacency, 0.1, 0.0) + (1.0 + sharpness) * np.eye(len(adjacency))

        return [spdgraph.Generator("toy-sharp", toy, "test: takes sharpness")]


@pytest.fixture
def new_option(monkeypatch):
    monkeypatch.setitem(SAMPLE_PARAMETERS, ROW.name, ROW)  # the one edit of the recipe
    pm = spdgraph.get_plugin_manager()
    pm.register(ToyPlugin(), name="toy-sharp-plugin")
    ToyPlugin.seen.clear()
    try:
        yield ROW
    finally:
        pm.unregister(name="toy-sharp-plugin")


def test_the_option_reaches_the_request_and_the_generator(new_option, monkeypatch):
    requests = []
    run = _core._run
    monkeypatch.setattr(_core, "_run", lambda request: requests.append(request) or run(request))
    da = spdgraph.sample(nx.path_graph(4), "toy-sharp", seed=1, sharpness=7, normalize=False)
    assert requests[0].arguments["sharpness"] == 7
    assert ToyPlugin.seen == [7] and float(da.values[0, 0]) == 8.0
    spdgraph.sample(nx.path_graph(4), "toy-sharp", seed=1)  # the table's default
    assert ToyPlugin.seen[-1] == 2


def test_the_option_is_refused_with_the_tables_message(new_option, tmp_path, capsys):
    message = new_option.message(11)
    assert message.startswith("sharpness must be an integer from 0 to 10 (how sharp")
    with pytest.raises(spdgraph.InvalidOptionError) as api:
        spdgraph.sample(nx.path_graph(4), "toy-sharp", seed=1, sharpness=11)
    assert str(api.value) == message
    with pytest.raises(spdgraph.InvalidOptionError) as study:
        check_sample_arguments({"sharpness": 11})  # what a study's TOML is checked with
    assert str(study.value) == message
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    assert main(["sample", str(graph), "-o", str(tmp_path / "x.nc"), "--sharpness", "11"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists()


def test_the_option_is_in_the_help_and_taken_by_the_command(new_option, tmp_path, capsys):
    assert main(["sample", "--help"]) == 0
    assert "--sharpness" in capsys.readouterr().out
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    out = tmp_path / "x.nc"
    pytest.importorskip("netCDF4")
    assert main(["sample", str(graph), "-m", "toy-sharp", "-o", str(out), "--sharpness", "4"]) == 0
    assert ToyPlugin.seen == [4]
