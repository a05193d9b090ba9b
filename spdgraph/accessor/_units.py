"""Data drawn in units of rows: the same bits whatever the blocks, eager or dask.

The rows of matrix ``k``'s data are cut into *draw units* of :func:`unit_rows`
rows (a power of two fixed by the node count alone, about
:data:`UNIT_ENTRIES` values). Unit ``u`` draws its standard normals (and its
missing-value mask) from its own stream
(:func:`spdgraph.seeds.unit_stream`) and turns them into data by one call of
the factor's transform on exactly its rows, so its values depend on neither
the block it falls in nor the number of blocks: ``da.spd.draw(n)``,
``draw(n, chunks=500)`` and ``draw(n, chunks=7)`` give the same bits. A block
that cuts a unit computes the whole unit and keeps its part; a block a
multiple of the unit long (:func:`aligned_chunks`) wastes nothing.

A :class:`UnitDrawer` holds what every block of one matrix needs (the factor
and the draw's recipe): built once (one dask task for a chunked draw), every
block reads it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spdgraph._kernels.numerics import gaussian_draws
from spdgraph.accessor import _marginal_draws as _marginals
from spdgraph.errors import MatrixError
from spdgraph.seeds import DRAW, MISSING, unit_stream

__all__ = [
    "FACTOR_TASK",
    "UNIT_ENTRIES",
    "CgDrawer",
    "CholeskyDrawer",
    "DenseDrawer",
    "UnitDrawer",
    "aligned_chunks",
    "draw_rows",
    "unit_rows",
]

#: Values (float64) of one draw unit: a unit is the largest power of two of rows
#: holding at most this many (one row when a row alone holds more).
UNIT_ENTRIES = 2**18
#: The name of a chunked draw's factor task (one per matrix): ``FACTOR_TASK-<token>``.
FACTOR_TASK = "spdgraph-draw-factor"
#: CHOLMOD (through cvxopt) keeps one workspace per process: its calls take turns.
CHOLMOD_LOCK = threading.Lock()


def unit_rows(p: int) -> int:
    """Rows per draw unit for ``p`` nodes: a power of two, ``UNIT_ENTRIES // p`` at most.

    >>> unit_rows(10), unit_rows(1000), unit_rows(10**6)
    (16384, 256, 1)
    """
    most = max(1, UNIT_ENTRIES // max(int(p), 1))
    return 1 << (most.bit_length() - 1)


def aligned_chunks(rows: int, p: int) -> int:
    """``rows`` rounded down to a multiple of :func:`unit_rows` (when at least one unit)."""
    unit = unit_rows(p)
    return max(1, rows // unit * unit if rows >= unit else rows)


class UnitDrawer:
    """The rows of one matrix's data, drawn unit by unit (see the module docstring).

    Subclasses turn a unit's standard normals ``z`` (``(rows, p)``, drawn from the
    unit's stream ``rng``, which they may read on) into its data.
    """

    def __init__(self, root: np.random.SeedSequence, stream: int, n_obs: int, p: int) -> None:
        self.root, self.stream, self.n_obs, self.p = root, int(stream), int(n_obs), int(p)
        self.unit = unit_rows(p)

    def unit_data(self, u: int, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def fill(self, out: np.ndarray, start: int) -> np.ndarray:
        """Rows ``start .. start + len(out) - 1`` of the data, written into ``out``."""
        stop, unit = start + out.shape[0], self.unit
        for u in range(start // unit, -(-stop // unit)):
            first, last = u * unit, min((u + 1) * unit, self.n_obs)
            rng = unit_stream(self.root, DRAW, self.stream, u)
            low, high = max(first, start), min(last, stop)
            if (low, high) == (first, last):  # the whole unit: its normals drawn in place
                z = out[first - start : last - start]
                z[...] = self.unit_data(u, rng.standard_normal(out=z), rng)
                continue
            x = self.unit_data(u, rng.standard_normal((last - first, self.p)), rng)
            out[low - start : high - start] = x[low - first : high - first]
        return out

    def rows(self, start: int, count: int) -> np.ndarray:
        """A new ``(count, p)`` array of rows ``start ..`` (a block of a chunked draw)."""
        return self.fill(np.empty((count, self.p), dtype=np.float64), start)


class DenseDrawer(UnitDrawer):
    """Gaussian (``x = L z`` or ``L^T x = z``), copula and missing values from a dense factor."""

    def __init__(
        self,
        root: np.random.SeedSequence,
        stream: int,
        n_obs: int,
        factor: np.ndarray,
        scale: str,
        observed: tuple[list[_marginals.NodeMarginal] | None, np.ndarray | None, float],
    ) -> None:
        super().__init__(root, stream, n_obs, factor.shape[-1])
        self.factor, self.scale = factor, scale
        self.nodes, self.sd, self.rate = observed

    def unit_data(self, u: int, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x = gaussian_draws(z, self.factor, self.scale)
        if self.nodes is not None and self.sd is not None:
            x = _marginals.transform(x, self.sd, self.nodes)
        if self.rate:
            _marginals.apply_missing(x, self.rate, unit_stream(self.root, MISSING, self.stream, u))
        return x


def dense_drawer(
    matrix: np.ndarray,
    kind: str,
    root: np.random.SeedSequence,
    stream: int,
    n_obs: int,
    recipe: tuple[list[_marginals.NodeMarginal] | None, float],
) -> DenseDrawer:
    """Matrix ``k``'s drawer: its Cholesky factor and, with marginals, its standard deviations."""
    from spdgraph._kernels.numerics import cholesky_factors, cholesky_inverse

    nodes, rate = recipe
    stack = matrix[np.newaxis]
    sd = None
    if nodes is not None:
        if kind == "precision":
            sd = np.sqrt(np.diagonal(cholesky_inverse(stack, MatrixError)[0]))
        else:
            sd = np.sqrt(np.diagonal(matrix))
    factor = cholesky_factors(stack, MatrixError)[0]
    scale = "precision" if kind == "precision" else "covariance"
    return DenseDrawer(root, stream, n_obs, factor, scale, (nodes, sd, rate))


