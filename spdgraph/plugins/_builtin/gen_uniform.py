"""Built-in generator plugin: uniform correlation matrices (``uniform``, ``port_chol``).

``method="uniform"`` samples the uniform distribution on the correlation
matrices whose zeros are exactly the non-edges of a *chordal* graph, as gmat's
``chol_mh`` / ``mh_u`` do: the lower Cholesky factor in a perfect elimination
order keeps the graph's zeros, its rows are independent points of
hemispheres with known densities (see :mod:`spdgraph._kernels.chol_uniform`),
sampled by Metropolis-Hastings (``sampler="mh"``, gmat's algorithm), exactly
(``sampler="exact"``) or, for the complete graph, by the onion method
(``sampler="onion"``, LKJ with eta = 1).

``method="port_chol"`` (gmat's ``port_chol``) accepts any graph: the factor
is sampled as above on a chordal cover (:func:`networkx.complete_to_chordal_graph`)
and then partially orthogonalized on the graph itself, which removes the
fill-in edges (the PO kernel of ``method="po"``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from spdgraph._kernels import chol_uniform as ku
from spdgraph._kernels.blas import one_blas_thread
from spdgraph._kernels.numerics import unit_diagonal
from spdgraph._kernels.po.batch import DEFAULT_RESIDUAL_TOLERANCE, po_batch
from spdgraph.errors import GraphError, InvalidOptionError
from spdgraph.plugins._builtin._po_options import RESIDUAL_TOLERANCE_OPTION
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.options import OptionSpec
from spdgraph.plugins.types import EntrySampler, GeneratorSpec, WarmupStep

#: Metropolis-Hastings steps per row before the state is kept (gmat's ``h`` is 100).
DEFAULT_BURN_IN = 500
#: Size of a proposal: noise of standard deviation ``step / sqrt(k (1 + power))`` per
#: coordinate of a row with ``k`` entries (acceptance about 0.4 to 0.6).
DEFAULT_STEP = 1.5
SAMPLERS = ("mh", "exact", "onion")


def chordal_order(adjacency: np.ndarray) -> np.ndarray:
    """A perfect elimination order of the graph, or a GraphError when it is not chordal."""
    order = ku.perfect_elimination_order(adjacency)
    if order is None:
        raise GraphError(
            "method 'uniform' needs a chordal graph (every cycle of 4 or more nodes has "
            "a chord) and this graph is not chordal. Use method='port_chol' (uniform on a "
            "chordal cover, then partial orthogonalization of the fill-in edges), or "
            "triangulate the graph yourself with networkx.complete_to_chordal_graph(G)."
        )
    return order


def _row_sampler(sampler: str, burn_in: int, step: float, portable: bool = False) -> Any:
    """``draw(rng, k, power) -> row``: one hemisphere point with density ``x[-1]^power``.

    ``portable``: the same random numbers, drawn in the same order, through
    kernels whose bits do not depend on the CPU (no BLAS, no SIMD logarithms).
    """

    def mh(rng: np.random.Generator, k: int, power: float) -> np.ndarray:
        # start: the pole coordinate at its mean under the target, a uniform direction
        # (gmat starts uniform on the hemisphere, far from the target for long rows)
        start = ku.exact_row((power + 1.0) / (power + k), rng.standard_normal(k - 1), portable)
        # the target's pole coordinate has spread about 1 / sqrt(k (1 + power))
        noise = rng.standard_normal((burn_in, k)) * (step / np.sqrt(k * (1.0 + power)))
        uniforms = rng.random(burn_in)
        if portable:
            row, _ = ku.mh_hemisphere_portable(start, noise, uniforms, power)
        else:
            row, _ = ku.mh_hemisphere(start, noise, np.log(uniforms), power)
        return row

    def exact(rng: np.random.Generator, k: int, power: float) -> np.ndarray:
        pole2 = rng.beta((power + 1.0) / 2.0, (k - 1) / 2.0)
        return ku.exact_row(pole2, rng.standard_normal(k - 1), portable)

    return mh if sampler == "mh" else exact


def uniform_lowers(
    pattern: np.ndarray,
    order: np.ndarray,
    rngs: Sequence[np.random.Generator],
    *,
    sampler: str = "mh",
    burn_in: int = DEFAULT_BURN_IN,
    step: float = DEFAULT_STEP,
    portable: bool = False,
) -> Iterator[np.ndarray]:
    """The lower Cholesky factors (in elimination ``order``) of uniform correlation matrices.

    One per generator, in turn, each drawn from its own generator: ``F F^T``
    is uniform on the correlation matrices whose zeros are the non-edges of
    the chordal ``pattern`` (``order`` a perfect elimination order of it).
    ``sampler``, ``burn_in`` and ``step`` are the methods' options (``"mh"`` or
    ``"exact"``); ``portable``: CPU-independent kernels (:func:`_row_sampler`).
    """
    pa, powers = ku.earlier_neighbours(pattern, order)
    draw = _row_sampler(sampler, burn_in, step, portable)
    for rng in rngs:
        rows = []
        for r, parents in enumerate(pa):
            k = parents.size + 1
            rows.append(np.ones(1) if k == 1 else draw(rng, k, powers[r]))
        yield ku.assemble_lower(pa, rows)


def _onion(p: int, rng: np.random.Generator, portable: bool) -> np.ndarray:
    """One uniform ``p x p`` correlation matrix by the onion method (LKJ, eta = 1)."""
    if p == 1:
        return np.ones((1, 1))
    b = 1.0 + (p - 2) / 2.0
    r12 = rng.beta(b, b)
    ys = np.empty(p - 2)
    normals = []
    for k in range(2, p):
        ys[k - 2] = rng.beta(k / 2.0, b - (k - 1) / 2.0)
        normals.append(rng.standard_normal(k))
    with one_blas_thread():
        return ku.onion_correlation(r12, ys, normals, portable)


def _node_order(lower: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``F`` with ``F[order[r], order[c]] = lower[r, c]``: ``F F^T`` in node order."""
    factor = np.empty_like(lower)
    factor[np.ix_(order, order)] = lower
    return factor


