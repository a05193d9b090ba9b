"""Exact G-Wishart draws on any graph: accept-reject on the Atay-Kayis-Massam decomposition.

Write ``K = Phi^T Phi``, ``Phi`` upper triangular with positive diagonal, the
nodes numbered in an elimination order. The free entries are ``Phi_ii`` and
``Phi_ij`` on the edges i < j; on a non-edge ``K_ij = 0`` fixes
``Phi_ij = -(1 / Phi_ii) sum_{k<i} Phi_ki Phi_kj`` (Roverato 2002; Atay-Kayis
and Massam 2005), which is structurally non-zero only on the *fill-in* of the
order. With ``nu_i`` the number of neighbours j > i, the density of
``W_G(b, D)`` in the free entries is (Jacobian ``2^p prod Phi_ii^(nu_i+1)``)

    prod_i Phi_ii^(b + nu_i - 1) exp(-phi_i^T D phi_i / 2),

``phi_i`` the whole row i (free and completed entries). In row i let ``N``
be its edges, ``F`` its fill-in, ``A = D_NN``; completing the square in
``Phi_iN`` leaves ``y^T M y`` in ``y = (Phi_ii, Phi_iF)`` with
``M = D_EE - D_EN A^-1 D_NE`` (``E = {i} + F``), and
``y^T M y = s_i Phi_ii^2 + r_i``, ``s_i`` the Schur complement of ``M_FF`` in
``M`` and ``r_i = (Phi_iF - Phi_ii g)^T M_FF (Phi_iF - Phi_ii g) >= 0``,
``g = -M_FF^-1 M_F0``. So the target is the product of the normalized row
proposals

* ``Phi_ii^2 ~ chi2(b + nu_i) / s_i``,
* ``Phi_iN | Phi_ii, Phi_iF ~ N(-A^-1 (D_Ni Phi_ii + D_NF Phi_iF), A^-1)``,

times ``exp(-sum_i r_i / 2) <= 1``: accepting a proposal with that
probability gives an exact draw (for ``D = I``: ``r_i = |Phi_iF|^2``, the
proposal and weight of Wang and Carvalho 2010). Rows without fill-in have
``r_i = 0``: the rows a perfect elimination sub-order makes free cost no
rejection, and on a decomposable graph (no fill-in in a perfect elimination
order) every proposal is accepted. The order is the greedy minimum fill-in
order (:mod:`spdgraph_gwishart._order`); the acceptance probability is
estimated up front from the weights of a pilot of proposals drawn with a seed
fixed by (G, b, D), so the plan never depends on the user's seed. The plan is
computed once per (G, b, D) in a process (cached by content: a new graph object
with the same adjacency hits it) and the pilot stops early once its estimate is
precise (:data:`PILOT_RELATIVE_SE`). The row laws and the pilot's proposals are
compiled (:func:`spdgraph_gwishart._ar_kernels.row_laws`,
:func:`~spdgraph_gwishart._ar_kernels.pilot_half_logs`, whose random numbers have
the bits of that seed's Generator): a new plan costs about 0.2-0.4 ms on a
10-node graph, most of it the pilot's 500 proposals.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np

import spdgraph
from spdgraph_gwishart._ar_kernels import (
    accept_reject,
    accept_reject_streams,
    gram_on_pattern,
    pilot_half_logs,
    row_laws,
)
from spdgraph_gwishart._order import fill_pattern, min_fill_order

__all__ = [
    "ExactPlan",
    "accept_reject_from_states",
    "accept_reject_gwishart",
    "exact_plan",
    "rows_flops",
]

#: Most proposals of one draw before :class:`spdgraph.NumericalError`.
MAX_PROPOSALS = 10_000_000

#: Most proposals of the pilot that estimates the acceptance probability: it runs in
#: stages of ``PILOT_STAGE`` and stops once the standard error is within
#: ``PILOT_RELATIVE_SE`` of the estimate (enough for the choice against
#: ``min_acceptance`` and the block sizes; e.g. 500 proposals on the Petersen graph).
PILOT_PROPOSALS = 2000
PILOT_STAGE = 500
PILOT_RELATIVE_SE = 0.1


@dataclass(frozen=True)
class ExactPlan:
    """The accept-reject sampler for one (G, b, D): order, fill-in, row laws, acceptance.

    Attributes
    ----------
    order
        The elimination order (node ``order[i]`` is row i of ``Phi``).
    n_fill
        Number of fill-in entries (completed entries that are not zero).
    free_rows
        Number of rows without fill-in (no rejection weight).
    acceptance
        Estimated acceptance probability (mean pilot weight), and its standard error.
    kernel
        The tuple the Numba kernels take.
    proposal_flops
        Estimated floating-point work of one full proposal.
    """

    order: np.ndarray
    n_fill: int
    free_rows: int
    acceptance: float
    acceptance_se: float
    kernel: tuple
    proposal_flops: float = 0.0

    @property
    def block(self) -> int:
        """Proposals drawn at a time: about two expected proposals' worth (fixed by the
        plan: the draws depend on the seed and (G, b, D) only); 0 without fill-in (one
        proposal, always accepted, no Exp(1) budget)."""
        if self.n_fill == 0:
            return 0
        return int(min(max(4, np.ceil(2.0 / max(self.acceptance, 1e-9))), 4096))

    def expected_flops(self) -> float:
        """Estimated work of one accepted draw: a proposal's work over the acceptance
        (infinite when the pilot accepted nothing)."""
        if self.n_fill == 0:
            return self.proposal_flops
        if not self.acceptance > 0:
            return float("inf")
        return self.proposal_flops / self.acceptance


def _digest(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return h.digest()


def draw_block(rng: np.random.Generator, plan: ExactPlan, n: int, budgets: bool = True) -> tuple:
    """The random numbers of ``n`` proposals: Exp(1) budgets, chi-squares, normals."""
    b, nu = plan.kernel[0], plan.kernel[1]
    e = rng.standard_exponential(n) if budgets else np.zeros(n)
    chi2 = rng.chisquare(b + nu, size=(n, nu.size))
    z = rng.standard_normal((n, plan.kernel[4].size))
    return e, chi2, z


def exact_plan(adjacency: np.ndarray, b: float, D: np.ndarray) -> ExactPlan:
    """The :class:`ExactPlan` of ``W_G(b, D)`` on a graph (cached by content).

    Examples
    --------
    >>> import networkx as nx, numpy as np
    >>> plan = exact_plan(nx.to_numpy_array(nx.cycle_graph(5), dtype=bool), 3.0, np.eye(5))
    >>> plan.n_fill, plan.free_rows, 0.5 < plan.acceptance < 1
    (2, 3, True)
    """
    a = np.ascontiguousarray(adjacency, dtype=bool)
    d = np.ascontiguousarray(D, dtype=np.float64)
    return _cached_plan(a.shape[0], a.tobytes(), float(b), d.tobytes())


@functools.lru_cache(maxsize=32)
def _cached_plan(p: int, a_bytes: bytes, b: float, d_bytes: bytes) -> ExactPlan:
    key = _digest(a_bytes, np.float64(b).tobytes(), d_bytes)
    a = np.frombuffer(a_bytes, dtype=bool).reshape(p, p)
    d = np.frombuffer(d_bytes, dtype=np.float64).reshape(p, p)
    order = min_fill_order(a) if p else np.zeros(0, dtype=np.int64)
    ap = np.ascontiguousarray(a[order][:, order])
    filled = fill_pattern(ap) if p else ap
    ok, kernel = row_laws(ap, filled, np.ascontiguousarray(d[order][:, order]), b)
    if not ok:  # pragma: no cover - D is SPD (checked by scale_matrix)
        raise spdgraph.NumericalError("the scale D is too ill-conditioned for the G-Wishart rows.")
    fill_ptr = kernel[8]
    n_fill = int(fill_ptr[-1])
    free_rows = int(p - np.count_nonzero(np.diff(fill_ptr)))
    acceptance, se = 1.0, 0.0
    if n_fill:
        # the pilot's Generator, as a PCG64 state the compiled pilot draws from (same bits)
        state = _pcg64_state(np.frombuffer(key[:16], dtype=np.uint32).tolist())
        weights: list[np.ndarray] = []
        while sum(x.size for x in weights) < PILOT_PROPOSALS:  # stages: stop once precise
            half_r = pilot_half_logs(kernel, state, PILOT_STAGE)
            weights.append(np.exp(-np.where(np.isnan(half_r), np.inf, half_r)))  # overflow: 0
            w = np.concatenate(weights)
            acceptance, se = float(w.mean()), float(w.std() / np.sqrt(w.size))
            if se <= PILOT_RELATIVE_SE * acceptance:
                break
    order.setflags(write=False)
    return ExactPlan(order, n_fill, free_rows, acceptance, se, kernel, _proposal_flops(kernel))


def _pcg64_state(seed: list[int]) -> np.ndarray:
    """The ``[state_hi, state_lo, inc_hi, inc_lo]`` row of ``np.random.default_rng(seed)``'s
    PCG64, for the compiled streams (:mod:`spdgraph._kernels.streams`)."""
    words = np.random.PCG64(seed).state["state"]
    mask = (1 << 64) - 1
    return np.array(
        [words["state"] >> 64, words["state"] & mask, words["inc"] >> 64, words["inc"] & mask],
        dtype=np.uint64,
    )


def _proposal_flops(kernel: tuple) -> float:
    """Per row: the completion (fill-in x rows above), the weight and the edge entries;
    plus the random numbers (about 20 flops' worth each: a chi-square per row, a normal
    per edge)."""
    nbr_ptr, fill_ptr = kernel[3], kernel[8]
    return rows_flops(np.diff(nbr_ptr), np.diff(fill_ptr))


def rows_flops(edges: np.ndarray, fill: np.ndarray | None = None) -> float:
    """The estimated flops of one proposal whose row i has ``edges[i]`` free entries
    and ``fill[i]`` fill-in entries (None: no fill-in, the chordal rows; also the
    sparse path's cost, :func:`spdgraph_gwishart.sparse.sparse_plan`)."""
    m = np.asarray(edges, dtype=np.float64)
    nf = np.zeros_like(m) if fill is None else np.asarray(fill, dtype=np.float64)
    rows = np.arange(m.size, dtype=np.float64)
    return float(np.sum(nf * (rows + nf) + m * (nf + m) + 20.0 * (m + 1.0)))


def phi_to_precision(phi: np.ndarray, order: np.ndarray, adjacency: np.ndarray) -> np.ndarray:
    """``K = Phi^T Phi`` back in the node order: exact zeros on the non-edges, symmetric."""
    return gram_on_pattern(phi, np.asarray(order, dtype=np.int64), adjacency)


def _none_accepted(made: int, plan: ExactPlan) -> spdgraph.NumericalError:
    return spdgraph.NumericalError(
        f"the G-Wishart accept-reject sampler accepted none of {made} proposals "
        f"(estimated acceptance {plan.acceptance:.3g}); use algorithm='mcmc'."
    )


def accept_reject_gwishart(
    adjacency: np.ndarray,
    rng: np.random.Generator,
    b: float,
    D: np.ndarray,
    *,
    max_proposals: int = MAX_PROPOSALS,
) -> tuple[np.ndarray, int]:
    """One exact draw ``K ~ W_G(b, D)`` on any graph, and the number of proposals it took.

    Raises
    ------
    spdgraph.NumericalError
        No proposal accepted within ``max_proposals`` (then the estimated
        acceptance is tiny: use ``algorithm="mcmc"``).
    """
    plan = exact_plan(adjacency, b, D)
    p = adjacency.shape[0]
    phi = np.zeros((p, p))
    block = plan.block
    made = 0
    if block == 0:  # every proposal is accepted: no Exp(1) budget to draw
        _, chi2, z = draw_block(rng, plan, 1, budgets=False)
        accept_reject(plan.kernel, phi, np.full(1, np.inf), chi2, z)
        return phi_to_precision(phi, plan.order, adjacency), 1
    while made < max_proposals:
        e, chi2, z = draw_block(rng, plan, block)
        found = accept_reject(plan.kernel, phi, e, chi2, z)
        if found >= 0:
            return phi_to_precision(phi, plan.order, adjacency), made + found + 1
        made += block
    raise _none_accepted(made, plan)


def accept_reject_from_states(
    adjacency: np.ndarray,
    states: np.ndarray,
    b: float,
    D: np.ndarray,
    *,
    max_proposals: int = MAX_PROPOSALS,
) -> np.ndarray:
    """``len(states)`` exact draws in one compiled loop, draw k from the PCG64 stream
    ``states[k]`` (a row of :meth:`spdgraph.seeds.MatrixStreams.pcg64_states`, advanced in
    place): the bits :func:`accept_reject_gwishart` gives on that stream's Generator,
    without a Generator or a Python step per draw.

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph.seeds import MatrixStreams
    >>> a = nx.to_numpy_array(nx.cycle_graph(5), dtype=bool)
    >>> streams = MatrixStreams(np.random.SeedSequence(3), 0, 2)
    >>> ks = accept_reject_from_states(a, streams.pcg64_states(), 3.0, np.eye(5))
    >>> one, _ = accept_reject_gwishart(a, MatrixStreams(np.random.SeedSequence(3), 0, 2)[1],
    ...                                 3.0, np.eye(5))
    >>> bool(np.array_equal(ks[1], one))
    True

    Raises
    ------
    spdgraph.NumericalError
        A draw accepted none of ``max_proposals`` proposals.
    """
    plan = exact_plan(adjacency, b, D)
    p = adjacency.shape[0]
    out = np.empty((states.shape[0], p, p))
    a = np.ascontiguousarray(adjacency, dtype=np.bool_)
    order = np.asarray(plan.order, dtype=np.int64)
    failed = accept_reject_streams(plan.kernel, states, order, a, plan.block, max_proposals, out)
    if failed >= 0:
        blocks = -(-max_proposals // plan.block)
        raise _none_accepted(blocks * plan.block, plan)
    return out
