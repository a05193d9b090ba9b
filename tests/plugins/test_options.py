"""Declared method options (issue 12, item 3): every option checked before any work."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import spdgraph
from spdgraph.errors import written as plain
from spdgraph.plugins.options import OptionSpec, check_options, option_specs
from spdgraph.sampling import _request as _request

G = nx.cycle_graph(5)


def _identity_generator(name, options, calls):
    def function(adjacency, *, rng, entries, **kw):
        calls.append(kw)
        return np.eye(adjacency.shape[0])

    return spdgraph.Generator(name=name, function=function, description="test", options=options)


@pytest.fixture
def register():
    """Register a plugin returning the given generators; unregister it afterwards."""
    pm = spdgraph.get_plugin_manager()
    names = []

    def add(*gens):
        class Plugin:
            @spdgraph.hookimpl
            def spdgraph_register_generators(self):
                return list(gens)

        name = f"options-test-{len(names)}"
        pm.register(Plugin(), name=name)
        names.append(name)

    yield add
    for name in names:
        pm.unregister(name=name)


@pytest.fixture
def no_adaptation(monkeypatch):
    """Fail the test if the graph is adapted (the checks must come first)."""

    def refuse(graph):
        raise AssertionError("the graph was adapted before the options were checked")

    monkeypatch.setattr(_request, "adapt_graph", refuse)
    monkeypatch.setattr(_request, "count_nodes", refuse)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("abc", "wrong type"),
        (True, "wrong type"),
        (-1, "out of range"),
        (0.0, "out of range"),
        (2.0, "out of range"),
        (float("nan"), "not finite"),
        (float("inf"), "not finite"),
        (None, "may not be None"),
        (np.array([1e-8]), "wrong type"),
    ],
)
def test_po_residual_tolerance_is_checked_before_work(value, why, no_adaptation):
    with pytest.raises(spdgraph.InvalidOptionError, match=why) as info:
        spdgraph.sample(G, residual_tolerance=value)
    message = str(info.value)
    assert "option residual_tolerance" in message and "method 'po'" in message
    assert "must be a number > 0 and <= 1" in message


def test_accepted_values_are_converted_and_recorded():
    a = spdgraph.sample(G, seed=1, residual_tolerance=np.float64(1e-6))
    b = spdgraph.sample(G, seed=1, residual_tolerance=1e-6)
    recorded = '{"residual_tolerance": 1e-06}'
    assert a.attrs["method_options"] == b.attrs["method_options"] == recorded
    np.testing.assert_array_equal(a.values, b.values)
    assert spdgraph.sample(G, seed=1, residual_tolerance=1).attrs["method_options"] == (
        '{"residual_tolerance": 1.0}'
    )


def test_dd_takes_no_option(no_adaptation):
    with pytest.raises(spdgraph.UnknownOptionError, match="its options are: none"):
        spdgraph.sample(G, "dd", residual_tolerance=1e-8)


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 5))
def test_number_spec_accepts_exactly_its_range(x):
    declared = {"tol": OptionSpec(0.5, float, low=0.0, low_inclusive=False, high=1.0)}
    expected = math.isfinite(x) and 0 < x <= 1
    try:
        out = check_options({"tol": x}, declared, "m", "p")
    except spdgraph.InvalidOptionError as exc:
        assert not expected, exc
        assert plain(x) in str(exc)
    else:
        assert expected
        assert out == {"tol": float(x)} and type(out["tol"]) is float


@given(st.integers(-3, 3) | st.floats(-3, 3) | st.booleans() | st.text(max_size=3))
def test_integer_spec_refuses_floats_and_bools(x):
    declared = {"k": OptionSpec(1, int, low=1)}
    expected = isinstance(x, int) and not isinstance(x, bool) and x >= 1
    try:
        check_options({"k": x}, declared, "m", "p")
    except spdgraph.InvalidOptionError:
        assert not expected
    else:
        assert expected


def test_choices_custom_checks_and_none():
    declared = {
        "mode": OptionSpec("fast", str, choices=("fast", "exact")),
        "even": OptionSpec(2, int, check=lambda v: None if v % 2 == 0 else "it is odd"),
        "scale": OptionSpec(None, float),
    }
    assert check_options({"mode": "exact", "even": 4}, declared, "m", "p") == {
        "mode": "exact",
        "even": 4,
        "scale": None,
    }
    with pytest.raises(spdgraph.InvalidOptionError, match="one of 'fast', 'exact'; got 'slow'"):
        check_options({"mode": "slow"}, declared, "m", "p")
    with pytest.raises(spdgraph.InvalidOptionError, match=r"got 3 \(it is odd\)"):
        check_options({"even": 3}, declared, "m", "p")
    assert check_options({"scale": 2}, declared, "m", "p")["scale"] == 2.0
    assert option_specs(declared)["scale"].describe() == "a number (or None)"


def test_plain_defaults_keep_working_with_inferred_types(register):
    calls = []
    register(
        _identity_generator(
            "plain-options",
            {"alpha": 0.5, "k": 3, "flag": False, "name": "x", "anything": None},
            calls,
        )
    )
    spdgraph.sample(G, "plain-options", seed=0, alpha=1, k=4, flag=True, anything=[1, 2])
    assert calls[-1] == {"alpha": 1.0, "k": 4, "flag": True, "name": "x", "anything": [1, 2]}
    spdgraph.sample(G, "plain-options", seed=0, alpha=float("inf"))  # plain floats: any number
    for bad in ({"alpha": "abc"}, {"k": 2.5}, {"flag": 1}, {"name": 3}):
        with pytest.raises(spdgraph.InvalidOptionError, match="plugin 'options-test-0'"):
            spdgraph.sample(G, "plain-options", seed=0, **bad)
    n_calls = len(calls)
    with pytest.raises(spdgraph.InvalidOptionError):
        spdgraph.sample(G, "plain-options", seed=0, alpha="abc")
    assert len(calls) == n_calls  # refused before the generator ran


def test_third_party_declarations_are_checked(register, no_adaptation):
    calls = []
    register(_identity_generator("declared", {"margin": OptionSpec(1.0, float, low=0.0)}, calls))
    with pytest.raises(spdgraph.InvalidOptionError, match=r"margin .* must be a number >= 0"):
        spdgraph.sample(G, "declared", margin=-0.5)
    assert calls == []


def test_bad_declarations_are_plugin_errors(register):
    register(_identity_generator("bad-default", {"x": OptionSpec(-1.0, float, low=0.0)}, []))
    with pytest.warns(spdgraph.PluginWarning, match="option 'x' of method 'bad-default'"):
        assert "bad-default" not in spdgraph.methods() and "po" in spdgraph.methods()
    with pytest.raises(spdgraph.UnknownMethodError, match=r"was skipped: .*option 'x'"):
        spdgraph.sample(G, "bad-default", seed=0)


def test_bad_option_names_are_plugin_errors(register):
    register(_identity_generator("bad-name", {"not a name": 1.0}, []))
    with pytest.warns(spdgraph.PluginWarning, match="Python identifiers"):
        assert "bad-name" not in spdgraph.methods()


def test_defaults_of_a_generator():
    gen, _ = spdgraph.plugins.find_generator("po")
    assert gen.defaults == {"residual_tolerance": 1e-8}
    assert isinstance(gen.options["residual_tolerance"], spdgraph.OptionSpec)


def test_cli_option_error_is_one_line_exit_2(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    from spdgraph import cli

    graph = tmp_path / "g.txt"
    graph.write_text("a b\nb c\n")
    for value in ("abc", "-1"):
        argv = ["sample", str(graph), "-o", str(tmp_path / "m.nc")]
        code = cli.main([*argv, "--option", f"residual_tolerance={value}"])
        _, err = capsys.readouterr()
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("spdgraph: error: option residual_tolerance")
        assert "Traceback" not in err
        assert not (tmp_path / "m.nc").exists()
