"""Memory guard: refuse a request that cannot fit before any large allocation.

The layout of a request (``SampleRequest.layout``) chooses its model: the dense
and lazy layouts the one below, from the node count; the sparse layout
:func:`check_sparse_memory`, from the non-zeros of the graph read sparse
(:func:`sparse_need`: ``BYTES_PER_ENTRY`` per stored entry, ``BYTES_PER_NODE``
per node). For the dense and lazy layouts:

:func:`estimate_bytes` is the core's model of the peak memory of one
:func:`spdgraph.sample` call, from the node count ``p`` and the request
alone (so it runs before the graph is adapted to a dense adjacency):

* the graph: ``GRAPH_BYTES_PER_ENTRY`` bytes per adjacency entry (the
  boolean ``p x p`` adjacency and the copy the generator gets);
* per matrix in flight: its output, the generator's ``work_per_matrix``
  arrays and two more for a spectrum target;
* per block in flight: the generator's ``work_per_call`` arrays (the core's
  check of a matrix proven by a factorization, one factor copy at a time, is
  the generator's to count: matrices proven by dominance or by the
  generator's own bound need none), ``CHECK_BYTES`` (small matrices are
  checked in groups of about 2 MB) and, with ``normalize=True``,
  ``NORMALIZE_BYTES`` (the unit-diagonal rescaling works in place, a million
  entries at a time); a generator whose work is freed before its matrices
  are made (``GeneratorSpec.work_apart``: ``huge`` computes one matrix, then
  copies it) counts the larger of its work and its matrices, not their sum;

each array ``p x p`` float64 (8 bytes per entry). The built-in generators'
``work_per_matrix`` and ``work_per_call`` are fitted to the peak resident
memory measured in a fresh process by ``benchmarks/bench_memory_guard.py``
(p = 2000 to 4000, one matrix and a stack of four, mean degree 5) so that the
estimate is 1 to 1.2 times the measured peak (``tests/test_memory_guards.py``
holds it within 25%). An eager call has one
block of ``size`` matrices in flight; a lazy call (``chunks=c``) as many
blocks of ``c`` matrices as dask's threaded scheduler runs at once (one per
core). ``kind`` changes nothing (it only names the output).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph._machine import available_memory
from spdgraph._threads import available_cores
from spdgraph.errors import TooLargeError, written
from spdgraph.plugins.types import GeneratorSpec

__all__ = [
    "MemoryCheck",
    "MemoryNeed",
    "check_memory",
    "check_sparse_memory",
    "estimate_bytes",
    "sparse_need",
]

#: Bytes per adjacency entry: the boolean adjacency and the generator's copy (measured).
GRAPH_BYTES_PER_ENTRY = 2
#: Bytes of the unit-diagonal rescaling's temporaries (two blocks of 2**20 float64).
NORMALIZE_BYTES = 2 * 8 * 2**20
#: Bytes of the output checks of small matrices, run on groups of about 2 MB
#: (the group's Cholesky copy, its masks and the condition estimate).
CHECK_BYTES = 4 * 2**20
#: Kept for callers of the old signature: float64 arrays per matrix.
WORK_ARRAYS_PER_MATRIX = 4


@dataclass(frozen=True)
class MemoryNeed:
    """What one request needs: ``matrices`` in flight at once and their bytes.

    ``one_matrix_per_entry`` is the bytes per adjacency entry of the same
    request for a single matrix (what bounds ``p`` on this machine).
    """

    p: int
    matrices: int
    bytes: int
    one_matrix_per_entry: float = 0.0


def estimate_bytes(
    p: int,
    n: int,
    *,
    chunks: int | None = None,
    normalize: bool = True,
    targets: bool = False,
    work_per_matrix: float = 1.0,
    work_per_call: float = 3.25,
    workers: int | None = None,
    work_apart: bool = False,
) -> MemoryNeed:
    """Peak bytes of sampling ``n`` matrices on ``p`` nodes (see the module docstring).

    Examples
    --------
    >>> need = estimate_bytes(1000, 1)
    >>> need.matrices, round(need.bytes / 2**20)
    (1, 62)
    """
    per_call = work_per_call
    per_matrix = 1 + work_per_matrix + 2 * targets
    both = max if work_apart else sum_of
    one = GRAPH_BYTES_PER_ENTRY + 8 * both(per_matrix, per_call)
    fixed = (CHECK_BYTES + NORMALIZE_BYTES * normalize) if n else 0
    if chunks is None or n == 0:
        blocks, per_block = (1 if n else 0), n
    else:
        per_block = min(n, chunks)
        blocks = min(math.ceil(n / per_block), workers or available_cores())
    matrices = blocks * per_block
    arrays = blocks * both(per_block * per_matrix, per_call)
    total = p * p * (GRAPH_BYTES_PER_ENTRY + 8 * arrays) + fixed * blocks
    return MemoryNeed(p, matrices, int(total), one)


def sum_of(*terms: float) -> float:
    """The sum of the terms (what :func:`estimate_bytes` counts for a block whose
    generator holds its work with its matrices)."""
    return float(sum(terms))


def check_memory(
    n: int,
    p: int,
    arrays_per_matrix: float | None = None,
    *,
    need: MemoryNeed | None = None,
    advice: str = "",
) -> None:
    """Raise :class:`TooLargeError` if the request will not fit in available memory.

    ``need`` is an :func:`estimate_bytes` result; without it the old model
    (``arrays_per_matrix`` float64 arrays for each of ``n`` matrices) is used.
    """
    if need is None:
        per = WORK_ARRAYS_PER_MATRIX if arrays_per_matrix is None else arrays_per_matrix
        need = MemoryNeed(p, n, int(n * p * p * 8 * per), 8.0 * per)
    available = available_memory()
    if available is None or need.bytes <= available:
        return
    what = f"{need.matrices} matrices" if need.matrices != 1 else "1 matrix"
    verb = "need" if need.matrices != 1 else "needs"
    raise TooLargeError(
        f"{what} of {p} x {p} in memory at once {verb} about {_gib(need.bytes)} of working "
        f"memory but only {_gib(available)} is available; "
        + (advice or "ask for fewer matrices per call (a smaller size, or chunks with dask)")
        + f". On this machine p can be at most about {_largest_p(need, available):,} for one "
        "matrix at a time."
    )


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:,.1f} GiB"


def _largest_p(need: MemoryNeed, available: int) -> int:
    """Largest p whose one-matrix need fits, at this request's bytes per entry."""
    return math.isqrt(int(available / max(need.one_matrix_per_entry, 1.0)))


