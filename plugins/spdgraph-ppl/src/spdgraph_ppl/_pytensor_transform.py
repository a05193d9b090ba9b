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


def backward(u: TensorVariable, structure: GraphStructure) -> TensorVariable:
    """PyTensor: free coordinates ``u`` (length ``p + |E|``) -> K, exact zeros on non-edges.

    The completion of :mod:`spdgraph_ppl.transform`, unrolled over the rows
    that need it (graphs are static).
    """
    s = structure
    p = s.p
    diag = pt.exp(u[:p])
    idx = np.arange(p)
    rows, cols = s.edges
    phi = pt.zeros((p, p), dtype=u.dtype)
    phi = pt.set_subtensor(phi[idx, idx], diag)
    if s.n_edges:
        phi = pt.set_subtensor(phi[rows, cols], u[p:])
    if s.completed_rows:
        row_list = [phi[i] for i in range(p)]
        for i in s.completed_rows:
            prev = pt.stack(row_list[:i])
            c = pt.dot(prev[:, i], prev)
            row_list[i] = pt.where(s.upper_nonedges[i], -c / diag[i], row_list[i])
        phi = pt.stack(row_list)
    k = pt.dot(phi.T, phi)
    return (k + k.T) * 0.5 * s.pattern


def forward(k: TensorVariable, structure: GraphStructure) -> TensorVariable:
    """PyTensor: K -> its free coordinates (``log`` of the Cholesky diagonal, edge entries)."""
    s = structure
    phi = pt.linalg.cholesky(k).T
    rows, cols = s.edges
    parts = [pt.log(pt.diagonal(phi))]
    if s.n_edges:
        parts.append(phi[rows, cols])
    return pt.concatenate(parts)


def _log_jacobian(u: TensorVariable, structure: GraphStructure) -> TensorVariable:
    s = structure
    return s.p * np.log(2.0) + pt.sum((s.nu + 2) * u[: s.p])


class GraphCholeskyTransform(Transform):
    """PyMC transform between graph-constrained SPD matrices and ``R^(p + |E|)``.

    ``backward`` is ``u -> K = Phi^T Phi`` (completed factor, exact zeros on
    non-edges), ``forward`` its inverse, ``log_jac_det`` is
    ``p log 2 + sum_i (nu_i + 2) u_i`` (derivation in
    :mod:`spdgraph_ppl.transform`). Usable on its own for other priors on
    graph-constrained precision matrices, e.g. ``pm.CustomDist(...,
    default_transform=GraphCholeskyTransform(G))`` with a ``(p, p)`` value.

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
        if value.ndim != ndim:
            raise NotImplementedError(
                "GraphCholeskyTransform handles one matrix per variable (no batch "
                "dimensions); use one GWishart per matrix."
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
