"""Generators carry their capabilities: the core decides on no built-in method's name.

A compiled generator registered at run time gets what the built-ins get (the
one-line compilation note, its warmup steps, its cost model for the progress bar
and the memory guard), and no module under ``spdgraph/sampling`` compares a
method name with a built-in one.
"""

from __future__ import annotations

import ast
import types
from pathlib import Path

import numpy as np
import pytest

import spdgraph
from spdgraph.sampling import _compile, _progress
from spdgraph.sampling._warmup import _steps

SAMPLING = Path(spdgraph.__file__).parent / "sampling"
BUILT_IN = {"po", "dd", "huge", "dag", "uniform", "port_chol"}
#: Literals that are names of something else: the ``entries="uniform"`` distribution
#: and the ``dag`` coordinate of a DAG method's output.
NOT_METHODS = {("_entries.py", "uniform"), ("_groups.py", "dag"), ("_output.py", "dag")}


def _method_literals(path: Path) -> list[tuple[int, str]]:
    """String constants naming a built-in method, outside docstrings and defaults."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))  # docstrings
        if isinstance(node, ast.arguments):  # a parameter's default, e.g. method="po"
            skip.update(id(d) for d in [*node.defaults, *node.kw_defaults] if d is not None)
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            skip.add(id(node.value))  # a dataclass field's default
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in BUILT_IN
        and id(node) not in skip
        and (path.name, node.value) not in NOT_METHODS
    ]


@pytest.mark.parametrize("path", sorted(SAMPLING.glob("*.py")), ids=lambda p: p.name)
def test_the_sampling_core_names_no_built_in_method(path):
    assert _method_literals(path) == [], f"{path.name} decides on a built-in method's name"


def test_the_literal_finder_finds_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""doc: po."""\ndef f(method="po"):\n    return method in {"po", "uniform"}\n')
    assert _method_literals(bad) == [(3, "po"), (3, "uniform")]


def _toy(adjacency, *, rng, entries, **options):
    return np.eye(adjacency.shape[0])


@pytest.fixture
def toy():
    """A toy compiled generator, registered at run time as a third party would."""
    ran: list[str] = []
    gen = spdgraph.Generator(
        "toy-compiled",
        _toy,
        "test: a compiled generator",
        compiles=True,
        kernels_cached=lambda: False,
        seconds=lambda p, edges: 100.0 + edges,
        work_per_matrix=7.0,
        warmup=(
            spdgraph.WarmupStep("toy, kernels", lambda sample: ran.append("plain")),
            spdgraph.WarmupStep("toy, portable", lambda s: ran.append("portable"), portable=True),
        ),
    )
    module = types.ModuleType("toy_compiled")
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    pm = spdgraph.get_plugin_manager()
    pm.register(module, name="toy-compiled-plugin")
    yield gen, ran
    pm.unregister(name="toy-compiled-plugin")


def test_a_compiled_generator_gets_the_note(toy, capsys, monkeypatch):
    monkeypatch.setitem(_compile._NOTED, "done", False)
    spdgraph.sample(np.ones((3, 3)), "toy-compiled", seed=0)
    assert "compiling the numerical kernels" in capsys.readouterr().err
    spdgraph.sample(np.ones((3, 3)), "toy-compiled", seed=0)
    assert capsys.readouterr().err == ""  # once per process


def test_a_generator_without_kernels_gets_no_note(capsys, monkeypatch):
    monkeypatch.setitem(_compile._NOTED, "done", False)
    spdgraph.sample(np.ones((3, 3)), "dd", seed=0)
    assert capsys.readouterr().err == ""


def test_a_compiled_generator_gets_its_warmup_steps(toy):
    _, ran = toy
    plain, portable = dict(_steps(portable=False)), dict(_steps(portable=True))
    assert {"po, small matrices", "toy, kernels"} <= set(plain) and "toy, portable" not in plain
    assert {"po, portable kernels", "toy, portable"} <= set(portable)
    plain["toy, kernels"]()
    portable["toy, portable"]()
    assert ran == ["plain", "portable"]


def test_the_progress_bar_reads_the_cost_model(toy, monkeypatch):
    gen, _ = toy
    monkeypatch.setattr(_progress, "interactive", lambda: True)
    assert _progress.estimated_seconds(gen, 3, 2, 2) == 2 * 102.0
    assert _progress.show_progress(None, gen, 3, 0, 1)  # 100 s for a 3-node matrix
    request = spdgraph.sampling.estimate_need(np.ones((50, 50)), "toy-compiled", size=4)
    default = spdgraph.sampling.estimate_need(np.ones((50, 50)), "dd", size=4)
    assert request.bytes > default.bytes + 4 * 6 * 50 * 50 * 8  # 7 arrays a matrix, not 0


@pytest.mark.parametrize("method", sorted(BUILT_IN))
def test_every_built_in_cache_probe_runs(method):
    """The core swallows a probe's errors (a plugin's look at Numba internals is never
    fatal), so a probe naming a kernel that was renamed would silently never say
    "compiling": call each built-in probe directly."""
    from spdgraph.plugins._manager import generators

    gen, _plugin = generators()[method]
    if gen.kernels_cached is None:
        pytest.skip(f"{method} has no cache probe")
    assert gen.kernels_cached() in (True, False, None)
