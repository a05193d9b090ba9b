"""A plugin that fails to load harms only itself (fake distributions and entry points)."""

from __future__ import annotations

import types

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph import plugins
from spdgraph.cli import main
from spdgraph.plugins import _manager

G = nx.path_graph(4)


class FakeEntryPoint:
    def __init__(self, name, load):
        self.name, self.group, self._load = name, "spdgraph", load

    def load(self):
        return self._load()


class FakeDistribution:
    def __init__(self, name, *entry_points):
        self.metadata = {"Name": name, "Version": "0.1"}
        self.entry_points = list(entry_points)


def _raise(exc):
    def load():
        raise exc

    return load


def _generator_plugin(method):
    mod = types.ModuleType(f"plugin_{method}")

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        def generate(adjacency, rng, entries, **_):
            return np.eye(adjacency.shape[0]) * 2.0

        return [spdgraph.Generator(name=method, function=generate, description="test")]

    mod.spdgraph_register_generators = spdgraph_register_generators
    return mod


def _bad_signature_plugin():
    mod = types.ModuleType("bad_signature")

    @spdgraph.hookimpl
    def spdgraph_register_generators(not_in_the_spec):
        return []

    mod.spdgraph_register_generators = spdgraph_register_generators
    return mod


def _unknown_hook_plugin():
    mod = types.ModuleType("unknown_hook")

    @spdgraph.hookimpl
    def spdgraph_no_such_hook():
        return None

    mod.spdgraph_no_such_hook = spdgraph_no_such_hook
    return mod


@pytest.fixture
def installed(monkeypatch):
    """Install fake distributions for the next plugin manager; restore the real one after."""
    monkeypatch.delenv(plugins.AUTOLOAD_ENV, raising=False)

    def install(*dists):
        monkeypatch.setattr(_manager, "_distributions", lambda: list(dists))
        spdgraph.reset_plugin_manager()

    yield install
    monkeypatch.undo()
    spdgraph.reset_plugin_manager()


BROKEN = [
    ("import error", lambda: _raise(RuntimeError("boom at import")), "RuntimeError: boom"),
    ("missing module", lambda: _raise(ModuleNotFoundError("No module named 'x'")), "x"),
    ("bad hook signature", lambda: _bad_signature_plugin, "not_in_the_spec"),
    ("unknown hook", lambda: _unknown_hook_plugin, "spdgraph_no_such_hook"),
]


@pytest.mark.parametrize(("case", "loader", "reason"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_distribution_harms_only_itself(installed, capsys, case, loader, reason):
    installed(
        FakeDistribution("spdgraph-broken", FakeEntryPoint("broken", loader())),
        FakeDistribution("spdgraph-good", FakeEntryPoint("good", lambda: _generator_plugin("ok"))),
    )
    with pytest.warns(spdgraph.PluginWarning, match=r"broken \(distribution spdgraph-broken"):
        spdgraph.get_plugin_manager()
    # the built-ins and the other plugin keep working from the API
    assert spdgraph.sample(G, "po", seed=0).shape == (4, 4)
    assert spdgraph.sample(G, "ok", seed=0).shape == (4, 4)
    skipped = plugins.broken_plugins()
    assert any("spdgraph-broken" in who and reason in why for who, why in skipped.items())
    # ... and from the command line, which lists the broken plugin
    capsys.readouterr()
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "spdgraph-broken" in out and "ok" in out and "po" in out


def test_systemexit_at_import_is_not_an_error(installed):
    installed(FakeDistribution("spdgraph-quits", FakeEntryPoint("quits", _raise(SystemExit(4)))))
    with pytest.raises(SystemExit):
        spdgraph.get_plugin_manager()


def test_a_plugin_method_cannot_replace_a_builtin(installed):
    installed(
        FakeDistribution("spdgraph-po", FakeEntryPoint("fake-po", lambda: _generator_plugin("po")))
    )
    with pytest.warns(spdgraph.PluginWarning, match="'po'.*gen_po.*fake-po"):
        gens = spdgraph.plugins.generators()
    assert gens["po"][1] == "spdgraph.plugins._builtin.gen_po"


def _quitting_plugin(exc):
    mod = types.ModuleType("quitter")

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        def generate(adjacency, rng, entries, **_):
            raise exc

        return [spdgraph.Generator(name="quitter", function=generate, description="test")]

    mod.spdgraph_register_generators = spdgraph_register_generators
    return mod


@pytest.mark.parametrize(("exc", "status"), [(SystemExit(3), 3), (SystemExit("bye"), 1)])
def test_systemexit_in_a_generator_ends_the_cli_without_traceback(tmp_path, capsys, exc, status):
    pm = spdgraph.get_plugin_manager()
    pm.register(_quitting_plugin(exc), name="quitter-test")
    try:
        with pytest.raises(SystemExit):  # not swallowed as a PluginError by the API
            spdgraph.sample(G, "quitter", seed=0)
        graph = tmp_path / "g.txt"
        graph.write_text("a b\nb c\n")
        capsys.readouterr()
        code = main(["sample", str(graph), "-m", "quitter", "-o", str(tmp_path / "o.nc")])
    finally:
        pm.unregister(name="quitter-test")
    err = capsys.readouterr().err
    assert code == status and "Traceback" not in err
    assert not (tmp_path / "o.nc").exists()


def test_a_failing_cli_hook_is_skipped_and_its_commands_withdrawn(capsys):
    class HalfWay:
        @spdgraph.hookimpl
        def spdgraph_add_cli_commands(self, subparsers):
            subparsers.add_parser("half-way")
            raise RuntimeError("plugin bug")

    pm = spdgraph.get_plugin_manager()
    pm.register(HalfWay(), name="half-way-test")
    try:
        with pytest.warns(spdgraph.PluginWarning, match="half-way-test.*RuntimeError"):
            code = main(["methods"])
        parser = spdgraph.cli.build_parser()
    finally:
        pm.unregister(name="half-way-test")
        _manager._load_failures.clear()
    assert code == 0
    assert "half-way" not in parser._subparsers._group_actions[0].choices
