"""Adversarial catalogue against every certificate (issue 54): none passes a matrix not PD.

Every certifier is run on matrices that are exactly singular (integer entries,
null vectors orthogonal to the constant vector), slightly indefinite, nearly
singular, non-finite or asymmetric by one ulp:

* the dense path's checks (:func:`~spdgraph._kernels.numerics.find_violation`
  and the fast :func:`~spdgraph._kernels.certify.certifies`), its weighted
  dominance proof (:func:`~spdgraph._kernels.dominance.proves_pd`) and its
  Cholesky proof (:func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`,
  shifted and from a completed factor; more in ``test_certificates_dense.py``);
* the sparse path's dominance proof, its proven-margin sparse Cholesky proof
  (:func:`~spdgraph._kernels.cholesky_proof.proven_lower_bound`), the whole
  :func:`~spdgraph.sampling.prove_positive_definite` and the randomized proof;
* a third-party generator (a ``function`` and a ``sparse_function``) on both
  public paths, ``sample(...)`` and ``sample(..., sparse=True)``.

None is ever certified. The positive definite ones are certified or refused
with a message saying why, and a certified one's recorded lower bound of the
smallest eigenvalue is below the true one (numpy's ``eigvalsh``, far from
the bound's margin).
"""

from __future__ import annotations

import types
from collections.abc import Callable

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph._kernels.certify import certifies
from spdgraph._kernels.cholesky_proof import dense_lower_bound
from spdgraph._kernels.dominance import proves_pd
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph.errors import GeneratorOutputError, NumericalError, UncertifiedMatrixError
from spdgraph.sampling import prove_positive_definite
from spdgraph.sampling._randomized_certify import LOWER_BOUND_KEY, randomized_certificate

pytest.importorskip("cvxopt")
pytest.importorskip("sparse")

B = np.array([[5.0, 2, -1], [2, 2, 2], [-1, 2, 5]])  # B @ [1, -2, 1] == 0 exactly


def _gram(rows: list[list[int]]) -> np.ndarray:
    c = np.array(rows, dtype=np.float64)
    return c.T @ c  # integer entries, exact; singular (fewer rows than columns)


def _laplacian(graph: nx.Graph) -> np.ndarray:
    return nx.laplacian_matrix(graph, nodelist=sorted(graph)).toarray().astype(np.float64)


def _cycle_shifted(relative: float, n: int = 12) -> np.ndarray:
    """Even cycle's adjacency + (2 + 4 t) I: lambda_min = 4 t (the alternating vector)."""
    a = nx.to_numpy_array(nx.cycle_graph(n))
    return a + (2.0 + 4.0 * relative) * np.eye(n)


def planted(graph: nx.Graph, seed: int) -> np.ndarray:
    """A PSD matrix on ``graph``'s pattern with an exact integer null vector ``v``, ``sum v = 0``.

    ``v = S a`` (signs ``S``, magnitudes ``a`` in {1, 2}), off-diagonal
    ``m_ij = -c_ij s_i s_j`` with integers ``c_ij`` in 1..5, diagonal
    ``d_i = sum_j c_ij a_j / a_i`` (exact: a half-integer at most): ``M = S (D - C) S``
    with ``(D - C) a = 0``, a singular M-matrix's congruent copy. Every node has an edge.
    """
    rng = np.random.default_rng(seed)
    p = graph.number_of_nodes()
    v = np.empty(p)
    for i in range(p - 2):  # signs against the running sum: it stays in [-2, 2]
        v[i] = rng.integers(1, 3) * (-1.0 if v[:i].sum() > 0 else 1.0)
    last = {0: (1, -1), 1: (-2, 1), -1: (2, -1), 2: (-1, -1), -2: (1, 1)}
    v[p - 2 :] = last[int(v[: p - 2].sum())]
    a, sign = np.abs(v), np.sign(v)
    m = np.zeros((p, p))
    for i, j in graph.edges:
        m[i, j] = m[j, i] = -float(rng.integers(1, 6)) * sign[i] * sign[j]
    for i in range(p):
        m[i, i] = float(np.abs(m[i]) @ a) / a[i]  # sum_j c_ij a_j / a_i: exact
    assert np.array_equal(m @ v, np.zeros(p)) and v.sum() == 0
    return m


