"""``spdgraph.warmup()``: compile every kernel ahead (see :mod:`spdgraph.sampling._compile`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from spdgraph.sampling._compile import _NOTED
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
    import networkx as nx

    def erdos_renyi(p: int, d: float, seed: int) -> nx.Graph:
        return nx.gnp_random_graph(p, d, seed=seed)

    dag = nx.DiGraph([(0, 1), (1, 2), (0, 3)])
    steps: list[tuple[str, Callable[[], object]]] = [
        # seeded: a warmup must not depend on chance (a dense PO matrix is refused as
        # numerically singular about once in several hundred draws)
        ("po, small matrices", lambda: sample(erdos_renyi(30, 0.2, seed=1), size=2, seed=1)),
        ("po, sparse (blocked kernel)", lambda: sample(erdos_renyi(300, 0.01, seed=1), seed=1)),
        ("po, medium (inverse-Gram)", lambda: sample(erdos_renyi(300, 0.1, seed=1), seed=1)),
        ("po, dense (row kernel)", lambda: sample(erdos_renyi(300, 0.7, seed=1), seed=1)),
        ("uniform", lambda: sample(nx.path_graph(6), "uniform", seed=1)),
        ("port_chol", lambda: sample(nx.cycle_graph(6), "port_chol", seed=1)),
        (
            "dd, huge, dag",
            lambda: [
                sample(dag, "dag", seed=1),
                sample(nx.path_graph(4), "dd", seed=1),
                sample(nx.path_graph(4), "huge", kind="precision", seed=1),
            ],
        ),
    ]
    steps.extend(_provided_steps())  # glasso, lasso, draws and marginals
    if portable:
        steps.append(
            (
                "portable kernels",
                lambda: [
                    sample(nx.cycle_graph(8), method, seed=1, portable=True, kind=kind)
                    for method, kind in (
                        ("po", "covariance"),
                        ("dd", "covariance"),
                        ("huge", "precision"),
                    )
                ],
            )
        )
    return steps


def warmup(*, portable: bool = False, verbose: bool = False) -> dict[str, float]:
    """Compile every built-in kernel now (on tiny problems) and cache it on disk.

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
    _NOTED["done"] = True  # nothing left to announce
    out: dict[str, float] = {}
    for name, step in _steps(portable):
        start = time.perf_counter()
        step()
        out[name] = time.perf_counter() - start
        if verbose:
            print(f"  {name:<32}{out[name]:8.2f} s", file=sys.stderr)
    return out
