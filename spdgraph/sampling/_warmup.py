"""``spdgraph.warmup()``: compile every kernel ahead (see :mod:`spdgraph.sampling._compile`)."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable

from spdgraph.plugins import generators
from spdgraph.sampling._compile import mark_noted
from spdgraph.sampling._core import sample

__all__ = ["warmup"]


#: Other parts of the package that add warmup steps, as ``"module:function"``
#: returning ``(name, step)`` pairs; resolved by name at warmup time, like an
#: entry point (the validation package imports spdgraph, so it is not imported here).
STEP_PROVIDERS = ("spdgraph.validation:validation_warmup_steps",)


def _provided_steps() -> list[tuple[str, Callable[[], object]]]:
    import importlib

    steps: list[tuple[str, Callable[[], object]]] = []
    for provider in STEP_PROVIDERS:
        module, _, name = provider.partition(":")
        steps.extend(getattr(importlib.import_module(module), name)())
    return steps


def _steps(portable: bool) -> list[tuple[str, Callable[[], object]]]:
    """Every registered generator's :class:`~spdgraph.WarmupStep` s, in registration order."""
    steps: list[tuple[str, Callable[[], object]]] = [
        (step.label, functools.partial(step.run, sample))
        for gen, _ in generators().values()
        for step in gen.warmup
        if portable or not step.portable
    ]
    return steps + _provided_steps()  # glasso, lasso, draws and marginals


def warmup(*, portable: bool = False, verbose: bool = False) -> dict[str, float]:
    """Compile every generator's kernels now (on tiny problems) and cache them on disk.

    Runs the :class:`~spdgraph.WarmupStep` s every registered generator
    declares (``GeneratorSpec.warmup``), built-in or from a plugin.

    Parameters
    ----------
    portable
        Also compile the ``portable=True`` kernels (not cached on disk: they
        compile again in every new process).
    verbose
        Print each step and its time on stderr.

    Returns
    -------
    dict
        Seconds per step.

    Examples
    --------
    >>> import spdgraph
    >>> times = spdgraph.warmup()
    >>> "po, small matrices" in times
    True
    """
    mark_noted()  # nothing left to announce
    out: dict[str, float] = {}
    for name, step in _steps(portable):
        start = time.perf_counter()
        step()
        out[name] = time.perf_counter() - start
        if verbose:
            print(f"  {name:<32}{out[name]:8.2f} s", file=sys.stderr)
    return out
