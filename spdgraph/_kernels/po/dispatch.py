"""Which PO kernel runs for a graph: the measured break-evens of the three kernels.

The row-by-row kernel (:mod:`spdgraph._kernels.po.fast`), the sparse blocked
kernel (:mod:`spdgraph._kernels.po.blocked`) and the inverse-Gram kernel
(:mod:`spdgraph._kernels.po.inverse_gram`) compute the same matrix; this
module only decides from the earlier-neighbour counts which one is fastest
(``benchmarks/bench_po_dispatch.py`` measures them side by side).
"""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.po.blocked import MIN_P

#: Largest ratio ``sum_i i |K_i|^2 / sum_i i^2`` for which the sparse blocked
#: kernel is used (measured break-even with the inverse-Gram kernel, see
#: ``benchmarks/bench_po_dispatch.py``).
BLOCKED_BELOW = 1.0
#: Largest ratio ``sum_i |K_i|^3 / sum_i min(|K_i|, |J_i|)^3`` for which the
#: inverse-Gram kernel is used: it always solves with the ``|K|`` neighbours,
#: the row-by-row kernel with the smaller of the two sets.
INVERSE_GRAM_BELOW = 1.1
#: The dense kernel (:mod:`spdgraph._kernels.po.dense`, the direct route with its
#: factorizations on two cores) is used when ``sum_i |J_i|^3`` is at most
#: :data:`DENSE_BELOW` times ``sum_i |K_i|^3`` (Erdős–Rényi from d ~ 0.45) and at
#: least :data:`DENSE_ABOVE` of ``sum_i i^3`` (up to d ~ 0.69): denser graphs have
#: small subproblems, which the row kernel solves in its own pass.
DENSE_BELOW = 2.0
DENSE_ABOVE = 0.03


def kernel_for(ptr: np.ndarray) -> str:
    """``"blocked"``, ``"inverse_gram"``, ``"dense"`` or ``"rows"``: the PO kernel for this graph.

    ``ptr`` is the CSR pointer of the earlier neighbours
    (:func:`~spdgraph._kernels.po.blocked.earlier_neighbours`). Below
    ``MIN_P`` nodes: ``"rows"``. Otherwise ``"blocked"`` for very sparse
    graphs (its O(i |K|^2) Gram work below :data:`BLOCKED_BELOW` of
    ``sum i^2``, about ``0.75 d^2 p`` for Erdős–Rényi graphs: p = 1000 up to
    d ~ 0.036, p = 2000 up to d ~ 0.026, p = 10,000 up to mean degree ~115;
    the two kernels run alike from about 0.3 to 2, and this one needs one
    ``p x p`` array less),
    ``"inverse_gram"`` up to medium density (the Cholesky work of its
    neighbour sets within :data:`INVERSE_GRAM_BELOW` of the row kernel's:
    Erdős–Rényi up to d ~ 0.45), ``"dense"`` from there while the
    non-neighbours' subproblems are large (:data:`DENSE_BELOW`,
    :data:`DENSE_ABOVE`: d ~ 0.45 to 0.69), else ``"rows"``.
    """
    p = ptr.shape[0] - 1
    if p < MIN_P:
        return "rows"
    k = np.diff(ptr).astype(np.float64)
    i = np.arange(p, dtype=np.float64)
    if float((i * k * k).sum()) <= BLOCKED_BELOW * float((i * i).sum()):
        return "blocked"
    j = i - k
    k3, j3 = float((k**3).sum()), float((j**3).sum())
    if j3 <= DENSE_BELOW * k3 and j3 >= DENSE_ABOVE * float((i**3).sum()):
        return "dense"
    if k3 <= INVERSE_GRAM_BELOW * float((np.minimum(k, j) ** 3).sum()):
        return "inverse_gram"
    return "rows"
