"""The sparse core every family shares: edges as index arrays, then any backend's type.

A family draws its edges as two int64 arrays (rows, columns) in O(p + edges)
time and memory, :func:`finish` turns them into the canonical upper-triangle
CSR adjacency (:class:`spdgraph.plugins.types.SparseGraphData`) and then into
the type of the backend the user named with ``backend=``, through that
backend's ``from_sparse``: no networkx graph and no ``p x p`` array is built
unless that is what was asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, TooLargeError

__all__ = [
    "DEFAULT_BACKEND",
    "PAIRWISE_PAIRS",
    "bernoulli_edges",
    "bernoulli_positions",
    "canonical_upper",
    "check_pairs",
    "finish",
    "resolve_backend",
    "unrank_upper",
]

#: What every family returns unless told otherwise (today's networkx graphs).
DEFAULT_BACKEND = "networkx"


def resolve_backend(backend: object) -> str:
    """``backend`` checked against the registered graph backends (before any work).

    Raises
    ------
    InvalidOptionError
        An unknown name, the message listing the registered backends.
    """
    from spdgraph.plugins.backends import graph_backend

    if backend == DEFAULT_BACKEND:
        return DEFAULT_BACKEND
    try:
        graph_backend(backend)
    except InvalidOptionError as exc:
        raise InvalidOptionError(f"backend: {exc}") from None
    return str(backend)


#: Up to this many node pairs (p <= 1448) ``erdos_renyi``, ``cluster`` and
#: ``related_graphs`` draw one uniform per pair, in row-major order (the draws of
#: earlier releases, so small seeded graphs keep their edges); beyond it, geometric
#: edge skipping, whose work is the edge count. Read at each call (tests lower it).
PAIRWISE_PAIRS = 2**20
#: Most node pairs the skipping draws index (int64 positions): p up to about 3 * 10**9.
MAX_PAIRS = 2**62


def check_pairs(family: str, p: int) -> int:
    """``p (p - 1) / 2``, refused when its positions would overflow int64 (any memory)."""
    pairs = p * (p - 1) // 2
    if pairs > MAX_PAIRS:
        raise TooLargeError(
            f"graph family {family!r} with p={p:,} has {pairs:,} node pairs, beyond the "
            f"2**62 its draw can index; use fewer nodes (at most about {3 * 10**9:,})."
        )
    return pairs


def bernoulli_positions(rng: np.random.Generator, n: int, q: float) -> np.ndarray:
    """The sorted positions in ``0..n-1`` kept by ``n`` independent Bernoulli(``q``) trials.

    Geometric edge skipping (Batagelj and Brandes 2005): the gaps between kept
    positions are i.i.d. Geometric(``q``), so the work is proportional to the
    number kept, not to ``n``. The gaps are drawn in blocks a little larger
    than the expected count, so one or two NumPy calls suffice.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bernoulli_positions(rng, 10, 1.0).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    >>> bernoulli_positions(rng, 10**12, 0.0).size
    0
    """
    if n <= 0 or q <= 0.0:
        return np.zeros(0, dtype=np.int64)
    if q >= 1.0:
        return np.arange(n, dtype=np.int64)
    parts: list[np.ndarray] = []
    last = -1  # the last position kept so far
    while True:
        remaining = (n - 1 - last) * q  # expected kept positions still to come
        gaps = rng.geometric(q, size=int(remaining + 6.0 * np.sqrt(remaining) + 16))
        positions = last + np.cumsum(gaps.astype(np.int64))
        inside = positions[positions < n]
        parts.append(inside)
        if inside.size < positions.size:  # passed the end: done
            break
        last = int(positions[-1])
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _row_offsets(i: np.ndarray, s: np.ndarray | int) -> np.ndarray:
    """Index of the first pair ``(i, i + 1)`` in the row-major upper triangle of ``s`` nodes."""
    return i * (2 * s - i - 1) // 2


def bernoulli_edges(rng: np.random.Generator, p: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``i < j`` of G(p, q) in row-major order, by geometric skipping (O(edges))."""
    return unrank_upper(bernoulli_positions(rng, p * (p - 1) // 2, q), p)


#: Positions unranked at a time: the float64 work of the closed form stays small
#: (no float64 copy of the whole index array).
UNRANK_BLOCK = 2**20


def unrank_upper(k: np.ndarray, s: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(i, j)``, ``i < j``, at position ``k`` of the row-major upper triangle.

    ``s`` is the number of nodes (one per entry, or one for all). The row
    comes from the closed-form root, then integer corrections make it exact.

    Examples
    --------
    >>> rows, cols = unrank_upper(np.arange(6), 4)
    >>> list(zip(rows.tolist(), cols.tolist()))
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    k = np.asarray(k, dtype=np.int64)
    s = np.asarray(s, dtype=np.int64)
    if s.ndim == 0 and k.size > UNRANK_BLOCK:  # float temporaries a block at a time
        i, j = np.empty_like(k), np.empty_like(k)
        for start in range(0, k.size, UNRANK_BLOCK):
            part = slice(start, start + UNRANK_BLOCK)
            i[part], j[part] = unrank_upper(k[part], s)
        return i, j
    b = 2.0 * s - 1.0
    i = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * k, 0.0))) / 2.0).astype(np.int64)
    i = np.clip(i, 0, np.maximum(s - 2, 0))
    for _ in range(4):  # float rounding is off by at most one row
        high = _row_offsets(i, s) > k
        i = i - high
        low = _row_offsets(i + 1, s) <= k
        i = i + low
        if not (high.any() or low.any()):
            break
    j = k - _row_offsets(i, s) + i + 1
    return i, j


