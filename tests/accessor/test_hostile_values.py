"""The accessor refuses what it would misread (issue 49, item 7)."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.errors import InaccurateInverseWarning, MatrixError


@pytest.fixture(scope="module")
def cov():
    return spdgraph.sample(nx.path_graph(4), seed=1)


@pytest.mark.parametrize("method", ["inverse", "correlation", "partial_correlation", "check"])
@pytest.mark.parametrize("make", ["complex", "object", "string"])
def test_complex_and_object_values_are_refused(cov, method, make):
    if make == "complex":
        bad = cov + 0.5j * np.eye(4)
    elif make == "object":
        bad = cov.copy(data=cov.values.astype(object))
    else:
        bad = cov.copy(data=cov.values.astype(str))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(MatrixError, match="dtype"):
            getattr(bad.spd, method)()
        with pytest.raises(MatrixError, match="real symmetric"):
            bad.spd.draw(5, seed=0)


def test_a_matrix_that_disagrees_with_its_adjacency_is_refused(cov):
    bad = cov.copy(data=cov.values.copy())
    bad.values[0, 3] = bad.values[3, 0] = 1e-3  # small: the matrix stays PD
    assert not bool(bad["adjacency"][0, 3])
    for call in (
        lambda: bad.spd.draw(5, seed=0),
        lambda: bad.spd.inverse(),
        lambda: bad.spd.partial_correlation(),
        lambda: bad.spd.correlation(),
    ):
        with pytest.raises(MatrixError, match="disagrees with its own 'adjacency'"):
            call()
    # the way out the message names: zeros that are not the graph
    free = bad.assign_attrs(structural_zeros=0)
    assert free.spd.draw(5, seed=0).shape == (5, 4)
    # an inverse (structural_zeros 0) is used as before
    assert cov.spd.inverse().spd.draw(3, seed=0).shape == (3, 4)


def test_an_inaccurate_inverse_warns(cov):
    eigenvalues = np.array([1.0, 1.0, 1.0, 1e-14])
    q = np.linalg.qr(np.random.default_rng(0).normal(size=(4, 4)))[0]
    nearly = (q * eigenvalues) @ q.T
    nearly = (nearly + nearly.T) / 2
    da = spdgraph.sample(nx.complete_graph(4), seed=0).copy(data=nearly)
    try:
        with pytest.warns(InaccurateInverseWarning, match=r"max \|M X v - v\|"):
            da.spd.inverse()
    except MatrixError:
        pytest.skip("this machine's Cholesky refused the nearly singular matrix outright")


def test_an_accurate_inverse_does_not_warn(cov):
    with warnings.catch_warnings():
        warnings.simplefilter("error", InaccurateInverseWarning)
        back = cov.spd.inverse().spd.inverse()
    np.testing.assert_allclose(back.values, cov.values, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(p=st.integers(2, 25), density=st.floats(0.05, 0.9), seed=st.integers(0, 2**32 - 1))
def test_sampled_matrices_invert_without_a_warning(p, density, seed):
    """Over random graphs: sampled matrices invert without a warning, and accurately."""
    graph = nx.gnp_random_graph(p, density, seed=seed)
    cov = spdgraph.sample(graph, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InaccurateInverseWarning)
        prec = cov.spd.inverse()
    full = np.max(np.abs(cov.values @ prec.values - np.eye(p)))
    assert full <= 1e-6
