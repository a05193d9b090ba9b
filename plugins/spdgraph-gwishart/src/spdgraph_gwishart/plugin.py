"""The plugin module named by the ``spdgraph`` entry point: ``method="gwishart"``.

``K ~ W_G(b, D)`` (BDgraph's parametrization) has density proportional to
``|K|^((b - 2) / 2) exp(-tr(D K) / 2)`` on the SPD matrices with zeros on the
non-edges of G; for the complete graph it is the Wishart law with
``b + p - 1`` degrees of freedom and scale ``D^-1``, ``E[K] = (b + p - 1) D^-1``.

The default ``algorithm="auto"`` is exact wherever it can be
(:func:`spdgraph_gwishart.choose_algorithm`): the chordal row sampler on a
decomposable graph, the accept-reject sampler of
:mod:`spdgraph_gwishart.exact` on any other graph, and, when its estimated
acceptance is below ``min_acceptance``, the clique-block Gibbs sampler of
:mod:`spdgraph_gwishart.mcmc` (exact in the limit) with a
:class:`GWishartMCMCWarning`. ``algorithm="lenkoski"`` (the former default, as
R BDgraph's ``rgwish``) warns: its joint law is not W_G.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import spdgraph
from spdgraph_gwishart.scale import MAX_B, MAX_FLOPS, _check_number, scale_matrix
from spdgraph_gwishart.sparse import WORK_PER_ENTRY, gwishart_sparse

if TYPE_CHECKING:
    from spdgraph_gwishart.lenkoski import wishart_bartlett

# The samplers (numba kernels, scipy, xarray) are imported by the call that uses them:
# loading the plugin (``spdgraph --help`` loads every plugin) stays light.

__all__ = [
    "ALGORITHMS",
    "DEFAULTS",
    "OPTIONS",
    "GWishartLenkoskiWarning",
    "check_cost",
    "gwishart",
    "scale_matrix",
    "wishart_bartlett",
]

#: The samplers ``algorithm`` chooses from.
ALGORITHMS = ("auto", "chordal", "exact", "mcmc", "lenkoski")


#: Options of ``method="gwishart"`` and their defaults.
DEFAULTS: dict[str, Any] = {
    "b": 3.0,
    "algorithm": "auto",
    "D": None,
    "min_acceptance": 1e-3,
    "burn_in": None,
    "tol": 1e-12,
    "max_iter": 10_000,
    "residual_tolerance": 1e-6,
    "max_flops": MAX_FLOPS,
}


class GWishartLenkoskiWarning(UserWarning):
    """``algorithm="lenkoski"``: the draws do not follow W_G(b, D) jointly."""


#: The declared options: spdgraph checks every value a user passes against these
#: before any work (``D`` depends on p, so :func:`scale_matrix` checks it at the call).
OPTIONS: dict[str, spdgraph.OptionSpec] = {
    "b": spdgraph.OptionSpec(
        DEFAULTS["b"], float, low=2.0, low_inclusive=False, high=MAX_B, doc="degrees of freedom"
    ),
    "algorithm": spdgraph.OptionSpec(
        DEFAULTS["algorithm"], str, choices=ALGORITHMS, doc="the sampler"
    ),
    "D": spdgraph.OptionSpec(
        DEFAULTS["D"], None, doc="scale matrix: None (identity), a number c (c I) or p x p SPD"
    ),
    "min_acceptance": spdgraph.OptionSpec(
        DEFAULTS["min_acceptance"],
        float,
        low=0.0,
        high=1.0,
        doc="auto: below this estimated acceptance, block Gibbs MCMC (with a warning)",
    ),
    "burn_in": spdgraph.OptionSpec(
        DEFAULTS["burn_in"], int, low=1, doc="MCMC sweeps per draw (None: 10 pilot tau, >= 50)"
    ),
    "tol": spdgraph.OptionSpec(
        DEFAULTS["tol"], float, low=0.0, low_inclusive=False, doc="lenkoski: convergence"
    ),
    "max_iter": spdgraph.OptionSpec(
        DEFAULTS["max_iter"], int, low=1, doc="lenkoski: largest number of sweeps"
    ),
    "residual_tolerance": spdgraph.OptionSpec(
        DEFAULTS["residual_tolerance"],
        float,
        low=0.0,
        low_inclusive=False,
        doc="lenkoski: largest relative residual accepted on a non-edge",
    ),
    "max_flops": spdgraph.OptionSpec(
        DEFAULTS["max_flops"],
        float,
        low=0.0,
        low_inclusive=False,
        doc="largest estimated work (flops) of one matrix: exact accept-reject "
        "(proposal cost / acceptance), MCMC (burn_in x sweep cost) or sparse=True (the "
        "chordal rows' cost); above it the call is refused before any draw",
    ),
}


def _lenkoski_warning() -> None:
    warnings.warn(
        "gwishart algorithm='lenkoski' (Lenkoski 2013, as R BDgraph's rgwish) does not "
        "draw from W_G(b, D) jointly on graphs that are not complete (its marginals are "
        "right, the joint law is not: e.g. correlated diagonal entries on a graph without "
        "edges); use the default algorithm='auto' for exact draws.",
        GWishartLenkoskiWarning,
        stacklevel=5,
    )


def gwishart(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator,
    entries: spdgraph.EntrySampler,
    b: float = DEFAULTS["b"],
    algorithm: str = DEFAULTS["algorithm"],
    D: Any = DEFAULTS["D"],
    min_acceptance: float = DEFAULTS["min_acceptance"],
    burn_in: int | None = DEFAULTS["burn_in"],
    tol: float = DEFAULTS["tol"],
    max_iter: int = DEFAULTS["max_iter"],
    residual_tolerance: float = DEFAULTS["residual_tolerance"],
    max_flops: float = DEFAULTS["max_flops"],
) -> np.ndarray:
    """One G-Wishart draw ``K ~ W_G(b, D)`` with exact zeros on non-edges.

    ``algorithm``:

    * ``"auto"`` (default): ``"chordal"`` on a decomposable graph, else
      ``"exact"``, unless its estimated acceptance is below ``min_acceptance``:
      then ``"mcmc"``, with a :class:`GWishartMCMCWarning` stating the burn-in
      and the pilot's autocorrelation time;
    * ``"chordal"``: exact, independent rows (:mod:`spdgraph_gwishart.chordal`);
      decomposable graphs only;
    * ``"exact"``: exact accept-reject on any graph (:mod:`spdgraph_gwishart.exact`);
    * ``"mcmc"``: the end of a clique-block Gibbs chain of ``burn_in`` sweeps
      (:mod:`spdgraph_gwishart.mcmc`), exact in the limit;
    * ``"lenkoski"``: Lenkoski (2013) as R BDgraph's ``rgwish``
      (:mod:`spdgraph_gwishart.lenkoski`); warns, as its joint law is not W_G.

    Every loop is bounded before it starts: the estimated work of one matrix
    (exact: a proposal's flops over the estimated acceptance; MCMC: ``burn_in``
    sweeps of known cost) above ``max_flops`` (default 2e10, seconds of
    compute) is refused with an :class:`spdgraph.InvalidOptionError` naming
    the option to change.

    ``entries`` is not used: the law fixes the distribution of every draw.
    The draw is an unnormalized precision matrix: call
    ``spdgraph.sample(g, "gwishart", kind="precision", normalize=False)``.

    Examples
    --------
    >>> import numpy as np
    >>> adjacency = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> k = gwishart(adjacency, rng=np.random.default_rng(1), entries=None)
    >>> k[0, 2]
    np.float64(0.0)
    """
    given = {"b": b, "algorithm": algorithm, "D": D, "min_acceptance": min_acceptance,
             "burn_in": burn_in, "tol": tol, "max_iter": max_iter,
             "residual_tolerance": residual_tolerance, "max_flops": max_flops}  # fmt: skip
    draw, _ = _sampler(adjacency, given)
    return draw(rng)


def _sampler(
    adjacency: np.ndarray, given: Mapping[str, Any]
) -> tuple[Callable[[np.random.Generator], np.ndarray], tuple[float, np.ndarray] | None]:
    """The options checked, the sampler chosen and its cost bounded, once per call: the
    function drawing one matrix from a Generator, and ``(b, D)`` when that is the exact
    accept-reject sampler (which also draws a stack from streams in bulk)."""
    from spdgraph_gwishart.choice import GWishartMCMCWarning, choose_algorithm, mcmc_note
    from spdgraph_gwishart.chordal import chordal_gwishart
    from spdgraph_gwishart.exact import accept_reject_gwishart
    from spdgraph_gwishart.lenkoski import lenkoski_gwishart
    from spdgraph_gwishart.mcmc import mcmc_gwishart

    options = {**DEFAULTS, **given}
    algorithm, burn_in, max_flops = options["algorithm"], options["burn_in"], options["max_flops"]
    min_acceptance = options["min_acceptance"]
    p = adjacency.shape[0]
    b = _check_number(options["b"], "b (degrees of freedom)", lower=2.0, upper=MAX_B)
    d = scale_matrix(options["D"], p)
    if algorithm not in ALGORITHMS:
        raise spdgraph.InvalidOptionError(
            f"gwishart option algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, "
            f"got {algorithm!r}."
        )

    def exact(rng: np.random.Generator) -> np.ndarray:
        return accept_reject_gwishart(adjacency, rng, b, d)[0]

    chosen_by = algorithm
    if algorithm == "auto":
        choice = choose_algorithm(adjacency, b, d, min_acceptance=min_acceptance, burn_in=burn_in)
        if choice.algorithm == "chordal":
            # the chordal row laws in the compiled kernel: a minimum fill-in order is a
            # perfect elimination order here, so no row has a rejection weight
            return exact, (b, d)
        algorithm = choice.algorithm
        chosen_by = "auto" if algorithm == "exact" else algorithm
        if algorithm == "mcmc":
            check_cost(adjacency, b, d, "mcmc", burn_in=burn_in, max_flops=max_flops)
            warnings.warn(mcmc_note(choice), GWishartMCMCWarning, stacklevel=4)
    if algorithm == "chordal":
        return (lambda rng: chordal_gwishart(adjacency, rng, b, d)), None
    if algorithm in ("exact", "mcmc"):
        check_cost(
            adjacency,
            b,
            d,
            chosen_by,
            burn_in=burn_in,
            min_acceptance=min_acceptance,
            max_flops=max_flops,
        )
    if algorithm == "exact":
        return exact, (b, d)
    if algorithm == "mcmc":
        return (lambda rng: mcmc_gwishart(adjacency, rng, b, d, burn_in)), None
    _lenkoski_warning()
    tol = _check_number(options["tol"], "tol", lower=0.0)
    residual_tolerance = _check_number(
        options["residual_tolerance"], "residual_tolerance", lower=0.0
    )
    max_iter = int(options["max_iter"])

    def lenkoski(rng: np.random.Generator) -> np.ndarray:
        return lenkoski_gwishart(
            adjacency,
            rng,
            b,
            d,
            tol=tol,
            max_iter=max_iter,
            residual_tolerance=residual_tolerance,
        )

    return lenkoski, None


def __getattr__(name: str) -> Any:
    """``wishart_bartlett`` (re-exported) is imported on first use."""
    if name == "wishart_bartlett":
        from spdgraph_gwishart.lenkoski import wishart_bartlett

        return wishart_bartlett
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_cost(
    adjacency: np.ndarray,
    b: float,
    d: np.ndarray,
    algorithm: str,
    *,
    burn_in: int | None = None,
    min_acceptance: float | None = None,
    max_flops: float = DEFAULTS["max_flops"],
) -> float:
    """The estimated flops of one matrix with ``algorithm``; refused above ``max_flops``.

    ``algorithm`` is ``"exact"`` (forced), ``"auto"`` (auto chose the exact
    sampler: the message names ``min_acceptance``) or ``"mcmc"``. Runs the
    (cached) pilot of the sampler, never a draw.

    Raises
    ------
    spdgraph.InvalidOptionError
        The estimate exceeds ``max_flops``; the message names the option to change.
    """
    from spdgraph_gwishart.exact import exact_plan
    from spdgraph_gwishart.mcmc import chain_flops, mcmc_plan

    max_flops = _check_number(max_flops, "max_flops", lower=0.0)
    if algorithm == "mcmc":
        mc = mcmc_plan(adjacency, b, d, burn_in)
        cost = chain_flops(mc, 1)
        if cost > max_flops:
            given = "the burn_in you passed" if burn_in is not None else "the automatic burn-in"
            raise spdgraph.InvalidOptionError(
                f"gwishart: one block Gibbs draw would take burn_in={mc.burn_in:,} sweeps "
                f"({given}) of about {mc.sweep_flops:.3g} flops each, an estimated "
                f"{cost:.3g} flops per matrix, above max_flops={max_flops:.3g}. Pass a "
                "smaller burn_in (the pilot's autocorrelation time is "
                f"{mc.tau:.3g} sweeps; 10x that is ample), or raise max_flops if you mean it."
            )
        return cost
    ex = exact_plan(adjacency, b, d)
    cost = ex.expected_flops()
    if cost > max_flops:
        why = (
            f"min_acceptance={min_acceptance:g} let algorithm='auto' choose it; raise "
            "min_acceptance (default 1e-3) so that auto falls back to block Gibbs MCMC"
            if algorithm == "auto"
            else "algorithm='exact' forced it; use algorithm='auto' (block Gibbs MCMC, with "
            "a warning, where exact acceptance is tiny) or algorithm='mcmc'"
        )
        raise spdgraph.InvalidOptionError(
            f"gwishart: the exact accept-reject sampler's estimated acceptance on this graph is "
            f"{ex.acceptance:.3g} (fill-in {ex.n_fill}), so one matrix would take an estimated "
            f"{cost:.3g} flops, above max_flops={max_flops:.3g}: {why}, or raise max_flops "
            "if you mean it."
        )
    return cost


def gwishart_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator],
    entries: spdgraph.EntrySampler,
    **options: Any,
) -> np.ndarray:
    """A stack of :func:`gwishart` draws, matrix k from ``rngs[k]`` alone (checked by the
    core a group at a time instead of one matrix at a time).

    The options are checked and the sampler chosen once per call. The exact sampler
    (``auto`` on most graphs, ``exact``) draws the whole stack in one compiled loop
    from the streams' PCG64 states when ``rngs`` gives them
    (:meth:`spdgraph.seeds.MatrixStreams.pcg64_states`, fresh streams): the same bits
    as one Generator per matrix, without its cost (about 10 us a matrix).
    """
    from spdgraph_gwishart.exact import accept_reject_from_states

    draw, exact = _sampler(adjacency, options)
    states = _fresh_states(rngs) if exact is not None else None
    if states is not None and exact is not None:
        return accept_reject_from_states(adjacency, states, *exact)
    p = adjacency.shape[0]
    out = np.empty((len(rngs), p, p))
    for k, rng in enumerate(rngs):
        out[k] = draw(rng)
    return out


def _fresh_states(rngs: Sequence[np.random.Generator]) -> np.ndarray | None:
    """The PCG64 states of streams not drawn from yet, or None (plain Generators)."""
    bulk = getattr(rngs, "pcg64_states", None)
    if bulk is None:
        return None
    try:
        return np.asarray(bulk(), dtype=np.uint64)
    except RuntimeError:  # streams already drawn from: use the Generators themselves
        return None


@spdgraph.hookimpl
def spdgraph_register_generators() -> list[spdgraph.Generator]:
    """Register ``gwishart``."""
    return [
        spdgraph.Generator(
            name="gwishart",
            function=gwishart,
            batch_function=gwishart_batch,
            description="G-Wishart W_G(b, D) precision draw, exact on every graph by default "
            "(chordal rows / accept-reject / block Gibbs when acceptance is tiny); for the "
            "draw itself call with kind='precision', normalize=False",
            options=dict(OPTIONS),
            intended_kind="precision",
            # the draw, Phi, Sigma (mcmc) and the solves' identities (fitted to the measured
            # peak: benchmarks/bench_memory_guard.py in spdgraph's repository), and the
            # core's check copy and graph share it no longer counts itself (+1.25)
            work_per_matrix=0.4,
            work_per_call=9.35,
            # decomposable graphs with a diagonal D: clique by clique, no fill
            sparse_function=gwishart_sparse,
            sparse_work_per_entry=WORK_PER_ENTRY,
        )
    ]