def _correlation(
    lower: np.ndarray, order: np.ndarray, adjacency: np.ndarray, portable: bool
) -> np.ndarray:
    """``F F^T`` made exactly symmetric, unit diagonal, exact ``+0.0`` on non-edges.

    ``F`` is ``lower`` in node order; ``portable``: ``L L^T`` in fixed-order loops,
    then put in node order (the default multiplies ``F F^T`` with BLAS).
    """
    if portable:
        m = _node_order(ku.lower_product(lower, portable=True), order)
    else:
        factor = _node_order(lower, order)
        with one_blas_thread():
            m = factor @ factor.T
    m = unit_diagonal((m + m.T) / 2.0)
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    m[nonedge] = 0.0
    return m


def _check_onion(adjacency: np.ndarray, onion: bool) -> None:
    p = adjacency.shape[0]
    if onion and np.count_nonzero(adjacency) != p * (p - 1):
        raise InvalidOptionError(
            "sampler='onion' of method 'uniform' samples complete graphs only (the onion "
            "method has no zeros); use sampler='mh' or sampler='exact' for this graph."
        )


def generate_uniform_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator],
    entries: EntrySampler,
    portable: bool = False,
    **chain: Any,
) -> np.ndarray:
    """Uniform correlation matrices Markov to a chordal graph, matrix ``k`` from ``rngs[k]``.

    ``chain``: the options ``sampler`` (``"mh"``, ``"exact"`` or ``"onion"``),
    ``burn_in`` and ``step``. ``entries`` is not used: the distribution is
    fixed (uniform). ``portable``: the same draws through CPU-independent
    kernels (``spdgraph.sample(..., portable=True)``). Raises
    :class:`~spdgraph.errors.GraphError` for a non-chordal graph.
    """
    del entries  # the target distribution is fixed
    adjacency = np.asarray(adjacency, dtype=bool)
    p = adjacency.shape[0]
    onion = chain.get("sampler") == "onion"
    _check_onion(adjacency, onion)
    order = chordal_order(adjacency)
    out = np.empty((len(rngs), p, p))
    with one_blas_thread():  # once for the block: the same bits on any thread setting
        if onion:
            for k, rng in enumerate(rngs):
                out[k] = _onion(p, rng, portable)
        else:
            lowers = uniform_lowers(adjacency, order, rngs, portable=portable, **chain)
            for k, lower in enumerate(lowers):
                out[k] = _correlation(lower, order, adjacency, portable)
    return out


