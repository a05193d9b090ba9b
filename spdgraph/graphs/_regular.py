"""Deterministic graphs of R huge and BDgraph: band, AR(1), AR(2), circle, lattice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.graphs._common import check_count, check_graph_memory
from spdgraph.graphs._docs import family_doc
from spdgraph.graphs._sparse import DEFAULT_BACKEND, finish, resolve_backend

__all__ = ["ar1", "ar2", "band", "circle", "lattice"]


def _band_edges(p: int, bandwidth: int) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``(i, i + k)``, ``1 <= k <= bandwidth``, in row-major order."""
    width = min(bandwidth, p - 1)  # a width beyond p - 1 adds nothing (band(10, 10**12) is K_10)
    if width <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    offsets = np.arange(1, width + 1, dtype=np.int64)
    rows = np.repeat(np.arange(p, dtype=np.int64), width)
    cols = rows + np.tile(offsets, p)
    keep = cols < p
    return rows[keep], cols[keep]


@family_doc
def band(p: int, bandwidth: int = 1, *, backend: str = DEFAULT_BACKEND) -> Any:
    """Band graph: node i linked to node j exactly when ``1 <= |i - j| <= bandwidth``.

    R ``huge.generator(d = p, graph = "band", g = bandwidth)``;
    ``(2p - 1 - bandwidth) * bandwidth / 2`` edges (for ``bandwidth < p``).
    ``bandwidth=1`` is the chain (:func:`ar1`), 2 is :func:`ar2`.

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    bandwidth
        Band width (>= 1); ``bandwidth >= p - 1`` gives the complete graph.
    {backend}

    Examples
    --------
    >>> from spdgraph.graphs import band
    >>> g = band(6, 2)
    >>> g.number_of_edges(), g.has_edge(0, 2), g.has_edge(0, 3)
    (9, True, False)
    """
    p = check_count(p, "p")
    bandwidth = check_count(bandwidth, "bandwidth")
    return _banded("band", p, bandwidth, {"bandwidth": bandwidth}, backend)


def _banded(family: str, p: int, width: int, params: dict[str, Any], backend: str) -> Any:
    """The band graph of ``width`` on ``p`` nodes, recorded as ``family`` (band, ar1, ar2)."""
    p = check_count(p, "p")
    backend = resolve_backend(backend)
    check_graph_memory(family, p, p * min(width, p), backend=backend)
    rows, cols = _band_edges(p, width)
    return finish(p, rows, cols, family, params, None, backend, ordered=True)


def ar1(p: int, *, backend: str = DEFAULT_BACKEND) -> Any:
    """The chain ``0 - 1 - ... - (p-1)``: the concentration graph of an AR(1) process.

    R ``BDgraph::bdgraph.sim(p, graph = "AR1")`` (the graph of the inverse of
    the covariance ``0.7^|i-j|``), and huge's ``band`` with ``g = 1``:
    ``band(p, 1)`` recorded as ``ar1``, with ``p`` and ``backend`` as :func:`band`'s.

    Examples
    --------
    >>> from spdgraph.graphs import ar1
    >>> sorted(ar1(4).edges)
    [(0, 1), (1, 2), (2, 3)]
    """
    return _banded("ar1", p, 1, {}, backend)


def ar2(p: int, *, backend: str = DEFAULT_BACKEND) -> Any:
    """Band of width 2 (``|i - j| <= 2``): the concentration graph of an AR(2) process.

    R ``BDgraph::bdgraph.sim(p, graph = "AR2")`` (the graph of the Toeplitz
    precision ``(1, 0.5, 0.25, 0, ...)``), and huge's ``band`` with ``g = 2``:
    ``band(p, 2)`` recorded as ``ar2``, with ``p`` and ``backend`` as :func:`band`'s.

    Examples
    --------
    >>> from spdgraph.graphs import ar2
    >>> ar2(5).number_of_edges()
    7
    """
    return _banded("ar2", p, 2, {}, backend)


@family_doc
def circle(p: int, *, backend: str = DEFAULT_BACKEND) -> Any:
    """The cycle ``0 - 1 - ... - (p-1) - 0``: every node has degree 2.

    R ``BDgraph::graph.sim(p, graph = "circle")`` (and ``bdgraph.sim``'s).

    Parameters
    ----------
    p
        Number of nodes (>= 3).
    {backend}

    Examples
    --------
    >>> from spdgraph.graphs import circle
    >>> g = circle(5)
    >>> sorted(set(dict(g.degree).values())), g.has_edge(4, 0)
    ([2], True)
    """
    p = check_count(p, "p", 3)
    backend = resolve_backend(backend)
    check_graph_memory("circle", p, p, backend=backend)
    rows = np.arange(p, dtype=np.int64)
    return finish(p, rows, (rows + 1) % p, "circle", {}, None, backend)


def _lattice_shape(p: int, shape: Sequence[int] | int | None) -> tuple[int, int]:
    if shape is None:
        side = round(p**0.5)  # BDgraph: round(sqrt(p)) rows and columns
        if side * side > p:
            raise InvalidOptionError(
                f"the default lattice for p = {p} is {side} x {side} = {side * side} > p nodes "
                f"(BDgraph's round(sqrt(p))); pass shape=(rows, cols) with rows * cols <= p."
            )
        return side, side
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape, shape)
    if isinstance(shape, str) or not isinstance(shape, Sequence) or len(shape) != 2:
        raise InvalidOptionError(
            f"shape must be (rows, cols) or one side length, got {written(shape)}."
        )
    rows, cols = (check_count(x, "each lattice side") for x in shape)
    if rows * cols > p:
        raise InvalidOptionError(
            f"a {rows} x {cols} lattice needs {rows * cols} nodes but p = {p}; "
            "make p >= rows * cols."
        )
    return rows, cols


@family_doc
def lattice(
    p: int, shape: Sequence[int] | int | None = None, *, backend: str = DEFAULT_BACKEND
) -> Any:
    """Two-dimensional grid: each node linked to its right and lower neighbour.

    R ``BDgraph::graph.sim(p, graph = "lattice", size = shape)``: node
    ``c + r * cols`` (0-based) sits at row r, column c of a ``rows x cols``
    grid; nodes beyond ``rows * cols`` stay isolated, as in BDgraph.
    Interior nodes have degree 4, border nodes 3 and the corners 2.

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    shape
        ``(rows, cols)`` or one side length; ``rows * cols <= p``. Default:
        ``round(sqrt(p))`` rows and columns, as BDgraph.
    {backend}

    Examples
    --------
    >>> from spdgraph.graphs import lattice
    >>> g = lattice(9)
    >>> g.degree[4], g.degree[0], g.degree[1], g.number_of_edges()
    (4, 2, 3, 12)
    >>> lattice(7, shape=(2, 3)).degree[6]                 # beyond the grid: isolated
    0
    """
    p = check_count(p, "p")
    rows, cols = _lattice_shape(p, shape)
    backend = resolve_backend(backend)
    check_graph_memory("lattice", p, 2 * p, backend=backend)
    node = np.arange(rows * cols, dtype=np.int64)
    right = node[node % cols + 1 < cols]
    down = node[node + cols < rows * cols]
    starts = np.concatenate([right, down])
    ends = np.concatenate([right + 1, down + cols])
    return finish(p, starts, ends, "lattice", {"shape": [rows, cols]}, None, backend)