def _singular_catalogue() -> dict[str, np.ndarray]:
    block = scipy.sparse.block_diag([B, _path_bulk(200)]).toarray()
    connected = nx.gnp_random_graph(12, 0.3, seed=5)
    connected.add_edges_from(nx.path_graph(12).edges)
    return {
        "B": B,
        "gram-2x3": _gram([[1, 2, 3], [3, 1, -2]]),
        "gram-3x5": _gram([[1, 0, 2, 0, 1], [0, 3, 1, 1, 0], [2, 1, 0, 0, 3]]),
        "gram-4x6": _gram([[1, 1, 0, 0, 2, 1], [0, 2, 1, 3, 0, 0],
                           [1, 0, 0, 1, 1, 1], [2, 0, 3, 0, 0, 1]]),
        "laplacian-cycle": _laplacian(nx.cycle_graph(9)),
        "laplacian-petersen": _laplacian(nx.petersen_graph()),
        "laplacian-complete": _laplacian(nx.complete_graph(6)),
        "planted-path": planted(nx.path_graph(10), 1),
        "planted-random": planted(connected, 2),
        "block-in-bulk": block,
        "lambda -1e-6": _cycle_shifted(-1e-6),
        "lambda -1e-9": _cycle_shifted(-1e-9),
        "lambda -1e-12": _cycle_shifted(-1e-12),
        "lambda 0": _cycle_shifted(0.0),
    }  # fmt: skip


def _path_bulk(p: int, shift: float = 0.5) -> scipy.sparse.csr_array:
    """The path graph's Laplacian + ``shift`` I: eigenvalues in [shift, shift + 4]."""
    lap = nx.laplacian_matrix(nx.path_graph(p)).astype(np.float64)
    return scipy.sparse.csr_array(lap + shift * scipy.sparse.eye_array(p))


SINGULAR = _singular_catalogue()
#: Positive definite, but by at most 1e-12 relative: certified or refused, either is fine.
NEARLY = {
    "lambda +1e-12": _cycle_shifted(1e-12),
    "lambda +1e-9": _cycle_shifted(1e-9),
    # below the trace bound's shift (about 6e-11 here): the proof reads the factor
    "lambda +1e-11, p = 600": _cycle_shifted(1e-11, 600),
}


def _adjacency(m: np.ndarray) -> np.ndarray:
    adjacency = m != 0
    np.fill_diagonal(adjacency, False)
    return adjacency


def _true_lambda_min(m: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(m)[0])


def _dense_certified(m: np.ndarray) -> bool:
    adjacency = _adjacency(m)
    stack = np.ascontiguousarray(m[None])
    verdicts = [
        find_violation(m, adjacency, condition_bound=MAX_SCALED_CONDITION) is None,
        certifies(stack, adjacency, check_pd=True, condition_bound=MAX_SCALED_CONDITION),
    ]
    if np.array_equal(m, m.T):  # the dominance proof's contract: symmetry checked before
        verdicts.append(proves_pd(stack, adjacency, MAX_SCALED_CONDITION))
    if np.all(np.isfinite(m)) and np.array_equal(m, m.T) and np.all(np.diagonal(m) > 0):
        verdicts.append(dense_lower_bound(m) > 0)  # the dense Cholesky proof, shifted
        try:  # and from a factorization that completes (numpy's: this machine's rounding)
            verdicts.append(dense_lower_bound(m, np.linalg.cholesky(m)) > 0)
        except np.linalg.LinAlgError:
            pass
    return any(verdicts)


def _sparse_proofs(csr: scipy.sparse.csr_array) -> dict[str, Callable[[], dict]]:
    from spdgraph._kernels.cholesky_proof import proven_lower_bound
    from spdgraph._kernels.sparse_cholesky import plan_factor

    def cholesky() -> dict:
        return {"bound": proven_lower_bound(csr, plan_factor(csr, budget_bytes=None))}

    proofs = {
        "prove_positive_definite": lambda: prove_positive_definite(
            csr, what="m", budget_bytes=None, randomized=False
        ),
        "randomized": lambda: randomized_certificate(csr, what="m"),
    }
    if (csr != csr.T).nnz == 0:  # the factorization's contract: symmetry checked before
        proofs["sparse Cholesky"] = cholesky
    return proofs


def _assert_sparse_refused(csr: scipy.sparse.csr_array) -> None:
    for name, proof in _sparse_proofs(csr).items():
        with pytest.raises((UncertifiedMatrixError, NumericalError)):
            print(name, proof())  # a certificate returned: the test fails here


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_no_certifier_passes_a_matrix_that_is_not_positive_definite(name: str) -> None:
    m = SINGULAR[name]
    assert _true_lambda_min(m) < 1e-13 * np.abs(m).sum(axis=1).max()  # the premise
    assert not _dense_certified(m)
    _assert_sparse_refused(scipy.sparse.csr_array(m))


