"""The exact sampler's plan, built in compiled code, against slow obviously-correct references.

* :func:`row_laws` (compiled, hand-written Cholesky and triangular solves) against
  the former Python construction kept here (one LAPACK call per block per row):
  the same pointers and indices, the same numbers for a diagonal scale (every
  operation there is exact or one correctly rounded ``sqrt`` or ``1 / x``), and
  for a general SPD scale within a bound from its condition number.
* The compiled pilot (:func:`pilot_half_logs`, random numbers from a PCG64 state)
  gives the bits of the Generator's block (``draw_block``) through
  :func:`proposal_weights`, and the plan's acceptance is the mean of those weights.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.linalg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spdgraph_gwishart._ar_kernels import pilot_half_logs, proposal_weights, row_laws
from spdgraph_gwishart._order import fill_pattern, min_fill_order
from spdgraph_gwishart.exact import (
    PILOT_STAGE,
    ExactPlan,
    _cached_plan,
    _pcg64_state,
    draw_block,
    exact_plan,
)

FIELDS = ("b", "nu", "schur", "nbr_ptr", "nbr_idx", "h", "lt_ptr", "lt", "fill_ptr",
          "fill_idx", "g", "gm_ptr", "gm", "mff_ptr", "mff")  # fmt: skip
STRUCTURE = ("nu", "nbr_ptr", "nbr_idx", "lt_ptr", "fill_ptr", "fill_idx", "gm_ptr", "mff_ptr")


def reference_row_laws(ap, filled, dp, b):
    """Row by row with LAPACK: the Schur complement s, A^-1 D_Ni, L^-T, g, A^-1 D_NF, M_FF."""
    p = ap.shape[0]
    parts = {k: [] for k in ("nbr", "h", "lt", "fill", "g", "gm", "mff")}
    schur = np.empty(p)
    for i in range(p):
        n = np.flatnonzero(ap[i, i + 1 :]) + i + 1
        f = np.flatnonzero((filled[i] & ~ap[i])[i + 1 :]) + i + 1
        chol = np.linalg.cholesky(dp[np.ix_(n, n)]) if n.size else np.zeros((0, 0))

        def solve(rhs, chol=chol):
            return scipy.linalg.cho_solve((chol, True), rhs) if chol.size else rhs

        h, gm = solve(dp[n, i]), solve(dp[np.ix_(n, f)])
        mf0 = dp[f, i] - dp[np.ix_(f, n)] @ h
        mff = dp[np.ix_(f, f)] - dp[np.ix_(f, n)] @ gm
        g = -np.linalg.solve(mff, mf0) if f.size else np.zeros(0)
        schur[i] = dp[i, i] - dp[i, n] @ h + mf0 @ g
        lt = np.linalg.inv(chol).T if n.size else np.zeros((0, 0))
        for name, value in (("nbr", n), ("h", h), ("lt", lt), ("fill", f), ("g", g),
                            ("gm", gm), ("mff", mff)):  # fmt: skip
            parts[name].append(np.asarray(value, dtype=float).ravel())
    out = {"b": b, "nu": np.triu(ap, 1).sum(axis=1).astype(float), "schur": schur}
    pointers = {"nbr": "nbr_ptr", "lt": "lt_ptr", "fill": "fill_ptr", "gm": "gm_ptr",
                "mff": "mff_ptr"}  # fmt: skip
    for name, chunks in parts.items():
        out[{"nbr": "nbr_idx", "fill": "fill_idx"}.get(name, name)] = (
            np.concatenate(chunks) if p else np.zeros(0)
        )
        if name in pointers:
            out[pointers[name]] = np.cumsum([0] + [x.size for x in chunks])
    return out


def _permuted(g, d):
    a = nx.to_numpy_array(g, dtype=bool)
    order = min_fill_order(a)
    ap = np.ascontiguousarray(a[np.ix_(order, order)])
    return ap, fill_pattern(ap), np.ascontiguousarray(d[np.ix_(order, order)])


def _graph(p, density, seed):
    return nx.gnp_random_graph(p, density, seed=seed)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(
    p=st.integers(1, 12),
    density=st.floats(0.1, 0.9),
    seed=st.integers(0, 2**31 - 1),
    scale=st.sampled_from(["identity", "diagonal", "general"]),
)
def test_row_laws_match_the_lapack_reference(p, density, seed, scale):
    rng = np.random.default_rng(seed)
    if scale == "identity":
        d = np.eye(p)
    elif scale == "diagonal":
        d = np.diag(rng.uniform(0.1, 10.0, p))
    else:
        x = rng.standard_normal((p, p + 2))
        d = x @ x.T / (p + 2) + 0.1 * np.eye(p)
    ap, filled, dp = _permuted(_graph(p, density, seed), d)
    ok, plan = row_laws(ap, filled, dp, 3.5)
    expected = reference_row_laws(ap, filled, dp, 3.5)
    assert ok and len(plan) == len(FIELDS)
    for name, got in zip(FIELDS, plan, strict=True):
        if name in STRUCTURE or scale != "general":
            np.testing.assert_array_equal(got, expected[name], err_msg=name)
        else:  # rounding of a backward-stable factorization: bounded by cond(D) eps
            bound = 100 * p * np.linalg.cond(d) * np.finfo(float).eps
            scale_of = max(1.0, float(np.max(np.abs(expected[name]), initial=0.0)))
            np.testing.assert_allclose(got, expected[name], rtol=0, atol=bound * scale_of,
                                       err_msg=name)  # fmt: skip


@pytest.mark.parametrize("graph", [nx.cycle_graph(5), nx.petersen_graph(), nx.wheel_graph(6)])
def test_compiled_pilot_has_the_generators_bits(graph):
    a = nx.to_numpy_array(graph, dtype=bool)
    p = len(a)
    plan = exact_plan(a, 3.0, np.eye(p))
    seed = [12, 34, 56, 78]
    state = _pcg64_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(2):  # two stages: the state advances as the Generator does
        _, chi2, z = draw_block(rng, plan, PILOT_STAGE, budgets=False)
        expected = proposal_weights(plan.kernel, np.zeros((p, p)), chi2, z)
        np.testing.assert_array_equal(pilot_half_logs(plan.kernel, state, PILOT_STAGE), expected)


def test_plan_acceptance_is_the_mean_weight_of_the_generators_pilot():
    a = nx.to_numpy_array(nx.petersen_graph(), dtype=bool)
    _cached_plan.cache_clear()
    plan = exact_plan(a, 3.0, np.eye(10))
    assert isinstance(plan, ExactPlan) and plan.n_fill > 0
    # the pilot as a Generator draws it, stage by stage until precise
    import hashlib

    key = hashlib.sha256(a.tobytes() + np.float64(3.0).tobytes() + np.eye(10).tobytes()).digest()
    rng = np.random.default_rng(np.frombuffer(key[:16], dtype=np.uint32).tolist())
    weights = []
    while True:
        _, chi2, z = draw_block(rng, plan, PILOT_STAGE, budgets=False)
        weights.append(np.exp(-proposal_weights(plan.kernel, np.zeros((10, 10)), chi2, z)))
        w = np.concatenate(weights)
        if w.std() / np.sqrt(w.size) <= 0.1 * w.mean() or w.size >= 2000:
            break
    assert plan.acceptance == w.mean() and plan.acceptance_se == w.std() / np.sqrt(w.size)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(p=st.integers(1, 11), density=st.floats(0.1, 0.9), seed=st.integers(0, 2**31 - 1))
def test_auto_calls_a_graph_chordal_exactly_when_it_is_decomposable(p, density, seed):
    # auto reads decomposability off the plan: greedy minimum fill-in leaves no fill-in
    # exactly on the chordal graphs (a simplicial node is always left to eliminate)
    from spdgraph_gwishart.choice import choose_algorithm

    g = _graph(p, density, seed)
    if seed % 2:  # chordal graphs are rare among random ones: triangulate half of them
        g, _ = nx.complete_to_chordal_graph(g)
    a = nx.to_numpy_array(g, dtype=bool)
    chosen = choose_algorithm(a, 3.0, np.eye(p)).algorithm
    assert (chosen == "chordal") == nx.is_chordal(g)