class CholeskyDrawer(UnitDrawer):
    """Exact Gaussian data through a sparse Cholesky factor: ``x = P^T L^-T z`` for a
    precision ``K``, then ``S x`` for a covariance ``S`` (``Cov = S S^-1 S``)."""

    def __init__(
        self, root: np.random.SeedSequence, stream: int, n_obs: int, factor: Any, csr: Any
    ) -> None:
        super().__init__(root, stream, n_obs, factor.p)
        self.factor, self.csr = factor, csr  # csr: the covariance, None for a precision

    def unit_data(self, u: int, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        with CHOLMOD_LOCK:
            y = self.factor.whiten_inverse(z.T)
        return (y if self.csr is None else self.csr @ y).T


class CgDrawer(UnitDrawer):
    """Data by conjugate gradients on a dominance splitting ``W K W = B B^T``: each row
    ``K^-1 W^-1 B v``, ``v`` the row's normals for ``B``'s edge columns (read on from the
    unit's stream) and ``z``'s row for its node columns."""

    def __init__(
        self,
        root: np.random.SeedSequence,
        stream: int,
        n_obs: int,
        csr: Any,
        split: tuple[Any, np.ndarray],
        solve: tuple[int, float, bool],
    ) -> None:
        super().__init__(root, stream, n_obs, csr.shape[0])
        self.csr, (self.b, self.w) = csr, split
        self.k, self.tolerance, self.precision = solve

    def unit_data(self, u: int, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        import scipy.sparse.linalg

        out = np.empty_like(z)
        for r in range(z.shape[0]):
            v = np.concatenate([rng.standard_normal(self.b.shape[1] - self.p), z[r]])
            rhs = (self.b @ v) / self.w
            x, info = scipy.sparse.linalg.cg(
                self.csr, rhs, rtol=self.tolerance, maxiter=10 * self.p
            )
            if info != 0:
                raise MatrixError(
                    f"draw(method='cg'): conjugate gradients did not reach the tolerance "
                    f"{self.tolerance:g} on matrix {self.k}; use method='cholesky' or a "
                    "larger tolerance."
                )
            out[r] = x if self.precision else self.csr @ x
        return out


def _block(drawer: UnitDrawer, start: int, count: int) -> np.ndarray:
    return drawer.rows(start, count)


def draw_rows(
    makers: Sequence[Callable[[], UnitDrawer]],
    n_obs: int,
    p: int,
    chunks: int | None,
    update: Callable[[], Any] | None = None,
) -> Any:
    """The ``(n, n_obs, p)`` data of ``n`` matrices, ``makers[k]()`` building matrix k's drawer.

    ``chunks=None``: a numpy array, each drawer built in turn and dropped after its
    matrix (``update()`` after each). ``chunks``: a dask array of blocks of
    ``chunks`` rows; each drawer is one task (:data:`FACTOR_TASK`) that every block
    of its matrix depends on, so the factor is computed once, not per block.
    """
    if chunks is None:
        out = np.empty((len(makers), n_obs, p), dtype=np.float64)
        for k, make in enumerate(makers):
            make().fill(out[k], 0)
            if update is not None:
                update()
        return out
    import dask
    import dask.array as da

    if not makers or not n_obs:
        return da.from_array(np.empty((len(makers), n_obs, p)), chunks=(1, chunks, p))
    matrices = []
    for make in makers:
        token = dask.base.tokenize(make, n_obs, chunks)
        drawer = dask.delayed(make, pure=True)(dask_key_name=f"{FACTOR_TASK}-{token}")
        blocks = []
        for b, start in enumerate(range(0, n_obs, chunks)):
            count = min(chunks, n_obs - start)
            block = dask.delayed(_block, pure=True)(
                drawer, start, count, dask_key_name=f"spdgraph-draw-block-{token}-{b}"
            )
            blocks.append(da.from_delayed(block, shape=(count, p), dtype=np.float64))
        matrices.append(da.concatenate(blocks))
    return da.stack(matrices)
