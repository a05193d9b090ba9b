"""PO batches: draws, the kernel each matrix takes, checks and threads (arrays in, arrays out).

The orchestration of ``method="po"`` (and of ``port_chol``'s PO step), next to
its kernels: the plugin module :mod:`spdgraph.plugins._builtin.gen_po` only
declares the method and calls :func:`po_batch`. Which kernel runs:

* ``portable``: :func:`portable_matrix` for every matrix (no BLAS/LAPACK);
* ``p < MIN_P`` (256): :func:`small_batch`, groups of :func:`group_size` matrices
  in one compiled call each (:mod:`~spdgraph._kernels.po.small`);
* otherwise one matrix at a time on a pool of threads,
  :func:`~spdgraph._kernels.po.fast.po_matrix_into` picking the kernel.

Nothing here imports Numba at import time (the kernels are imported on first
use), so the plugin module stays light.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, NumericalError

#: Default largest accepted relative residual ``|m_ij|/sqrt(m_ii m_jj)`` on non-edges.
DEFAULT_RESIDUAL_TOLERANCE = 1e-8
#: The ``residual_tolerance`` option's one-line doc (``po`` and ``port_chol``).
RESIDUAL_TOLERANCE_DOC = "largest relative residual accepted on a non-edge"

#: ``draw(rng, shape)``: the entries of a factor (an ``EntrySampler``).
Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


@dataclass(frozen=True)
class Batch:
    """One call's work for :func:`small_batch` and :func:`portable_batch`: matrix ``k``
    of ``out`` from ``rngs[k]`` (or ``factors[k]``), on ``workers`` threads; with
    ``bartlett`` the streams draw the coordinates ``L0`` directly; ``bounds[k]``
    (when given) receives matrix ``k``'s proven condition bound (infinity when
    none: :func:`po_batch`)."""

    adjacency: np.ndarray
    rngs: Sequence[np.random.Generator] | None
    entries: Draw
    factors: np.ndarray | None
    out: np.ndarray
    workers: int
    tolerance: float
    bartlett: bool = False
    bounds: np.ndarray | None = None

    def unpacked(self) -> tuple[Any, ...]:
        """The fields in order (to unpack into locals)."""
        return tuple(getattr(self, f.name) for f in fields(self))


def po_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator] | None,
    entries: Draw | None,
    factors: np.ndarray | None = None,
    residual_tolerance: float = DEFAULT_RESIDUAL_TOLERANCE,
    portable: bool = False,
    normal: bool = False,
    condition_bounds: np.ndarray | None = None,
) -> np.ndarray:
    """A stack of PO matrices, matrix ``k`` from ``rngs[k]`` (or ``factors[k]``).

    ``entries(rng, shape)`` draws a factor's entries; ``normal`` says that they
    are i.i.d. standard normals, whose factor is used only through its
    coordinates ``L0`` of known law (Bartlett, :mod:`~spdgraph._kernels.po.bartlett`):
    then ``L0`` is drawn directly, no factor and no QR.

    For ``p < MIN_P`` (256) see :func:`small_batch`: groups of matrices in
    one compiled call each. Otherwise the factors are drawn first, in order,
    one per generator; then the
    matrices (QR, kernel, product, check) are computed in parallel by a pool
    of threads (the compiled kernel releases the GIL), as many as
    :func:`numba.get_num_threads`. BLAS is limited to one thread
    during the call (see :func:`spdgraph._kernels.po.fast.one_blas_thread`).
    Each matrix goes through exactly the same code whatever the batch size
    or the number of threads, so matrix ``k`` is bit-for-bit the same.
    With ``portable`` every matrix takes :func:`portable_matrix` (the same
    bits on every CPU).

    ``condition_bounds`` (an ``(n,)`` float64 array, when given) receives for
    each matrix a proven upper bound of its scaled 1-norm condition number,
    derived from the triangular factor the kernel multiplied
    (:func:`spdgraph._kernels.certify.construction_bound`): a finite bound
    proves the matrix positive definite, so the core need not factor it
    again. Infinity where the kernel proves nothing (the portable, dense and
    row-by-row kernels, and matrices recomputed by the fallback).
    """
    from spdgraph._kernels.po import bartlett as _po_bartlett
    from spdgraph._kernels.po import blocked as _po_blocked
    from spdgraph._kernels.po import fast as po_fast  # imports numba: keep it lazy
    from spdgraph._kernels.po import residual as _po_residual

    adjacency = np.ascontiguousarray(adjacency, dtype=np.bool_)
    p = adjacency.shape[0]
    if factors is None and rngs is None:
        raise InvalidOptionError(
            "po needs a random generator (rng or rngs) when no factor is given."
        )
    n = len(rngs or ()) if factors is None else factors.shape[0]
    out = np.empty((n, p, p), dtype=np.float64)
    workers = min(n, worker_count())
    # a Gaussian factor is used only through its triangular coordinates L0, whose
    # law is known (Bartlett): draw L0 itself, no factor and no QR (bartlett.py)
    bartlett = factors is None and normal
    entries = entries if entries is not None else _no_entries
    if condition_bounds is not None:
        condition_bounds[...] = np.inf
    job = Batch(adjacency, rngs, entries, factors, out, workers, residual_tolerance, bartlett,
                condition_bounds)  # fmt: skip
    if portable:
        portable_batch(job)
        return out
    if p < _po_blocked.MIN_P:
        small_batch(job)
        return out
    # one matrix: its blocked kernel may use two threads (the bits do not depend on it)
    inner = min(2, worker_count()) if n == 1 else 1
    # each factor (or L0) goes into its output matrix, where the kernels compute
    # the coordinates L0 in place (no second p x p array per matrix); a generator's
    # state is kept (a few hundred bytes) so that the rare recomputation by the
    # Householder fallback can draw the same factor again
    saved: list[np.random.Generator] = []
    # streams made in bulk: the Bartlett draws without a Generator (the same bits)
    bulk = getattr(rngs, "pcg64_states", None) if bartlett else None
    states = bulk() if bulk is not None else None
    if factors is None:
        saved = [copy.deepcopy(rng) for rng in rngs or ()]
        for k, rng in enumerate(rngs or ()) if not bartlett else ():
            out[k] = entries(rng, (p, p))
    else:
        out[...] = factors

    def factor_again(k: int) -> Callable[[], np.ndarray]:
        if factors is not None:
            return lambda: np.asarray(factors[k], dtype=np.float64)
        if bartlett:
            return lambda: draw_coordinates(copy.deepcopy(saved[k]), np.empty((p, p)))
        return lambda: np.asarray(entries(copy.deepcopy(saved[k]), (p, p)), dtype=np.float64)

    def one(k: int) -> None:
        if states is not None:  # on the worker: matrix k's own stream, the same bits on any thread
            _po_bartlett.draw_state_coordinates(states[k], out[k])
        elif bartlett:
            draw_coordinates(rngs[k], out[k])  # type: ignore[index]
        bound = None if condition_bounds is None else condition_bounds[k : k + 1]
        residual = po_fast.po_matrix_into(adjacency, out[k], out[k], inner, factor_again(k),
                                          bartlett, bound)  # fmt: skip
        if residual is None:
            _po_residual.zero_nonedges_checked(out[k], adjacency, residual_tolerance)
        else:  # a blocked kernel zeroed the non-edges; the residual it measured before
            _po_residual.check_residual(residual, residual_tolerance)

    with po_fast.one_blas_thread():
        each_matrix(n, workers, one)
    return out


def _no_entries(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    raise InvalidOptionError("po needs an entries sampler to draw a factor (entries=None).")


def draw_coordinates(rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """A Bartlett draw of a Gaussian factor's ``L0`` into ``out`` (see ``po/bartlett.py``)."""
    from spdgraph._kernels.po.bartlett import draw_lower_coordinates

    return draw_lower_coordinates(rng, out)


