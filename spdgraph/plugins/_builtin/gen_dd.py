"""Built-in generator plugin: diagonal dominance (``method="dd"``)."""

from __future__ import annotations

from typing import Any

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


def generate_dd_sparse(
    adjacency: Any,
    *,
    rng: np.random.Generator,
    entries: EntrySampler,
    kind: str = "covariance",
    portable: bool = False,
) -> Any:
    """:func:`generate_dd`'s matrix as a scipy.sparse CSR array, with no dense intermediate.

    The same draws in the same order (the edges in row-major order of the upper
    triangle, then the perturbations); the row sums left to right over the stored
    entries, which are the portable dense loop's operations (its ``+ 0.0`` for a
    zero changes no sum): the same bits as ``portable=True``'s dense matrix, and
    the default dense matrix's values to rounding. ``kind`` changes nothing: the
    rule gives a matrix with the graph's zeros, named covariance or precision.

    Examples
    --------
    >>> import numpy as np, scipy.sparse
    >>> from spdgraph.plugins.types import standard_normal_entries as normal
    >>> a = np.eye(4, k=1, dtype=bool) | np.eye(4, k=-1, dtype=bool)
    >>> m = generate_dd_sparse(scipy.sparse.csr_array(a), rng=np.random.default_rng(1),
    ...                        entries=normal)
    >>> dense = generate_dd(a, rng=np.random.default_rng(1), entries=normal, portable=True)
    >>> bool(np.array_equal(m.toarray(), dense))
    True
    """
    import scipy.sparse

    from spdgraph._kernels.sparse import dominance_csr  # numba: lazy

    p = adjacency.shape[0]
    adjacency = scipy.sparse.csr_array(adjacency)
    adjacency.sort_indices()
    edge_values = np.asarray(entries(rng, (adjacency.nnz // 2,)), dtype=np.float64)
    perturbation = np.asarray(entries(rng, (p,)), dtype=np.float64)
    stored = adjacency.nnz + p  # the edges both ways and the diagonal
    index_type = np.int32 if max(p, stored) < 2**31 else np.int64
    indptr = np.empty(p + 1, dtype=index_type)
    # the column indices are the second row of a (2, stored) block whose first row
    # the PyData COO conversion fills with the row indices: no copy of the indices
    indices = np.empty((2, stored), dtype=index_type)[1]
    data = np.empty(stored, dtype=np.float64)
    dominance_csr(
        adjacency.indptr, adjacency.indices, edge_values, perturbation, indptr, indices, data
    )
    del edge_values
    out = scipy.sparse.csr_array((data, indices, indptr), shape=(p, p), copy=False)
    out.has_sorted_indices = True  # the kernel writes each row in column order
    return out


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
            # the matrix being filled, its copies; per matrix of a batch, its random
            # stream and the batch's share of the checks; no check copy (proven by
            # dominance) (fitted to the peak resident memory measured in a fresh
            # process, p = 2000 to 4000, 1 and 4 matrices: benchmarks/bench_memory_guard.py)
            work_per_call=0.55,
            work_per_matrix=0.3,
            portable=True,
            sparse_function=generate_dd_sparse,
            # its own work on the sparse path, beyond the core's 32 bytes: the edge
            # values (8 per edge) and the coordinate row allocated with the indices
            # (tests/sampling/test_sparse_memory.py, benchmarks/bench_large.py)
            sparse_work_per_entry=8.0,
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
