"""Block and hub graphs of R huge and BDgraph: hub, cluster (stochastic block model), star."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.graphs import _sparse
from spdgraph.graphs._common import (
    check_count,
    check_graph_memory,
    check_probability,
    equal_groups,
    seeded_rng,
)
from spdgraph.graphs._docs import family_doc
from spdgraph.graphs._sparse import (
    DEFAULT_BACKEND,
    bernoulli_edges,
    bernoulli_positions,
    check_pairs,
    finish,
    resolve_backend,
    unrank_upper,
)
from spdgraph.seeds import SeedLike
from spdgraph.vocabulary import check_choice

__all__ = ["cluster", "hub", "star"]

_HUB_MODES = ("huge", "bdgraph")


def _huge_groups(p: int) -> int:
    """huge.generator's default number of hubs or clusters: ``ceiling(d/20)`` if d > 40, else 2."""
    return min(p, math.ceil(p / 20) if p > 40 else 2)


@family_doc
def hub(
    p: int,
    n_hubs: int | None = None,
    *,
    mode: str = "huge",
    seed: SeedLike = None,
    backend: str = DEFAULT_BACKEND,
) -> Any:
    """Hub graph: a few hub nodes, each linked to many others.

    ``mode="huge"`` is R ``huge.generator(d = p, graph = "hub", g = n_hubs)``:
    the nodes ``0..p-1`` are split in order into ``n_hubs`` groups as even as
    possible (``p % n_hubs`` groups, the last ones, get one node more) and the
    first node of each group is linked to every other node of its group (a
    star per group, ``p - n_hubs`` edges; nothing is random). ``mode="bdgraph"``
    is R ``BDgraph::graph.sim(p, graph = "hub", size = n_hubs)``: ``n_hubs``
    nodes drawn at random are each linked to every other node.

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    n_hubs
        Number of hubs (1..p). Default: huge's ``ceiling(p/20)`` if p > 40,
        else 2 (``mode="huge"``); BDgraph's ``ceiling(p/20)`` (``mode="bdgraph"``).
    mode
        ``"huge"`` or ``"bdgraph"``.
    seed
        int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or None; used by ``mode="bdgraph"`` only.
    {backend}

    Returns
    -------
    networkx.Graph or the backend's graph type
        Nodes ``0..p-1``; ``G.graph["hubs"]`` lists the hubs; with
        ``mode="huge"`` each node has a ``"group"`` attribute. ``G.graph``
        also records ``family``, ``parameters`` (and ``seed`` when drawn);
        igraph and rustworkx graphs keep these as graph attributes.

    Examples
    --------
    >>> from spdgraph.graphs import hub
    >>> g = hub(10, 2)
    >>> g.graph["hubs"], g.degree[0], g.degree[5], g.number_of_edges()
    ([0, 5], 4, 4, 8)
    >>> sorted(hub(10, 1, mode="bdgraph", seed=3).degree, key=lambda x: -x[1])[0][1]
    9
    """
    p = check_count(p, "p")
    mode = check_choice(mode, "mode", _HUB_MODES)
    if n_hubs is None:
        n_hubs = _huge_groups(p) if mode == "huge" else math.ceil(p / 20)
    n_hubs = check_count(n_hubs, "n_hubs", 1, p)
    backend = resolve_backend(backend)
    edges = p - n_hubs if mode == "huge" else n_hubs * p
    check_graph_memory("hub", p, edges, backend=backend)
    params = {"n_hubs": n_hubs, "mode": mode}
    if mode == "huge":
        if seed is not None:
            raise InvalidOptionError(
                "hub(mode='huge') is not random (huge's hubs are the first node of each "
                "group): drop seed, or use mode='bdgraph' for randomly placed hubs."
            )
        sizes = equal_groups(p, n_hubs)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        group = np.repeat(np.arange(n_hubs), sizes)
        nodes = np.arange(p, dtype=np.int64)
        member = nodes != starts[group]  # every node but its group's hub
        attrs = {"hubs": starts.tolist()}
        rows, cols = starts[group[member]], nodes[member]
        return finish(
            p,
            rows,
            cols,
            "hub",
            params,
            None,
            backend,
            ordered=True,
            graph_attrs=attrs,
            groups=sizes,
        )
    rng, entropy = seeded_rng(seed)
    hubs = np.sort(rng.choice(p, size=n_hubs, replace=False)).astype(np.int64)
    rows = np.repeat(hubs, p)
    cols = np.tile(np.arange(p, dtype=np.int64), n_hubs)
    attrs = {"hubs": hubs.tolist()}
    return finish(p, rows, cols, "hub", params, entropy, backend, graph_attrs=attrs)


