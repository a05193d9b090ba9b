"""Typing of the public API: annotated, marked typed, and the mypy-driven guards work."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import spdgraph
from spdgraph.plugins._builtin.gen_po import generate_po


def test_package_is_marked_typed():
    assert (Path(spdgraph.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize(
    "name",
    [n for n in spdgraph.__all__ if inspect.isfunction(getattr(spdgraph, n))],
)
def test_public_functions_are_fully_annotated(name):
    func = getattr(spdgraph, name)
    signature = inspect.signature(func)
    missing = [
        p for p in signature.parameters if signature.parameters[p].annotation is inspect._empty
    ]
    assert not missing, f"spdgraph.{name}: parameters without type hints: {missing}"
    assert signature.return_annotation is not inspect._empty, f"spdgraph.{name}: no return type"


def test_po_without_rng_or_factor_is_refused():
    adjacency = np.zeros((3, 3), dtype=bool)
    with pytest.raises(spdgraph.InvalidOptionError, match="needs a random generator"):
        generate_po(adjacency, rng=None, entries=lambda rng, shape: np.ones(shape))
