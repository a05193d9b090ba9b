"""The engine: generate, validate, normalize and control one block of matrices.

A block is the unit of work that an eager call, a chunk of a dask array or a
worker process computes: ``(n, p, p)`` matrices from one generator, matrix
``k`` from its own random stream (or its own explicit factor). Whoever wrote
the generator, the engine checks every matrix it returns (shape, dtype,
finiteness, exact symmetry, exact zeros, positive definiteness) and names the
plugin when a check fails.

Both the eager path (:mod:`spdgraph.core`) and the lazy path
(:mod:`spdgraph._dask`) import this module; it imports neither of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from spdgraph._blas import one_blas_thread
from spdgraph._numerics import find_violation, unit_diagonal
from spdgraph._plain import plain
from spdgraph._types import EntrySampler, Generator, GraphData
from spdgraph.errors import GeneratorOutputError
from spdgraph.spectrum import control_spectrum

__all__ = ["generate_block", "normalize_to_unit_diagonal", "validate_matrix"]

#: Kept under its historical name: the core's normalization is the numerics layer's.
normalize_to_unit_diagonal = unit_diagonal


def validate_matrix(
    m: object, adjacency: np.ndarray, k: int, gen: Generator, plugin: str
) -> np.ndarray:
    """Check matrix ``k`` a generator returned; raise GeneratorOutputError naming the plugin."""
    who = f"generator {gen.name!r} (plugin {plugin!r})"
    p = adjacency.shape[0]
    if not isinstance(m, np.ndarray):
        raise GeneratorOutputError(f"{who} returned {type(m).__name__}, not a numpy array.")
    if m.shape != (p, p):
        raise GeneratorOutputError(
            f"{who} returned shape {m.shape} for matrix {k}, expected ({p}, {p})."
        )
    if m.dtype != np.float64:
        raise GeneratorOutputError(f"{who} returned dtype {m.dtype}, expected float64.")
    violation = find_violation(m, adjacency)
    if violation is None:
        return m
    i, j = violation.i, violation.j
    if violation.problem == "nonfinite":
        raise GeneratorOutputError(f"{who} returned non-finite values in matrix {k}.")
    if violation.problem == "asymmetric":
        raise GeneratorOutputError(
            f"{who} returned matrix {k} that is not exactly symmetric "
            f"([{i}, {j}] = {plain(violation.value)} but [{j}, {i}] = {plain(violation.other)}); "
            "symmetrize with (M + M.T) / 2."
        )
    if violation.problem == "nonzero":
        raise GeneratorOutputError(
            f"{who} returned matrix {k} with a non-zero entry {plain(violation.value)} at "
            f"[{i}, {j}], which is not an edge of the graph; non-edges must be exactly 0."
        )
    raise GeneratorOutputError(
        f"{who} returned matrix {k} that is not positive definite (Cholesky failed)."
    )


def _call_batch(
    graph: GraphData,
    gen: Generator,
    plugin: str,
    n: int,
    factor_kw: dict[str, Any],
    **kwargs: Any,
) -> np.ndarray:
    adjacency = graph.adjacency
    p = adjacency.shape[0]
    assert gen.batch_function is not None
    out = gen.batch_function(adjacency.copy(), **factor_kw, **kwargs)
    if not isinstance(out, np.ndarray) or out.shape != (n, p, p):
        raise GeneratorOutputError(
            f"generator {gen.name!r} (plugin {plugin!r}) batch function returned "
            f"{getattr(out, 'shape', type(out).__name__)}, expected ({n}, {p}, {p})."
        )
    with one_blas_thread():
        # checked a few matrices at a time (one call per group: small matrices are
        # dominated by per-call overhead); a failing group is re-checked matrix by
        # matrix for the message naming the first bad one
        step = max(1, (1 << 18) // max(p * p, 1))  # ~2 MB: the check passes stay in cache
        for k0 in range(0, n, step):
            group = out[k0 : k0 + step]
            if group.dtype == np.float64 and find_violation(group, adjacency) is None:
                continue
            for k in range(k0, min(n, k0 + step)):
                validate_matrix(out[k], adjacency, k, gen, plugin)
    return out


def generate_block(
    graph: GraphData,
    gen: Generator,
    plugin: str,
    *,
    rngs: Sequence[np.random.Generator] | None,
    factors: np.ndarray | None,
    entries: EntrySampler,
    options: Mapping[str, Any],
    normalize: bool,
    min_eigenvalue: float | None = None,
    condition_number: float | None = None,
    return_spectrum: bool = False,
    kind: str = "covariance",
) -> Any:
    """Generate, validate, (optionally) normalize and control an ``(n, p, p)`` block.

    ``rngs`` has one generator per matrix (or ``factors`` one factor per
    matrix). ``min_eigenvalue`` and ``condition_number`` (checked with
    :func:`spdgraph.spectrum.check_targets`) are applied by
    :func:`spdgraph.spectrum.control_spectrum` after the normalization.
    Returns the block, or ``(block, lmin, lmax)`` with the achieved extreme
    eigenvalues per matrix when ``return_spectrum`` (computed once, however
    the block was made). A DAG-capable generator also gets ``dag=`` (the
    directed adjacency) and ``kind=``.
    """
    adjacency = graph.adjacency
    if gen.accepts_dag:
        options = {**options, "dag": graph.directed, "kind": kind}
    p = adjacency.shape[0]
    n = len(factors) if factors is not None else len(rngs or ())
    if gen.batch_function is not None:
        factor_kw = {"factors": factors} if gen.accepts_factor else {}
        block = _call_batch(
            graph, gen, plugin, n, factor_kw, rngs=rngs, entries=entries, **options
        )
    else:
        block = np.empty((n, p, p), dtype=np.float64)
        for k in range(n):
            kw: dict[str, Any] = {}
            if gen.accepts_factor:
                kw["factor"] = None if factors is None else factors[k].copy()
            rng = None if rngs is None else rngs[k]
            m = gen.function(adjacency.copy(), rng=rng, entries=entries, **kw, **options)
            with one_blas_thread():
                block[k] = validate_matrix(m, adjacency, k, gen, plugin)
    if normalize and n:
        block = unit_diagonal(block, out=block)  # the engine owns the block
    if return_spectrum or min_eigenvalue is not None or condition_number is not None:
        # the core's own LAPACK work runs on one BLAS thread: the same bits whatever
        # the thread settings, and no oversubscription when batches run in threads
        with one_blas_thread():
            block, lmin, lmax = control_spectrum(
                block,
                normalized=normalize,
                min_eigenvalue=min_eigenvalue,
                condition_number=condition_number,
            )
        if return_spectrum:
            return block, lmin, lmax
    return block
