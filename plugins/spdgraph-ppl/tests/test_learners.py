"""The plugin's samplers as study learners: their laws, their seeds, a study that scores them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from spdgraph_ppl.learners import exact_posterior, nuts_posterior

import spdgraph


def _data(n: int = 40, p: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = np.eye(p) + 0.3 * (np.eye(p, k=1) + np.eye(p, k=-1))
    return rng.multivariate_normal(np.zeros(p), np.linalg.inv(k), size=n)


def _wishart_moments(x: np.ndarray, b: float, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and entrywise variance of the conjugate posterior W(b + n, D + x^T x).

    In BDgraph's parametrization W(b, D) is the Wishart law with ``b + p - 1``
    degrees of freedom and scale ``D^-1``: E K = df S, Var K_ij = df (S_ij^2 + S_ii S_jj).
    """
    n, p = x.shape
    s = np.linalg.inv(d + x.T @ x)
    df = b + n + p - 1
    return df * s, df * (s**2 + np.outer(np.diag(s), np.diag(s)))


def _z_scores(draws: np.ndarray, x: np.ndarray, b: float, d: np.ndarray) -> np.ndarray:
    mean, var = _wishart_moments(x, b, d)
    iu = np.triu_indices(x.shape[1])
    z = (draws.mean(axis=0) - mean) / np.sqrt(var / draws.shape[0])
    return z[iu]


@pytest.mark.parametrize(("b", "D"), [(3.0, None), (5.0, 2.0)])
def test_exact_learner_draws_follow_the_conjugate_posterior(b, D):
    x = _data()
    draws = exact_posterior(x, draws=2000, b=b, D=D, seed=4)
    d = np.eye(4) * (1.0 if D is None else D)
    z = _z_scores(draws, x, b, d)
    # 10 entries: max |z| above 4.5 has probability < 1e-4 under the law
    assert np.abs(z).max() < 4.5, z
    assert draws.shape == (2000, 4, 4)
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    assert np.all(np.linalg.eigvalsh(draws) > 0)


def test_exact_learner_z_check_detects_a_wrong_law():
    """The law check can fail: draws of a prior with other degrees of freedom are caught."""
    x = _data()
    draws = exact_posterior(x, draws=2000, b=3.0, seed=4)
    assert np.abs(_z_scores(draws, x, 13.0, np.eye(4))).max() > 4.5


def test_exact_learner_same_seed_same_draws():
    x = _data()
    seed = np.random.SeedSequence(7, spawn_key=(3,))
    first = exact_posterior(x, draws=5, seed=seed)
    again = exact_posterior(x, draws=5, seed=np.random.SeedSequence(7, spawn_key=(3,)))
    other = exact_posterior(x, draws=5, seed=np.random.SeedSequence(7, spawn_key=(4,)))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"draws": 1}, "draws must be an integer >= 2"),
        ({"draws": 2.5}, "draws must be an integer >= 2"),
        ({"b": 2.0}, "must be a number > 2"),
        ({"b": "3"}, "must be a number > 2"),
    ],
)
def test_bad_learner_options_are_named(kwargs, match):
    with pytest.raises(spdgraph.InvalidOptionError, match=match):
        exact_posterior(_data(), **kwargs)


def test_bad_data_is_refused_before_any_draw():
    x = _data()
    x[0, 0] = np.nan
    with pytest.raises(spdgraph.InvalidOptionError, match="NaN"):
        exact_posterior(x)
    with pytest.raises(spdgraph.InvalidOptionError, match=r"shape \(n, p\)"):
        exact_posterior(np.zeros(5))
    with pytest.raises(spdgraph.InvalidOptionError, match="tune"):
        nuts_posterior(_data(), tune=0)


# -- NUTS ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_nuts_learner_agrees_with_the_exact_posterior_and_is_seeded():
    """One chain's mean within Monte Carlo error of the conjugate mean (ESS below draws)."""
    pytest.importorskip("numpyro")
    x = _data(n=60, p=3, seed=2)
    draws = nuts_posterior(x, draws=600, tune=300, seed=11)
    assert draws.shape == (600, 3, 3)
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    # NUTS draws are correlated: allow an effective sample size of a quarter of the draws
    z = _z_scores(draws, x, 3.0, np.eye(3)) / 2
    assert np.abs(z).max() < 4.5, z
    again = nuts_posterior(x, draws=600, tune=300, seed=11)
    np.testing.assert_array_equal(draws, again)


