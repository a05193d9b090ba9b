"""Built-in generator plugin: partial orthogonalization (``method="po"``).

The work (draws, kernels, checks, threads) is :mod:`spdgraph._kernels.po.batch`,
next to the compiled kernels (imported on first use, so that ``import spdgraph``
does not import Numba).
:mod:`spdgraph._kernels.po.householder` is the readable NumPy version of the same
algorithm, kept for the tests and the benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph._kernels.po.batch import DEFAULT_RESIDUAL_TOLERANCE, po_batch
from spdgraph.plugins._builtin._po_options import RESIDUAL_TOLERANCE_OPTION
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import (
    EntrySampler,
    GeneratorSpec,
    WarmupStep,
    standard_normal_entries,
)


def generate_po(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler | None,
    factor: np.ndarray | None = None,
    **options: Any,
) -> np.ndarray:
    """One PO matrix: ``Q Q^T`` after partial orthogonalization of the rows of Q.

    ``Q`` is ``factor`` when given, else a ``(p, p)`` draw of ``entries``.
    Non-edge entries of the product are checked to be at rounding level
    (relative to the diagonal) and then set to exactly 0. ``options``
    (``residual_tolerance``, ``portable``): see :func:`generate_po_batch`.
    """
    factors = None if factor is None else np.asarray(factor, dtype=np.float64)[None]
    rngs = None if rng is None else [rng]
    return generate_po_batch(adjacency, rngs=rngs, entries=entries, factors=factors, **options)[0]


def generate_po_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator] | None,
    entries: EntrySampler | None,
    factors: np.ndarray | None = None,
    residual_tolerance: float = DEFAULT_RESIDUAL_TOLERANCE,
    portable: bool = False,
    condition_bounds: np.ndarray | None = None,
) -> np.ndarray:
    """A stack of PO matrices, matrix ``k`` from ``rngs[k]`` (or ``factors[k]``).

    The work is :func:`spdgraph._kernels.po.batch.po_batch` (see there which
    kernel each matrix takes); with the default normal entries the factor's
    coordinates ``L0`` are drawn directly (Bartlett). Each matrix goes through
    exactly the same code whatever the batch size or the number of threads,
    so matrix ``k`` is bit-for-bit the same. ``condition_bounds`` receives each
    matrix's proven condition bound (``GeneratorSpec.proves_pd``), computed
    from the triangular factor it multiplied, where the kernel derives one.
    """
    return po_batch(
        adjacency,
        rngs=rngs,
        entries=entries,
        factors=factors,
        residual_tolerance=residual_tolerance,
        portable=portable,
        normal=entries is standard_normal_entries,
        condition_bounds=condition_bounds,
    )


def po_kernels_cached() -> bool | None:
    """Whether the PO row kernel is in Numba's on-disk cache (None when unknown)."""
    from spdgraph._kernels.cache import on_disk
    from spdgraph._kernels.po import dense as po_dense
    from spdgraph._kernels.po import fast as po_fast
    from spdgraph._kernels.po import group as po_group

    # small stacks on sparse graphs run the group kernel, the rest the row kernel,
    # large dense graphs the dense kernel
    found = [
        on_disk(po_fast.process_rows),
        on_disk(po_group.process_group),
        on_disk(po_dense._finish_rows),
    ]
    if any(found):
        return True
    return None if all(f is None for f in found) else False


def _gnp(p: int, d: float) -> np.ndarray:
    """A seeded Erdos-Renyi adjacency for the warmup steps."""
    upper = np.triu(np.random.default_rng(1).random((p, p)) < d, 1)
    return upper | upper.T


#: seeded: a warmup must not depend on chance (a dense PO matrix is refused as
#: numerically singular about once in several hundred draws)
PO_WARMUP = (
    WarmupStep("po, small matrices", lambda sample: sample(_gnp(30, 0.2), size=2, seed=1)),
    WarmupStep("po, sparse (blocked kernel)", lambda sample: sample(_gnp(300, 0.01), seed=1)),
    WarmupStep("po, medium (inverse-Gram)", lambda sample: sample(_gnp(300, 0.1), seed=1)),
    WarmupStep("po, dense (two cores)", lambda sample: sample(_gnp(300, 0.55), seed=1)),
    WarmupStep("po, very dense (row kernel)", lambda sample: sample(_gnp(300, 0.7), seed=1)),
    WarmupStep(
        "po, portable kernels",
        lambda sample: sample(_gnp(8, 0.4), seed=1, portable=True),
        portable=True,
    ),
)


#: The ``po`` generator's record.
PO = GeneratorSpec(
    name="po",
    function=generate_po,
    description=(
        "partial orthogonalization (Córdoba et al. 2018): strong links at any size and density"
    ),
    options={"residual_tolerance": RESIDUAL_TOLERANCE_OPTION},
    accepts_factor=True,
    batch_function=generate_po_batch,
    # a proven condition bound per matrix, from the factor the kernel multiplied
    # (docs/errors.md, "Certificate by construction"): no second Cholesky
    proves_pd=True,
    # the factors (or L0) are drawn into the outputs; the kernels' temporaries; no
    # check copy (proven by construction) (fitted to the peak resident memory
    # measured in a fresh process, p = 2000 to 4000, 1 and 4 matrices:
    # benchmarks/bench_memory_guard.py)
    work_per_matrix=0.35,
    work_per_call=0.2,
    portable=True,
    compiles=True,
    kernels_cached=po_kernels_cached,
    warmup=PO_WARMUP,
)


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``po``."""
    return [PO]