@pytest.mark.parametrize("name", sorted(NEARLY))
def test_a_barely_positive_definite_matrix_is_certified_with_a_true_bound_or_refused(
    name: str,
) -> None:
    m = NEARLY[name]
    truth = _true_lambda_min(m)
    assert truth > 0
    for proof in _sparse_proofs(scipy.sparse.csr_array(m)).values():
        try:
            found = proof()
        except UncertifiedMatrixError as exc:
            why = ("not proven positive definite", "too close", "condition bound")
            assert any(reason in str(exc) for reason in why), exc
            continue
        bound = found.get("bound", found.get(LOWER_BOUND_KEY))
        assert 0 < bound <= truth


def test_the_issue_s_reproducer_is_refused_saying_why() -> None:
    with pytest.raises(UncertifiedMatrixError, match="not proven positive definite"):
        prove_positive_definite(scipy.sparse.csr_array(B), what="B", budget_bytes=None)


@pytest.mark.parametrize("name", ["nan", "asymmetric by one ulp"])
def test_non_finite_and_asymmetric_matrices_are_refused(name: str) -> None:
    m = 2.0 * np.eye(4) + 0.5 * nx.to_numpy_array(nx.path_graph(4))
    if name == "nan":
        m[1, 2] = m[2, 1] = np.nan
    else:
        m[1, 2] = np.nextafter(m[1, 2], 1.0)
    assert not _dense_certified(m)
    _assert_sparse_refused(scipy.sparse.csr_array(m))


def test_the_proofs_record_a_lower_bound_below_the_smallest_eigenvalue() -> None:
    """Dominance, the sparse Cholesky and the randomized proof: each bound holds."""
    dominant = _path_bulk(300, 0.5).toarray()
    h_matrix = planted(nx.cycle_graph(30), 3) + 1.0 * np.eye(30)  # dominant, weighted
    odd_cycle = nx.to_numpy_array(nx.cycle_graph(31)) + 1.995 * np.eye(31)  # not an H-matrix
    for m in (dominant, h_matrix, odd_cycle):
        truth = _true_lambda_min(m)
        found = prove_positive_definite(scipy.sparse.csr_array(m), what="m", budget_bytes=None)
        assert 0 < found[LOWER_BOUND_KEY] <= truth
        assert ("margin" in found["certificate"]) == (m is odd_cycle)
    for m in (dominant, h_matrix):
        randomized = randomized_certificate(scipy.sparse.csr_array(m), what="m")
        assert 0 < randomized[LOWER_BOUND_KEY] <= _true_lambda_min(m)


