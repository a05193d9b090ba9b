"""PyTensor side of the bijection: free coordinates <-> graph-constrained K, PyMC transform.

Re-exported by :mod:`spdgraph_ppl.pymc`; the derivation is in :mod:`spdgraph_ppl.transform`.
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pymc.logprob.transforms import Transform
from pytensor.tensor.variable import TensorVariable

from spdgraph_ppl._graph import GraphStructure, graph_structure

__all__ = ["GraphCholeskyTransform", "backward", "forward"]


def _scatter(s: GraphStructure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Constant 0/1 matrices: diagonal and edge coordinates -> flat ``Phi`` (p * p), and
    flat ``Phi`` -> edge coordinates (exact: one 1 per column)."""
    p = s.p
    rows, cols = s.edges
    sd = np.zeros((p, p * p))
    sd[np.arange(p), np.arange(p) * (p + 1)] = 1.0
    se = np.zeros((s.n_edges, p * p))
    se[np.arange(s.n_edges), rows * p + cols] = 1.0
    return sd, se, se.T.copy()


def backward(u: TensorVariable, structure: GraphStructure) -> TensorVariable:
    """PyTensor: free coordinates ``u`` (last axis ``p + |E|``) -> K, exact zeros on non-edges.

    Batched over the leading axes of ``u``; the completion of
    :mod:`spdgraph_ppl.transform`, unrolled over the rows that need it (graphs are static).
    """
    s = structure.transform_structure
    p = s.p
    # exp of at most 300: an overflowing Phi_ii (a wild NUTS step in early tuning) would
    # make inf, then inf * 0 = NaN in the products below ("invalid value encountered in
    # matmul" in a grouped model); beyond 300 the log density is ~ -1e260 either way
    diag = pt.exp(pt.clip(u[..., :p], -300.0, 300.0))
    batch = [u.shape[i] for i in range(u.ndim - 1)]
    idx = np.arange(p)
    rows, cols = s.edges
    # scatter by indexing, not by a product with a 0/1 matrix (no 0 * inf)
    phi = pt.zeros((*batch, p, p), dtype=u.dtype)
    phi = pt.set_subtensor(phi[..., idx, idx], diag)
    if s.n_edges:
        phi = pt.set_subtensor(phi[..., rows, cols], u[..., p:])
    if s.completed_rows:
        row_list = [phi[..., i, :] for i in range(p)]
        for i in s.completed_rows:
            prev = pt.stack(row_list[:i], axis=-2)
            c = pt.sum(pt.shape_padright(prev[..., :, i]) * prev, axis=-2)
            d_i = pt.shape_padright(diag[..., i])
            row_list[i] = pt.where(s.upper_nonedges[i], -c / d_i, row_list[i])
        phi = pt.stack(row_list, axis=-2)
    k = pt.matmul(phi.swapaxes(-1, -2), phi)
    if structure.permuted:
        inv = structure.inverse_order
        k = k[..., inv, :][..., :, inv]
    return (k + k.swapaxes(-1, -2)) * 0.5 * structure.pattern


def forward(k: TensorVariable, structure: GraphStructure) -> TensorVariable:
    """PyTensor: K (last two axes) -> its free coordinates (``log`` Cholesky diagonal, edges)."""
    if structure.permuted:
        order = structure.transform_order
        k = k[..., order, :][..., :, order]
    s = structure.transform_structure
    p = s.p
    phi = pt.linalg.cholesky(k).swapaxes(-1, -2)
    parts = [pt.log(pt.diagonal(phi, axis1=-2, axis2=-1))]
    if s.n_edges:
        _, _, gather = _scatter(s)
        batch = [k.shape[i] for i in range(k.ndim - 2)]
        parts.append(pt.dot(phi.reshape((*batch, p * p)), gather))
    return pt.concatenate(parts, axis=-1)


def _log_jacobian(u: TensorVariable, structure: GraphStructure) -> TensorVariable:
    s = structure.transform_structure
    return s.p * np.log(2.0) + pt.sum((s.nu + 2) * u[..., : s.p], axis=-1)


class GraphCholeskyTransform(Transform):
    """PyMC transform between graph-constrained SPD matrices and ``R^(p + |E|)``.

    ``backward`` is ``u -> K = Phi^T Phi`` (completed factor, exact zeros on
    non-edges), ``forward`` its inverse, ``log_jac_det`` is
    ``p log 2 + sum_i (nu_i + 2) u_i`` (derivation in
    :mod:`spdgraph_ppl.transform`). Usable on its own for other priors on
    graph-constrained precision matrices, e.g. ``pm.CustomDist(...,
    default_transform=GraphCholeskyTransform(G))`` with a ``(p, p)`` value.

    Batched: leading axes of the value (one matrix per group,
    ``GWishart(..., dims=("group", "node", "node_2"))``) map to leading axes of
    the free coordinates.

    Parameters
    ----------
    graph
        The graph (anything :func:`spdgraph_ppl.graph_structure` accepts).
    """

    name = "graph_cholesky"
    ndim_supp = 2

    def __init__(self, graph: object) -> None:
        self.structure = graph_structure(graph)

    def _check(self, value: TensorVariable, ndim: int) -> None:
        if value.ndim < ndim:
            raise ValueError(
                f"GraphCholeskyTransform needs at least {ndim} dimensions here, got {value.ndim}."
            )

    def forward(self, value: TensorVariable, *inputs: TensorVariable) -> TensorVariable:
        """K -> free coordinates."""
        value = pt.as_tensor_variable(value)
        self._check(value, 2)
        return forward(value, self.structure)

    def backward(self, value: TensorVariable, *inputs: TensorVariable) -> TensorVariable:
        """Free coordinates -> K."""
        value = pt.as_tensor_variable(value)
        self._check(value, 1)
        return backward(value, self.structure)

    def log_jac_det(self, value: TensorVariable, *inputs: TensorVariable) -> TensorVariable:
        """``log |d K_free / d u|``."""
        value = pt.as_tensor_variable(value)
        self._check(value, 1)
        return _log_jacobian(value, self.structure)