def canonical_upper(p: int, rows: np.ndarray, cols: np.ndarray, *, ordered: bool = False) -> Any:
    """The upper-triangle CSR (int8, sorted indices, no duplicates) of the edges ``rows-cols``.

    Self-loops are dropped and each edge is put as ``(min, max)``. With
    ``ordered=True`` the caller promises ``rows < cols``, distinct edges, in
    row-major order (no sort is needed).
    """
    import scipy.sparse

    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if not ordered:
        keep = rows != cols
        low, high = np.minimum(rows[keep], cols[keep]), np.maximum(rows[keep], cols[keep])
        keys = np.sort(low * p + high)  # (np.unique hashes first: many times slower)
        if keys.size > 1:
            keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
        rows, cols = keys // p, keys % p
    indptr = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=p), out=indptr[1:])
    index_type = np.int32 if max(p, cols.size) < 2**31 else np.int64
    return scipy.sparse.csr_array(
        (np.ones(cols.size, dtype=np.int8), cols.astype(index_type), indptr.astype(index_type)),
        shape=(p, p),
    )


def finish(
    p: int,
    rows: np.ndarray,
    cols: np.ndarray,
    family: str,
    parameters: Mapping[str, Any],
    seed: str | None,
    backend: str,
    *,
    ordered: bool = False,
    graph_attrs: Mapping[str, Any] | None = None,
    groups: Sequence[int] | None = None,
) -> Any:
    """The family's graph in ``backend``'s type, straight from its edges.

    ``G.graph`` (networkx), the graph attributes (igraph, rustworkx) record
    ``family``, ``parameters`` (with ``p``), ``seed`` when drawn and
    ``graph_attrs`` (a hub graph's ``hubs``); ``groups`` (the group sizes of
    a hub or cluster graph) set each networkx node's ``"group"`` and an
    igraph vertex attribute ``group``.
    """
    from spdgraph.plugins.backends import call_backend, graph_backend
    from spdgraph.plugins.types import SparseGraphData

    upper = canonical_upper(p, rows, cols, ordered=ordered)
    attrs: dict[str, Any] = {"family": family, "parameters": {"p": p, **parameters}}
    if seed is not None:
        attrs["seed"] = seed
    attrs.update(graph_attrs or {})
    data = SparseGraphData(upper, range(p), attrs)
    spec, plugin = graph_backend(backend)
    if spec.from_sparse is not None:
        out = call_backend(spec, plugin, "from_sparse", data)
    else:
        out = call_backend(spec, plugin, "from_graph", _dense(data, backend))
    if groups is not None:
        _label_groups(out, backend, groups)
    return out


def _dense(data: Any, backend: str) -> Any:
    """The dense GraphData of a backend without ``from_sparse``, if ``p x p`` fits."""
    from spdgraph._machine import available_memory
    from spdgraph.plugins.types import GraphData

    p = len(data.labels)
    need, available = 2.0 * p * p, available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"graph backend {backend!r} has no sparse path, and the dense {p:,} x {p:,} "
            f"adjacency it is built from needs about {need / 2**30:,.1f} GiB but only "
            f"{available / 2**30:,.1f} GiB is available; use backend='scipy', 'networkx', "
            "'igraph', 'networkit' or 'rustworkx'."
        )
    adjacency = np.zeros((p, p), dtype=bool)
    rows, cols = data.edges()
    adjacency[rows, cols] = True
    adjacency[cols, rows] = True
    return GraphData(adjacency=adjacency, labels=list(data.labels), attrs=dict(data.attrs))


def _label_groups(graph: Any, backend: str, sizes: Sequence[int]) -> None:
    group = np.repeat(np.arange(len(sizes)), sizes)
    if backend == "networkx":
        for node, k in enumerate(group.tolist()):
            graph.nodes[node]["group"] = k
    elif backend == "igraph":
        graph.vs["group"] = group.tolist()