def _cluster_sizes(p: int, n_groups: int | None, sizes: Sequence[int] | None) -> list[int]:
    if sizes is None:
        n_groups = _huge_groups(p) if n_groups is None else check_count(n_groups, "n_groups", 1, p)
        return equal_groups(p, n_groups)
    if isinstance(sizes, str) or not isinstance(sizes, Sequence) or not sizes:
        raise InvalidOptionError(
            f"sizes must be a non-empty list of group sizes summing to p, got {written(sizes)}."
        )
    out = [check_count(s, "each group size") for s in sizes]
    if sum(out) != p:
        raise InvalidOptionError(f"sizes must sum to p = {p}, got {out} (sum {sum(out)}).")
    if n_groups is not None and n_groups != len(out):
        raise InvalidOptionError(
            f"n_groups = {written(n_groups)} but sizes gives {len(out)} groups; give one of them."
        )
    return out


def _within_probabilities(prob: object, p: int, n_groups: int) -> list[float]:
    if prob is None:  # huge.generator's default
        return [0.3 if p / n_groups > 30 else min(1.0, 6 * n_groups / p)] * n_groups
    if isinstance(prob, numbers.Real) and not isinstance(prob, bool):
        return [check_probability(prob, "prob")] * n_groups
    if isinstance(prob, Sequence) and not isinstance(prob, str) and len(prob) == n_groups:
        return [check_probability(x, "each within-group prob") for x in prob]
    raise InvalidOptionError(
        f"prob must be a probability or a list of {n_groups} (one per group), got {written(prob)}."
    )


@family_doc
def cluster(
    p: int,
    n_groups: int | None = None,
    prob: float | Sequence[float] | None = None,
    *,
    prob_between: float = 0.0,
    sizes: Sequence[int] | None = None,
    seed: SeedLike = None,
    backend: str = DEFAULT_BACKEND,
) -> Any:
    """Cluster graph (stochastic block model): dense groups, sparse links between them.

    The nodes ``0..p-1`` are split in order into groups (``sizes``, or
    ``n_groups`` groups as even as possible, ``p % n_groups`` of them, the
    last ones, one node larger, as R huge and BDgraph split them). Each pair
    of nodes is linked independently with probability ``prob`` (its group's)
    when both are in the same group and ``prob_between`` otherwise. With
    ``prob_between=0`` (the default) this is R ``huge.generator(d = p,
    graph = "cluster", g = n_groups, prob = prob)`` and
    ``BDgraph::graph.sim(p, graph = "cluster", prob = prob, class = n_groups)``;
    a ``prob_between > 0`` makes it the general stochastic block model.

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    n_groups
        Number of groups (1..p). Default: huge's ``ceiling(p/20)`` if p > 40,
        else 2 (or ``len(sizes)``).
    prob
        Edge probability within a group, in [0, 1], or a list with one per
        group (as BDgraph's ``prob`` vector). Default: huge's, 0.3 if
        ``p / n_groups > 30``, else ``min(1, 6 n_groups / p)``.
    prob_between
        Edge probability between groups, in [0, 1].
    sizes
        Group sizes (positive, summing to p), in node order, instead of
        ``n_groups`` even groups.
    {seed}
    {backend}

    Returns
    -------
    networkx.Graph or the backend's graph type
        Nodes ``0..p-1``, each with its ``"group"`` attribute (networkx,
        igraph); ``G.graph`` records ``family``, ``parameters`` and ``seed``.

    Notes
    -----
    Up to 2**20 node pairs, one uniform draw per pair ``i < j``, in row-major
    order, decides the edge (``u < prob``): the same law as huge's, which
    compares the sum of two U(0, 0.5) draws with a transformed probability,
    but not its random stream. For more pairs, time and memory are O(p +
    edges): the within-group pairs of all groups, taken one after the other,
    are drawn by geometric skipping at the largest within probability and
    thinned to each group's, and the pairs between groups by skipping over
    all pairs at ``prob_between``, the within-group ones dropped.

    Examples
    --------
    >>> from spdgraph.graphs import cluster
    >>> g = cluster(12, 3, prob=1.0, seed=0)           # three 4-cliques
    >>> g.number_of_edges(), g.nodes[5]["group"]
    (18, 1)
    >>> cluster(12, sizes=[2, 10], prob=0.0, prob_between=1.0, seed=0).number_of_edges()
    20
    """
    p = check_count(p, "p")
    group_sizes = _cluster_sizes(p, n_groups, sizes)
    within = _within_probabilities(prob, p, len(group_sizes))
    between = check_probability(prob_between, "prob_between")
    expected = between * p * (p - 1) / 2 + sum(
        q * s * (s - 1) / 2 for q, s in zip(within, group_sizes, strict=True)
    )
    backend = resolve_backend(backend)
    pairwise = check_pairs("cluster", p) <= _sparse.PAIRWISE_PAIRS
    check_graph_memory("cluster", p, expected, pairs=pairwise, backend=backend)
    rng, entropy = seeded_rng(seed)
    group = np.repeat(np.arange(len(group_sizes)), group_sizes)
    if pairwise:
        rows, cols = np.triu_indices(p, k=1)
        threshold = np.where(group[rows] == group[cols], np.asarray(within)[group[rows]], between)
        keep = rng.random(rows.size) < threshold
        rows, cols = rows[keep], cols[keep]
    else:
        rows, cols = _sbm_edges(rng, p, group, group_sizes, within, between)
    params = {
        "n_groups": len(group_sizes),
        "prob": within[0] if len(set(within)) == 1 else within,
        "prob_between": between,
        "sizes": group_sizes,
    }
    return finish(
        p, rows, cols, "cluster", params, entropy, backend, ordered=pairwise, groups=group_sizes
    )


