"""Warmup steps of the validation kernels: glasso, node-wise lasso, data draws and marginals.

:func:`spdgraph.warmup` runs these after the generators' steps, so that after
``spdgraph warmup`` the first score of a new process loads its kernels from
the on-disk cache instead of compiling them (5 s for the first glasso score
before). Each step runs the public call on a tiny seeded input; the steps that
need scikit-learn are left out when it is missing (the learners cannot run then).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.util import find_spec

import numpy as np

__all__ = ["validation_warmup_steps"]


def _tiny() -> tuple[object, np.ndarray]:
    import networkx as nx

    import spdgraph
    from spdgraph.validation._data import draw_gaussian

    prec = spdgraph.sample(nx.cycle_graph(6), "po", seed=1, kind="precision")
    return prec, draw_gaussian(prec.values, 40, seed=2)


def _glasso() -> None:
    from spdgraph.validation._glasso import graphical_lasso, graphical_lasso_path
    from spdgraph.validation._glasso_select import CRITERIA, select_glasso
    from spdgraph.validation._shrink import standardize

    _, x = _tiny()
    xs = standardize(x)
    s = np.cov(xs, rowvar=False)
    graphical_lasso(s, 0.1)
    graphical_lasso(s, 0.1, penalize_diagonal=False)
    graphical_lasso_path(s, [0.3, 0.1])
    for criterion in CRITERIA:
        select_glasso(xs, criterion=criterion, seed=0, nlambda=4, stars_rep=2)


def _learners() -> None:
    from spdgraph.validation._curves import learner_path
    from spdgraph.validation._learners import BUILTIN_LEARNERS, fit_learners

    _, x = _tiny()
    fit_learners(x, [n for n in BUILTIN_LEARNERS if n != "glasso"], seed=0)
    learner_path(x, method="lasso")
    learner_path(x, method="glasso")


def _draws() -> None:
    import spdgraph

    prec, _ = _tiny()
    prec.spd.draw(4, seed=1)  # type: ignore[attr-defined]
    prec.spd.draw(4, seed=1, marginals="binary", missing=0.2)  # type: ignore[attr-defined]
    spdgraph.diagnostics(prec)  # type: ignore[arg-type]


def validation_warmup_steps() -> list[tuple[str, Callable[[], object]]]:
    """The ``(name, step)`` pairs :func:`spdgraph.warmup` runs for the validation kernels."""
    steps: list[tuple[str, Callable[[], object]]] = [
        ("data draws, marginals, diagnostics", _draws),
        ("graphical lasso (cv, ebic, stars)", _glasso),
    ]
    if find_spec("sklearn") is not None:
        steps.append(("node-wise learners and paths", _learners))
    return steps
