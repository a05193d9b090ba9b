"""Neighbourhood selection (the ``"mb"`` learner) against a slow reference and R huge."""

from __future__ import annotations

import shutil
import subprocess

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import penalty_grid_rtol

import spdgraph
from spdgraph.errors import InvalidOptionError
from spdgraph.graphs import band
from spdgraph.validation import (
    BUILTIN_LEARNERS,
    draw_gaussian,
    fit_learners,
    neighbourhood_selection,
)
from spdgraph.validation._mb import mb_path, ric_penalty, standardize_columns

#: A pair whose exact |gradient| is this close to the penalty is a tie: a solver
#: tolerance (huge's is 1e-4 relative) decides it, not the problem.
TIE = 1e-3


def reference_node(xs: np.ndarray, node: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Plain cyclic coordinate descent for one node, to a 1e-13 change; (w, |gradient|)."""
    n, p = xs.shape
    others = np.r_[0:node, node + 1 : p]
    z, y = xs[:, others], xs[:, node]
    w = np.zeros(others.size)
    r = y.copy()
    for _ in range(100_000):
        biggest = 0.0
        for j in range(others.size):
            rho = z[:, j] @ r / n + w[j]  # columns have z'z / n = 1
            new = np.sign(rho) * max(abs(rho) - lam, 0.0)
            if new != w[j]:
                r -= z[:, j] * (new - w[j])
                biggest = max(biggest, abs(new - w[j]))
                w[j] = new
        if biggest < 1e-13:
            break
    grad = np.abs(z.T @ r / n)
    full_w, full_g = np.zeros(p), np.zeros(p)
    full_w[others], full_g[others] = w, grad
    return full_w, full_g


def _edge_set(adj) -> set[tuple[int, int]]:
    from scipy import sparse

    up = sparse.triu(adj, k=1, format="coo")
    return set(zip(up.row.tolist(), up.col.tolist(), strict=True))


def _is_tie(grads: np.ndarray, lam: float, i: int, j: int) -> bool:
    """Edge i - j is decided by a near tie in one of its two regressions."""
    return bool(min(abs(grads[i, j] / lam - 1.0), abs(grads[j, i] / lam - 1.0)) < TIE)


def _data(graph, n, seed):
    prec = spdgraph.sample(graph, "dd", seed=seed, kind="precision")
    return draw_gaussian(prec.values, n, seed=seed + 1)


def _check_against_reference(x, lambdas, rule):
    xs = standardize_columns(x)
    p = xs.shape[1]
    path = mb_path(xs, lambdas, rule)
    for lam, adj in zip(lambdas, path, strict=True):
        w = np.zeros((p, p))
        g = np.zeros((p, p))
        for i in range(p):
            w[i], g[i] = reference_node(xs, i, float(lam))
        sel = (w != 0) | (w.T != 0) if rule == "or" else (w != 0) & (w.T != 0)
        ref = _edge_set(np.triu(sel, 1))
        for i, j in ref ^ _edge_set(adj):
            assert _is_tie(g, float(lam), i, j), (lam, i, j)
        # the result's own format
        assert adj.shape == (p, p) and adj.dtype == bool
        assert (adj != adj.T).nnz == 0 and not adj.diagonal().any()


@pytest.mark.parametrize("rule", ["or", "and"])
def test_path_equals_plain_coordinate_descent(rule):
    x = _data(band(12, 2), 60, 3)
    xs = standardize_columns(x)
    top = float(np.max(np.abs(np.triu(xs.T @ xs / 60, 1))))
    _check_against_reference(x, top * np.array([1.0, 0.6, 0.35, 0.2, 0.1]), rule)


@settings(derandomize=True, max_examples=8, deadline=None)
@given(
    p=st.integers(3, 9),
    prob=st.floats(0.1, 0.6),
    seed=st.integers(0, 10_000),
    rule=st.sampled_from(["or", "and"]),
)
def test_random_graphs_match_the_reference(p, prob, seed, rule):
    g = nx.gnp_random_graph(p, prob, seed=seed)
    x = _data(g, 40, seed)
    fit = neighbourhood_selection(x, rule=rule, nlambda=4, lambda_min_ratio=0.05, seed=seed)
    assert fit.path[0].nnz == 0  # lambda_max: nothing selected
    _check_against_reference(x, fit.lambdas, rule)


def test_and_is_within_or_and_the_grid_is_huges():
    x = _data(band(20, 1), 80, 5)
    xs = standardize_columns(x)
    fit_or = neighbourhood_selection(x, rule="or", seed=0)
    fit_and = neighbourhood_selection(x, rule="and", seed=0)
    corr = xs.T @ xs / 80
    top = np.max(np.abs(corr - np.diag(np.diag(corr))))
    np.testing.assert_allclose(fit_or.lambdas, top * np.exp(np.linspace(0, np.log(0.1), 10)))
    for a, o in zip(fit_and.path, fit_or.path, strict=True):
        assert _edge_set(a) <= _edge_set(o)
    assert fit_or.adjacency().dtype == bool
    assert {tuple(e) for e in fit_or.edges().tolist()} == _edge_set(fit_or.selected)


def test_ric_is_huges_rotation_criterion():
    x = _data(band(7, 1), 30, 2)
    xs = standardize_columns(x)
    n, p = xs.shape
    shifts = np.array([3, 11, 30])
    slow = min(
        max(
            abs(sum(xs[(m + r) % n, j] * xs[m, k] for m in range(n)))
            for j in range(p)
            for k in range(p)
            if j != k
        )
        for r in shifts
    )
    assert ric_penalty(xs, shifts) == pytest.approx(slow / n, rel=1e-12)


def test_stars_chooses_a_stable_penalty():
    x = _data(band(15, 1), 200, 7)
    fit = neighbourhood_selection(x, criterion="stars", rep=5, nlambda=6, seed=1)
    k = list(fit.lambdas).index(fit.lambda_)
    assert fit.scores[k] < 0.1
    assert _edge_set(fit.selected) == _edge_set(fit.path[k])


def test_memory_mapped_data_are_read_as_is(tmp_path):
    x = _data(band(10, 1), 50, 1)
    np.save(tmp_path / "x.npy", x)
    mapped = np.load(tmp_path / "x.npy", mmap_mode="r")
    assert np.asarray(mapped) is mapped or np.shares_memory(np.asarray(mapped), mapped)
    a = neighbourhood_selection(mapped, seed=0)
    b = neighbourhood_selection(x, seed=0)
    assert _edge_set(a.selected) == _edge_set(b.selected)
    assert a.lambda_ == b.lambda_


def test_builtin_learner():
    assert "mb" in BUILTIN_LEARNERS
    x = _data(band(8, 1), 100, 4)
    est = fit_learners(x, ["mb"], seed=0)["mb"]
    assert est.shape == (8, 8) and est.dtype == bool and (est == est.T).all()
    assert est.any()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rule": "both"}, "rule must be one of"),
        ({"criterion": "ebic"}, "criterion must be one of"),
        ({"rep": 1}, "rep must be"),
        ({"nlambda": 0}, "nlambda"),
        ({"lambdas": [-1.0]}, "lambdas must be positive"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    x = _data(band(5, 1), 20, 0)
    with pytest.raises(InvalidOptionError, match=match):
        neighbourhood_selection(x, **kwargs)


def test_constant_column_is_refused():
    x = _data(band(5, 1), 20, 0)
    x[:, 2] = 1.0
    with pytest.raises(InvalidOptionError, match=r"columns \[2\] are constant"):
        neighbourhood_selection(x)


def _has_huge() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "quit(status = !requireNamespace('huge', quietly = TRUE))"],
        capture_output=True,
    )
    return done.returncode == 0


R_PATH = """suppressMessages(library(huge))
x <- as.matrix(read.csv("{csv}", header = FALSE))
fit <- huge(x, method = "mb", sym = "{rule}", verbose = FALSE)
write.csv(fit$lambda, "{lam}", row.names = FALSE)
rows <- lapply(seq_along(fit$path), function(k) {{
  e <- which(as.matrix(fit$path[[k]]) != 0 & upper.tri(diag(ncol(x))), arr.ind = TRUE)
  if (nrow(e)) cbind(k, e) else NULL
}})
write.csv(do.call(rbind, rows), "{edges}", row.names = FALSE)
"""


@pytest.mark.slow
@pytest.mark.skipif(not _has_huge(), reason="needs R (Rscript) with the huge package")
@pytest.mark.parametrize(("rule", "p"), [("or", 300), ("and", 120)])
def test_path_matches_r_huge_mb(tmp_path, rule, p):
    x = _data(band(p, 2), 200, 0)
    files = {k: tmp_path / f"{k}.csv" for k in ("csv", "lam", "edges")}
    np.savetxt(files["csv"], x, delimiter=",", fmt="%.17g")
    script = R_PATH.format(rule=rule, **{k: v.as_posix() for k, v in files.items()})
    subprocess.run(["Rscript", "-e", script], check=True, capture_output=True)
    lambdas = np.loadtxt(files["lam"], skiprows=1)
    edges = np.loadtxt(files["edges"], skiprows=1, delimiter=",", dtype=int).reshape(-1, 3)
    fit = neighbourhood_selection(x, rule=rule, seed=0)
    # R and spdgraph agree to rounding: the bound of the grid's top, max |cor(x)_ij|
    np.testing.assert_allclose(fit.lambdas, lambdas, rtol=penalty_grid_rtol(x, len(lambdas)))
    for k, adj in enumerate(fit.path):
        theirs = {(i - 1, j - 1) for kk, i, j in edges.tolist() if kk == k + 1}
        assert len(theirs ^ _edge_set(adj)) <= 1, (k, sorted(theirs ^ _edge_set(adj)))


@pytest.mark.integration  # a study run
def test_study_runs_the_builtin_learner_mb(tmp_path):
    from spdgraph.study import run

    spec = {
        "name": "mb",
        "seed": 3,
        "repeats": 1,
        "grid": {"family": ["band"], "p": [12], "n": [120]},
        "scores": {"metrics": ["tpr", "tdr"]},
        "learners": [{"name": "mb"}],
    }
    table = run(spec, tmp_path / "out", workers=1, plots=False).table
    rows = table[table["learner"] == "mb"]
    assert set(rows["metric"]) == {"tpr", "tdr"}
    assert rows["value"].between(0, 1).all()