def _sbm_edges(
    rng: np.random.Generator,
    p: int,
    group: np.ndarray,
    sizes: Sequence[int],
    within: Sequence[float],
    between: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The stochastic block model's edges in O(p + edges): skipping, thinning, unranking."""
    size = np.asarray(sizes, dtype=np.int64)
    q = np.asarray(within, dtype=np.float64)
    n_pairs = size * (size - 1) // 2
    first_pair = np.concatenate([[0], np.cumsum(n_pairs)])  # each group's pairs, in turn
    first_node = np.concatenate([[0], np.cumsum(size)])
    top = float(q.max())
    kept = bernoulli_positions(rng, int(first_pair[-1]), top)
    k = np.searchsorted(first_pair, kept, side="right") - 1  # the group of each pair
    if top > 0.0 and np.any(q < top):  # thin each group's pairs to its own probability
        accept = rng.random(kept.size) < q[k] / top
        kept, k = kept[accept], k[accept]
    i, j = unrank_upper(kept - first_pair[k], size[k])
    rows, cols = [i + first_node[k]], [j + first_node[k]]
    if between > 0.0:
        bi, bj = bernoulli_edges(rng, p, between)
        across = group[bi] != group[bj]
        rows.append(bi[across])
        cols.append(bj[across])
    return np.concatenate(rows), np.concatenate(cols)


@family_doc
def star(p: int, center: int = 0, *, backend: str = DEFAULT_BACKEND) -> Any:
    """Star graph: one centre linked to every other node.

    R ``BDgraph::graph.sim(p, graph = "star")``, which draws the centre at
    random; here it is ``center`` (pass ``int(rng.integers(p))`` for a random
    one). Also huge's ``hub`` graph with a single group.

    Parameters
    ----------
    p
        Number of nodes (>= 1).
    center
        The centre node, in ``0..p-1``.
    {backend}

    Returns
    -------
    networkx.Graph or the backend's graph type
        Nodes ``0..p-1``: the centre has degree ``p - 1``, every other node 1.

    Examples
    --------
    >>> from spdgraph.graphs import star
    >>> g = star(6, center=2)
    >>> g.degree[2], g.degree[0], g.number_of_edges()
    (5, 1, 5)
    """
    p = check_count(p, "p")
    center = check_count(center, "center", 0, p - 1)
    backend = resolve_backend(backend)
    check_graph_memory("star", p, p, backend=backend)
    others = np.arange(p, dtype=np.int64)
    rows = np.full(p, center, dtype=np.int64)
    return finish(p, rows, others, "star", {"center": center}, None, backend)
