"""The ``da.spd`` xarray accessor: from a sampled matrix to data, and back to its graph.

Importing :mod:`spdgraph` registers the accessor, so every
:class:`xarray.DataArray` has an ``spd`` attribute. It works on the arrays
:func:`spdgraph.sample` returns (dims ``("node", "node_2")``, optionally a
leading ``"sample"``, an ``adjacency`` coordinate and a ``kind`` attribute) and
on arrays derived from them by the accessor itself.

Kinds the accessor understands (``attrs["kind"]``, else the array's name):

``covariance``
    Sigma; data are drawn as N(0, Sigma).
``precision`` (alias ``concentration``)
    Omega = Sigma^{-1}; data are drawn without forming Sigma.
``correlation``
    A covariance with unit diagonal (what :meth:`SpdAccessor.correlation` returns).
``partial_correlation``
    What :meth:`SpdAccessor.partial_correlation` returns; it does not fix the
    scale of the variables, so it can be checked and turned into a graph but
    not inverted or drawn from.

Two attributes record what the zeros mean: ``structural_zeros`` (1 when the
off-diagonal zeros are exactly the non-edges of the ``adjacency`` coordinate,
as for every sampled matrix; 0 after a transformation that fills them in, such
as an inverse) and ``graph_kind`` (``covariance`` or ``precision``: which
matrix the graph is the zero pattern of). ``transform`` lists the accessor
operations applied, comma-separated. All other provenance attrs are kept.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import (
    find_violation,
    partial_correlation,
    unit_diagonal,
)
from spdgraph.accessor import _sparse
from spdgraph.accessor._draw import draw_data
from spdgraph.accessor._layout import MATRIX_DIMS, SpdArrayView
from spdgraph.accessor._plot import PlotMixin
from spdgraph.errors import MatrixError
from spdgraph.layout import is_sparse

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["SpdAccessor"]


def _plain_label(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


class SpdAccessor(PlotMixin, SpdArrayView):
    """SPD graph-matrix tools on any :class:`xarray.DataArray`, as ``da.spd``.

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> prec = spdgraph.sample(nx.path_graph(["a", "b", "c"]), seed=1, kind="precision")
    >>> cov = prec.spd.inverse()
    >>> cov.name, cov.attrs["structural_zeros"]
    ('covariance', 0)
    >>> data = prec.spd.draw(500, seed=2)
    >>> data.dims, data.shape
    (('obs', 'node'), (500, 3))
    >>> sorted(prec.spd.graph().edges())
    [('a', 'b'), ('b', 'c')]
    """

    # ------------------------------------------------------------------ conversions

    def inverse(self) -> xr.DataArray:
        """The inverse matrix: covariance <-> precision, by a Cholesky solve.

        Returns
        -------
        xarray.DataArray
            Named ``"precision"`` for a covariance (or correlation) input and
            ``"covariance"`` for a precision, exactly symmetric, with the same
            labels, ``adjacency`` coordinate and provenance attrs. Its zeros
            are not structural: ``attrs["structural_zeros"]`` is 0 (the graph
            is the zero pattern of the input, see ``attrs["graph_kind"]``).

        Raises
        ------
        MatrixError
            Wrong layout or kind, complex or object values, a non-zero entry
            on a non-edge of the array's own ``adjacency``, or a matrix that is
            not positive definite.

        Warns
        -----
        InaccurateInverseWarning
            The residual ``max |M X v - v|`` on fixed probe vectors ``v``
            (entries at most 1) exceeds 1e-6: the matrix is nearly singular
            and the inverse is inaccurate.

        Examples
        --------
        >>> import networkx as nx, numpy as np, spdgraph
        >>> cov = spdgraph.sample(nx.cycle_graph(4), seed=0)
        >>> prec = cov.spd.inverse()
        >>> prec.name, prec.attrs["graph_kind"]
        ('precision', 'covariance')
        >>> bool(np.allclose(prec.values @ cov.values, np.eye(4)))
        True
        """
        kind = self._require_scale("inverse()")
        values = self._inverse(self._spd_stack("inverse()"), "inverse()")
        new_kind = "covariance" if kind == "precision" else "precision"
        return self._derived(values, new_kind, structural=False, step="inverse")

    def correlation(self) -> xr.DataArray:
        """The correlation matrix of the distribution, with an exactly unit diagonal.

        For a covariance Sigma this is ``D^{-1/2} Sigma D^{-1/2}`` and keeps
        Sigma's exact zeros; for a precision it is the correlation of its
        inverse (computed by a Cholesky solve), whose zeros are not structural.

        Returns
        -------
        xarray.DataArray
            Named ``"correlation"`` (``attrs["kind"] == "correlation"``).

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> cov = spdgraph.sample(nx.path_graph(3), seed=0, normalize=False)
        >>> corr = cov.spd.correlation()
        >>> corr.values.diagonal().tolist(), float(corr[0, 2])
        ([1.0, 1.0, 1.0], 0.0)
        """
        sigma, structural = self._on_scale("correlation()", "covariance")
        return self._derived(unit_diagonal(sigma), "correlation", structural=structural)

    def partial_correlation(self) -> xr.DataArray:
        """Partial correlations ``-omega_ij / sqrt(omega_ii omega_jj)``, unit diagonal.

        For a precision Omega the exact zeros of Omega stay exact zeros; for a
        covariance (or correlation) Omega is first obtained by a Cholesky
        solve, and the zeros are then not structural.

        Returns
        -------
        xarray.DataArray
            Named ``"partial_correlation"``.

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> prec = spdgraph.sample(nx.path_graph(3), seed=0, kind="precision")
        >>> pc = prec.spd.partial_correlation()
        >>> float(pc[0, 2]), float(pc[1, 1])
        (0.0, 1.0)
        >>> bool(pc[0, 1] == -prec[0, 1])  # unit-diagonal precision: just the sign flips
        True
        """
        if is_sparse(self._da):
            return _sparse.sparse_partial_correlation(self)
        omega, structural = self._on_scale("partial_correlation()", "precision")
        values = partial_correlation(omega)
        return self._derived(values, "partial_correlation", structural=structural)

    # ------------------------------------------------------------------ data

    #: ``da.spd.draw(n_obs, seed=None, *, marginals=None, missing=0.0, progress=None)``
    draw = draw_data

    # ------------------------------------------------------------------ graph

    def graph(self, backend: str = "networkx") -> Any:
        """The true graph with the original node labels, in the graph library you use.

        ``backend`` names a registered graph backend (:class:`spdgraph.GraphBackend`,
        plugins' included): ``"networkx"`` (default, a :class:`networkx.Graph`),
        ``"igraph"``, ``"rustworkx"`` (``PyGraph``, labels as node payloads),
        ``"networkit"`` (str or int labels in the node attribute ``name``),
        ``"scipy"`` (a ``csr_array`` in the array's node order), ``"sparse"``
        (PyData ``COO``), ``"numpy"`` (boolean array), ``"pandas"`` and
        ``"xarray"`` (labelled adjacency). Nodes come in the array's node order;
        the kind (covariance or concentration graph) is kept where the type
        has graph attributes. An array with a ``group`` dim gives a dict
        ``{group label: graph}``, one graph per related graph. See docs/graphs.md.

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> g = nx.les_miserables_graph()
        >>> prec = spdgraph.sample(g, seed=0, kind="precision")
        >>> back = prec.spd.graph()
        >>> list(back.nodes) == list(g.nodes) and nx.utils.edges_equal(back.edges, g.edges)
        True
        >>> back.graph["kind"]
        'precision'
        >>> prec.spd.graph(backend="scipy").shape
        (77, 77)
        """
        from spdgraph.accessor._graph_out import graph_out

        if "group" in self._da.dims:
            return {
                _plain_label(label): self._da.isel(group=k).spd.graph(backend)
                for k, label in enumerate(self._da["group"].values)
            }
        if is_sparse(self._da):
            return _sparse.sparse_graph(self, backend)
        kind = self._graph_kind(self._kind_or_none() or "covariance")
        return graph_out(self._adjacency_values("graph()"), self._labels(), kind, backend)

    def adjacency(self) -> xr.DataArray:
        """The graph as a labelled boolean ``(node, node_2)`` DataArray.

        Sparse (a PyData ``sparse`` array) for a sparse result, whose graph may
        not fit densely.

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> cov = spdgraph.sample(nx.path_graph(["x", "y", "z"]), seed=0)
        >>> a = cov.spd.adjacency()
        >>> a.name, a.dtype, bool(a.sel(node="x", node_2="y"))
        ('adjacency', dtype('bool'), True)
        """
        if is_sparse(self._da.coords.get("adjacency")):  # the sparse graph, kept sparse
            values: Any = _sparse.sparse_adjacency(self._da)
        else:
            values = self._adjacency_values("adjacency()").copy()
        coords: dict[str, Any] = {}
        if "node" in self._da.coords:
            coords = {
                "node": ("node", self._da["node"].values.copy()),
                "node_2": ("node_2", self._da["node"].values.copy()),
            }
        return xr.DataArray(values, dims=MATRIX_DIMS, coords=coords, name="adjacency")

    def to_numpy(self) -> np.ndarray:
        """The values as a float64 numpy array (a copy), e.g. data for scikit-learn.

        A matrix gives ``(p, p)``, a stack ``(n, p, p)``, drawn data
        ``(n_obs, p)`` with observations as rows, as scikit-learn expects.

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> cov = spdgraph.sample(nx.path_graph(3), seed=0)
        >>> cov.spd.draw(10, seed=0).spd.to_numpy().shape
        (10, 3)
        """
        if is_sparse(self._da):  # refused when the dense array would not fit
            return _sparse.sparse_to_numpy(self)
        return np.array(self._da.values, dtype=np.float64)

    # ------------------------------------------------------------------ checks

    def check(self) -> xr.DataArray:
        """Verify layout, graph, exact symmetry, exact zeros and positive definiteness.

        Exact zeros on every non-edge are required when
        ``attrs["structural_zeros"]`` is 1 (or absent, as for sampled
        matrices); correlations must have an exactly unit diagonal; a partial
        correlation matrix P is checked through ``2 I - P`` (its unit-diagonal
        precision) being positive definite.
        The proof's lower bound of the smallest eigenvalue (of ``2 I - P`` for
        partial correlations; the smallest over a stack) is shown in
        ``attrs["certificate_lambda_min_lower_bound"]``, dense or sparse, as
        :func:`spdgraph.sample` records it.

        Returns
        -------
        xarray.DataArray
            The array itself, so that calls chain.

        Raises
        ------
        MatrixError
            Naming the first problem: dims, labels, the adjacency coordinate,
            non-finite values, the matrix and entry that break symmetry or a
            structural zero, or the matrix that is not positive definite.

        Examples
        --------
        >>> import networkx as nx, spdgraph
        >>> cov = spdgraph.sample(nx.path_graph(3), seed=0)
        >>> cov.spd.check() is cov
        True
        >>> bad = cov.copy(data=cov.values + 0.01)
        >>> bad.spd.check()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        spdgraph.errors.MatrixError: matrix 0 has a non-zero entry 0.01 at [0, 2] (nodes 0 ...
        """
        if is_sparse(self._da):  # on the stored entries, PD proven
            return _sparse.check_sparse(self)
        kind = self._kind()
        m = self._stack("check()")
        adjacency = self._adjacency_values("check()")
        if adjacency.shape != m.shape[1:]:
            raise MatrixError(
                f"the 'adjacency' coordinate is {adjacency.shape} but the matrix is {m.shape[1:]}."
            )
        unit = kind in ("correlation", "partial_correlation")
        if kind == "partial_correlation":
            # a partial correlation matrix P is valid when 2 I - P (its unit-diagonal
            # precision) is positive definite
            violation = find_violation(
                m, adjacency, structural=self._structural(), unit=True, check_pd=False
            )
            if violation is None:
                violation = find_violation(
                    partial_correlation(m), adjacency, structural=False, unit=True
                )
                if violation is not None:
                    raise MatrixError(
                        f"{violation.describe()} (checked as 2 I - P: no precision has these "
                        "partial correlations)"
                    )
        else:
            violation = find_violation(m, adjacency, structural=self._structural(), unit=unit)
        if violation is not None:
            message = violation.describe(self._labels())
            if violation.problem == "diagonal":
                message = f"{kind} {message}"
            elif violation.problem == "nonzero":
                message = message.replace("non-edges must", "structural zeros must")
            raise MatrixError(message)
        from spdgraph._kernels.cholesky_proof import proven_lower_bounds

        pd = partial_correlation(m) if kind == "partial_correlation" else m
        bounds = proven_lower_bounds(pd)  # what the proof gives, as sampled results
        if bounds.size:  # the smallest over a stack
            self._da.attrs["certificate_lambda_min_lower_bound"] = float(bounds.min())
        return self._da


def _register() -> None:
    existing = getattr(xr.DataArray, "spd", None)
    # the class attribute returns the accessor class itself
    ours = getattr(existing, "__qualname__", "") == "SpdAccessor"
    with warnings.catch_warnings():
        if ours:  # the module was imported twice (e.g. by doctest collection): re-register
            warnings.filterwarnings("ignore", message="registration of accessor")
        xr.register_dataarray_accessor("spd")(SpdAccessor)


_register()
