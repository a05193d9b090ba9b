"""Built-in generator plugin: diagonal dominance (``method="dd"``)."""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.dd import diagonal_dominance
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import EntrySampler, GeneratorSpec, WarmupStep


def generate_dd(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator,
    entries: EntrySampler,
    portable: bool = False,
) -> np.ndarray:
    """One DD matrix, gmat's ``diagdom`` rule.

    Draws one entry per edge (upper triangle, row-major order), placed
    symmetrically, then ``p`` perturbations ``eps_i``; the diagonal is
    ``m_ii = sum_{j != i} |m_ij| + 2 |eps_i|``. ``portable``: the row sums in a
    fixed order (the same bits on every CPU).
    """
    p = adjacency.shape[0]
    n_edges = int(np.count_nonzero(np.triu(adjacency, 1)))
    edge_values = entries(rng, (n_edges,))
    perturbation = entries(rng, (p,))
    return diagonal_dominance(adjacency, edge_values, perturbation, portable=portable)


#: The warmup steps' graph: a path on 4 nodes.
_PATH_4 = np.eye(4, k=1, dtype=bool) | np.eye(4, k=-1, dtype=bool)


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``dd``."""
    return [
        GeneratorSpec(
            name="dd",
            function=generate_dd,
            description=("diagonal dominance (gmat diagdom): fast, but links weaken like 1/(p d)"),
            options={},  # dd takes no option: any name passed is refused before work
            # the matrix being filled, its copies (fitted to the measured peak:
            # benchmarks/bench_memory_guard.py); per matrix of a batch, its random
            # stream and the batch's share of the checks (~0.7 KB + 3% of a matrix at
            # p = 150: without it a size just below the guard failed to allocate)
            work_per_call=1.6,
            work_per_matrix=0.1,
            portable=True,
            seconds=lambda p, edges: 0.01 * (p / 1000.0) ** 3,
            warmup=(
                WarmupStep("dd", lambda sample: sample(_PATH_4, "dd", seed=1)),
                WarmupStep(
                    "dd, portable kernels",
                    lambda sample: sample(_PATH_4, "dd", seed=1, portable=True),
                    portable=True,
                ),
            ),
        )
    ]