# -- in a study ------------------------------------------------------------------------------
STUDY = {
    "name": "ppl-learners",
    "seed": 3,
    "repeats": 1,
    "grid": {"family": ["hub"], "p": [6], "n": [80]},
    "families": {"hub": {"g": 2}},
    "learners": [
        {
            "name": "wishart-exact",
            "function": "spdgraph_ppl.learners:exact_posterior",
            "options": {"draws": 150, "b": 3.0},
            "rule": "threshold",  # default cutoff of continuous draws: 0.95
        }
    ],
    "scores": {"metrics": ["tpr", "tdr", "f1", "seconds"]},
}


@pytest.mark.integration
def test_exact_learner_in_a_study_is_scored_as_a_posterior(tmp_path):
    import xarray as xr

    from spdgraph import simulate
    from spdgraph.seeds import sub_root
    from spdgraph.study import cell_seed, run
    from spdgraph.study._cell import LEARNER_DOMAIN
    from spdgraph.validation import posterior_scores, score_selection

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(STUDY, tmp_path / "a", workers=1, plots=False)
        run(STUDY, tmp_path / "b", workers=1, plots=False)
    table = pd.read_csv(tmp_path / "a" / "results.csv")
    metrics = set(table["metric"])
    assert {"brier", "stein_loss", "coverage", "roc_auc", "pr_auc", "tpr", "seconds"} <= metrics
    got = table.set_index("metric")["value"]
    assert 0 <= got["brier"] <= 1 and 0 <= got["coverage"] <= 1 and got["stein_loss"] > 0
    # the learner seed reaches the learner: a second run gives the same draws, so the same scores
    other = pd.read_csv(tmp_path / "b" / "results.csv").set_index("metric")["value"]
    for metric in ("brier", "stein_loss", "coverage", "roc_auc", "pr_auc", "tpr", "tdr"):
        assert got[metric] == other[metric], metric
    # the scores are posterior_scores of exact_posterior(data, seed=the cell's learner seed)
    coords = {"family": "hub", "p": 6, "n": 80, "method": "po", "data": "gaussian"}
    root = cell_seed(3, coords)
    sim = simulate("hub", 80, p=6, g=2, seed=sub_root(root, 0))
    x = np.asarray(sim["data"].values)
    draws = exact_posterior(x, draws=150, b=3.0, seed=sub_root(root, 0, LEARNER_DOMAIN))
    ref = posterior_scores(
        xr.DataArray(draws, dims=("draw", "node", "node_2")), np.asarray(sim["precision"].values)
    )
    for metric in ("brier", "stein_loss", "coverage", "roc_auc"):
        assert got[metric] == pytest.approx(ref[metric], rel=1e-12), metric
    assert ref.inclusion_from == "probability of direction"
    scores = np.zeros((6, 6))
    scores[np.triu_indices(6, 1)] = ref.pairs["inclusion"]
    selected = (scores + scores.T) > 0.95  # a 95% credible interval excludes zero
    truth = np.asarray(sim["adjacency"].values, dtype=bool)
    assert got["tpr"] == score_selection(selected, truth).metrics()["tpr"]
    assert got["tdr"] == score_selection(selected, truth).metrics()["tdr"]


def test_study_bayes_example_runs_the_exact_learner():
    from pathlib import Path

    from spdgraph.study import load_study

    root = Path(__file__).resolve().parents[3]
    study = load_study(root / "examples" / "study-bayes.toml")
    entry = next(e for e in study.learners if e["name"] == "wishart-exact")
    assert entry["function"] == "spdgraph_ppl.learners:exact_posterior"
    assert entry["rule"] == "threshold" and entry["cutoff"] == 0.95
    x = _data(n=20, p=3)
    draws = exact_posterior(x, **{**entry["options"], "draws": 4}, seed=1)
    assert draws.shape == (4, 3, 3)
