"""A call's stack drawn from the streams' PCG64 states in one compiled loop
(``exact.accept_reject_from_states``) has the bits of one Generator per matrix
(the one-matrix sampler on ``matrix_stream(root, k)``), on every path of the
exact sampler: no fill-in (one proposal), rejections over several blocks, any D."""

import networkx as nx
import numpy as np
import pytest
from spdgraph_gwishart.exact import accept_reject_from_states, accept_reject_gwishart, exact_plan
from spdgraph_gwishart.plugin import gwishart_batch

import spdgraph
from spdgraph.seeds import MatrixStreams, matrix_stream


def _graphs():
    chord = nx.cycle_graph(7)
    chord.add_edge(0, 3)
    return {
        "path (no fill-in)": nx.path_graph(6),
        "K2,3": nx.complete_bipartite_graph(2, 3),
        "7-cycle+chord": chord,
        "Petersen": nx.petersen_graph(),
        "grid3x4 (low acceptance)": nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 4)),
    }


@pytest.mark.parametrize("name", sorted(_graphs()))
@pytest.mark.parametrize("scale", ["identity", "general"])
def test_streams_in_bulk_have_the_generators_bits(name, scale):
    a = nx.to_numpy_array(_graphs()[name], dtype=bool)
    p = len(a)
    rng = np.random.default_rng(7)
    m = rng.normal(size=(p, p))
    d = np.eye(p) if scale == "identity" else m @ m.T / p + np.eye(p)
    root = np.random.SeedSequence(54)
    bulk = gwishart_batch(a, rngs=MatrixStreams(root, 3, 43), entries=None, b=3.5, D=d)
    one_by_one = np.stack(
        [accept_reject_gwishart(a, matrix_stream(root, k), 3.5, d)[0] for k in range(3, 43)]
    )
    np.testing.assert_array_equal(bulk, one_by_one)
    # a plain list of Generators takes the one-matrix path: the same bits again
    listed = gwishart_batch(
        a, rngs=[matrix_stream(root, k) for k in range(3, 43)], entries=None, b=3.5, D=d
    )
    np.testing.assert_array_equal(listed, bulk)


def test_sample_takes_the_bulk_path_with_the_same_bits():
    g = nx.petersen_graph()
    da = spdgraph.sample(g, "gwishart", size=5, seed=3, kind="precision", normalize=False)
    one = spdgraph.sample(g, "gwishart", size=1, seed=3, kind="precision", normalize=False)
    np.testing.assert_array_equal(da.values[0], one.values[0])


def test_streams_already_drawn_from_use_their_generators():
    a = nx.to_numpy_array(nx.cycle_graph(5), dtype=bool)
    streams = MatrixStreams(np.random.SeedSequence(1), 0, 4)
    streams[0].random()  # advanced: its PCG64 state is no longer the fresh one
    got = gwishart_batch(a, rngs=streams, entries=None)
    again = MatrixStreams(np.random.SeedSequence(1), 0, 4)
    again[0].random()
    expected = [accept_reject_gwishart(a, again[k], 3.0, np.eye(5))[0] for k in range(4)]
    np.testing.assert_array_equal(got, np.stack(expected))


def test_no_proposal_accepted_is_a_clear_error():
    a = nx.to_numpy_array(nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 4)), dtype=bool)
    plan = exact_plan(a, 3.0, np.eye(12))
    assert plan.acceptance < 0.5 and plan.block >= 4
    states = MatrixStreams(np.random.SeedSequence(0), 0, 200).pcg64_states()
    with pytest.raises(spdgraph.NumericalError, match="accepted none of"):
        accept_reject_from_states(a, states, 3.0, np.eye(12), max_proposals=1)
