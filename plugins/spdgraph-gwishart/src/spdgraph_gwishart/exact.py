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
computed once per (G, b, D) in a process (cached by content) and the pilot
stops early once its estimate is precise (:data:`PILOT_RELATIVE_SE`).
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
    proposal_weights,
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
    ap = np.ascontiguousarray(a[np.ix_(order, order)])
    filled = fill_pattern(ap) if p else ap
    kernel = _kernel_tuple(ap, filled, d[np.ix_(order, order)], b)
    n_fill = int(np.triu(filled & ~ap, 1).sum())
    free_rows = int(p - np.triu(filled & ~ap, 1).any(axis=1).sum())
    acceptance, se = 1.0, 0.0
    if n_fill:
        rng = np.random.default_rng(np.frombuffer(key[:16], dtype=np.uint32).tolist())
        pre = ExactPlan(order, n_fill, free_rows, 1.0, 0.0, kernel)
        weights: list[np.ndarray] = []
        while sum(x.size for x in weights) < PILOT_PROPOSALS:  # stages: stop once precise
            _, chi2, z = draw_block(rng, pre, PILOT_STAGE, budgets=False)
            half_r = proposal_weights(kernel, np.zeros((p, p)), chi2, z)
            weights.append(np.exp(-np.where(np.isnan(half_r), np.inf, half_r)))  # overflow: 0
            w = np.concatenate(weights)
            acceptance, se = float(w.mean()), float(w.std() / np.sqrt(w.size))
            if se <= PILOT_RELATIVE_SE * acceptance:
                break
    order.setflags(write=False)
    return ExactPlan(order, n_fill, free_rows, acceptance, se, kernel, _proposal_flops(kernel))


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


def _kernel_tuple(ap: np.ndarray, filled: np.ndarray, dp: np.ndarray, b: float) -> tuple:
    """Per row: the Schur complement s, A^-1 D_Ni, L^-T, g, A^-1 D_NF and M_FF, flattened."""
    p = ap.shape[0]
    nu = np.triu(ap, 1).sum(axis=1).astype(np.float64)
    schur = np.empty(p)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("nbr", "h", "lt", "fill", "g", "gm", "mff")
    }
    for i in range(p):
        n = np.flatnonzero(ap[i, i + 1 :]) + i + 1
        f = np.flatnonzero((filled[i] & ~ap[i])[i + 1 :]) + i + 1
        a_nn = dp[np.ix_(n, n)]
        chol = np.linalg.cholesky(a_nn) if n.size else np.zeros((0, 0))
        h = _solve(chol, dp[n, i])
        gm = _solve(chol, dp[np.ix_(n, f)])
        m00 = dp[i, i] - dp[i, n] @ h
        mf0 = dp[f, i] - dp[np.ix_(f, n)] @ h
        mff = dp[np.ix_(f, f)] - dp[np.ix_(f, n)] @ gm
        g = -np.linalg.solve(mff, mf0) if f.size else np.zeros(0)
        schur[i] = m00 + mf0 @ g
        lt = np.linalg.inv(chol).T if n.size else np.zeros((0, 0))
        for name, value in (("nbr", n), ("h", h), ("lt", lt), ("fill", f), ("g", g)):
            parts[name].append(np.asarray(value).ravel())
        parts["gm"].append(gm.ravel())
        parts["mff"].append(mff.ravel())
    if not np.all(schur > 0):  # pragma: no cover - D is SPD
        raise spdgraph.NumericalError("the scale D is too ill-conditioned for the G-Wishart rows.")

    def flat(name: str, dtype: type) -> tuple[np.ndarray, np.ndarray]:
        sizes = [x.size for x in parts[name]]
        ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        return ptr, (np.concatenate(parts[name]) if p else np.zeros(0)).astype(dtype)

    nbr_ptr, nbr_idx = flat("nbr", np.int64)
    _, h = flat("h", np.float64)
    lt_ptr, lt = flat("lt", np.float64)
    fill_ptr, fill_idx = flat("fill", np.int64)
    _, g = flat("g", np.float64)
    gm_ptr, gm = flat("gm", np.float64)
    mff_ptr, mff = flat("mff", np.float64)
    return (float(b), nu, schur, nbr_ptr, nbr_idx, h, lt_ptr, lt, fill_ptr, fill_idx, g,
            gm_ptr, gm, mff_ptr, mff)  # fmt: skip


def _solve(chol: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if chol.shape[0] == 0:
        return np.zeros((0, *rhs.shape[1:]))
    import scipy.linalg

    return scipy.linalg.cho_solve((chol, True), rhs)


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
