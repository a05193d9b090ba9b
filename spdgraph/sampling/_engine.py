"""The engine: generate, validate, normalize and control one block of matrices.

A block is the unit of work that an eager call, a chunk of a dask array or a
worker process computes: ``(n, p, p)`` matrices from one generator, matrix
``k`` from its own random stream (or its own explicit factor), made and checked
by :mod:`spdgraph.sampling._make`.

A drawn matrix can fail its certificate (a Cholesky factorization with its rounding
accounted, a positive normal diagonal, a scaled condition number at most 1e12) by chance
(a dense PO stack at p = 200 about once in a thousand matrices): with
``sample(uncertified="redraw")`` (the default) that matrix alone is drawn again from
:func:`spdgraph.seeds.redraw_stream` ``(root, k, r)``, the ``r``-th redraw under matrix
``k``'s own node of the stream tree, so matrix ``k`` still depends on its index only
(not on the stack size, the chunks or the scheduler). The law of the returned matrices
is then the generator's law conditioned on the certificate. ``"raise"`` keeps the error.
A generator error of the same nature (:class:`~spdgraph.errors.NumericalError`, e.g.
PO's residual) is redrawn too; a batch raising it is made again matrix by matrix to find
which.

Both the eager path (:mod:`spdgraph.sampling._core`) and the lazy path
(:mod:`spdgraph.sampling._lazy`) import this module; it imports neither of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from spdgraph._kernels.blas import one_blas_thread
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph.errors import NumericalError, UncertifiedMatrixError
from spdgraph.sampling._make import made_block
from spdgraph.seeds import redraw_stream
from spdgraph.spectrum import control_spectrum

if TYPE_CHECKING:
    from spdgraph.sampling._record import SampleRequest

__all__ = ["UNCERTIFIED_MODES", "UNCERTIFIED_RAISE_HINT", "Block", "generate_block"]


@dataclass(frozen=True)
class Block:
    """What :func:`generate_block` returns: ``(n, p, p)`` values, with a spectrum
    target the achieved extreme eigenvalues per matrix (else None), the number of
    redraws of each matrix (``sample(uncertified="redraw")``) and what proved each
    matrix positive definite in its returned form (``(2, n)``: the proven lower bound
    of its smallest eigenvalue and the proof's code,
    :data:`~spdgraph._kernels.proofs.PROOF_NAMES`)."""

    values: np.ndarray
    lmin: np.ndarray | None = None
    lmax: np.ndarray | None = None
    redraws: np.ndarray | None = None
    proven: np.ndarray | None = None


def generate_block(
    request: SampleRequest,
    *,
    rngs: Sequence[np.random.Generator] | None,
    factors: np.ndarray | None,
    first: int = 0,
) -> Block:
    """Generate, validate, (optionally) normalize and control an ``(n, p, p)`` block.

    ``request`` (:class:`~spdgraph.sampling._record.SampleRequest`) says what to
    make; ``rngs`` has one generator per matrix of this block (or ``factors`` one
    factor per matrix), the block's matrices being ``first, first + 1, ...`` of the
    call, so that the eager path (the whole stack) and the lazy path (one chunk)
    call the same function with the same request. A matrix that fails its
    certificate is redrawn from its own redraw stream
    (:func:`spdgraph.seeds.redraw_stream`) when ``request.uncertified`` is
    ``"redraw"``, at most ``request.max_redraws`` times . The
    spectrum targets are applied by :func:`spdgraph.spectrum.control_spectrum`
    after the normalization, and the achieved extreme eigenvalues come back in
    the :class:`Block` (computed once, however the block was made). A DAG-capable
    generator also gets ``dag=`` (the directed adjacency) and ``kind=``.

    Every generator, built-in or plugin, runs with BLAS held at one thread, and
    every matrix is proved positive definite in the form it is returned (after
    the normalization and any spectrum control): Cholesky succeeds with its
    rounding accounted (:func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`)
    and the scaled condition number is at most
    :data:`~spdgraph._kernels.numerics.MAX_SCALED_CONDITION`.
    """
    with one_blas_thread():  # the same bits whatever the user's BLAS thread settings
        block, redraws, proven = certified_block(request, rngs, factors, first)
        if request.min_eigenvalue is not None or request.condition_number is not None:
            # control_spectrum proves its own output positive definite; its bound
            # (a factorization, next to the control's eigendecompositions)
            block, lmin, lmax = control_spectrum(
                block,
                normalized=request.normalize,
                min_eigenvalue=request.min_eigenvalue,
                condition_number=request.condition_number,
            )
            return Block(block, lmin, lmax, redraws, _controlled_proof(request, block))
    return Block(block, redraws=redraws, proven=proven)


def _controlled_proof(request: SampleRequest, block: np.ndarray) -> np.ndarray:
    """What proves each spectrum-controlled matrix (the control's own check, again)."""
    proven = np.empty((2, block.shape[0]))
    found = find_violation(
        block, request.dense_graph.adjacency, condition_bound=MAX_SCALED_CONDITION, proven=proven
    )
    if found is not None:  # pragma: no cover - the control checked the same
        raise NumericalError(f"a spectrum-controlled {found.describe()}")
    return proven


#: The values of ``sample(uncertified=...)``.
UNCERTIFIED_MODES = ("redraw", "raise")

#: Appended to a certificate failure raised because of ``uncertified="raise"`` (both paths).
UNCERTIFIED_RAISE_HINT = (
    " (raised because uncertified='raise' was given; the alternative, "
    "sample(..., uncertified='redraw'), the default, draws such a matrix again from its own "
    "stream, up to max_redraws times, instead of raising)"
)


def certified_block(
    request: SampleRequest,
    rngs: Sequence[np.random.Generator] | None,
    factors: np.ndarray | None,
    first: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The block (before spectrum control), the number of redraws of each matrix and
    what proved each (:func:`~spdgraph.sampling._make.made_block`)."""
    n = len(factors) if factors is not None else len(rngs or ())
    if request.uncertified == "raise" or rngs is None:
        try:
            block, proven = made_block(request, rngs, factors)
            return block, np.zeros(n, dtype=np.int64), proven
        except (UncertifiedMatrixError, NumericalError) as exc:
            raise type(exc)(f"{exc}{UNCERTIFIED_RAISE_HINT if rngs is not None else ''}") from exc
    failures: dict[int, Exception] = {}
    try:
        block, proven = made_block(request, rngs, None, failures)
    except NumericalError as exc:
        if n == 1:
            block, failures = np.eye(request.dense_graph.adjacency.shape[0])[None].copy(), {0: exc}
            proven = np.full((2, 1), np.nan)
        else:  # which matrix? make the block again matrix by matrix, each from the start
            # of its own stream (a slice of MatrixStreams is fresh; a list's are as left)
            parts = [certified_block(request, rngs[k : k + 1], None, first + k) for k in range(n)]
            return (
                np.stack([b[0] for b, _, _ in parts]),
                np.concatenate([r for _, r, _ in parts]),
                np.concatenate([c for _, _, c in parts], axis=1),
            )
    redraws = np.zeros(n, dtype=np.int64)
    for k, error in sorted(failures.items()):
        block[k], redraws[k], proven[:, k] = _redraw(request, first + k, error)
    return block, redraws, proven


def _redraw(
    request: SampleRequest, k: int, error: Exception
) -> tuple[np.ndarray, int, np.ndarray]:
    """Matrix ``k`` from its redraw streams, the first that passes its certificate."""
    assert request.root is not None
    for r in range(1, request.max_redraws + 1):
        failures: dict[int, Exception] = {}
        try:
            block, proven = made_block(
                request, [redraw_stream(request.root, k, r)], None, failures
            )
        except NumericalError as exc:
            error = exc
            continue
        if not failures:
            return block[0], r, proven[:, 0]
        error = failures[0]
    # out of redraws: an UncertifiedMatrixError (as documented), whatever the last failure
    raise UncertifiedMatrixError(
        f"matrix {k} failed its certificate {request.max_redraws + 1} times (its draw and "
        f"max_redraws={request.max_redraws} redraws): this graph cannot be certified with "
        f"method {request.gen.name!r}. Last failure: {error} Use a sparser graph, other "
        "method options, or a larger max_redraws."
    ) from error
