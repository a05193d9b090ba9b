"""Every accessor method that computes on an SPD matrix refuses one that is not SPD."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph


def _nan(m):
    m[0, 0] = np.nan
    return m


def _asymmetric(m):
    m[0, 1] += 0.1
    return m


def _indefinite(m):  # unit diagonal, an off-diagonal 5.0 on an edge: r = 5 is impossible
    m[:] = np.eye(m.shape[0])
    m[0, 1] = m[1, 0] = 5.0
    return m


def _negative_definite(m):
    return -m


DEFECTS = {
    "nan": (_nan, "non-finite"),
    "asymmetric": (_asymmetric, "not exactly symmetric"),
    "indefinite": (_indefinite, "not positive definite"),
    "negative definite": (_negative_definite, "not positive"),
}
METHODS = {
    "draw": lambda da: da.spd.draw(5, seed=0),
    "inverse": lambda da: da.spd.inverse(),
    "correlation": lambda da: da.spd.correlation(),
    "partial_correlation": lambda da: da.spd.partial_correlation(),
    "check": lambda da: da.spd.check(),
}


@pytest.mark.parametrize("kind", ["covariance", "precision"])
@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_a_matrix_that_is_not_spd_is_refused(kind, method, defect):
    good = spdgraph.sample(nx.path_graph(4), size=2, seed=1, kind=kind)
    METHODS[method](good)  # the valid stack passes
    spoil, problem = DEFECTS[defect]
    values = good.values.copy()
    values[1] = spoil(values[1])
    bad = good.copy(data=values)
    with pytest.raises(spdgraph.MatrixError, match=problem) as info:
        METHODS[method](bad)
    assert "matrix 1" in str(info.value)


def test_the_message_says_what_needs_it():
    cov = spdgraph.sample(nx.path_graph(3), seed=0)
    with pytest.raises(spdgraph.MatrixError, match=r"correlation\(\) needs symmetric positive"):
        cov.copy(data=-cov.values).spd.correlation()
