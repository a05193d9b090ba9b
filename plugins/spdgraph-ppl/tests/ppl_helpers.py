"""Graphs and numerical references shared by the spdgraph-ppl tests."""

from __future__ import annotations

import networkx as nx
import numpy as np
from spdgraph_ppl import exact_posterior, graph_structure
from spdgraph_ppl.transform import free_to_precision

from spdgraph import sample

# decomposable; node order 0..4 is a perfect elimination order
DECOMPOSABLE_EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 4)]


def decomposable(labels=None):
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from(DECOMPOSABLE_EDGES)
    if labels is not None:
        g = nx.relabel_nodes(g, dict(enumerate(labels)))
    return g


def graphs():
    """A mix: non-chordal cycle, random non-chordal, complete, empty, decomposable."""
    er = nx.gnp_random_graph(7, 0.45, seed=3)
    assert not nx.is_chordal(er)
    return {
        "cycle5": nx.cycle_graph(5),
        "er7": er,
        "complete4": nx.complete_graph(4),
        "empty3": nx.empty_graph(3),
        "decomposable5": decomposable(),
    }


def random_spd(p, seed):
    a = np.random.default_rng(seed).standard_normal((p, p + 2))
    return a @ a.T / (p + 2) + 0.3 * np.eye(p)


def free_k(k, s):
    rows, cols = s.edges
    return np.concatenate([np.diag(k), k[rows, cols]])


def numerical_log_jacobian(u, graph, h=1e-6):
    """log |det d K_free / d u| by central differences."""
    s = graph_structure(graph)
    m = s.n_free
    jac = np.empty((m, m))
    for t in range(m):
        e = np.zeros(m)
        e[t] = h
        jac[:, t] = (
            free_k(free_to_precision(u + e, s), s) - free_k(free_to_precision(u - e, s), s)
        ) / (2 * h)
    return np.linalg.slogdet(jac)[1]


def ggm_problem():
    """p = 5 decomposable graph, full SPD D, 25 observations from an exact prior draw."""
    g = decomposable()
    d = random_spd(5, 11)
    truth = sample(
        g, "gwishart", kind="precision", normalize=False, seed=21, b=3.0, D=d, algorithm="chordal"
    )
    x = truth.spd.draw(25, seed=22)
    exact = exact_posterior(x, g, b=3.0, D=d, size=20000, seed=23)
    return g, d, x, exact