#: Matrices per compiled call of the small-matrix path (p > 22).
GROUP = 32
#: Bytes of the group kernel's inverse ``T`` (``p * p * G`` doubles) up to which groups are
#: twice as large.
GROUP_BYTES = 1 << 18


def group_size(p: int) -> int:
    """Matrices per group: 64 where the group kernel's ``T`` stays within
    :data:`GROUP_BYTES` (p <= 22), else :data:`GROUP` (32).

    Measured on 2 cores (``spdgraph.sample(erdos_renyi(p, 0.1), size=...)``,
    medians of 3): 64 rather than 32 gains ~15% at p = 20; from p = 50 to 100
    32 beats 16 by 13-18% and 64 by 10-20% (longer lanes against a ``T`` that
    leaves the cache); from p = 160 on (the row kernel) the size hardly matters.
    The bits of a matrix do not depend on its group (``tests/kernels/test_po_group.py``).
    """
    return 2 * GROUP if p * p * 2 * GROUP * 8 <= GROUP_BYTES else GROUP


def small_batch(job: Batch) -> None:
    """``p < MIN_P``: groups of matrices in one compiled call each (:mod:`._po_small`).

    On graphs sparse enough (:func:`~spdgraph._kernels.po.small.group_first_pays`)
    a group runs the matrix-innermost kernel :func:`~spdgraph._kernels.po.small.group_first`
    (one pass for the whole group; a matrix it cannot certify is redone below),
    otherwise the row kernel matrix by matrix. Each group draws its matrices'
    factors (from their own generators; with
    ``bartlett`` their coordinates ``L0`` directly, no QR) and runs on the
    pool. A matrix whose residual is above the kernel's limit is redone by
    :func:`~spdgraph._kernels.po.fast.po_matrix_checked` (the Householder
    fallback) and checked against ``tolerance`` in its group, from the
    group's draws (no batch-wide copy of the factors).
    """
    from spdgraph._kernels.po import bartlett as _po_bartlett
    from spdgraph._kernels.po import blocked as _po_blocked
    from spdgraph._kernels.po import fast as po_fast
    from spdgraph._kernels.po import residual as _po_residual
    from spdgraph._kernels.po import small as _po_small

    adjacency, rngs, entries, factors, out, workers, tolerance, bartlett, bounds = job.unpacked()
    n, p = out.shape[0], adjacency.shape[0]
    limit = min(po_fast.FALLBACK_ABOVE, tolerance)
    ptr, idx = _po_blocked.earlier_neighbours(adjacency)
    group_first = _po_small.group_first_pays(ptr)

    # streams made in bulk (the same bits as their Generators: po/bartlett.py)
    bulk = getattr(rngs, "pcg64_states", None) if bartlett else None
    states = bulk() if bulk is not None else None

    step = group_size(p)
    rows, cols = _po_small.lower_nonedges(adjacency) if group_first else (None, None)
    local = threading.local()  # each thread's work arrays, reused from group to group

    def arrays(g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``lm``, ``T`` and the packed draws of a group of ``g`` (fresh ones for a last,
        shorter group): ~5 MB at p = 100 that a fresh allocation faulted in anew."""
        made = getattr(local, "arrays", None)
        if made is None or g != step:
            made = np.empty((p, p, g)), np.empty((p, p, g)), np.empty((g, p * (p + 1) // 2))
            if g == step:
                local.arrays = made
        return made

    def group(k0: int, k1: int) -> None:
        g = k1 - k0
        coordinates, factor_of = _group_draws(rngs, entries, factors, states, p, k0, k1, bartlett)
        residuals = np.zeros(g)
        proven = np.full(g, np.inf)  # each kept matrix's condition bound (po_batch)
        if group_first and states is not None:  # drawn straight into the group's layout
            lm, lt, packed = arrays(g)
            _po_bartlett.draw_group_coordinates(states[k0:k1], lm, packed)
            _po_small.group_first_laid_out(adjacency, ptr, idx, lm, out[k0:k1], limit,
                                           residuals, proven, (lt, rows, cols))  # fmt: skip
        elif group_first:  # the whole group in one matrix-innermost pass (po/group.py)
            _po_small.group_first(adjacency, ptr, idx, coordinates(0, g), out[k0:k1], limit,
                                  residuals, proven)  # fmt: skip
        else:
            _po_small.small_group(
                adjacency, coordinates(0, g), out[k0:k1], 0, limit, residuals, proven
            )
        for flagged in np.flatnonzero(residuals > limit).tolist():
            if residuals[flagged] > po_fast.FALLBACK_ABOVE:
                lmat = coordinates(flagged, flagged + 1)[0]
                factor = lmat.copy() if bartlett else factor_of(flagged)
                out[k0 + flagged] = po_fast.po_matrix_checked(adjacency, lmat, factor)
            _po_residual.zero_nonedges_checked(out[k0 + flagged], adjacency, tolerance)
            proven[flagged] = np.inf  # recomputed: the core checks it
        if bounds is not None:
            bounds[k0:k1] = proven

    with po_fast.one_blas_thread():
        if workers > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(group, k0, min(n, k0 + step)) for k0 in range(0, n, step)]
                for future in futures:
                    future.result()
        else:
            for k0 in range(0, n, step):
                group(k0, min(n, k0 + step))


def _group_draws(
    rngs: Sequence[np.random.Generator] | None,
    entries: Draw,
    factors: np.ndarray | None,
    states: np.ndarray | None,
    p: int,
    k0: int,
    k1: int,
    bartlett: bool,
) -> tuple[Callable[[int, int], np.ndarray], Callable[[int], np.ndarray]]:
    """The draws of matrices ``k0 .. k1 - 1``: ``coordinates(a, b)`` (their ``L0``,
    ``(b - a, p, p)``, a fresh array each call) and ``factor_of(j)`` (a factor).

    Each matrix's draws come from its own stream, on the worker (the bits do not
    depend on the thread); with ``states`` (the streams' PCG64 states) the
    Bartlett draws are computed in bulk, bit for bit those of the Generators
    (:func:`~spdgraph._kernels.po.bartlett.draw_group_coordinates`); the draws live
    as long as the group (the rare fallback of a flagged matrix is done from them).
    """
    from spdgraph._kernels.po import bartlett as _po_bartlett
    from spdgraph._kernels.po import fast as po_fast
    from spdgraph._kernels.po import small as _po_small

    g = k1 - k0
    if states is not None:
        return (
            lambda a, b: _po_bartlett.draw_stack_coordinates(
                states[k0 + a : k0 + b], np.empty((b - a, p, p))
            ),
            _no_factor,
        )
    if factors is not None:
        drawn = np.ascontiguousarray(factors[k0:k1], dtype=np.float64)
    elif bartlett:  # the order of bartlett.draw_lower_coordinates (one piece)
        degrees = np.arange(p, 0, -1, dtype=np.float64)
        normals, chi2 = np.empty((g, p * (p - 1) // 2)), np.empty((g, p))
        for j, rng in enumerate(rngs[k0:k1]):  # type: ignore[index]
            rng.standard_normal(out=normals[j])
            chi2[j] = rng.chisquare(degrees)

        def filled(a: int, b: int) -> np.ndarray:
            lmats = np.empty((b - a, p, p))
            _po_small.fill_lower_group(normals[a:b], chi2[a:b], lmats)
            return lmats

        return filled, _no_factor
    else:
        drawn = np.empty((g, p, p))
        for j, rng in enumerate(rngs[k0:k1]):  # type: ignore[index]
            drawn[j] = entries(rng, (p, p))
    return lambda a, b: po_fast.lower_coordinates(drawn[a:b]), lambda j: drawn[j]


def _no_factor(j: int) -> np.ndarray:
    raise AssertionError("a Bartlett draw has no factor: its coordinates are the factor")


def portable_matrix(
    adjacency: np.ndarray, factor: np.ndarray, tolerance: float, coordinates: bool = False
) -> np.ndarray:
    """One PO matrix from the portable kernels (:mod:`spdgraph._kernels.portable`).

    Householder LQ, the row kernel's own source compiled without fastmath,
    ``L L^T`` in fixed-order loops: no BLAS, no LAPACK. There is no Householder
    fallback (that one is LAPACK's): a factor so ill-conditioned that the row
    kernel cannot certify its rows is a NumericalError. With ``coordinates``,
    ``factor`` is ``L0`` itself (a Bartlett draw): no LQ.
    """
    from spdgraph._kernels import portable
    from spdgraph._kernels.po import fast as po_fast
    from spdgraph._kernels.po import residual as _po_residual

    if coordinates:
        lmat = np.array(factor, dtype=np.float64)
    else:
        lmat = portable.lower_coordinates(factor)
    *_, ok = portable.portable_version(po_fast.process_rows)(lmat, adjacency)
    if not ok:
        raise NumericalError(
            "partial orthogonalization in portable mode met a numerically singular Gram "
            "subproblem: the factor is too ill-conditioned for the row kernel, and the "
            "Householder fallback needs LAPACK. Use another seed or factor, or "
            "portable=False."
        )
    return _po_residual.zero_nonedges_checked(portable.lower_gram(lmat), adjacency, tolerance)


def portable_batch(job: Batch) -> None:
    """Portable PO matrices, the factors (or with ``bartlett`` their ``L0``) drawn in order.

    The matrices are computed on a thread pool.
    """
    adjacency, rngs, entries, factors, out, workers, tolerance, bartlett, _ = job.unpacked()
    n, p = out.shape[0], adjacency.shape[0]
    if factors is None:
        factors = np.empty((n, p, p), dtype=np.float64)
        for k, rng in enumerate(rngs or ()):
            if bartlett:
                draw_coordinates(rng, factors[k])
            else:
                factors[k] = entries(rng, (p, p))

    def one(k: int) -> None:
        out[k] = portable_matrix(adjacency, factors[k], tolerance, bartlett)

    each_matrix(n, workers, one)


def each_matrix(n: int, workers: int, one: Callable[[int], None]) -> None:
    """``one(k)`` for every matrix ``k``, on a pool of ``workers`` threads when more than one.

    Re-raises the first error (e.g. a NumericalError) of any matrix.
    """
    if workers <= 1:
        for k in range(n):
            one(k)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(one, k) for k in range(n)]:
            future.result()


def worker_count() -> int:
    """Threads for a batch: Numba's thread count (``NUMBA_NUM_THREADS``, ``set_num_threads``)."""
    import numba

    return int(numba.get_num_threads())
