"""sample(..., sparse=True): values, structure, certificates, refusals, draws (issue 46)."""

from __future__ import annotations

import sys
import types

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.errors import (
    GeneratorOutputError,
    GraphError,
    InvalidOptionError,
    MissingDependencyError,
    TooLargeError,
)

sparse = pytest.importorskip("sparse")
pytest.importorskip("cvxopt")


@st.composite
def graphs(draw: st.DrawFn) -> nx.Graph:
    p = draw(st.integers(1, 24))
    density = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**16))
    return nx.gnp_random_graph(p, density, seed=seed)


def _dense(da) -> np.ndarray:
    return np.asarray(da.data.todense())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.integers(0, 1000), st.booleans())
def test_dd_sparse_equals_dense(g: nx.Graph, seed: int, normalize: bool) -> None:
    dense = spdgraph.sample(g, "dd", seed=seed, normalize=normalize).values
    s = spdgraph.sample(g, "dd", seed=seed, normalize=normalize, sparse=True)
    assert isinstance(s.data, sparse.COO)
    values = _dense(s)
    scale = np.abs(dense).max()
    assert np.abs(values - dense).max() <= 1e-10 * scale
    # portable: the same arithmetic in the same order, so the same bits
    portable = spdgraph.sample(g, "dd", seed=seed, normalize=normalize, portable=True)
    sp_portable = spdgraph.sample(
        g, "dd", seed=seed, normalize=normalize, portable=True, sparse=True
    )
    assert _dense(sp_portable).tobytes() == portable.values.tobytes()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.booleans())
def test_huge_sparse_equals_dense(g: nx.Graph, normalize: bool) -> None:
    kw = dict(kind="precision", unit_variance=False, normalize=normalize)
    dense = spdgraph.sample(g, "huge", seed=1, **kw).values
    values = _dense(spdgraph.sample(g, "huge", seed=1, sparse=True, **kw))
    assert np.abs(values - dense).max() <= 1e-10 * np.abs(dense).max()


def test_huge_sparse_uses_the_sparse_eigensolver_from_500_nodes() -> None:
    g = nx.cycle_graph(600)  # lambda_min(0.3 A) = -0.6 exactly (an even cycle)
    kw = dict(kind="precision", unit_variance=False, normalize=False)
    s = spdgraph.sample(g, "huge", seed=1, sparse=True, **kw)
    assert s.attrs["lambda_min_method"].startswith("shift-invert Lanczos")
    lmin = s.attrs["lambda_min"]
    assert abs(lmin + 0.6) <= 1e-14 and s.attrs["lambda_min_lower_bound"] < -0.6
    adjacency = nx.to_numpy_array(g, nodelist=range(600)) != 0
    expected = np.where(adjacency, 0.3, 0.0) + np.eye(600) * (abs(lmin) + 0.1 + 0.1)
    assert _dense(s).tobytes() == expected.tobytes()  # huge's rule with that value


def test_result_is_labelled_like_the_dense_one() -> None:
    g = nx.path_graph(["a", "b", "c", "d"])
    s = spdgraph.sample(g, "dd", seed=3, sparse=True, kind="precision")
    d = spdgraph.sample(g, "dd", seed=3, kind="precision")
    assert s.dims == d.dims and s.name == d.name == "precision"
    assert list(s["node"].values) == list(d["node"].values)
    assert np.array_equal(s["adjacency"].data.todense(), d["adjacency"].values)
    for key in ("method", "seed", "kind", "normalize", "entries", "method_options"):
        assert s.attrs[key] == d.attrs[key]
    assert s.attrs["sparse"] == 1
    assert "dominance" in s.attrs["certificate"] and s.attrs["condition_bound"] >= 1.0
    stack = spdgraph.sample(g, "dd", seed=3, sparse=True, size=3, kind="precision")
    assert stack.dims == ("sample", "node", "node_2")
    # matrix k depends only on its stream: the first of a stack is the single one
    assert np.array_equal(stack.data[0].todense(), s.data.todense())


def test_structure_is_exact_on_the_stored_entries() -> None:
    g = nx.gnp_random_graph(40, 0.15, seed=2)
    s = spdgraph.sample(g, "dd", seed=1, sparse=True)
    m = s.data.to_scipy_sparse().tocsr()
    adjacency = nx.to_numpy_array(g, nodelist=range(40)) != 0
    dense = m.toarray()
    assert np.array_equal(dense, dense.T)
    off = ~np.eye(40, dtype=bool)
    assert np.all(dense[off & ~adjacency] == 0)
    assert np.all(np.diag(dense) == 1.0)
    assert np.linalg.eigvalsh(dense)[0] > 0


