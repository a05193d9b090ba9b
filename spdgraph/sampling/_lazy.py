"""Lazy, chunked sampling with dask (``spdgraph.sample(..., chunks=c)``).

Each chunk of ``c`` matrices is one task that calls
:func:`spdgraph.sampling._engine.generate_block` with the generators
``matrix_stream(root, k)`` of its own matrices ``k``, exactly as the eager
call does for the whole stack, so the values are bit-for-bit those of the eager
call whatever the chunking and whatever scheduler runs the tasks (threads by
default, a ``dask.distributed`` cluster when a Client is active).

dask is imported only when a lazy array is requested. This module imports the
engine, never :mod:`spdgraph.sampling._core` (which imports it).
"""

from __future__ import annotations

import numbers
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from spdgraph._machine import require_dask
from spdgraph.errors import InvalidOptionError, written
from spdgraph.sampling._engine import generate_block

if TYPE_CHECKING:  # pragma: no cover
    import dask.array

    from spdgraph.sampling._record import SampleRequest

__all__ = ["check_chunks", "sample_lazy"]


def check_chunks(chunks: object) -> int | None:
    """Validate ``sample``'s ``chunks`` argument (matrices per chunk), eagerly."""
    if chunks is None:
        return None
    if (
        isinstance(chunks, bool)
        or not isinstance(chunks, numbers.Integral)
        or not 1 <= int(chunks) <= 2**53
    ):
        raise InvalidOptionError(
            f"chunks must be None (an in-memory result) or a positive integer (matrices "
            f"per dask chunk), got {written(chunks)}."
        )
    require_dask("spdgraph.sample(..., chunks=...)")
    return int(chunks)


def _seeded_chunk(ks: np.ndarray, *, request: SampleRequest) -> np.ndarray:
    first = int(ks[0]) if len(ks) else 0
    rngs = request.rngs(first, int(ks[-1]) + 1 if len(ks) else first)
    return generate_block(request, rngs=rngs, factors=None, first=first).values


def _factor_chunk(factors: np.ndarray, *, request: SampleRequest) -> np.ndarray:
    return generate_block(request, rngs=None, factors=np.array(factors, dtype=np.float64)).values


def sample_lazy(request: SampleRequest) -> dask.array.Array:
    """The lazy path of :func:`spdgraph.sample`: the request's stack as a dask array.

    Matrix ``k`` comes from ``matrix_stream(root, k)`` (or ``factors[k]``), as
    in the eager path, through the same :func:`~spdgraph.sampling._engine.generate_block`
    with the same request (its factors travel in their own chunks, not with every
    task). Eager-only results are not recorded: the achieved spectrum, the
    redraws and the certificate (``certificate``,
    ``certificate_lambda_min_lower_bound``) are known only when the chunks are
    computed, after the attrs are set; every matrix is proven all the same, and
    ``da.compute().spd.check()`` records the bound.
    """
    import dask.array as da

    assert request.chunks is not None
    chunks, n = request.chunks, request.n
    p = request.dense_graph.adjacency.shape[0]
    name = f"spdgraph-sample-{request.gen.name}-{uuid.uuid4().hex}"
    meta = np.empty((0, 0, 0), dtype=np.float64)
    shipped = replace(request, factors=None)
    if n == 0:
        return da.zeros((0, p, p), dtype=np.float64, chunks=(chunks, p, p))
    if request.factors is not None:
        source = da.from_array(request.factors, chunks=(chunks, p, p), name=f"{name}-factors")
        return source.map_blocks(
            _factor_chunk, dtype=np.float64, meta=meta, name=name, request=shipped
        )
    ks = da.arange(n, chunks=chunks, dtype=np.int64)
    return ks.map_blocks(
        _seeded_chunk,
        new_axis=[1, 2],
        chunks=(ks.chunks[0], (p,), (p,)),
        dtype=np.float64,
        meta=meta,
        name=name,
        request=shipped,
    )
