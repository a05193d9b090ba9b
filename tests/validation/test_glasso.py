"""spdgraph's certified graphical lasso against a slow proximal-gradient reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.errors import InvalidOptionError, NumericalError
from spdgraph.validation import (
    draw_gaussian,
    glasso_kkt,
    glasso_penalties,
    graphical_lasso,
    graphical_lasso_path,
    score,
    select_glasso,
    standardize,
)


def _objective(s, theta, rho, penalize_diagonal=True):
    off = np.abs(theta).sum() - np.abs(np.diag(theta)).sum()
    diag = np.abs(np.diag(theta)).sum() if penalize_diagonal else 0.0
    return -np.linalg.slogdet(theta)[1] + np.sum(s * theta) + rho * (off + diag)


def _reference(s, rho, penalize_diagonal=True, iters=20000):
    """Proximal gradient with backtracking (stays positive definite): slow, plainly correct."""
    p = s.shape[0]
    theta = np.diag(1.0 / (np.diag(s) + rho))
    pen = np.full((p, p), rho)
    if not penalize_diagonal:
        np.fill_diagonal(pen, 0.0)

    def smooth(t):
        return -np.linalg.slogdet(t)[1] + np.sum(s * t)

    step = 1.0
    for _ in range(iters):
        grad = s - np.linalg.inv(theta)
        while True:
            z = theta - step * grad
            new = np.sign(z) * np.maximum(np.abs(z) - step * pen, 0.0)
            new = (new + new.T) / 2
            if np.all(np.linalg.eigvalsh(new) > 0):
                d = new - theta
                if smooth(new) <= smooth(theta) + np.sum(grad * d) + np.sum(d * d) / (2 * step):
                    break
            step /= 2
        if np.max(np.abs(new - theta)) < 1e-15:
            theta = new
            break
        theta, step = new, step * 1.5
    return theta


def _cov(p, n, seed):
    x = np.random.default_rng(seed).normal(size=(n, p))
    x[:, 1:] += 0.6 * x[:, :-1]  # a chain of correlations
    x -= x.mean(axis=0)
    return x.T @ x / n


@pytest.mark.parametrize("penalize_diagonal", [True, False])
def test_matches_slow_reference(penalize_diagonal):
    s = _cov(5, 30, 1)
    rho = 0.15
    fit = graphical_lasso(s, rho, penalize_diagonal=penalize_diagonal)
    ref = _reference(s, rho, penalize_diagonal)
    np.testing.assert_allclose(fit.precision, ref, atol=1e-6)
    f_fit = _objective(s, fit.precision, rho, penalize_diagonal)
    f_ref = _objective(s, ref, rho, penalize_diagonal)
    assert f_fit <= f_ref + 1e-10
    assert fit.kkt <= 1e-8 * rho
    assert glasso_kkt(s, ref, rho, penalize_diagonal=penalize_diagonal) > fit.kkt


def test_certificate_and_exact_structure():
    s = _cov(12, 40, 2)
    fit = graphical_lasso(s, 0.2)
    assert fit.kkt <= 1e-8 * 0.2
    assert np.array_equal(fit.precision, fit.precision.T)
    assert np.all(np.linalg.eigvalsh(fit.precision) > 0)
    assert 0 < fit.n_edges < 66
    np.testing.assert_allclose(fit.covariance @ fit.precision, np.eye(12), atol=1e-10)
    again = graphical_lasso(s, 0.2)
    assert np.array_equal(again.precision, fit.precision)  # same input, same bits


@given(
    p=st.integers(2, 8),
    seed=st.integers(0, 10_000),
    frac=st.floats(0.05, 1.2),
    penalize=st.booleans(),
)
@settings(max_examples=30, deadline=None)
def test_certificate_random(p, seed, frac, penalize):
    x = np.random.default_rng(seed).normal(size=(3 * p, p)) @ np.random.default_rng(
        seed + 1
    ).normal(size=(p, p))
    s = np.cov(x, rowvar=False, bias=True)
    s = (s + s.T) / 2
    off = np.abs(s - np.diag(np.diag(s))).max()
    rho = max(frac * off, 1e-3 * np.max(np.diag(s)))
    fit = graphical_lasso(s, rho, penalize_diagonal=penalize)
    assert fit.kkt <= 1e-8 * rho
    assert glasso_kkt(s, fit.precision, rho, penalize_diagonal=penalize) == fit.kkt


def test_one_node_and_diagonal_cases():
    fit = graphical_lasso(np.array([[2.0]]), 0.5)
    assert fit.precision[0, 0] == 1 / 2.5 and fit.iterations == 0
    assert graphical_lasso(np.array([[2.0]]), 0.5, penalize_diagonal=False).precision[0, 0] == 0.5
    s = _cov(6, 50, 3)
    top = np.abs(s - np.diag(np.diag(s))).max()
    fit = graphical_lasso(s, top)
    np.testing.assert_array_equal(fit.precision, np.diag(1 / (np.diag(s) + top)))
    fit = graphical_lasso(s, 2 * top, penalize_diagonal=False)
    np.testing.assert_array_equal(fit.precision, np.diag(1 / np.diag(s)))


def test_components_solved_separately():
    a, b = _cov(4, 30, 4), _cov(3, 30, 5)
    s = np.zeros((7, 7))
    s[:4, :4], s[4:, 4:] = a, b
    fit = graphical_lasso(s, 0.1)
    assert not fit.precision[:4, 4:].any()
    np.testing.assert_allclose(fit.precision[:4, :4], graphical_lasso(a, 0.1).precision, atol=1e-9)
    np.testing.assert_allclose(fit.precision[4:, 4:], graphical_lasso(b, 0.1).precision, atol=1e-9)


def test_path_warm_starts_equal_cold_solves():
    s = _cov(10, 25, 6)
    rhos = glasso_penalties(s, 25, nlambda=6)
    path = graphical_lasso_path(s, rhos)
    for fit, rho in zip(path, rhos, strict=True):
        cold = graphical_lasso(s, rho)
        assert fit.rho == rho
        np.testing.assert_allclose(fit.precision, cold.precision, atol=1e-7)
        assert np.array_equal(fit.precision != 0, cold.precision != 0)
    assert path[0].n_edges == 0


def test_kkt_detects_wrong_answers():
    s = _cov(5, 30, 7)
    fit = graphical_lasso(s, 0.1)
    bumped = fit.precision.copy()
    bumped[0, 1] = bumped[1, 0] = bumped[0, 1] + 0.05
    assert glasso_kkt(s, bumped, 0.1) > 1e-3
    assert glasso_kkt(s, -np.eye(5), 0.1) == np.inf


def test_iteration_bound_ends_in_numerical_error():
    s = _cov(30, 20, 8)  # n < p: singular S, slow at a small penalty
    with pytest.raises(NumericalError, match="certificate"):
        graphical_lasso(s, 0.01, max_iter=1, max_retries=0, kkt_tol=1e-14)


@pytest.mark.parametrize(
    ("s", "rho", "match"),
    [
        (np.ones((2, 3)), 0.1, "square"),
        (np.array([[1.0, 0.2], [0.3, 1.0]]), 0.1, "symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), 0.1, "non-finite"),
        (np.array([[0.0, 0.0], [0.0, 1.0]]), 0.1, "variances"),
        (np.eye(2), -0.1, "positive"),
        (np.eye(2), 0.0, "positive"),
        (np.eye(2), True, "positive"),
    ],
)
def test_bad_input(s, rho, match):
    with pytest.raises(InvalidOptionError, match=match):
        graphical_lasso(s, rho)


def test_bad_options():
    s = _cov(4, 20, 9)
    with pytest.raises(InvalidOptionError, match="kkt_tol"):
        graphical_lasso(s, 0.1, kkt_tol=0)
    with pytest.raises(InvalidOptionError, match="max_iter"):
        graphical_lasso(s, 0.1, max_iter=0)
    x = np.random.default_rng(0).normal(size=(30, 4))
    with pytest.raises(InvalidOptionError, match="criterion"):
        select_glasso(x, criterion="aic")
    with pytest.raises(InvalidOptionError, match="lambda_min_ratio"):
        select_glasso(x, lambda_min_ratio=2.0)


def _po_data(p, d, n, seed):
    g = spdgraph.graphs.erdos_renyi(p, d, seed=seed)
    prec = spdgraph.sample(g, "po", seed=seed, kind="precision")
    return g, draw_gaussian(prec.values, n, seed=100 + seed)


@pytest.mark.parametrize("criterion", ["cv", "ebic"])
def test_selection_deterministic_and_certified(criterion):
    _g, x = _po_data(15, 0.3, 60, 1)
    x = standardize(x)
    one = select_glasso(x, criterion=criterion, seed=3, nlambda=8)
    two = select_glasso(x, criterion=criterion, seed=3, nlambda=8)
    assert np.array_equal(one.fit.precision, two.fit.precision)
    assert one.rho in one.rhos and one.rhos.size == 8
    assert one.fit.kkt <= 1e-8 * one.rho
    assert np.all(np.diff(one.rhos) < 0) and np.all(np.isfinite(one.scores))


def test_learner_finds_edges_on_po_truth():
    g, x = _po_data(20, 0.3, 200, 2)
    # on huge's grid (down to 0.1 of max |S_ij|) no penalty of this strong-link truth
    # reaches StARS's threshold: spdgraph takes the last penalty (huge the first)
    sel = select_glasso(standardize(x), criterion="stars", seed=0)
    assert np.all(sel.scores < 0.1) and sel.rho == sel.rhos[-1]
    assert score(x, g, "glasso", seed=0).n_selected > 0
    s = score(x, g, "glasso", seed=0, criterion="ebic")
    assert s.n_selected > 0 and s.tpr > 0.3
    again = score(x, g, "glasso", seed=0, criterion="ebic")
    assert np.array_equal(again.selected, s.selected)


@pytest.mark.slow
def test_issue_target_po_p100():
    """Issue 15 part 4: mean TPR >= 0.3 over 5 PO truths, p = 100, d = 0.25, n = 200.

    Measured with cross-validation, the default then (issue 34 made StARS the default).
    """
    tprs, tdrs = [], []
    for rep in range(5):
        g, x = _po_data(100, 0.25, 200, rep)
        s = score(x, g, "glasso", seed=rep, criterion="cv")
        tprs.append(s.tpr)
        tdrs.append(s.tdr)
    print(f"TPR {np.mean(tprs):.3f} +- {np.std(tprs):.3f}, TDR {np.mean(tdrs):.3f}")
    assert np.mean(tprs) >= 0.3
    assert np.all(np.isfinite(tdrs))


def test_cli_score_glasso_and_its_path_areas(tmp_path, capsys):
    import io

    import networkx as nx
    import pandas as pd

    from spdgraph.cli import main
    from spdgraph.validation import curve_areas, learner_path, path_table

    g = nx.cycle_graph(8)
    prec = spdgraph.sample(g, seed=2, kind="precision")
    data = prec.spd.draw(150, seed=3)
    spdgraph.save(prec, tmp_path / "truth.nc")
    spdgraph.save(data, tmp_path / "data.nc")
    argv = ["score", str(tmp_path / "data.nc"), str(tmp_path / "truth.nc"), "--seed", "0"]
    assert main([*argv, "--learner", "glasso", "--areas", "--path", "glasso"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert table["tpr"].tolist() == [score(data.values, g, "glasso", seed=0).tpr]
    expected = curve_areas(path_table(learner_path(data.values, method="glasso"), g))
    assert table["glasso_path_roc_auc"].tolist() == [expected["roc_auc"]]
    assert expected["roc_auc"] > 0.7


def test_lost_definiteness_stops_at_once():
    """Unpenalized diagonal on a strong-link PO truth: W diverges; a quick, clear error."""
    _g, x = _po_data(100, 0.25, 200, 0)
    x = standardize(x)
    s = x.T @ x / 200
    rho = glasso_penalties(s, 200, 30, 0.01)[-1]
    with pytest.raises(NumericalError, match="penalize_diagonal=True"):
        graphical_lasso(s, rho, penalize_diagonal=False)
    assert graphical_lasso(s, rho).kkt <= 1e-8 * rho


@pytest.mark.parametrize(("p", "n", "d", "seed"), [(15, 5000, 0.25, 342), (30, 2000, 0.1, 342)])
def test_default_selection_does_not_over_select(p, n, d, seed):
    # the measured cases: cross-validation (the former default) picked 3-6 times the
    # true edges with ample data (n = 5000, p = 15: TDR 0.34; n = 2000, p = 30: 0.17)
    g = spdgraph.graphs.erdos_renyi(p, d, seed=seed)
    prec = spdgraph.sample(g, "po", seed=seed, kind="precision")
    x = draw_gaussian(prec.values, n, seed=seed + 1)
    default = score(x, prec, "glasso", seed=0)
    cv = score(x, prec, "glasso", seed=0, criterion="cv")
    assert cv.n_selected > 2 * cv.n_true and cv.tdr < 0.5
    assert default.tdr >= 0.5 and default.n_selected < 1.5 * default.n_true
    ebic = score(x, prec, "glasso", seed=0, criterion="ebic", gamma=1.0)
    assert ebic.n_selected > 0
    with pytest.raises(spdgraph.InvalidOptionError, match="criterion must be one of"):
        score(x, prec, "glasso", criterion="bic")
    with pytest.raises(spdgraph.InvalidOptionError, match="criterion chooses"):
        score(x, prec, "shrink", criterion="ebic")


def test_stars_is_the_penalty_before_the_first_unstable_and_stops_early():
    from spdgraph.validation._stars import stars_subsample_size

    assert stars_subsample_size(100) == 80 and stars_subsample_size(400) == 200
    _g, x = _po_data(15, 0.2, 400, 3)
    x = standardize(x)
    sel = select_glasso(x, criterion="stars", seed=1, nlambda=12, lambda_min_ratio=0.01)
    k = list(sel.rhos).index(sel.rho)
    finite = sel.scores[np.isfinite(sel.scores)]
    assert np.all(finite[: k + 1] < 0.1)  # huge's rule: before the first reaching 0.1
    assert k + 1 == sel.rhos.size or sel.scores[k + 1] >= 0.1
    assert np.all(np.isinf(sel.scores[k + 2 :]))  # the dense end is never fitted
    again = select_glasso(x, criterion="stars", seed=1, nlambda=12, lambda_min_ratio=0.01)
    np.testing.assert_array_equal(again.fit.precision, sel.fit.precision)
    looser = select_glasso(
        x, criterion="stars", seed=1, nlambda=12, lambda_min_ratio=0.01, stars_thresh=0.4
    )
    assert looser.rho <= sel.rho
