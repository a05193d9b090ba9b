"""Plugin architecture: registration, duplicates, output validation naming the plugin."""

import re
import types

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph import plugins

ADJ = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)


def _plugin(name, func, **gen_kwargs):
    mod = types.ModuleType(name)

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        return [spdgraph.Generator(name=name, function=func, description="test", **gen_kwargs)]

    mod.spdgraph_register_generators = spdgraph_register_generators
    return mod


@pytest.fixture
def register():
    pm = spdgraph.get_plugin_manager()
    names = []

    def _register(mod, name):
        pm.register(mod, name=name)
        names.append(name)

    yield _register
    for name in names:
        pm.unregister(name=name)


def test_manager_is_cached_and_builtins_are_plugins():
    pm = spdgraph.get_plugin_manager()
    assert spdgraph.get_plugin_manager() is pm
    for modname in plugins.DEFAULT_PLUGINS:
        assert pm.get_plugin(modname) is not None
    assert plugins.generators()["po"][1] == "spdgraph.plugins._builtin.gen_po"


def test_runtime_registered_generator_works(register):
    def gen(adjacency, *, rng, entries, scale=2.0):
        return scale * np.eye(adjacency.shape[0])

    register(_plugin("twice-identity", gen, options={"scale": 2.0}), "my-plugin")
    assert "twice-identity" in spdgraph.methods()
    da = spdgraph.sample(ADJ, "twice-identity", normalize=False, scale=3.0, seed=0)
    assert da.attrs["plugin"] == "my-plugin"
    assert np.all(np.diag(da.values) == 3.0)


def _skipped(plugin: str, match: str) -> None:
    """``plugin`` is skipped with one warning; po and dd keep working; the reason is listed."""
    with pytest.warns(spdgraph.PluginWarning, match=plugin):
        methods = spdgraph.methods()
    assert {"po", "dd"} <= set(methods)
    reasons = spdgraph.plugins.broken_plugins()
    assert plugin in reasons
    assert re.search(match, reasons[plugin]), reasons[plugin]
    spdgraph.sample(ADJ, "dd", seed=0)  # the built-ins are unharmed


def test_duplicate_names_name_both_plugins(register):
    register(_plugin("po", lambda a, **k: np.eye(3)), "impostor")
    _skipped("impostor", r"spdgraph.plugins._builtin.gen_po.*impostor")
    da = spdgraph.sample(ADJ, "po", seed=0)
    assert da.attrs["plugin"] == "spdgraph.plugins._builtin.gen_po"  # not the impostor


def test_registration_of_non_generator_rejected(register):
    mod = types.ModuleType("bad")

    @spdgraph.hookimpl
    def spdgraph_register_generators():
        return ["not a generator"]

    mod.spdgraph_register_generators = spdgraph_register_generators
    register(mod, "bad-plugin")
    _skipped("bad-plugin", "not a spdgraph.Generator")


BAD_OUTPUTS = {
    "shape": (lambda a, **k: np.eye(4), "shape"),
    "dtype": (lambda a, **k: np.eye(3, dtype=np.float32), "dtype"),
    "nan": (lambda a, **k: np.full((3, 3), np.nan), "non-finite"),
    "asym": (lambda a, **k: np.array([[2.0, 0.1, 0], [0.2, 2, 0], [0, 0, 2]]), "symmetric"),
    "zeros": (lambda a, **k: np.array([[2.0, 0, 0.1], [0, 2, 0], [0.1, 0, 2]]), "not an edge"),
    "notpd": (lambda a, **k: -np.eye(3), "positive definite"),
    "list": (lambda a, **k: [[1.0]], "not a numpy array"),
}


@pytest.mark.parametrize("case", sorted(BAD_OUTPUTS))
def test_core_validates_generator_output(case, register):
    func, match = BAD_OUTPUTS[case]
    register(_plugin(f"bad-{case}", func), f"plugin-{case}")
    with pytest.raises(spdgraph.GeneratorOutputError, match=match) as info:
        spdgraph.sample(ADJ, f"bad-{case}", seed=0)
    assert f"plugin-{case}" in str(info.value)


def test_batch_function_contract(register):
    seen = {}

    def batch(adjacency, *, rngs, entries, factors):
        seen["n"] = len(rngs)
        return np.stack([np.eye(3) * (1 + r.random()) for r in rngs])

    register(
        _plugin("batched", lambda *a, **k: None, batch_function=batch, accepts_factor=True),
        "batch-plugin",
    )
    da = spdgraph.sample(ADJ, "batched", size=4, seed=1, normalize=False)
    assert seen["n"] == 4 and da.shape == (4, 3, 3)
    one = spdgraph.sample(ADJ, "batched", seed=1, normalize=False)
    np.testing.assert_array_equal(one.values, da.values[0])


def test_batch_function_wrong_shape(register):
    register(
        _plugin("badbatch", lambda *a, **k: None, batch_function=lambda a, **k: np.eye(3)),
        "badbatch-plugin",
    )
    with pytest.raises(spdgraph.GeneratorOutputError, match="badbatch-plugin"):
        spdgraph.sample(ADJ, "badbatch", size=2, seed=0)


def test_autoload_env_var(monkeypatch):
    calls = []
    monkeypatch.setattr(
        spdgraph.plugins._manager,
        "load_entry_points",
        lambda pm, group="spdgraph": calls.append(group),
    )
    monkeypatch.setenv(plugins.AUTOLOAD_ENV, "1")
    spdgraph.reset_plugin_manager()
    spdgraph.get_plugin_manager()
    assert calls == []
    monkeypatch.delenv(plugins.AUTOLOAD_ENV)
    spdgraph.reset_plugin_manager()
    spdgraph.get_plugin_manager()
    assert calls == ["spdgraph"]
    monkeypatch.undo()
    spdgraph.reset_plugin_manager()


def test_generator_table_is_cached_until_plugins_change():
    from spdgraph import plugins

    pm = spdgraph.get_plugin_manager()
    calls = []

    class Counting:
        @spdgraph.hookimpl
        def spdgraph_register_generators(self):
            calls.append(1)
            return [spdgraph.Generator("counting-test", lambda a, **k: None, "test")]

    plugin = Counting()
    pm.register(plugin, name="counting-test")
    try:
        assert "counting-test" in plugins.generators()
        spdgraph.methods()
        spdgraph.sample(nx.path_graph(3), seed=0)
        assert len(calls) == 1  # built once, through the hook, then cached
        generation = pm.generation
    finally:
        pm.unregister(plugin)
    assert pm.generation > generation
    assert "counting-test" not in spdgraph.methods()  # unregistering invalidates it
