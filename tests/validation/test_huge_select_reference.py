"""select_glasso against stored R huge 1.3.5 output (tests/data/huge_1.3.5).

The data, huge's grid and glasso path, its EBIC scores and selection and its
StARS variability, selection and subsamples were written by
``tests/data/huge_1.3.5/make_select_reference.R`` (``huge`` and ``huge.select``
with huge's defaults: nlambda 10, lambda.min.ratio 0.1, stars.thresh 0.1,
rep.num 20, ebic.gamma 0.5). R is not needed to run these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reference import penalty_grid_rtol

from spdgraph.errors import InvalidOptionError
from spdgraph.validation import glasso_penalties, select_glasso
from spdgraph.validation._glasso import _Solver
from spdgraph.validation._stars import stars_instability, stars_variability

FOLDER = Path(__file__).parent.parent / "data" / "huge_1.3.5"
CASES = ("hub_p20_n150", "random_p25_n200", "cluster_p12_n100")


def _load(case: str) -> tuple[np.ndarray, dict]:
    ref = json.loads((FOLDER / f"{case}.json").read_text())
    x = np.loadtxt(FOLDER / f"{case}_x.csv", delimiter=",")
    assert x.shape == (ref["n"], ref["p"])
    # huge works on cor(x): standardizing with the population sd makes S = cor(x) exactly
    return (x - x.mean(axis=0)) / x.std(axis=0), ref


def _edges(precision: np.ndarray) -> set[tuple[int, int]]:
    i, j = np.nonzero(np.triu(precision != 0, 1))
    return set(zip(i.tolist(), j.tolist(), strict=True))


def _r_edges(rows: list) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in rows}


@pytest.mark.parametrize("case", CASES)
def test_default_grid_is_huges(case):
    x, ref = _load(case)
    rtol = penalty_grid_rtol(x, len(ref["lambda"]))
    grid = glasso_penalties(x.T @ x / x.shape[0])
    np.testing.assert_allclose(grid, ref["lambda"], rtol=rtol)
    sel = select_glasso(x, criterion="ebic")
    np.testing.assert_allclose(sel.rhos, ref["lambda"], rtol=rtol)


@pytest.mark.parametrize("case", CASES)
def test_glasso_path_matches_huge_within_one_edge(case):
    x, ref = _load(case)
    solver = _Solver(x.T @ x / x.shape[0], True, 500, 2)
    for rho, r_rows in zip(ref["lambda"], ref["path_edges"], strict=True):
        ours = _edges(solver.solve(float(rho), 1e-8).precision)
        # R's grid top is max |S_ij| itself: that pair sits on the boundary (a tie)
        assert len(ours ^ _r_edges(r_rows)) <= 1, rho


@pytest.mark.parametrize("case", CASES)
def test_ebic_huge_convention_reproduces_huge_select(case):
    x, ref = _load(case)
    sel = select_glasso(x, criterion="ebic", ebic_loglik="huge")
    n_edges = [len(_r_edges(rows)) for rows in ref["path_edges"]]
    ours_edges = [
        len(_edges(_Solver(x.T @ x / x.shape[0], True, 500, 2).solve(float(r), 1e-8).precision))
        for r in ref["lambda"]
    ]
    same = np.array(n_edges) == np.array(ours_edges)  # off a boundary tie
    np.testing.assert_allclose(sel.scores[same], np.array(ref["ebic_score"])[same], rtol=1e-6)
    assert list(sel.rhos).index(sel.rho) == ref["ebic_index"]
    assert _edges(sel.fit.precision) == _r_edges(ref["path_edges"][ref["ebic_index"]])


@pytest.mark.parametrize("case", CASES)
def test_ebic_penalized_convention_differs_only_where_nodes_are_screened(case):
    x, ref = _load(case)
    s = x.T @ x / x.shape[0]
    sel = select_glasso(x, criterion="ebic")
    off = np.abs(s - np.diag(np.diag(s)))
    for k, rho in enumerate(ref["lambda"]):
        every_node_kept = bool(np.all(np.any(off > rho, axis=1)))
        if every_node_kept:
            assert sel.scores[k] == pytest.approx(ref["ebic_score"][k], rel=1e-6)
        else:  # huge counts a screened node -1; the fitted diagonal gives less
            assert sel.scores[k] > ref["ebic_score"][k] - 1e-6 * abs(ref["ebic_score"][k])


@pytest.mark.parametrize("case", CASES)
def test_stars_on_rs_subsamples_reproduces_huge_select(case):
    x, ref = _load(case)
    subsamples = [np.asarray(rows) for rows in ref["stars_subsamples"]]
    _grid, variability, best = stars_instability(
        x, np.asarray(ref["lambda"]), rep=20, thresh=0.1, rng=np.random.default_rng(0),
        penalize_diagonal=True, kkt_tol=1e-8, max_iter=500, subsamples=subsamples,
    )  # fmt: skip
    fitted = np.isfinite(variability)
    np.testing.assert_allclose(
        variability[fitted], np.asarray(ref["stars_variability"])[fitted], atol=1e-12
    )
    assert best == ref["stars_index"]
    # the path stops at the first penalty whose variability reaches the threshold
    assert variability[fitted][-1] >= 0.1 and np.all(variability[fitted][:-1] < 0.1)


@pytest.mark.parametrize("case", CASES)
def test_stars_with_huges_defaults_selects_within_one_grid_step(case):
    x, ref = _load(case)
    for seed in range(3):
        sel = select_glasso(x, criterion="stars", seed=seed)
        np.testing.assert_allclose(
            sel.rhos, ref["lambda"], rtol=penalty_grid_rtol(x, len(sel.rhos))
        )
        chosen = list(sel.rhos).index(sel.rho)
        assert abs(chosen - ref["stars_index"]) <= 1, (seed, chosen)
        if chosen == ref["stars_index"]:
            assert _edges(sel.fit.precision) == _r_edges(ref["stars_edges"])


def test_stars_variability_is_huges_scale():
    # huge: 4 sum_{i != j} theta (1 - theta) / (p (p - 1)); one pair of 3 nodes at theta 1/2
    assert stars_variability(np.array([0.5, 0.0, 0.0]), 3) == pytest.approx(4 * 2 * 0.25 / 6)
    assert stars_variability(np.array([0.5, 0.5, 0.5]), 3) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("stars_beta", 0.05, "stars_thresh=2 * stars_beta"),
        ("n_rhos", 30, "renamed nlambda"),
        ("eps", 0.01, "renamed lambda_min_ratio"),
    ],
)
def test_removed_spellings_say_what_to_write(name, value, says):
    x = np.random.default_rng(0).standard_normal((30, 4))
    with pytest.raises(InvalidOptionError, match=says.replace("*", r"\*")):
        select_glasso(x, **{name: value})


def test_grid_options_are_checked():
    x = np.random.default_rng(0).standard_normal((30, 4))
    with pytest.raises(InvalidOptionError, match="nlambda"):
        select_glasso(x, nlambda=0)
    with pytest.raises(InvalidOptionError, match="lambda_min_ratio"):
        select_glasso(x, lambda_min_ratio=1.5)
    with pytest.raises(InvalidOptionError, match="stars_thresh"):
        select_glasso(x, criterion="stars", stars_thresh=0.0)
    with pytest.raises(InvalidOptionError, match="ebic_loglik"):
        select_glasso(x, criterion="ebic", ebic_loglik="R")