@settings(
    max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(p=st.integers(3, 24), density=st.floats(0.1, 0.8), seed=st.integers(0, 2**16))
def test_random_graphs_with_a_planted_null_vector_are_never_certified(p, density, seed) -> None:
    graph = nx.gnp_random_graph(p, density, seed=seed)
    graph.add_edges_from(nx.path_graph(p).edges)  # every node has an edge
    m = planted(graph, seed)
    assert not _dense_certified(m)
    _assert_sparse_refused(scipy.sparse.csr_array(m))
    shifted = m + 1e-2 * np.eye(p)  # positive definite: lambda_min = 1e-2 exactly
    found = prove_positive_definite(scipy.sparse.csr_array(shifted), what="m", budget_bytes=None)
    assert 0 < found[LOWER_BOUND_KEY] <= 1e-2 * (1 + 1e-9)


# --- large sparse matrices: a singular block in a bulk, a Laplacian ---------------------


def _block_in_bulk(p: int) -> scipy.sparse.csr_array:
    return scipy.sparse.csr_array(scipy.sparse.block_diag([B, _path_bulk(p - 3)], format="csr"))


def _connected_laplacian(p: int, seed: int) -> scipy.sparse.csr_array:
    graph = nx.fast_gnp_random_graph(p, 5.0 / p, seed=seed)
    graph.add_edges_from(nx.path_graph(p).edges)
    return (
        scipy.sparse.csr_array(_laplacian(graph))
        if p <= 3000
        else scipy.sparse.csr_array(
            nx.laplacian_matrix(graph, nodelist=range(p)).astype(np.float64)
        )
    )


def test_a_singular_block_in_a_large_bulk_is_refused() -> None:
    _assert_sparse_refused(_block_in_bulk(10**4))


def test_an_erdos_renyi_laplacian_with_shift_0_is_refused() -> None:
    _assert_sparse_refused(_connected_laplacian(1500, 4))


@pytest.mark.slow
def test_an_erdos_renyi_laplacian_with_shift_0_is_refused_at_p_10_4() -> None:
    _assert_sparse_refused(_connected_laplacian(10**4, 3))


# --- the public paths, through a third-party generator ----------------------------------


def _register(matrix: np.ndarray, name: str) -> None:
    csr = scipy.sparse.csr_array(matrix)

    def dense(adjacency, **kw):
        return matrix.copy()

    def sparse_function(adjacency, **kw):
        return csr.copy()

    gen = spdgraph.Generator(name, dense, "test", sparse_function=sparse_function)
    module = types.ModuleType(f"{name}-plugin")
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    spdgraph.get_plugin_manager().register(module, name=f"{name}-plugin")


def _refused_on_both_paths(m: np.ndarray, name: str, errors: tuple[type, ...]) -> None:
    graph = nx.from_numpy_array(_adjacency(m).astype(np.int64))
    _register(m, name)
    try:
        for sparse in (False, True):
            for normalize in (True, False):
                with pytest.raises(errors):
                    spdgraph.sample(graph, name, seed=1, sparse=sparse, normalize=normalize,
                                    max_redraws=1)  # fmt: skip
    finally:
        spdgraph.get_plugin_manager().unregister(name=f"{name}-plugin")


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_the_public_paths_never_label_a_singular_matrix_certified(name: str) -> None:
    _refused_on_both_paths(SINGULAR[name], "toy-adversarial", (UncertifiedMatrixError,))


def test_the_public_paths_refuse_nan_and_asymmetry_naming_the_problem() -> None:
    m = 2.0 * np.eye(4) + 0.5 * nx.to_numpy_array(nx.path_graph(4))
    bad = m.copy()
    bad[1, 2] = np.nextafter(bad[1, 2], 1.0)
    _refused_on_both_paths(bad, "toy-asymmetric", (GeneratorOutputError,))
    bad = m.copy()
    bad[1, 2] = bad[2, 1] = np.nan
    _refused_on_both_paths(bad, "toy-nan", (GeneratorOutputError,))


def test_the_public_sparse_path_records_the_proven_bound() -> None:
    m = planted(nx.cycle_graph(30), 3) + 1e-3 * np.eye(30)
    _register(m, "toy-planted")
    try:
        graph = nx.from_numpy_array(_adjacency(m).astype(np.int64))
        out = spdgraph.sample(graph, "toy-planted", seed=1, sparse=True, normalize=False)
        bound = out.attrs["certificate_lambda_min_lower_bound"]
        assert 0 < bound <= _true_lambda_min(m)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-planted-plugin")


@pytest.mark.slow
def test_the_public_sparse_path_refuses_a_block_in_a_bulk_of_10_4() -> None:
    m = _block_in_bulk(10**4)
    graph = nx.from_scipy_sparse_array(scipy.sparse.csr_array(m != 0).astype(np.int64))
    graph.remove_edges_from(nx.selfloop_edges(graph))

    def sparse_function(adjacency, **kw):
        return m.copy()

    gen = spdgraph.Generator("toy-bulk", lambda a, **kw: np.eye(len(a)), "test",
                             sparse_function=sparse_function)  # fmt: skip
    module = types.ModuleType("toy-bulk-plugin")
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    spdgraph.get_plugin_manager().register(module, name="toy-bulk-plugin")
    try:
        with pytest.raises(UncertifiedMatrixError):
            spdgraph.sample(graph, "toy-bulk", seed=1, sparse=True, max_redraws=1)
    finally:
        spdgraph.get_plugin_manager().unregister(name="toy-bulk-plugin")


def test_check_shows_the_proven_lower_bound_and_refuses_a_singular_matrix() -> None:
    import sparse

    out = spdgraph.sample(nx.cycle_graph(30), "dd", seed=3, sparse=True, kind="precision",
                          normalize=False)  # fmt: skip
    del out.attrs["certificate_lambda_min_lower_bound"]
    out.spd.check()
    truth = _true_lambda_min(out.data.todense())
    assert 0 < out.attrs["certificate_lambda_min_lower_bound"] <= truth
    singular = out.copy(data=sparse.COO.from_numpy(_cycle_shifted(0.0, 30)))
    with pytest.raises(spdgraph.errors.MatrixError, match="not proven positive definite"):
        singular.spd.check()
