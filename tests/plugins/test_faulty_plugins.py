"""A faulty plugin harms only itself: skipped with one warning, errors named."""

from __future__ import annotations

import types
import warnings

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph import OptionSpec


@pytest.fixture
def register():
    pm = spdgraph.get_plugin_manager()
    names = []

    def _register(obj, name):
        pm.register(obj, name=name)
        names.append(name)

    yield _register
    for name in names:
        pm.unregister(name=name)


def _generators(*gens):
    mod = types.ModuleType("faulty")

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        return list(gens)

    mod.spdgraph_register_generators = spdgraph_register_generators
    return mod


def test_an_option_check_that_raises_skips_only_its_plugin(register):
    spec = OptionSpec(0.5, float, check=lambda v: 1 / 0)
    gen = spdgraph.Generator("zero-div", lambda a, **k: np.eye(a.shape[0]), "x", {"t": spec})
    register(_generators(gen), "zero-div-plugin")
    with pytest.warns(spdgraph.PluginWarning, match="zero-div-plugin.*ZeroDivisionError"):
        da = spdgraph.sample(nx.path_graph(5), "po", seed=1)
    assert da.shape == (5, 5)
    assert "zero-div-plugin" in spdgraph.plugins.broken_plugins()


def test_a_registration_hook_that_raises_skips_only_its_plugin(register):
    mod = types.ModuleType("raising")

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        raise RuntimeError("boom at registration")

    mod.spdgraph_register_generators = spdgraph_register_generators
    register(mod, "raising-plugin")
    with pytest.warns(spdgraph.PluginWarning, match="raising-plugin.*boom at registration"):
        assert "dd" in spdgraph.methods()
    spdgraph.sample(nx.path_graph(3), "dd", seed=0)


def _backends(*backends):
    mod = types.ModuleType("backends")

    @spdgraph.hookimpl
    def spdgraph_graph_backends():
        return list(backends)

    mod.spdgraph_graph_backends = spdgraph_graph_backends
    return mod


def test_an_adapter_that_raises_harms_only_itself(register):
    def buggy(graph):
        raise ValueError("adapter bug")

    register(_backends(spdgraph.GraphBackend("bad", buggy, buggy)), "bad-adapter-plugin")
    with pytest.warns(spdgraph.PluginWarning, match="bad-adapter-plugin.*adapter bug"):
        da = spdgraph.sample(nx.path_graph(4), seed=0)  # networkx's adapter still works
    assert da.shape == (4, 4)

    class Unknown:
        pass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spdgraph.PluginWarning)
        with pytest.raises(spdgraph.GraphTypeError):
            spdgraph.sample(Unknown(), seed=0)  # skipped since: no adapter takes it


def test_an_adapter_failure_for_its_own_type_is_a_plugin_error(register):
    class Special:
        pass

    def to_graph(graph):
        raise KeyError("missing field")

    backend = spdgraph.GraphBackend("special", lambda obj: isinstance(obj, Special), to_graph)
    register(_backends(backend), "special-plugin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spdgraph.PluginWarning)
        with pytest.raises(spdgraph.PluginError, match=r"special-plugin.*KeyError") as info:
            spdgraph.sample(Special(), seed=0)
    assert isinstance(info.value.__cause__, KeyError)


def test_a_backend_hook_returning_junk_or_a_taken_name_harms_only_itself(register):
    register(_backends("not a backend"), "junk-plugin")
    copy = spdgraph.GraphBackend("networkx", lambda obj: False, lambda obj: None)
    register(_backends(copy), "copycat-plugin")
    with pytest.warns(spdgraph.PluginWarning) as caught:
        names = [(b.name, plugin) for b, plugin in spdgraph.plugins.graph_backends()]
    text = " ".join(str(w.message) for w in caught)
    assert "junk-plugin" in text and "not a spdgraph.GraphBackend" in text
    assert "copycat-plugin" in text and "registered twice" in text
    assert ("networkx", "spdgraph.plugins._builtin.adapt_networkx") in names
    assert all(plugin not in ("junk-plugin", "copycat-plugin") for _, plugin in names)
    assert spdgraph.sample(nx.path_graph(3), seed=0).shape == (3, 3)


def test_a_generator_that_raises_is_a_plugin_error_naming_it(register):
    def broken(adjacency, *, rng, entries):
        return {}["no such key"]

    register(_generators(spdgraph.Generator("keyerror", broken, "x")), "keyerror-plugin")
    with pytest.raises(spdgraph.PluginError, match="'keyerror' of plugin 'keyerror-plugin'"):
        spdgraph.sample(nx.path_graph(3), "keyerror", seed=0)
    spdgraph.sample(nx.path_graph(3), "po", seed=0)


def test_methods_command_lists_broken_plugins(register, capsys):
    from spdgraph.cli import main

    register(_generators("not a generator"), "junk-plugin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spdgraph.PluginWarning)
        assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "po" in out and "broken plugin 'junk-plugin'" in out
