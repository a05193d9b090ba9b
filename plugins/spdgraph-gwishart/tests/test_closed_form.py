"""G-Wishart draws against closed forms: no R, no reference sampler, anyone can run them.

``K ~ W_G(b, D)`` has density proportional to ``|K|^((b - 2) / 2) exp(-tr(D K) / 2)``
on the SPD matrices with zeros off G (BDgraph's parametrization).

* **Every graph:** ``E[tr(D K)] = p b + 2 |E|``. Scaling D by t and substituting
  ``K = K' / t`` (``p + |E|`` free entries, the determinant's power ``p (b - 2) / 2``)
  gives the normalizing constant ``I_G(b, t D) = t^-(p + |E| + p (b - 2) / 2) I_G(b, D)``,
  and ``E[tr(D K)] = -2 d/dt log I_G(b, t D)`` at ``t = 1``.
* **Decomposable graphs, D = I:** ``E[K] = b I + diag(degrees)``. In a perfect
  elimination order ``K = Phi^T Phi`` with independent ``Phi_ii^2 ~ chi2(b + nu_i)``
  (``nu_i`` neighbours after i) and ``Phi_ij ~ N(0, 1)`` on the edges after i, zero
  elsewhere (Roverato 2002): ``E[K_jj] = b + nu_j + (earlier neighbours of j) =
  b + deg(j)``, and ``E[K_ij] = sum_r E[Phi_ri Phi_rj] = 0`` (independent, mean 0).
  Its trace is the formula above.
* **The complete graph:** the Wishart law with ``b + p - 1`` degrees of freedom and
  scale ``D^-1``, ``E[K] = (b + p - 1) D^-1``.

Each check is a z-score of a mean of fixed-seed draws, bounded by |z| < 4.5: far
outside sampling noise (a normal |z| exceeds 4.5 with probability 7e-6) and far
inside the bias of a wrong law (Lenkoski's sampler, as BDgraph's ``rgwish``, has
z = -12 on the 3 x 5 grid with 20,000 draws: the slow test below, and
``benchmarks/check_gwishart_trace.py``, which also runs R).
"""

import warnings

import networkx as nx
import numpy as np
import pytest

import spdgraph

#: The bound on every z-score (see the module docstring).
Z_BOUND = 4.5


def _two_triangles_and_a_tail():
    return nx.Graph([(0, 1), (1, 2), (0, 2), (1, 3), (2, 3), (3, 4)])


def _cycle_with_chord():
    g = nx.cycle_graph(7)
    g.add_edge(0, 3)
    return g


def _grid(rows, cols):
    return nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols))


DECOMPOSABLE = {
    "empty4": lambda: nx.empty_graph(4),
    "path5": lambda: nx.path_graph(5),
    "star5": lambda: nx.star_graph(4),
    "triangles+tail": _two_triangles_and_a_tail,
}

NOT_DECOMPOSABLE = {
    "C5": lambda: nx.cycle_graph(5),
    "7-cycle+chord": _cycle_with_chord,
    "grid3x4": lambda: _grid(3, 4),
    "Petersen": nx.petersen_graph,
}


def _draws(g, n, seed, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lenkoski's warning
        k = spdgraph.sample(
            g, "gwishart", size=n, seed=seed, kind="precision", normalize=False, **options
        )
    return k.values


def _z(values, expected):
    """z-score of the mean of ``values`` (first axis: draws) against ``expected``."""
    se = values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])
    return (values.mean(axis=0) - expected) / se


def _trace_z(g, k, d):
    expected = g.number_of_nodes() * 3.0 + 2 * g.number_of_edges()
    return float(_z(np.einsum("ij,nji->n", d, k), expected))


@pytest.mark.parametrize("name", sorted({**DECOMPOSABLE, **NOT_DECOMPOSABLE}))
def test_mean_trace_is_p_b_plus_twice_the_edges(name):
    g = {**DECOMPOSABLE, **NOT_DECOMPOSABLE}[name]()
    k = _draws(g, 5000, seed=54, b=3.0)
    assert abs(_trace_z(g, k, np.eye(len(g)))) < Z_BOUND


def test_mean_trace_of_d_k_with_a_scale_matrix():
    """E[tr(D K)] = p b + 2|E| for any D, here on a graph the sampler rejects on."""
    g = _cycle_with_chord()
    rng = np.random.default_rng(540)
    a = rng.normal(size=(7, 7))
    d = a @ a.T / 7 + np.eye(7)
    k = _draws(g, 5000, seed=541, b=3.0, D=d)
    assert abs(_trace_z(g, k, d)) < Z_BOUND


@pytest.mark.parametrize(
    "algorithm",
    # Lenkoski's sampler (about 1 ms a draw) passes too: its error is in the completion,
    # which a decomposable graph's means do not see
    ["auto", pytest.param("lenkoski", marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("name", sorted(DECOMPOSABLE))
def test_mean_on_decomposable_graphs(name, algorithm):
    g = DECOMPOSABLE[name]()
    a = nx.to_numpy_array(g, dtype=bool)
    k = _draws(g, 5000, seed=542, b=3.0, algorithm=algorithm)
    free = np.eye(len(a), dtype=bool) | a
    assert np.all(k[:, ~free] == 0)  # exact zeros off the graph
    expected = 3.0 * np.eye(len(a)) + np.diag(a.sum(axis=1))
    assert np.abs(_z(k[:, free], expected[free])).max() < Z_BOUND


@pytest.mark.parametrize("algorithm", ["auto", "lenkoski"])
def test_mean_on_the_complete_graph_is_the_wisharts(algorithm):
    """Lenkoski's sampler is exact here (no completion to do): both samplers pass."""
    d = np.array([[2.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.2, 0.0],
                  [0.0, 0.2, 1.5, 0.3], [0.0, 0.0, 0.3, 1.0]])  # fmt: skip
    k = _draws(nx.complete_graph(4), 2000, seed=543, b=3.0, D=d, algorithm=algorithm)
    assert np.abs(_z(k, (3.0 + 4 - 1) * np.linalg.inv(d))).max() < Z_BOUND


@pytest.mark.slow
def test_lenkoskis_mean_trace_is_off_on_the_grid():
    """The check has the power to see a wrong law: Lenkoski's sampler (BDgraph's rgwish)
    on the 3 x 5 grid, 20,000 draws (a minute or two), while the default passes there."""
    g = _grid(3, 5)
    eye = np.eye(15)
    assert _trace_z(g, _draws(g, 20_000, seed=0, b=3.0, algorithm="lenkoski"), eye) < -Z_BOUND
    assert abs(_trace_z(g, _draws(g, 20_000, seed=0, b=3.0), eye)) < Z_BOUND
