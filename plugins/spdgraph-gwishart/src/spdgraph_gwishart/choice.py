"""Which sampler ``algorithm="auto"`` uses, why, and the draws with that record in ``attrs``.

The choice depends on (G, b, D) and ``min_acceptance`` only, never on the
seed: decomposable graph -> ``"chordal"``; otherwise the accept-reject
sampler's acceptance is estimated from a pilot (:func:`spdgraph_gwishart.exact.exact_plan`)
and ``"exact"`` is used when it is at least ``min_acceptance``, else
``"mcmc"`` (:mod:`spdgraph_gwishart.mcmc`), announced by a
:class:`GWishartMCMCWarning`.

:func:`sample` is ``spdgraph.sample(graph, "gwishart", kind="precision",
normalize=False, ...)`` plus this record in ``attrs`` (``gwishart_*`` keys:
the sampler, the estimated acceptance and fill-in, and for MCMC the burn-in,
thinning, the pilot's integrated autocorrelation time and the effective
sample size).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

import spdgraph
from spdgraph.graphs import perfect_elimination_order
from spdgraph_gwishart.exact import exact_plan
from spdgraph_gwishart.mcmc import mcmc_plan
from spdgraph_gwishart.scale import scale_matrix

__all__ = ["AlgorithmChoice", "GWishartMCMCWarning", "choose_algorithm", "plan", "sample"]


class GWishartMCMCWarning(UserWarning):
    """``algorithm="auto"`` fell back to block Gibbs MCMC (exact only in the limit)."""


@dataclass(frozen=True)
class AlgorithmChoice:
    """The sampler chosen for (G, b, D) and the numbers behind the choice.

    Attributes
    ----------
    algorithm
        ``"chordal"``, ``"exact"`` or ``"mcmc"``.
    acceptance, acceptance_se
        Estimated acceptance probability of the accept-reject sampler and its
        standard error (1 and 0 on a decomposable graph).
    n_fill, free_rows
        Fill-in entries of the minimum fill-in order, rows without fill-in.
    burn_in, tau
        MCMC only (else None): sweeps per draw and the pilot chain's
        integrated autocorrelation time, in sweeps.
    """

    algorithm: str
    acceptance: float
    acceptance_se: float
    n_fill: int
    free_rows: int
    burn_in: int | None = None
    tau: float | None = None

    def attrs(self, n_draws: int) -> dict[str, Any]:
        """The record for ``attrs`` (serializable numbers and strings)."""
        out: dict[str, Any] = {
            "gwishart_algorithm": self.algorithm,
            "gwishart_exact": int(self.algorithm != "mcmc"),
            "gwishart_acceptance": self.acceptance,
            "gwishart_acceptance_se": self.acceptance_se,
            "gwishart_fill_in": self.n_fill,
            "gwishart_rows_without_rejection": self.free_rows,
        }
        if self.algorithm == "mcmc":
            assert self.burn_in is not None and self.tau is not None
            out.update(
                gwishart_burn_in=self.burn_in,
                gwishart_thin=self.burn_in,
                gwishart_tau=self.tau,
                # one chain per matrix, each burn_in >= 10 tau sweeps from its start:
                # the draws are independent, so the ESS is the number of draws
                gwishart_ess=float(n_draws),
                gwishart_chains=n_draws,
            )
        return out


@functools.lru_cache(maxsize=64)
def _decomposable(p: int, packed: bytes) -> bool:
    a = np.unpackbits(np.frombuffer(packed, dtype=np.uint8), count=p * p).reshape(p, p)
    return perfect_elimination_order(a.astype(bool)) is not None


def choose_algorithm(
    adjacency: np.ndarray,
    b: float,
    D: np.ndarray,
    *,
    min_acceptance: float = 1e-3,
    burn_in: int | None = None,
    algorithm: str = "auto",
) -> AlgorithmChoice:
    """The sampler for (G, b, D): see the module docstring (cached by content).

    Examples
    --------
    >>> import networkx as nx
    >>> a = nx.to_numpy_array(nx.cycle_graph(6), dtype=bool)
    >>> choice = choose_algorithm(a, 3.0, np.eye(6))
    >>> choice.algorithm, choice.n_fill, choice.acceptance > 0.5
    ('exact', 3, True)
    """
    p = adjacency.shape[0]
    if algorithm == "chordal" and _decomposable(p, np.packbits(adjacency).tobytes()):
        return AlgorithmChoice("chordal", 1.0, 0.0, 0, p)
    ex = exact_plan(adjacency, b, D)
    if algorithm == "auto" and ex.n_fill == 0:
        # greedy minimum fill-in finds a perfect elimination order on exactly the
        # decomposable graphs (a simplicial node is always left): no second search
        return AlgorithmChoice("chordal", 1.0, 0.0, 0, p)
    chosen = algorithm
    if algorithm == "auto":
        chosen = "exact" if ex.acceptance >= min_acceptance else "mcmc"
    if chosen != "mcmc":
        return AlgorithmChoice(chosen, ex.acceptance, ex.acceptance_se, ex.n_fill, ex.free_rows)
    mc = mcmc_plan(adjacency, b, D, burn_in)
    return AlgorithmChoice(
        "mcmc", ex.acceptance, ex.acceptance_se, ex.n_fill, ex.free_rows, mc.burn_in, mc.tau
    )


def mcmc_note(choice: AlgorithmChoice) -> str:
    """The warning's text when ``auto`` falls back to MCMC."""
    return (
        f"gwishart algorithm='auto': the exact accept-reject sampler's estimated acceptance "
        f"is {choice.acceptance:.2g} (below min_acceptance), so these draws come from the "
        f"clique-block Gibbs sampler, exact only in the limit: each matrix is the end of its "
        f"own chain of burn_in={choice.burn_in} sweeps (the pilot chain's integrated "
        f"autocorrelation time is {choice.tau:.2g} sweeps). spdgraph_gwishart.sample(...) "
        "records this in attrs; pass algorithm='mcmc' (and burn_in) to choose it explicitly, "
        "or algorithm='exact' to insist on exact draws."
    )