def generate_uniform(
    adjacency: np.ndarray, *, rng: np.random.Generator, entries: EntrySampler, **options: Any
) -> np.ndarray:
    """One uniform correlation matrix (see :func:`generate_uniform_batch`)."""
    return generate_uniform_batch(adjacency, rngs=[rng], entries=entries, **options)[0]


def chordal_cover(adjacency: np.ndarray, triangulation: str) -> tuple[np.ndarray, np.ndarray]:
    """``(cover, order)``: a chordal cover of the graph and a perfect elimination order of it.

    ``triangulation="min_degree"``: the elimination game with the minimum-degree
    heuristic (:func:`spdgraph._kernels.chordal.min_degree_triangulation`);
    ``"networkx"``: :func:`networkx.complete_to_chordal_graph` (MCS-M, a minimal
    triangulation; slow above a few hundred nodes). A chordal graph is its own cover.
    """
    order = ku.perfect_elimination_order(adjacency)
    if order is not None:
        return adjacency, order
    if triangulation == "min_degree":
        return ku.min_degree_triangulation(adjacency)
    import networkx as nx

    graph = nx.from_numpy_array(adjacency.astype(np.int8))
    cover_graph, _ = nx.complete_to_chordal_graph(graph)
    cover = nx.to_numpy_array(cover_graph, nodelist=range(adjacency.shape[0]), dtype=bool)
    return cover, chordal_order(cover)


def generate_port_chol_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator],
    entries: EntrySampler,
    residual_tolerance: float = DEFAULT_RESIDUAL_TOLERANCE,
    triangulation: str = "min_degree",
    portable: bool = False,
    **chain: Any,
) -> np.ndarray:
    """gmat's ``port_chol``: a uniform factor on a chordal cover, then PO on the graph.

    The factor ``F`` (``F F^T`` uniform on the cover's correlation matrices,
    rows in node order; ``chain``: ``sampler``, ``burn_in`` and ``step`` as for
    :func:`generate_uniform_batch`, without the onion) is partially
    orthogonalized by the kernel of ``method="po"``; the non-edges of the
    graph are exact zeros, the fill-in edges of the cover become zeros that
    way. ``portable``: CPU-independent draws and PO kernels.
    """
    del entries  # the factor's distribution is fixed
    adjacency = np.asarray(adjacency, dtype=bool)
    p = adjacency.shape[0]
    if chain.get("sampler") == "onion":
        raise InvalidOptionError(
            "method 'port_chol' takes sampler='mh' or sampler='exact'; the onion method "
            "is method='uniform' on a complete graph."
        )
    cover, order = chordal_cover(adjacency, triangulation)
    factors = np.empty((len(rngs), p, p))
    for k, lower in enumerate(uniform_lowers(cover, order, rngs, portable=portable, **chain)):
        factors[k] = _node_order(lower, order)
    return po_batch(
        adjacency,
        rngs=None,
        entries=None,
        factors=factors,
        residual_tolerance=residual_tolerance,
        portable=portable,
    )


