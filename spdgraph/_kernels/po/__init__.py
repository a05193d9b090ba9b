"""Partial orthogonalization kernels (Numba; arrays in, arrays out).

* :mod:`~spdgraph._kernels.po.batch`: a stack of PO matrices (draws, kernel, checks, threads),
* :mod:`~spdgraph._kernels.po.fast`: the row kernel (``po_matrix_into`` picks a kernel),
* :mod:`~spdgraph._kernels.po.blocked`, :mod:`~spdgraph._kernels.po.inverse_gram`:
  blocked kernels for sparse to medium-dense graphs, :mod:`~spdgraph._kernels.po.dispatch`
  chooses among them, :mod:`~spdgraph._kernels.po.small`: fused batches of small matrices,
* :mod:`~spdgraph._kernels.po.qr`, :mod:`~spdgraph._kernels.po.dense_loops`,
  :mod:`~spdgraph._kernels.po.residual` (the non-edge residuals and zeros): their
  building blocks, :mod:`~spdgraph._kernels.po.householder`: the clear NumPy version
  (the slow reference of the tests).
"""