def plan(graph: object, b: float = 3.0, D: object = None, **options: Any) -> AlgorithmChoice:
    """The :class:`AlgorithmChoice` ``spdgraph.sample(graph, "gwishart", ...)`` makes.

    ``options``: ``algorithm``, ``min_acceptance``, ``burn_in``.

    Examples
    --------
    >>> import networkx as nx
    >>> plan(nx.path_graph(4)).algorithm
    'chordal'
    """
    data = spdgraph.adapt_graph(graph)
    a = np.asarray(data.adjacency, dtype=bool)
    algorithm = options.get("algorithm", "auto")
    if algorithm == "lenkoski":
        raise spdgraph.InvalidOptionError("plan() describes the exact samplers, not 'lenkoski'.")
    return choose_algorithm(
        a,
        float(b),
        scale_matrix(D, a.shape[0]),
        min_acceptance=options.get("min_acceptance", 1e-3),
        burn_in=options.get("burn_in"),
        algorithm=algorithm,
    )


def sample(
    graph: object, *, size: int | None = None, seed: object = None, **options: Any
) -> xr.DataArray:
    """``W_G(b, D)`` draws with the sampler's record in ``attrs`` (``gwishart_*`` keys).

    Same as ``spdgraph.sample(graph, "gwishart", kind="precision",
    normalize=False, size=size, seed=seed, **options)``; the MCMC fallback's
    warning is replaced by the record (burn-in, thinning, autocorrelation
    time, ESS).

    Examples
    --------
    >>> import networkx as nx
    >>> k = sample(nx.cycle_graph(5), size=3, seed=0)
    >>> k.attrs["gwishart_algorithm"], k.attrs["gwishart_fill_in"], float(k[0, 0, 2])
    ('exact', 2, 0.0)
    """
    import warnings

    choice = None
    if options.get("algorithm", "auto") != "lenkoski":
        keys = ("b", "D", "algorithm", "min_acceptance", "burn_in")
        choice = plan(graph, **{k: v for k, v in options.items() if k in keys})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GWishartMCMCWarning)
        out = spdgraph.sample(
            graph,
            "gwishart",
            size=size,
            seed=seed,  # type: ignore[arg-type]
            kind="precision",
            normalize=False,
            **options,
        )
    n = 1 if size is None else int(size)
    if choice is not None:
        out.attrs.update(choice.attrs(n))
    else:
        out.attrs.update(gwishart_algorithm="lenkoski", gwishart_exact=0)
    return out