def generate_port_chol(
    adjacency: np.ndarray, *, rng: np.random.Generator, entries: EntrySampler, **options: Any
) -> np.ndarray:
    """One ``port_chol`` matrix (see :func:`generate_port_chol_batch`)."""
    return generate_port_chol_batch(adjacency, rngs=[rng], entries=entries, **options)[0]


def _chain_options(samplers: tuple[str, ...]) -> dict[str, OptionSpec]:
    return {
        "sampler": OptionSpec(
            "mh",
            str,
            choices=samplers,
            doc="mh: gmat's Metropolis-Hastings; exact: independent rows; onion: LKJ",
        ),
        "burn_in": OptionSpec(
            DEFAULT_BURN_IN, int, low=0, doc="Metropolis-Hastings steps per row (sampler='mh')"
        ),
        "step": OptionSpec(
            DEFAULT_STEP,
            float,
            low=0.0,
            low_inclusive=False,
            high=10.0,
            doc="angular size of a Metropolis-Hastings proposal (sampler='mh')",
        ),
    }


def _uniform_kernels_cached() -> bool | None:
    """Whether the Metropolis-Hastings kernel is in Numba's disk cache (None when unknown)."""
    from spdgraph._kernels.cache import on_disk

    return on_disk(ku.mh_hemisphere)


#: The warmup steps' graphs: a path and a cycle on 6 nodes.
_PATH_6 = np.eye(6, k=1, dtype=bool) | np.eye(6, k=-1, dtype=bool)
_CYCLE_6 = _PATH_6 | np.eye(6, k=5, dtype=bool) | np.eye(6, k=-5, dtype=bool)


def _warmup(method: str, graph: np.ndarray) -> tuple[WarmupStep, ...]:
    """``method``'s warmup steps on ``graph``: the default kernels, then the portable ones."""
    return (
        WarmupStep(method, lambda sample: sample(graph, method, seed=1)),
        WarmupStep(
            f"{method}, portable kernels",
            lambda sample: sample(graph, method, seed=1, portable=True),
            portable=True,
        ),
    )


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``uniform`` and ``port_chol``."""
    port_options: dict[str, OptionSpec] = _chain_options(("mh", "exact"))
    port_options["residual_tolerance"] = RESIDUAL_TOLERANCE_OPTION
    port_options["triangulation"] = OptionSpec(
        "min_degree",
        str,
        choices=("min_degree", "networkx"),
        doc="chordal cover: minimum-degree elimination or networkx.complete_to_chordal_graph",
    )
    # both compile the Metropolis-Hastings and onion kernels on their first call, and
    # both have portable kernels (portable=True: the same bits on every CPU)
    compiled: dict[str, Any] = {
        "compiles": True,
        "kernels_cached": _uniform_kernels_cached,
        "portable": True,
    }
    return [
        GeneratorSpec(
            name="uniform",
            function=generate_uniform,
            description="uniform on correlation matrices of a chordal graph (gmat chol_mh)",
            options=_chain_options(SAMPLERS),
            batch_function=generate_uniform_batch,
            # the factor, the product and its transpose sum (fitted to the peak
            # resident memory measured in a fresh process, p = 2000 to 4000, 1 and 4
            # matrices: benchmarks/bench_memory_guard.py)
            work_per_matrix=0.25,
            work_per_call=3.75,
            **compiled,
            warmup=_warmup("uniform", _PATH_6),
        ),
        GeneratorSpec(
            name="port_chol",
            function=generate_port_chol,
            description="uniform on a chordal cover, then PO of the fill-in (gmat port_chol)",
            options=port_options,
            batch_function=generate_port_chol_batch,
            # the factors and their coordinates; the PO kernel's temporaries (fitted
            # to the peak resident memory measured in a fresh process, p = 2000 to
            # 3000, 1 and 4 matrices: benchmarks/bench_memory_guard.py)
            work_per_matrix=1.8,
            work_per_call=1.35,
            **compiled,
            warmup=_warmup("port_chol", _CYCLE_6),
        ),
    ]
