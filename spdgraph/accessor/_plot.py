"""Pictures of what was sampled: ``da.spd.plot()`` and ``da.spd.plot_graph()``.

matplotlib is imported only when a picture is asked for (``pip install
"spdgraph[plots]"``). Like xarray's and pandas' plotting, the methods return
matplotlib objects (the ``Figure``; its axes are ``fig.axes``) and draw into a
given ``ax`` when one is passed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from spdgraph.errors import InvalidOptionError, MissingDependencyError

if TYPE_CHECKING:
    import xarray as xr

__all__ = ["PlotMixin"]

#: What ``plot`` can show (``"graph"``: the matrix whose zeros are the graph).
VIEWS = ("graph", "pcor", "correlation", "matrix")
#: Panels ``plot`` draws for a stack when no ``sample`` is chosen.
MAX_PANELS = 4


def _pyplot() -> Any:
    try:  # without a display matplotlib falls back to its Agg backend by itself
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError(
            'pictures need matplotlib; install it with pip install "spdgraph[plots]".'
        ) from None
    return plt


#: Node labels are drawn up to this many nodes.
MAX_LABELLED = 60


def node_size(p: int) -> float:
    """Node disc area (points^2): 220 up to 20 nodes, shrinking as 1/p beyond, at least 8."""
    return float(max(8.0, min(220.0, 220.0 * 20.0 / max(p, 1))))


def packed_layout(graph: Any, seed: int = 0) -> dict[Any, np.ndarray]:
    """A layout with each connected component on its own, packed in rows, largest first.

    A component of ``k`` nodes gets a seeded spring layout scaled into a
    square of side ``sqrt(k)`` (the same density of nodes everywhere); the
    squares are placed left to right in rows about as wide as the square
    root of their total area, so the picture is about square whatever the
    number of components. Isolated nodes share one grid at the end.
    """
    import networkx as nx

    components = sorted(
        (sorted(c, key=str) for c in nx.connected_components(graph) if len(c) > 1),
        key=lambda c: (-len(c), str(c[0])),
    )
    isolated = sorted((n for n in graph.nodes if graph.degree(n) == 0), key=str)
    boxes: list[tuple[float, dict[Any, np.ndarray]]] = []
    for nodes in components:
        side = float(np.sqrt(len(nodes)))
        pos = nx.spring_layout(graph.subgraph(nodes), seed=seed)
        xy = np.array([pos[n] for n in nodes], dtype=float)
        xy -= xy.min(axis=0)
        span = float(xy.max()) or 1.0
        boxes.append((side, {n: xy[k] * (side / span) for k, n in enumerate(nodes)}))
    if isolated:
        cols = int(np.ceil(np.sqrt(len(isolated))))
        side = max(1.0, float(cols - 1))
        grid = {n: np.array([k % cols, k // cols], dtype=float) for k, n in enumerate(isolated)}
        boxes.append((side, grid))
    width = max(float(np.sqrt(sum((s + 1.0) ** 2 for s, _ in boxes))), *(s for s, _ in boxes))
    layout: dict[Any, np.ndarray] = {}
    x = y = row_height = 0.0
    for side, pos in boxes:
        if x > 0 and x + side > width:
            x, y, row_height = 0.0, y - row_height - 1.0, 0.0
        for node, xy in pos.items():
            layout[node] = np.array([x + xy[0], y - xy[1]])
        x += side + 1.0
        row_height = max(row_height, side)
    return layout


def graph_of(da: xr.DataArray) -> str:
    """``"covariance"`` or ``"precision"``: which matrix's zeros are ``da``'s graph."""
    graph_kind = da.attrs.get("graph_kind")
    if graph_kind in ("covariance", "precision"):
        return str(graph_kind)
    kind = da.attrs.get("kind")
    return "precision" if kind in ("precision", "partial_correlation") else "covariance"


def _view_values(da: xr.DataArray, view: str) -> tuple[np.ndarray, str]:
    if view not in VIEWS:
        raise InvalidOptionError(
            f"view must be one of {', '.join(map(repr, VIEWS))}, got {view!r}."
        )
    kind = str(da.attrs.get("kind", ""))
    if view == "graph":
        # the entries whose zeros are the graph: a covariance (or correlation) as it
        # is, a precision as partial correlations (scale-free, same zeros)
        if graph_of(da) == "covariance" or kind == "partial_correlation":
            what = kind.replace("_", " ") or str(da.name or "matrix")
            return np.asarray(da.values, dtype=np.float64), what
        view = "pcor"
    if view == "matrix":
        return np.asarray(da.values, dtype=np.float64), str(da.name or "matrix")
    if view == "correlation":
        return np.asarray(da.spd.correlation().values), "correlation"
    return np.asarray(da.spd.partial_correlation().values), "partial correlation"


def _heatmap(ax: Any, values: np.ndarray, labels: list[Any], title: str, limit: float) -> Any:
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    p = len(labels)
    if p <= 40:  # readable tick labels; larger matrices keep numeric ticks
        ax.set_xticks(range(p), [str(x) for x in labels], rotation=90, fontsize="small")
        ax.set_yticks(range(p), [str(x) for x in labels], fontsize="small")
    ax.set_title(title)
    return image


def _panels(da: xr.DataArray, sample: int | None) -> list[tuple[str, xr.DataArray]]:
    if "group" in da.dims:
        out = []
        for k, group in enumerate(da["group"].values):
            one = da.isel(group=k)
            if "sample" in one.dims:
                one = one.isel(sample=0 if sample is None else sample)
            out.append((f"group {group}", one))
        return out
    if "sample" not in da.dims:
        return [("", da)]
    if sample is not None:
        return [(f"sample {sample}", da.isel(sample=sample))]
    n = min(da.sizes["sample"], MAX_PANELS)
    return [(f"sample {k}", da.isel(sample=k)) for k in range(n)]


class PlotMixin:
    """The plotting methods of ``da.spd`` (see :mod:`spdgraph.accessor._plot`)."""

    _da: xr.DataArray

    def plot(self, view: str = "graph", *, sample: int | None = None, ax: Any = None) -> Any:
        """Heatmap of the matrix, centred at 0 so that the exact zeros of non-edges show.

        Parameters
        ----------
        view
            ``"graph"`` (default): the entries whose zeros are the graph, so
            that every non-edge is white: a covariance (``kind="covariance"``,
            spdgraph.sample's default) or a correlation as it is, a precision
            as partial correlations (its inverse, the covariance, is dense).
            Or ``"pcor"`` (partial correlations: what a learner of a
            concentration graph sees; dense for a covariance),
            ``"correlation"`` or ``"matrix"`` (the values as sampled).
        sample
            For a stack, the matrix to draw; default a grid of the first
            ``MAX_PANELS`` (4) matrices. An array with a ``group`` dim gets one
            panel per group (its matrix ``sample``, default 0).
        ax
            A matplotlib ``Axes`` to draw one panel into.

        Returns
        -------
        matplotlib.figure.Figure
            The figure; one heatmap per panel and a shared colorbar with limits
            ``(-m, m)`` (``m`` the largest absolute off-diagonal value shown),
            a diverging colormap so that zero is white. A sparse result
            (``sample(..., sparse=True)``) gets histograms instead: the degrees
            and the off-diagonal values (partial correlations of a precision).

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> cov = spdgraph.sample(nx.cycle_graph(6), seed=1)  # kind="covariance"
        >>> fig = cov.spd.plot()
        >>> len(fig.axes)  # the heatmap and its colorbar
        2
        >>> fig.axes[0].get_title()  # the covariance itself: its zeros are the graph
        'covariance'
        >>> shown = fig.axes[0].images[0].get_array()
        >>> int((shown == 0).sum())  # 2 x 9 non-edges, white
        18
        """
        plt = _pyplot()
        from spdgraph.accessor._sparse import sparse_plot
        from spdgraph.layout import is_sparse

        if is_sparse(self._da):  # histograms: a p x p heatmap means nothing at p = 10**6
            return sparse_plot(self, sample)  # type: ignore[arg-type]
        panels = [(title, *_view_values(one, view)) for title, one in _panels(self._da, sample)]
        off = [v[~np.eye(v.shape[0], dtype=bool)] for _, v, _ in panels]
        limit = max((float(np.abs(x).max()) for x in off if x.size), default=0.0) or 1.0
        labels = self._labels_of(self._da)
        if ax is not None:
            if len(panels) != 1:
                raise InvalidOptionError(
                    f"ax= draws one panel, but this array gives {len(panels)}; pick one with "
                    "sample= (or isel(group=...))."
                )
            fig, axes = ax.figure, [ax]
        else:
            cols = min(len(panels), 2) if len(panels) > 1 else 1
            rows = -(-len(panels) // cols)
            fig, grid = plt.subplots(rows, cols, figsize=(4.5 * cols + 1, 4.2 * rows))
            axes = list(np.ravel(grid))
            for extra in axes[len(panels) :]:
                extra.remove()
            axes = axes[: len(panels)]
        image = None
        for axis, (title, values, what) in zip(axes, panels, strict=True):
            image = _heatmap(
                axis, values, labels, " · ".join(x for x in (what, title) if x), limit
            )
        if ax is not None:
            fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        else:
            fig.colorbar(image, ax=axes, shrink=0.8)
        return fig

    def plot_graph(self, *, sample: int = 0, seed: int = 0, ax: Any = None) -> Any:
        """The graph, each edge drawn by the entry that defines it (width and colour).

        The entry is the partial correlation for a precision's graph and the
        correlation for a covariance's graph (``kind="covariance"``, the
        default: its zeros are the graph). Nodes at a seeded spring layout
        (networkx), each connected component laid out on its own and the
        components packed in rows, largest first (isolated nodes last, on a
        grid), so a disconnected graph fills the picture; edge width grows
        with the entry's magnitude and the colour (the colour bar) gives its
        value, red positive and blue negative. Node discs shrink with the
        number of nodes and edges are drawn above them (labels up to
        60 nodes), so the edges stay visible on large graphs.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> g = nx.path_graph(4)
        >>> spdgraph.sample(g, seed=1).spd.plot_graph().axes[0].get_title()
        'correlations on the 3 edges (covariance graph)'
        >>> prec = spdgraph.sample(g, seed=1, kind="precision")
        >>> prec.spd.plot_graph().axes[0].get_title()
        'partial correlations on the 3 edges (precision graph)'
        """
        import networkx as nx

        plt = _pyplot()
        da = self._da.isel(sample=sample) if "sample" in self._da.dims else self._da
        of = graph_of(da)
        if da.attrs.get("kind") in ("correlation", "partial_correlation"):
            what = str(da.attrs["kind"]).replace("_", " ") + "s"
            pcor = np.asarray(da.values, dtype=np.float64)
        elif of == "covariance":
            what = "correlations"
            pcor = np.asarray(da.spd.correlation().values)
        else:
            what = "partial correlations"
            pcor = np.asarray(da.spd.partial_correlation().values)
        graph = da.spd.graph()
        labels = list(graph.nodes)
        index = {node: k for k, node in enumerate(labels)}
        weights = [pcor[index[u], index[v]] for u, v in graph.edges]
        top = max((abs(w) for w in weights), default=1.0) or 1.0
        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 5))
        else:
            fig = ax.figure
        layout = packed_layout(graph, seed=seed)
        p = graph.number_of_nodes()
        nodes = nx.draw_networkx_nodes(
            graph, layout, ax=ax, node_size=node_size(p), node_color="#dddddd"
        )
        if nodes is not None:
            nodes.set_zorder(1)
        if p <= MAX_LABELLED:
            nx.draw_networkx_labels(graph, layout, ax=ax, font_size=7 if p <= 30 else 5)
        cmap = plt.get_cmap("RdBu_r")
        widths = [0.5 + 4.5 * abs(w) / top for w in weights]
        outline = nx.draw_networkx_edges(  # a grey outline: near-zero (white) edges stay visible
            graph,
            layout,
            ax=ax,
            width=[w + 0.8 for w in widths],
            edge_color="#8c8c8c",
            node_size=node_size(p),
        )
        if outline is not None and not isinstance(outline, list):
            outline.set_zorder(2)
        edges = nx.draw_networkx_edges(
            graph,
            layout,
            ax=ax,
            width=widths,
            edge_color=weights,
            edge_cmap=cmap,
            edge_vmin=-top,
            edge_vmax=top,
            node_size=node_size(p),
        )
        if edges is not None and not isinstance(edges, list):
            edges.set_zorder(3)  # above the node discs: visible at any p
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        bar = fig.colorbar(
            ScalarMappable(norm=Normalize(-top, top), cmap=cmap), ax=ax, shrink=0.8, pad=0.02
        )
        bar.set_label(what[:-1] if what.endswith("s") else what)
        ax.set_title(f"{what} on the {len(weights)} edges ({of} graph)")
        ax.set_axis_off()
        return fig

    @staticmethod
    def _labels_of(da: xr.DataArray) -> list[Any]:
        if "node" in da.coords:
            return [x.item() if isinstance(x, np.generic) else x for x in da["node"].values]
        return list(range(da.sizes["node"]))
