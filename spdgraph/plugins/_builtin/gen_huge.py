"""Built-in generator plugin: R huge's rule (``method="huge"``), deterministic given the graph.

``huge.generator`` (R package huge) makes its precision matrix from the
adjacency A of its graph as ``Omega = v * A`` with the diagonal set to
``|lambda_min(v * A)| + 0.1 + u``; its covariance is the correlation matrix
of ``Omega^-1`` and the precision it returns is the inverse of that
correlation matrix. Given the graph nothing is random, so every matrix of a
stack is the same and ``seed``, ``entries`` and ``negative_share`` change
nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph._kernels.blas import one_blas_thread
from spdgraph._kernels.sparse_eigen import smallest_adjacency_eigenvalue
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.options import OptionSpec
from spdgraph.plugins.types import EntrySampler, GeneratorSpec, WarmupStep

#: huge.generator's defaults (its arguments ``v`` and ``u``) and its fixed margin.
DEFAULT_V = 0.3
DEFAULT_U = 0.1
MARGIN = 0.1


def _nonzero(value: float) -> str | None:
    return "v = 0 would put no weight on the edges; pass a non-zero number" if value == 0 else None


def huge_precision(
    adjacency: np.ndarray, v: float, u: float, unit_variance: bool, portable: bool = False
) -> np.ndarray:
    """huge.generator's precision matrix for the boolean adjacency.

    ``unit_variance=False``: ``Omega = v A + (|lambda_min(v A)| + 0.1 + u) I``
    (exact zeros, a constant diagonal). ``unit_variance=True``: huge's
    returned ``omega``, the inverse of ``cov2cor(Omega^-1)``, computed as
    ``D Omega D`` with ``D = diag(Omega^-1)^(1/2)`` (equal in exact
    arithmetic; this form keeps the zeros exact), whose inverse has unit
    diagonal. ``portable``: the eigenvalue, the Cholesky factor and the inverse's
    diagonal from :mod:`spdgraph._kernels.portable` (the same bits on every CPU).
    """
    p = adjacency.shape[0]
    omega = np.where(adjacency, float(v), 0.0)
    if portable:
        return _huge_portable(omega, u, unit_variance)
    with one_blas_thread():  # the same bits whatever the BLAS threads
        lmin = float(np.linalg.eigvalsh(omega)[0]) if p else 0.0
        np.fill_diagonal(omega, abs(lmin) + MARGIN + float(u))
        if unit_variance and p:
            factor = np.linalg.cholesky(omega)
            inverse_factor = np.linalg.solve(factor, np.eye(p))  # L^-1: Omega^-1 = L^-T L^-1
            d = np.sqrt(np.einsum("ij,ij->j", inverse_factor, inverse_factor))
            omega = omega * np.outer(d, d)  # d_i d_j == d_j d_i: exactly symmetric
    return omega


def _huge_portable(omega: np.ndarray, u: float, unit_variance: bool) -> np.ndarray:
    from spdgraph._kernels import portable  # imports numba: lazy

    lmin = portable.smallest_eigenvalue(omega)
    np.fill_diagonal(omega, abs(lmin) + MARGIN + float(u))
    if unit_variance and omega.shape[0]:
        d = portable.inverse_diagonal_sqrt(omega)
        assert d is not None  # diagonally shifted past |lambda_min|: positive definite
        omega = omega * (d[:, None] * d[None, :])
    return omega


def generate_huge(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler,
    v: float = DEFAULT_V,
    u: float = DEFAULT_U,
    unit_variance: bool = True,
    portable: bool = False,
) -> np.ndarray:
    """One matrix by huge.generator's rule (``rng`` and ``entries`` are not used).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> m = generate_huge(a, rng=None, entries=None, unit_variance=False)
    >>> np.round(m, 4).tolist()  # lambda_min(0.3 A) = -0.3 sqrt(2)
    [[0.6243, 0.3, 0.0], [0.3, 0.6243, 0.3], [0.0, 0.3, 0.6243]]
    >>> bool(np.allclose(np.diag(np.linalg.inv(generate_huge(a, rng=None, entries=None))), 1))
    True
    """
    return huge_precision(adjacency, v, u, unit_variance, portable)


def generate_huge_batch(
    adjacency: np.ndarray,
    *,
    rngs: list[np.random.Generator],
    entries: EntrySampler,
    **options: Any,
) -> np.ndarray:
    """A stack of ``len(rngs)`` copies of the one huge matrix (computed once)."""
    one = huge_precision(adjacency, **options)
    return np.repeat(one[np.newaxis], len(rngs), axis=0)


def generate_huge_sparse(
    adjacency: Any,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler,
    kind: str = "precision",
    v: float = DEFAULT_V,
    u: float = DEFAULT_U,
    unit_variance: bool = True,
    portable: bool = False,
) -> Any:
    """huge's ``Omega = v A + (|lambda_min(v A)| + 0.1 + u) I`` as a scipy.sparse CSR array.

    Only ``unit_variance=False``: the rescaling of ``unit_variance=True`` needs the
    diagonal of ``Omega^-1``, which a sparse construction does not have (refused).
    ``lambda_min`` from :func:`smallest_adjacency_eigenvalue`; returns the matrix and
    the notes the core records (``attrs["lambda_min"]``, how it was computed,
    ``attrs["lambda_min_method"]``, and its proven lower bound where there is one,
    ``attrs["lambda_min_lower_bound"]``).
    """
    import scipy.sparse

    from spdgraph.errors import InvalidOptionError

    if unit_variance:
        raise InvalidOptionError(
            "huge with sparse=True needs unit_variance=False: huge's unit_variance=True "
            "rescales by the diagonal of Omega^-1, a dense inverse. Pass "
            "unit_variance=False (with normalize=True, the default, the result still has "
            "a unit diagonal: Omega's diagonal is constant)."
        )
    if portable:
        raise InvalidOptionError(
            "huge with sparse=True takes its eigenvalue from LAPACK, CHOLMOD and Lanczos, "
            "whose bits depend on the CPU: pass portable=False."
        )
    from spdgraph._kernels.sparse import with_diagonal  # numba: lazy

    p = adjacency.shape[0]
    adjacency = scipy.sparse.csr_array(adjacency)
    adjacency.sum_duplicates()  # canonical: sorted, one entry per position
    # v A: the value v (v * 1, exactly) on the adjacency's own index arrays (no copy)
    values = np.full(adjacency.nnz, float(v))
    omega = scipy.sparse.csr_array((values, adjacency.indices, adjacency.indptr), shape=(p, p))
    found = smallest_adjacency_eigenvalue(omega, budget_bytes=_factor_budget())
    del omega, values
    shift = abs(found.value) + MARGIN + float(u)
    # v A + shift I, written once (the entries of omega + shift I: v + 0 and 0 + shift
    # are exact); the columns in the second row of a (2, stored) block (see dd)
    stored = adjacency.nnz + p
    index_type = np.int32 if max(p, stored) < 2**31 else np.int64
    indptr = np.empty(p + 1, dtype=index_type)
    indices = np.empty((2, stored), dtype=index_type)[1]
    data = np.empty(stored, dtype=np.float64)
    with_diagonal(adjacency.indptr, adjacency.indices, float(v), shift, indptr, indices, data)
    out = scipy.sparse.csr_array((data, indices, indptr), shape=(p, p), copy=False)
    out.has_sorted_indices = True
    return out, found.notes()


def _factor_budget() -> int | None:
    """Bytes for the shift-invert factor: half of what is available (None: no limit known)."""
    from spdgraph._machine import available_memory

    available = available_memory()
    return None if available is None else available // 2


#: The warmup steps' graph: a path on 4 nodes.
_PATH_4 = np.eye(4, k=1, dtype=bool) | np.eye(4, k=-1, dtype=bool)


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``huge``."""
    return [
        GeneratorSpec(
            name="huge",
            function=generate_huge,
            batch_function=generate_huge_batch,
            description=(
                "R huge.generator's precision (v A + (|lambda_min| + 0.1 + u) I): "
                "deterministic given the graph; use kind='precision'"
            ),
            options={
                "v": OptionSpec(
                    DEFAULT_V, float, check=_nonzero, doc="value on the edges (huge v)"
                ),
                "u": OptionSpec(DEFAULT_U, float, low=0.0, doc="added to the diagonal (huge u)"),
                "unit_variance": OptionSpec(
                    True,
                    bool,
                    doc="rescale so the inverse has unit diagonal (huge's returned omega)",
                ),
            },
            # the matrix, its Cholesky factor, the inverse factor and the product,
            # freed before the one matrix is copied into the stack (work_apart: the
            # larger of the two counts); per matrix the copy and its check (fitted to
            # the peak resident memory measured in a fresh process, p = 2000 to 3000,
            # 1, 4 and 8 matrices: benchmarks/bench_memory_guard.py)
            work_per_call=6.6,
            work_per_matrix=0.35,
            work_apart=True,
            portable=True,
            sparse_function=generate_huge_sparse,
            intended_kind="precision",
            seconds=lambda p, edges: 0.05 * (p / 1000.0) ** 3,
            warmup=(
                WarmupStep(
                    "huge", lambda sample: sample(_PATH_4, "huge", kind="precision", seed=1)
                ),
                WarmupStep(
                    "huge, portable kernels",
                    lambda sample: sample(
                        _PATH_4, "huge", kind="precision", seed=1, portable=True
                    ),
                    portable=True,
                ),
            ),
        )
    ]