@dataclass(frozen=True)
class MemoryCheck:
    """The memory guard of one request, run as soon as the node count is known."""

    gen: GeneratorSpec
    size: int | None
    factor: object
    chunks: int | None
    normalize: bool
    targets: object

    def matrices(self) -> int:
        factor: Any = self.factor
        try:
            stack = self.size is None and factor is not None and np.ndim(factor) == 3
        except ValueError:  # a ragged list: the factor check names it
            stack = False
        if stack:
            return int(np.shape(factor)[0])  # a stack of explicit factors
        return 1 if self.size is None else self.size

    def need(self, p: int) -> MemoryNeed:
        return estimate_bytes(
            p,
            self.matrices(),
            chunks=self.chunks,
            normalize=self.normalize,
            targets=self.targets is not None,
            work_per_matrix=self.gen.work_per_matrix,
            work_per_call=self.gen.work_per_call,
            work_apart=self.gen.work_apart,
        )

    def check(self, p: int) -> None:
        if p > 2**53:  # on the integer: 10**400 nodes never reach float arithmetic
            raise TooLargeError(
                f"a graph of {written(p)} nodes is beyond any machine's memory; use fewer nodes."
            )
        n = self.matrices()
        need = self.need(p)
        if need.matrices > 1:
            advice = (
                "ask for fewer matrices at once: a smaller size, or chunks=c with dask "
                "(c matrices per task)"
            )
        else:
            advice = (
                f"even one {p} x {p} matrix does not fit: use a graph with fewer nodes "
                "(spdgraph.sampling.estimate_need(graph, method) gives each method's need)"
            )
        check_memory(n, p, need=need, advice=advice)


#: The sparse layout's model, fitted to the measured peak (issue 56 item 5;
#: tests/sampling/test_sparse_memory.py measures it with tracemalloc,
#: benchmarks/bench_large.py with the resident set). The core's bytes per stored
#: entry of one matrix at its peak: the output ``sparse.COO`` (an 8-byte value and
#: two int32 coordinates, the column row of which is the generator's CSR indices),
#: the rescaled values while the generator's are still held, the adjacency
#: coordinate (int32 coordinates, a 1-byte value). Index arrays are int32 where ``p``
#: and the entry count fit (int64 beyond: more, see :func:`sparse_need`) and are never
#: copied to int64. A generator's own work is its ``sparse_work_per_entry``.
BYTES_PER_ENTRY = 32
#: Bytes per node: labels (the two node coordinates and their indexes), diagonal,
#: weights, row sums and the certificate's margins (float64 vectors of ``p``).
BYTES_PER_NODE = 96


def sparse_need(gen: GeneratorSpec, p: int, edges: int, matrices: int) -> int:
    """Bytes of ``matrices`` sparse matrices on ``p`` nodes and ``edges`` edges in flight."""
    entries = 2 * edges + p
    wide = 2 if max(p, entries) >= 2**31 else 1  # int64 indices: twice the index bytes
    per_entry = BYTES_PER_ENTRY * wide + gen.sparse_work_per_entry
    per_matrix = entries * per_entry + p * BYTES_PER_NODE
    graph = 2 * edges * 5 * wide  # the symmetric adjacency (int32 index, 1-byte value)
    return int(graph + matrices * per_matrix)


def check_sparse_memory(gen: GeneratorSpec, p: int, edges: int, matrices: int) -> None:
    """The sparse layout's memory guard: a TooLargeError when :func:`sparse_need` does
    not fit, before any matrix is made (the graph's non-zeros are known by then)."""
    need = sparse_need(gen, p, edges, matrices)
    available = available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{matrices} sparse matri{'x' if matrices == 1 else 'ces'} on {p:,} nodes and "
            f"{edges:,} edges need about {need / 2**30:,.1f} GiB "
            f"({BYTES_PER_ENTRY + gen.sparse_work_per_entry:.0f} bytes per stored entry) "
            f"but only {available / 2**30:,.1f} GiB is available; ask for fewer matrices "
            "(a smaller size) or use a graph with fewer edges."
        )
