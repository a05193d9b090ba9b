"""Exact-in-the-limit G-Wishart draws by clique-block Gibbs, for graphs with tiny acceptance.

Each matrix is the end of its own chain: started at ``diag((b + deg_i) / D_ii)``
(a point in the bulk of the law), run for ``burn_in`` sweeps of the block Gibbs
sampler of :mod:`spdgraph_gwishart._mcmc_kernels` over a clique cover, so
matrix k depends on its own random stream only and draws are independent of
each other. The integrated autocorrelation time of the chain (in sweeps) is
estimated up front by a pilot chain with a seed fixed by (G, b, D), and the
automatic burn-in is ``max(50, 10 tau)`` sweeps.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from dataclasses import dataclass

import numpy as np

import spdgraph
from spdgraph_gwishart._mcmc_kernels import gibbs_sweeps

__all__ = [
    "MCMCPlan",
    "chain_flops",
    "integrated_autocorrelation_time",
    "mcmc_gwishart",
    "mcmc_plan",
]

#: Sweeps of the pilot chain that estimates the autocorrelation time.
PILOT_SWEEPS = 200


@dataclass(frozen=True)
class MCMCPlan:
    """Cliques, their Bartlett factors, the pilot's autocorrelation time and the burn-in.

    ``sweep_flops`` is the estimated floating-point work of one sweep (the
    bound on a chain's cost, see :func:`chain_flops`); ``direct`` whether the
    clique updates factor ``K_RR`` (dense graphs) rather than update ``K^-1``
    (Woodbury: many small cliques).
    """

    kernel: tuple
    start: np.ndarray
    tau: float
    burn_in: int
    n_cliques: int
    sweep_flops: float = 0.0
    direct: bool = False


def integrated_autocorrelation_time(x: np.ndarray) -> float:
    """Integrated autocorrelation time of a chain (Sokal's adaptive window, c = 5).

    ``x`` is ``(n,)`` or ``(n, k)`` (the largest over the k series). An i.i.d.
    series gives about 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(0.8 < integrated_autocorrelation_time(rng.standard_normal(5000)) < 1.2)
    True
    """
    x = np.asarray(x, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    n = x.shape[0]
    worst = 1.0
    for col in x.T:
        c = col - col.mean()
        var = c @ c
        if var == 0:
            continue
        f = np.fft.rfft(c, 2 * n)
        acf = np.fft.irfft(f * np.conj(f))[:n] / var
        tau = 1.0
        for lag in range(1, n):
            tau += 2 * acf[lag]
            if lag >= 5 * tau:
                break
        worst = max(worst, tau)
    return float(worst)


def clique_cover(adjacency: np.ndarray) -> list[tuple[int, ...]]:
    """Cliques covering every edge and node, grown greedily (fewer than the maximal cliques).

    Each edge not yet covered (in row-major order) starts a clique, grown by
    the common neighbours, preferring those that cover the most uncovered
    edges (ties: lowest index); an isolated node is a clique of its own.

    Examples
    --------
    >>> a = np.ones((4, 4), dtype=bool) & ~np.eye(4, dtype=bool)
    >>> clique_cover(a)
    [(0, 1, 2, 3)]
    """
    a = np.asarray(adjacency, dtype=bool)
    p = a.shape[0]
    uncovered = np.triu(a, 1)
    cliques: list[tuple[int, ...]] = []
    for i, j in zip(*np.nonzero(uncovered), strict=True):
        if not uncovered[i, j]:
            continue
        members = [int(i), int(j)]
        common = a[i] & a[j]
        while common.any():
            cand = np.flatnonzero(common)
            open_edges = (uncovered | uncovered.T)[np.ix_(cand, np.array(members))].sum(axis=1)
            v = int(cand[np.argmax(open_edges)])
            members.append(v)
            common &= a[v]
        members.sort()
        idx = np.array(members)
        uncovered[np.ix_(idx, idx)] = False
        cliques.append(tuple(members))
    cliques += [(v,) for v in range(p) if not a[v].any()]
    return sorted(cliques)


def mcmc_plan(adjacency: np.ndarray, b: float, D: np.ndarray, burn_in: int | None) -> MCMCPlan:
    """The block Gibbs set-up for (G, b, D), with its pilot chain (cached by content).

    The pilot does not depend on ``burn_in``: only the chosen burn-in does.
    """
    a = np.ascontiguousarray(adjacency, dtype=bool)
    d = np.ascontiguousarray(D, dtype=np.float64)
    plan = _cached(a.shape[0], a.tobytes(), float(b), d.tobytes())
    if burn_in is None:
        return plan
    return dataclasses.replace(plan, burn_in=int(burn_in))


def _sweep_costs(cliques: list[tuple[int, ...]], p: int) -> tuple[float, float]:
    """Estimated flops of one sweep: (direct, Woodbury)."""
    direct = woodbury = float(p) ** 3  # Woodbury: K^-1 once per sweep
    for c in cliques:
        m, r = float(len(c)), float(p - len(c))
        wishart = m**3
        direct += wishart + r**3 / 3 + r * r * m + r * m * m
        woodbury += wishart + 4 * m**3 + 2 * p * p * m
    return direct, woodbury


def _run_chain(rng: np.random.Generator, k: np.ndarray, plan_kernel: tuple, sweeps: int) -> None:
    clique_ptr, clique_idx, chol_ptr, chol_flat, b, rest_ptr, rest_idx, direct = plan_kernel
    ok = gibbs_sweeps(
        rng, k, clique_ptr, clique_idx, chol_ptr, chol_flat, b, sweeps, rest_ptr, rest_idx, direct
    )
    if not ok:
        raise spdgraph.NumericalError(
            "the G-Wishart block Gibbs chain reached a precision matrix that is numerically "
            "singular (not positive definite in floating point): W_G(b, D) puts mass near "
            "singular matrices when b is small and the graph dense. Use a larger b "
            "(e.g. b=p) or a better-conditioned D."
        )


@functools.lru_cache(maxsize=16)
def _cached(p: int, a_bytes: bytes, b: float, d_bytes: bytes) -> MCMCPlan:
    a = np.frombuffer(a_bytes, dtype=bool).reshape(p, p)
    d = np.frombuffer(d_bytes, dtype=np.float64).reshape(p, p)
    cliques = clique_cover(a)
    clique_ptr = np.concatenate(([0], np.cumsum([len(c) for c in cliques]))).astype(np.int64)
    clique_idx = np.concatenate([np.array(c, dtype=np.int64) for c in cliques])
    chols = [np.linalg.cholesky(np.linalg.inv(d[np.ix_(c, c)])).ravel() for c in cliques]
    chol_ptr = np.concatenate(([0], np.cumsum([x.size for x in chols]))).astype(np.int64)
    direct_cost, woodbury_cost = _sweep_costs(cliques, p)
    direct = bool(direct_cost <= woodbury_cost)
    rests = [np.setdiff1d(np.arange(p), np.array(c)) for c in cliques] if direct else []
    rest_ptr = np.concatenate(([0], np.cumsum([r.size for r in rests]))).astype(np.int64)
    rest_idx = np.concatenate([*rests, np.zeros(0, dtype=np.int64)]).astype(np.int64)
    kernel = (clique_ptr, clique_idx, chol_ptr, np.concatenate(chols), float(b),
              rest_ptr, rest_idx, direct)  # fmt: skip
    start = np.diag((b + a.sum(axis=1)) / np.diag(d))
    seed = np.frombuffer(hashlib.sha256(a_bytes + d_bytes).digest()[:16], dtype=np.uint32)
    rng = np.random.default_rng([*seed.tolist(), int(b * 1000) % 2**32])
    k = start.copy()
    _run_chain(rng, k, kernel, 20)  # leave the start before measuring
    rows, cols = np.nonzero(np.triu(a | np.eye(p, dtype=bool)))
    trace = np.empty((PILOT_SWEEPS, rows.size))
    for t in range(PILOT_SWEEPS):
        _run_chain(rng, k, kernel, 1)
        trace[t] = k[rows, cols]
    diag = rows == cols
    trace[:, diag] = np.log(trace[:, diag])
    tau = integrated_autocorrelation_time(trace)
    chosen = max(50, math.ceil(10 * tau))
    start.setflags(write=False)
    return MCMCPlan(
        kernel, start, tau, int(chosen), len(cliques), min(direct_cost, woodbury_cost), direct
    )


def chain_flops(plan: MCMCPlan, n_draws: int) -> float:
    """Estimated floating-point work of ``n_draws`` draws (one chain of ``burn_in`` each)."""
    return float(n_draws) * float(plan.burn_in) * plan.sweep_flops


def mcmc_gwishart(
    adjacency: np.ndarray,
    rng: np.random.Generator,
    b: float,
    D: np.ndarray,
    burn_in: int | None = None,
) -> np.ndarray:
    """One draw: the state after ``burn_in`` block Gibbs sweeps from the plan's start.

    Exact in the limit of ``burn_in``; exact zeros on the non-edges, exactly symmetric.

    Raises
    ------
    spdgraph.NumericalError
        The chain reached a numerically singular matrix (never NaN entries).
    """
    plan = mcmc_plan(adjacency, b, D, burn_in)
    k = plan.start.copy()
    _run_chain(rng, k, plan.kernel, plan.burn_in)
    return k