def test_sparse_graph_inputs_are_read_without_densifying() -> None:
    p = 200_000
    band = scipy.sparse.diags_array([np.ones(p - 1), np.ones(p - 2)], offsets=[1, 2], shape=(p, p))
    adjacency = scipy.sparse.csr_array(band + band.T)
    s = spdgraph.sample(adjacency, "dd", seed=1, sparse=True, kind="precision")
    assert s.shape == (p, p) and s.data.nnz == p + 2 * (2 * p - 3)
    assert s["node"].dtype == np.int64
    again = spdgraph.sample(s, "dd", seed=1, sparse=True, kind="precision")  # its graph again
    assert np.array_equal(again.data.coords, s.data.coords)
    coo = sparse.COO.from_scipy_sparse(adjacency[:50, :50])
    assert spdgraph.sample(coo, "dd", seed=1, sparse=True).shape == (50, 50)


def test_sparse_adjacency_is_validated() -> None:
    with pytest.raises(GraphError, match="not symmetric"):
        spdgraph.sample(scipy.sparse.csr_array([[0, 1], [0, 0]]), "dd", sparse=True)
    with pytest.raises(GraphError, match="non-finite"):
        spdgraph.sample(scipy.sparse.csr_array([[0, np.nan], [np.nan, 0]]), "dd", sparse=True)


def test_methods_without_the_capability_are_refused_naming_those_with_it() -> None:
    with pytest.raises(InvalidOptionError, match="cannot build a sparse result") as refused:
        spdgraph.sample(nx.path_graph(4), "po", sparse=True)
    assert "'dd'" in str(refused.value) and "'huge'" in str(refused.value)
    with pytest.raises(InvalidOptionError, match="unit_variance=False"):
        spdgraph.sample(nx.path_graph(4), "huge", kind="precision", sparse=True)
    with pytest.raises(InvalidOptionError, match="chunks"):
        spdgraph.sample(nx.path_graph(4), "dd", sparse=True, chunks=1)
    with pytest.raises(InvalidOptionError, match="sparse must be True or False"):
        spdgraph.sample(nx.path_graph(4), "dd", sparse="yes")


def _register(gen: spdgraph.Generator, name: str):
    module = types.ModuleType(name)
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    spdgraph.get_plugin_manager().register(module, name=name)


def test_a_third_party_generator_declares_the_capability() -> None:
    def tridiagonal(adjacency, *, rng, entries, kind):
        p = adjacency.shape[0]
        return scipy.sparse.csr_array(scipy.sparse.eye_array(p) * 2.0 + adjacency * 0.25)

    gen = spdgraph.Generator(
        "toy-sparse", lambda a, **kw: 2.0 * np.eye(len(a)) + 0.25 * a, "test",
        sparse_function=tridiagonal,
    )  # fmt: skip
    _register(gen, "toy-sparse-plugin")
    try:
        s = spdgraph.sample(nx.path_graph(5), "toy-sparse", seed=1, sparse=True, normalize=False)
        d = spdgraph.sample(nx.path_graph(5), "toy-sparse", seed=1, normalize=False)
        assert np.array_equal(_dense(s), d.values)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-sparse-plugin")


@pytest.mark.parametrize(
    ("matrix", "match"),
    [
        (lambda a: scipy.sparse.csr_array(np.ones(a.shape)), "not an edge"),
        (lambda a: scipy.sparse.csr_array(np.eye(a.shape[0]) + np.triu(a.toarray()) * 0.1),
         "not exactly symmetric"),
        (lambda a: scipy.sparse.csr_array(np.eye(a.shape[0], dtype=np.float32)), "float64"),
    ],
)  # fmt: skip
def test_a_generator_s_bad_sparse_output_is_refused_naming_it(matrix, match) -> None:
    gen = spdgraph.Generator(
        "toy-bad-sparse", lambda a, **kw: np.eye(len(a)), "test",
        sparse_function=lambda a, **kw: matrix(a),
    )  # fmt: skip
    _register(gen, "toy-bad-sparse-plugin")
    try:
        with pytest.raises(GeneratorOutputError, match=match) as refused:
            spdgraph.sample(nx.path_graph(5), "toy-bad-sparse", seed=1, sparse=True)
        assert "toy-bad-sparse" in str(refused.value)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-bad-sparse-plugin")


