"""da.spd.plot and da.spd.plot_graph: what the figures show (content, not pixels)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


G = nx.cycle_graph(["a", "b", "c", "d", "e"])


@pytest.mark.parametrize("view", ["pcor", "correlation", "matrix"])
def test_heatmap_shows_the_values_and_their_exact_zeros(view):
    da = spdgraph.sample(G, seed=1, kind="precision")
    fig = da.spd.plot(view=view)
    heatmap, colorbar = fig.axes
    shown = np.asarray(heatmap.images[0].get_array())
    expected = {
        "pcor": da.spd.partial_correlation().values,
        "correlation": da.spd.correlation().values,
        "matrix": da.values,
    }[view]
    np.testing.assert_array_equal(shown, expected)
    adjacency = nx.to_numpy_array(G, nodelist=list(G), dtype=bool)
    nonedge = ~adjacency & ~np.eye(5, dtype=bool)
    if view != "correlation":  # a precision's correlation has no structural zeros
        assert np.all(shown[nonedge] == 0)  # exactly zero: white in a colormap centred at 0
    low, high = heatmap.images[0].get_clim()
    assert low == -high and high > 0 and heatmap.images[0].get_cmap().name == "RdBu_r"
    assert [t.get_text() for t in heatmap.get_xticklabels()] == list(G)
    assert colorbar.get_ylim() == (low, high)


def test_stacks_groups_and_one_sample():
    stack = spdgraph.sample(G, seed=1, size=6)
    fig = stack.spd.plot()
    assert len(fig.axes) == 4 + 1  # the first four matrices and one colorbar
    assert fig.axes[2].get_title().endswith("sample 2")
    assert len(stack.spd.plot(sample=5).axes) == 2
    groups = spdgraph.sample([G, nx.path_graph(list(G))], seed=1, size=2)
    fig = groups.spd.plot()
    assert [ax.get_title() for ax in fig.axes[:2]] == [
        "covariance · group 0",
        "covariance · group 1",
    ]
    _, ax = plt.subplots()
    assert spdgraph.sample(G, seed=1).spd.plot(ax=ax) is ax.figure
    with pytest.raises(spdgraph.InvalidOptionError, match="one panel"):
        stack.spd.plot(ax=ax)
    with pytest.raises(spdgraph.InvalidOptionError, match="view must be one of"):
        stack.spd.plot(view="heat")


def test_plot_graph_draws_every_edge_by_its_partial_correlation():
    da = spdgraph.sample(G, seed=2, kind="precision")
    fig = da.spd.plot_graph(seed=0)
    ax = fig.axes[0]
    edges = ax.collections[-1]  # the edge collection is drawn last
    widths = np.asarray(edges.get_linewidths())
    assert len(widths) == G.number_of_edges() == 5
    pcor = da.spd.partial_correlation().values
    strengths = [abs(pcor[list(G).index(u), list(G).index(v)]) for u, v in da.spd.graph().edges]
    assert np.argmax(widths) == np.argmax(strengths) and np.argmin(widths) == np.argmin(strengths)
    assert ax.get_title() == "partial correlations on the 5 edges (precision graph)"


def test_plot_graph_of_a_covariance_draws_edges_by_the_covariance_entries():
    da = spdgraph.sample(G, seed=2)  # kind="covariance": its zeros are the graph
    fig = da.spd.plot_graph(seed=0)
    ax = fig.axes[0]
    edges = ax.collections[-1]
    corr = da.spd.correlation().values
    index = {node: k for k, node in enumerate(G)}
    wanted = np.array([corr[index[u], index[v]] for u, v in da.spd.graph().edges])
    widths = np.asarray(edges.get_linewidths())
    np.testing.assert_allclose(widths, 0.5 + 4.5 * np.abs(wanted) / np.abs(wanted).max())
    cmap = plt.get_cmap("RdBu_r")
    top = np.abs(wanted).max()
    np.testing.assert_allclose(edges.get_colors(), cmap((wanted + top) / (2 * top)))
    assert ax.get_title() == "correlations on the 5 edges (covariance graph)"


def _non_edges(graph):
    adjacency = nx.to_numpy_array(graph, nodelist=list(graph), dtype=bool)
    return ~adjacency & ~np.eye(len(graph), dtype=bool)


def test_default_heatmap_shows_the_matrix_whose_zeros_are_the_graph():
    # the measured case: a covariance's partial correlations drew 292 of 330
    # non-edges of a 20-node graph non-zero ("PO gives no zeros")
    g = spdgraph.graphs.erdos_renyi(20, 0.15, seed=4)
    cov = spdgraph.sample(g, seed=3)
    heatmap = cov.spd.plot().axes[0]
    shown = np.asarray(heatmap.images[0].get_array())
    np.testing.assert_array_equal(shown, cov.values)
    assert np.all(shown[_non_edges(g)] == 0) and heatmap.get_title() == "covariance"
    dense = np.asarray(cov.spd.plot(view="pcor").axes[0].images[0].get_array())
    assert np.count_nonzero(dense[_non_edges(g)]) > 0  # why the default changed
    prec = spdgraph.sample(g, seed=3, kind="precision")
    heatmap = prec.spd.plot().axes[0]
    shown = np.asarray(heatmap.images[0].get_array())
    np.testing.assert_array_equal(shown, prec.spd.partial_correlation().values)
    assert np.all(shown[_non_edges(g)] == 0) and heatmap.get_title() == "partial correlation"
    corr = cov.spd.correlation()
    shown = np.asarray(corr.spd.plot().axes[0].images[0].get_array())
    assert np.all(shown[_non_edges(g)] == 0)


def test_demo_picture_shows_the_zeros():
    from spdgraph.cli._basic import _demo_figure

    g = spdgraph.graphs.erdos_renyi(12, 0.25, seed=1)
    po = spdgraph.sample(g, "po", seed=1, normalize=False, entries="uniform")
    fig = _demo_figure([("po", po)])
    shown = np.asarray(fig.axes[0].images[0].get_array())
    assert np.all(shown[_non_edges(g)] == 0)
    assert fig.axes[0].get_title() == "po: covariance (white: exact zeros, the non-edges)"


def test_cli_info_and_demo_save_pictures(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    from spdgraph.cli import main

    saved = tmp_path / "m.nc"
    spdgraph.save(spdgraph.sample(G, seed=1, size=3), saved)
    assert main(["info", str(saved), "--plot", str(tmp_path / "info.png")]) == 0
    assert (tmp_path / "info.png").stat().st_size > 1000
    assert "picture:" in capsys.readouterr().out
    argv = ["demo", "--p", "12", "--size", "2", "--plot", str(tmp_path / "demo.png")]
    assert main(argv) == 0
    assert (tmp_path / "demo.png").stat().st_size > 1000


def _boxes(layout, graph):
    out = []
    for comp in nx.connected_components(graph):
        xy = np.array([layout[n] for n in comp])
        out.append((xy.min(axis=0), xy.max(axis=0), len(comp)))
    return out


@pytest.mark.parametrize(
    "graph",
    [
        spdgraph.graphs.hub(40, 4),
        nx.disjoint_union_all([nx.path_graph(3), nx.cycle_graph(12), nx.empty_graph(5)]),
        nx.path_graph(6),
    ],
    ids=["hub(40, 4)", "mixed components and isolated nodes", "connected"],
)
def test_packed_layout_places_components_apart_and_compactly(graph):
    from spdgraph.accessor._plot import packed_layout

    layout = packed_layout(graph, seed=0)
    assert set(layout) == set(graph.nodes)
    boxes = _boxes(layout, graph)
    non_isolated = [b for b in boxes if b[2] > 1]
    for i, (lo_a, hi_a, _) in enumerate(non_isolated):  # no two components overlap
        for lo_b, hi_b, _ in non_isolated[i + 1 :]:
            assert np.any(hi_a < lo_b) or np.any(hi_b < lo_a)
    xy = np.array(list(layout.values()))
    width, height = xy.max(axis=0) - xy.min(axis=0)
    # compact: the picture's box is about square and holds the components' squares
    # (side sqrt(k) plus a gap) with little waste
    area = sum((np.sqrt(k) + 1.0) ** 2 for *_, k in boxes)
    assert width * height <= 3.0 * area
    assert max(width, height) <= 3.0 * max(min(width, height), 1.0)


def test_plot_graph_scales_nodes_draws_edges_on_top_and_has_a_colour_bar():
    g = spdgraph.graphs.hub(100, 5)
    prec = spdgraph.sample(g, seed=1, kind="precision")
    fig = prec.spd.plot_graph(seed=0)
    ax, bar = fig.axes
    assert bar.get_ylabel() == "partial correlation"
    nodes, outline, edges = ax.collections[0], ax.collections[-2], ax.collections[-1]
    assert np.all(np.asarray(nodes.get_sizes()) < 220) and np.all(nodes.get_sizes() >= 8)
    assert edges.get_zorder() > nodes.get_zorder() and outline.get_zorder() > nodes.get_zorder()
    assert len(edges.get_linewidths()) == g.number_of_edges()
    assert not ax.texts  # no labels at p = 100
    small = spdgraph.sample(G, seed=1, kind="precision").spd.plot_graph(seed=0)
    assert small.axes[0].collections[0].get_sizes()[0] == 220 and small.axes[0].texts
