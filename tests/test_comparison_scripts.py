"""The generator comparison scripts cover every registered method.

``docs/figures/make_comparison.py`` and ``benchmarks/bench_generators.py``
loop over ``spdgraph.methods()`` and give each method the graph its recipe
says (a chordal cover for ``uniform``, a DAG for ``dag``, the undirected
graph otherwise). A method that refused its recipe's graph would silently
drop out of the figure and the benchmark table; these tests fail instead.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.graphs import erdos_renyi

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIGURE = _load(ROOT / "docs" / "figures" / "make_comparison.py")
BENCH = _load(ROOT / "benchmarks" / "bench_generators.py")
METHODS = [m for m in spdgraph.methods() if m not in FIGURE.EXCLUDE]


def test_recipes_name_registered_methods() -> None:
    assert set(FIGURE.RECIPES) <= set(METHODS)
    assert set(BENCH.RECIPES) <= set(METHODS)


@pytest.mark.parametrize("method", METHODS)
def test_figure_measures_every_method(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FIGURE, "GRAPHS", 1)
    monkeypatch.setattr(FIGURE, "MATRICES", 2)
    result = FIGURE.measure(method, 12, 0.3)
    assert not isinstance(result, str), f"{method} refused its recipe's graph: {result}"
    strength, pcor, cond, ms = result
    assert 0 < strength < 1 and 0 < pcor < 1 and cond >= 1 and ms > 0


def test_dag_precision_pattern_is_the_moral_graph() -> None:
    adjacency = nx.to_numpy_array(erdos_renyi(12, 0.3, seed=3), nodelist=range(12), dtype=bool)
    _, build, options = FIGURE.RECIPES["dag"]
    da = spdgraph.sample(build(adjacency), "dag", seed=1, kind="precision", **options)
    dag = nx.DiGraph(np.triu(adjacency, 1))
    moral = nx.to_numpy_array(nx.moral_graph(dag), nodelist=range(12), dtype=bool)
    np.testing.assert_array_equal(da["adjacency"].values, moral)


def test_uniform_recipe_is_a_chordal_cover() -> None:
    adjacency = nx.to_numpy_array(erdos_renyi(15, 0.3, seed=4), nodelist=range(15), dtype=bool)
    cover = FIGURE.chordal_cover(adjacency)
    assert nx.is_chordal(nx.from_numpy_array(cover.astype(int)))
    assert np.all(cover[adjacency])  # a cover keeps every edge of G
    np.testing.assert_array_equal(cover, BENCH.cover(adjacency))


def test_bench_times_every_variant() -> None:
    adjacency = nx.to_numpy_array(erdos_renyi(12, 0.3, seed=5), nodelist=range(12), dtype=bool)
    labels = []
    for method in METHODS:
        for label, build, options in BENCH.variants(method):
            value = BENCH.seconds_per_matrix(build(adjacency), method, options, 1, 5.0)
            assert not isinstance(value, str), f"{label}: {value}"
            labels.append(label)
    assert {"uniform exact (H)", "uniform mh (H)", "dag precision", "po"} <= set(labels)