def test_a_matrix_that_is_not_positive_definite_is_never_accepted() -> None:
    """Not dominant, not PD: the sparse Cholesky proof fails and the matrix is refused."""

    def indefinite(adjacency, *, rng, entries, kind):
        return scipy.sparse.csr_array(scipy.sparse.eye_array(adjacency.shape[0]) + adjacency)

    gen = spdgraph.Generator("toy-indefinite", lambda a, **kw: np.eye(len(a)), "test",
                             sparse_function=indefinite)  # fmt: skip
    _register(gen, "toy-indefinite-plugin")
    try:
        with pytest.raises(GeneratorOutputError, match=r"positive definite|certificate"):
            spdgraph.sample(nx.complete_graph(4), "toy-indefinite", seed=1, sparse=True,
                            max_redraws=1)  # fmt: skip
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-indefinite-plugin")


def test_memory_guard_counts_the_non_zeros_and_refuses_before_work(monkeypatch) -> None:
    from spdgraph.sampling import _memory as sparse_path

    calls = []

    def spy(adjacency, **kw):
        calls.append(1)
        return scipy.sparse.csr_array(scipy.sparse.eye_array(adjacency.shape[0]))

    gen = spdgraph.Generator("toy-spy", lambda a, **kw: np.eye(len(a)), "t", sparse_function=spy)
    _register(gen, "toy-spy-plugin")
    monkeypatch.setattr(sparse_path, "available_memory", lambda: 10_000)
    try:
        with pytest.raises(TooLargeError, match="bytes per stored entry"):
            spdgraph.sample(nx.path_graph(200), "toy-spy", seed=1, sparse=True)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-spy-plugin")
    assert not calls  # refused before the generator ran
    gen, _ = spdgraph.plugins.find_generator("dd")
    need = sparse_path.sparse_need(gen, 10**6, 2_500_000, 1)
    assert 0.2e9 < need < 0.6e9  # about 0.35 GB for p = 10**6, mean degree 5


def _elimination_reference(pattern: np.ndarray) -> int:
    """Entries of the Cholesky factor by the elimination game (slow, obviously right)."""
    a = pattern.copy()
    np.fill_diagonal(a, True)
    p = a.shape[0]
    columns = []
    for k in range(p):
        below = np.flatnonzero(a[k + 1 :, k]) + k + 1
        columns.append(1 + below.size)
        for i in below:
            a[i, below] = True
    return sum(columns), columns


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_predicted_fill_is_the_factor_s_size(g: nx.Graph) -> None:
    from spdgraph._kernels.sparse import cholesky_fill, elimination_tree

    p = g.number_of_nodes()
    a = nx.to_numpy_array(g, nodelist=range(p)) != 0
    csr = scipy.sparse.csr_array(a | np.eye(p, dtype=bool))
    csr.sort_indices()
    indptr, indices = csr.indptr.astype(np.int64), csr.indices.astype(np.int64)
    parent = elimination_tree(indptr, indices)
    count, columns = cholesky_fill(indptr, indices, parent, 2**40)
    entries, column_counts = _elimination_reference(a)
    assert count == entries and columns.tolist() == column_counts
    # the count stops at the budget
    assert cholesky_fill(indptr, indices, parent, 0)[0] == 1


def test_a_factor_that_would_not_fit_is_refused_with_the_predicted_fill(monkeypatch) -> None:
    from spdgraph._kernels.sparse_cholesky import plan_factor

    k = scipy.sparse.csr_array(np.eye(30) * 40 + np.ones((30, 30)))  # dense: fill 465
    with pytest.raises(TooLargeError, match="would hold more than") as refused:
        plan_factor(k, budget_bytes=100 * 40)
    assert "fill" in str(refused.value)
    assert plan_factor(k, budget_bytes=None).factor_entries == 465
    from spdgraph._kernels import sparse_cholesky

    monkeypatch.setattr(sparse_cholesky, "MAX_FACTOR_FLOPS", 1000.0)
    with pytest.raises(TooLargeError, match="floating-point operations"):
        plan_factor(k, budget_bytes=None)


def test_missing_cvxopt_names_the_extra(monkeypatch) -> None:
    s = spdgraph.sample(nx.cycle_graph(5), "dd", seed=1, sparse=True, kind="precision")
    monkeypatch.setitem(sys.modules, "cvxopt", None)
    with pytest.raises(MissingDependencyError, match=r"spdgraph\[large\]"):
        s.spd.draw(3, seed=1)


