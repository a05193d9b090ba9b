"""The randomized proof of positive definiteness (sparse results beyond a Cholesky proof).

The dense spectrum (``numpy.linalg.eigvalsh``) is the slow, obviously right
reference: a matrix the proof passes is positive definite and its proven
condition bound is at least the true condition number; a matrix that is not
positive definite is never passed.
"""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels.power_certificate import scale_and_norm, shifted_product
from spdgraph.errors import InvalidOptionError, TooLargeError, UncertifiedMatrixError
from spdgraph.sampling import _randomized_certify as randomized
from spdgraph.sampling import prove_positive_definite


def _csr(m: np.ndarray) -> scipy.sparse.csr_array:
    out = scipy.sparse.csr_array(m)
    out.sort_indices()
    return out


def _shifted_adjacency(g: nx.Graph, v: float, margin: float) -> np.ndarray:
    """``v A + (margin - lambda_min(v A)) I``: smallest eigenvalue ``margin`` (huge's form).

    ``margin`` is in units of the spread ``lambda_max(v A) - lambda_min(v A)``.
    """
    a = nx.to_numpy_array(g, nodelist=sorted(g)) * v
    spectrum = np.linalg.eigvalsh(a)
    return a + (margin * (spectrum[-1] - spectrum[0]) - spectrum[0]) * np.eye(len(a))


@st.composite
def graphs(draw) -> nx.Graph:
    p = draw(st.integers(2, 60))
    density = draw(st.floats(0.05, 0.6))
    seed = draw(st.integers(0, 2**31))
    g = nx.gnp_random_graph(p, density, seed=seed)
    if g.number_of_edges() == 0:
        g.add_edge(0, 1)
    return g


def test_the_kernels_against_numpy() -> None:
    rng = np.random.default_rng(3)
    g = nx.gnp_random_graph(40, 0.2, seed=3)
    m = _csr(_shifted_adjacency(g, 0.7, 0.1))
    x = rng.standard_normal((3, 40))
    out = np.empty_like(x)
    largest = shifted_product(m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data,
                              1.5, x, out)  # fmt: skip
    expected = 1.5 * x - (m @ x.T).T
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(largest, np.abs(out).max(axis=1))
    exponents = np.array([np.frexp(v)[1] for v in largest], dtype=np.int64)
    scaled = np.empty_like(out)
    norms = scale_and_norm(out, exponents, scaled)
    np.testing.assert_array_equal(scaled, np.ldexp(out, -exponents[:, None]))  # exact
    np.testing.assert_allclose(norms, np.linalg.norm(scaled, axis=1), rtol=1e-14)
    assert np.all((np.abs(scaled).max(axis=1) >= 0.5) & (np.abs(scaled).max(axis=1) < 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.floats(0.05, 1.0), st.floats(0.03, 0.5))
def test_a_positive_definite_matrix_passes_with_a_true_condition_bound(g, v, margin) -> None:
    m = _shifted_adjacency(g, v, margin)
    out = randomized.randomized_certificate(_csr(m), what="m")
    spectrum = np.linalg.eigvalsh(m)
    assert spectrum[0] > 0
    assert out["condition_bound"] >= spectrum[-1] / spectrum[0]
    assert out["certificate_failure_probability"] == pytest.approx(1e-12)
    assert 1 <= out["certificate_steps"] <= randomized.MAX_STEPS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.floats(0.05, 1.0), st.floats(-0.3, 0.0))
def test_a_matrix_that_is_not_positive_definite_is_never_passed(g, v, margin) -> None:
    m = _shifted_adjacency(g, v, margin)
    assert np.linalg.eigvalsh(m)[0] <= 1e-12
    with pytest.raises(UncertifiedMatrixError, match=r"not (proven )?positive definite"):
        randomized.randomized_certificate(_csr(m), what="m")


def test_a_hidden_negative_eigenvalue_is_found_by_the_power_iteration(monkeypatch) -> None:
    """One negative eigenvalue the Lanczos estimate misses: the proof still refuses."""
    p = 400
    values = np.linspace(1.0, 2.0, p)
    values[137] = -1e-3
    m = _csr(np.diag(values))
    monkeypatch.setattr(randomized, "_estimates", lambda csr, upper: (1.0, 2.0))
    with pytest.raises(UncertifiedMatrixError, match="not proven positive definite"):
        randomized.randomized_certificate(m, what="m")


def test_the_verdict_is_the_same_every_run_and_depends_on_the_matrix_only() -> None:
    m = _csr(_shifted_adjacency(nx.cycle_graph(30), 0.5, 0.2))
    first = randomized.randomized_certificate(m, what="m")
    again = randomized.randomized_certificate(m.copy(), what="m")
    assert first == again
    assert np.array_equal(randomized._start(m), randomized._start(m.copy()))
    other = _csr(_shifted_adjacency(nx.cycle_graph(30), 0.5, 0.3))
    assert not np.array_equal(randomized._start(m), randomized._start(other))


def test_the_failure_probability_is_the_product_of_the_starts() -> None:
    assert randomized.FAILURE_PROBABILITY == pytest.approx(
        randomized.START_FAILURE_PROBABILITY**randomized.STARTS
    )
    assert randomized.FAILURE_PROBABILITY <= 1e-12 * (1 + 1e-9)
    # P(|N(0, 1)| < t) <= t sqrt(2 / pi) is the per-start chance
    from scipy.stats import norm

    t = randomized._THRESHOLD
    assert 2 * norm.cdf(t) - 1 <= randomized.START_FAILURE_PROBABILITY