def _max_standardized_error(x: np.ndarray, sigma: np.ndarray) -> float:
    """Largest |S_ij - sigma_ij| / sd(S_ij) of the sample covariance of rows ``x`` (mean 0)."""
    n = x.shape[0]
    s = x.T @ x / n
    sd = np.sqrt((sigma**2 + np.outer(np.diag(sigma), np.diag(sigma))) / n)
    return float(np.max(np.abs(s - sigma) / sd))


@pytest.mark.parametrize("kind", ["precision", "covariance"])
def test_draws_follow_the_matrix_s_law(kind: str) -> None:
    g = nx.gnp_random_graph(8, 0.4, seed=3)
    m = spdgraph.sample(g, "dd", seed=2, sparse=True, kind=kind)
    dense = _dense(m)
    sigma = np.linalg.inv(dense) if kind == "precision" else dense
    x = m.spd.draw(50_000, seed=4)
    assert x.dims == ("obs", "node") and x.attrs["draw_method"].startswith("sparse Cholesky")
    # 64 entries, each within 5 standard deviations (a false alarm about 1e-5)
    assert _max_standardized_error(x.values, sigma) < 5.0
    # whitening: L^T x with K = L L^T is N(0, I)
    if kind == "precision":
        white = x.values @ np.linalg.cholesky(dense)
        assert _max_standardized_error(white, np.eye(8)) < 5.0


def test_cg_draws_follow_the_law_up_to_their_tolerance() -> None:
    g = nx.cycle_graph(7)
    k = spdgraph.sample(g, "dd", seed=2, sparse=True, kind="precision")
    x = k.spd.draw(20_000, seed=4, method="cg", tolerance=1e-12)
    assert x.attrs["draw_tolerance"] == 1e-12
    assert _max_standardized_error(x.values, np.linalg.inv(_dense(k))) < 5.0
    with pytest.raises(InvalidOptionError, match="sparse matrices"):
        spdgraph.sample(g, "dd", seed=2).spd.draw(3, method="cg")


def test_draws_are_reproducible_and_per_matrix() -> None:
    g = nx.path_graph(6)
    stack = spdgraph.sample(g, "dd", seed=2, sparse=True, size=2, kind="precision")
    a = stack.spd.draw(4, seed=9).values
    b = stack.spd.draw(4, seed=9).values
    assert a.tobytes() == b.tobytes() and a.shape == (2, 4, 6)


def test_accessor_on_sparse_results() -> None:
    g = nx.path_graph(["a", "b", "c", "d"])
    k = spdgraph.sample(g, "dd", seed=1, sparse=True, kind="precision")
    assert k.spd.check() is k
    pc = k.spd.partial_correlation()
    dense_pc = spdgraph.sample(g, "dd", seed=1, kind="precision", portable=True)
    assert isinstance(pc.data, sparse.COO)
    assert np.allclose(_dense(pc), dense_pc.spd.partial_correlation().values, rtol=1e-12)
    back = k.spd.graph()
    assert list(back.nodes) == ["a", "b", "c", "d"] and nx.utils.edges_equal(back.edges, g.edges)
    assert k.spd.graph("scipy").nnz == 6
    assert np.array_equal(k.spd.to_numpy(), _dense(k))
    broken = k.copy(data=sparse.COO.from_numpy(_dense(k) + np.eye(4, k=2) * 0.1))
    from spdgraph.errors import MatrixError

    with pytest.raises(MatrixError, match="symmetric"):
        broken.spd.check()


def test_simulate_sparse_gives_the_sparse_precision_and_exact_data() -> None:
    sim = spdgraph.simulate("band", n=30, p=25, method="dd", sparse=True, seed=1)
    dense = spdgraph.simulate("band", n=30, p=25, method="dd", seed=1)
    assert isinstance(sim["precision"].data, sparse.COO)
    assert np.allclose(_dense(sim["precision"]), dense["precision"].values, rtol=0, atol=1e-14)
    assert np.allclose(sim["covariance"].values, dense["covariance"].values, atol=1e-12)
    assert sim["data"].shape == (30, 25) and sim.attrs["sparse"] == 1
    assert sim.attrs["n_edges"] == dense.attrs["n_edges"]
    again = spdgraph.simulate("band", n=30, p=25, method="dd", sparse=True, seed=1)
    assert again["data"].values.tobytes() == sim["data"].values.tobytes()
    with pytest.raises(InvalidOptionError, match="Gaussian"):
        spdgraph.simulate("band", n=3, p=5, method="dd", sparse=True, data="binary")


def test_simulate_sparse_omits_the_dense_inverse_of_a_large_graph(monkeypatch) -> None:
    from spdgraph.simulation import _sparse as simulation

    monkeypatch.setattr(simulation, "DENSE_INVERSE_NODES", 10)
    sim = spdgraph.simulate("band", n=5, p=20, method="dd", sparse=True, seed=1)
    assert "covariance" not in sim and "dense" in sim.attrs["omitted"]


def test_cli_sample_sparse_writes_triplets(tmp_path, capsys) -> None:
    pytest.importorskip("netCDF4")
    from spdgraph import cli

    g = nx.path_graph(["a", "b", "c", "d"])
    nx.write_graphml(g, tmp_path / "g.graphml")
    out = tmp_path / "prec.nc"
    code = cli.main(
        ["sample", str(tmp_path / "g.graphml"), "-m", "dd", "--kind", "precision",
         "--seed", "3", "--sparse", "-o", str(out)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    back = spdgraph.open(out)
    assert isinstance(back.data, sparse.COO)
    expected = spdgraph.sample(g, "dd", seed=3, kind="precision", sparse=True)
    assert np.asarray(back.data.todense()).tobytes() == _dense(expected).tobytes()


def test_a_picture_that_works_at_this_size() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    p = 100_000
    chain = scipy.sparse.diags_array([np.ones(p - 1)], offsets=[1], shape=(p, p))
    k = spdgraph.sample(scipy.sparse.csr_array(chain + chain.T), "dd", seed=1, sparse=True,
                        kind="precision")  # fmt: skip
    fig = k.spd.plot()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("degrees (100,000 nodes)")
    assert "partial correlations" in titles[1] and "199,998 entries" in titles[1]


def test_scoring_takes_a_sparse_truth() -> None:
    from spdgraph.validation import score

    g = nx.gnp_random_graph(12, 0.3, seed=4)
    truth = spdgraph.sample(g, "dd", seed=1, sparse=True, kind="precision")
    dense = spdgraph.sample(g, "dd", seed=1, kind="precision")
    x = truth.spd.draw(400, seed=2)
    assert (
        spdgraph.adapt_graph(truth).adjacency.tolist()
        == spdgraph.adapt_graph(dense).adjacency.tolist()
    )
    a = score(x, truth, learner="lasso", seed=3)
    b = score(x, dense, learner="lasso", seed=3)
    assert (a.tpr, a.tdr, a.n_selected, a.true_positives) == (
        b.tpr, b.tdr, b.n_selected, b.true_positives,
    )  # fmt: skip
    assert np.array_equal(a.selected, b.selected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.integers(0, 1000))
def test_the_comparison_shortcut_never_skips_an_h_matrix(g: nx.Graph, seed: int) -> None:
    # weights that prove dominance imply 1^T <M> 1 > 0: the shortcut only skips matrices
    # no weights could prove (those go to the factorization)
    from spdgraph.sampling._sparse_certify import (
        _comparison_form_positive,
        _gershgorin,
        comparison_weights,
    )

    rng = np.random.default_rng(seed)
    a = nx.to_numpy_array(g, nodelist=range(len(g))) != 0
    m = np.where(a, rng.normal(size=a.shape), 0.0)
    m = np.triu(m, 1) + np.triu(m, 1).T + np.diag(rng.uniform(0.5, 3.0, len(g)))
    csr = scipy.sparse.csr_array(m)
    w = comparison_weights(csr)
    if w is not None and _gershgorin(csr, w) is not None:
        assert _comparison_form_positive(csr)


def test_a_matrix_that_is_not_an_h_matrix_skips_the_conjugate_gradients(monkeypatch) -> None:
    import spdgraph.sampling._sparse_certify as certify

    def refuse(csr):
        raise AssertionError("comparison_weights ran on a matrix that is not an H-matrix")

    monkeypatch.setattr(certify, "comparison_weights", refuse)
    # unit diagonal, 0.55 on a triangle and a pendant edge: 1^T <M> 1 = -0.4, yet PD
    x = 0.55
    m = np.array([[1, x, x, 0], [x, 1, x, x], [x, x, 1, 0], [0, x, 0, 1]])
    found = certify.prove_positive_definite(scipy.sparse.csr_array(m), what="m", budget_bytes=None)
    assert "Cholesky" in found["certificate"]