def _force_no_factor(monkeypatch) -> None:
    from spdgraph._kernels import sparse_cholesky

    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", 10.0)


def test_prove_positive_definite_falls_back_on_it_only_past_the_factorization(
    monkeypatch,
) -> None:
    m = _csr(_shifted_adjacency(nx.petersen_graph(), 0.5, 0.2))  # not dominant
    found = prove_positive_definite(m, what="m", budget_bytes=None)
    assert found["certificate"].startswith("sparse Cholesky")
    _force_no_factor(monkeypatch)
    found = prove_positive_definite(m, what="m", budget_bytes=None)
    assert found["certificate"].startswith("randomized power iteration")
    with pytest.raises(TooLargeError, match="randomized proof"):
        prove_positive_definite(m, what="m", budget_bytes=None, randomized=False)


def test_sample_records_the_randomized_proof_and_can_refuse_it(monkeypatch) -> None:
    g = nx.random_regular_graph(6, 60, seed=2)
    _force_no_factor(monkeypatch)
    da = spdgraph.sample(g, "huge", sparse=True, kind="precision", unit_variance=False)
    assert da.attrs["certificate"].startswith("randomized power iteration")
    assert da.attrs["certificate_failure_probability"] == pytest.approx(1e-12)
    dense = np.asarray(da.data.todense())
    assert np.linalg.eigvalsh(dense)[0] > 0
    with pytest.raises(TooLargeError, match="certificate='deterministic'"):
        spdgraph.sample(g, "huge", sparse=True, kind="precision", unit_variance=False,
                        certificate="deterministic")  # fmt: skip
    with pytest.raises(InvalidOptionError, match="certificate must be one of"):
        spdgraph.sample(g, "huge", sparse=True, kind="precision", certificate="maybe")
    stacked = spdgraph.sample(g, "dd", sparse=True, kind="precision", size=2, seed=1)
    assert "certificate_failure_probability" not in stacked.attrs  # dominance: deterministic


def test_without_cvxopt_the_core_still_proves_a_non_dominant_matrix(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "cvxopt", None)
    g = nx.random_regular_graph(6, 60, seed=2)
    da = spdgraph.sample(g, "huge", sparse=True, kind="precision", unit_variance=False)
    assert da.attrs["certificate"].startswith("randomized power iteration")
    from spdgraph.errors import MissingDependencyError

    with pytest.raises(MissingDependencyError, match=r"spdgraph\[large\]"):
        spdgraph.sample(g, "huge", sparse=True, kind="precision", unit_variance=False,
                        certificate="deterministic")  # fmt: skip


def test_simulate_passes_the_choice_on(monkeypatch) -> None:
    _force_no_factor(monkeypatch)
    with pytest.raises(TooLargeError, match="certificate='deterministic'"):
        spdgraph.simulate(nx.random_regular_graph(6, 40, seed=1), 5, method="huge",
                          kind="precision", unit_variance=False, sparse=True,
                          certificate="deterministic")  # fmt: skip


def test_the_command_line_takes_the_choice(tmp_path, capsys, monkeypatch) -> None:
    pytest.importorskip("netCDF4")
    from spdgraph import cli

    nx.write_edgelist(nx.random_regular_graph(6, 40, seed=1), tmp_path / "g.txt", data=False)
    _force_no_factor(monkeypatch)
    common = ["sample", str(tmp_path / "g.txt"), "-m", "huge", "--kind", "precision",
              "--sparse", "--option", "unit_variance=False"]  # fmt: skip
    code = cli.main([*common, "--certificate", "deterministic", "-o", str(tmp_path / "a.nc")])
    assert code != 0 and "certificate='deterministic'" in capsys.readouterr().err
    assert not (tmp_path / "a.nc").exists()
    assert cli.main([*common, "-o", str(tmp_path / "b.nc")]) == 0
    back = spdgraph.open(tmp_path / "b.nc")
    assert back.attrs["certificate"].startswith("randomized power iteration")
    assert back.attrs["certificate_failure_probability"] == pytest.approx(1e-12)


def test_huge_s_matrix_skips_the_comparison_system(monkeypatch) -> None:
    """Its diagonal is below the Perron root: the power-iterate quotient sees it at once."""
    import spdgraph.sampling._sparse_certify as certify

    def refuse(csr):
        raise AssertionError("comparison_weights ran on a matrix that is not an H-matrix")

    monkeypatch.setattr(certify, "comparison_weights", refuse)
    a = nx.to_numpy_array(nx.gnp_random_graph(300, 5 / 300, seed=0)) * 0.3
    m = _csr(a + (0.2 - np.linalg.eigvalsh(a)[0]) * np.eye(300))  # huge's rule, v = 0.3
    ones = np.ones(300)
    assert ones @ (abs(m) @ ones) < 2 * (m.diagonal() @ ones)  # 1^T <M> 1 > 0: not enough
    assert not certify._comparison_form_positive(m)
    found = certify.prove_positive_definite(m, what="m", budget_bytes=None)
    assert found["certificate"].startswith("sparse Cholesky")
