"""Private numerics: arrays in, arrays out; no xarray, no pluggy.

* :mod:`~spdgraph._kernels.numerics`: the one numerics layer every part shares (kinds,
  link strength, unit diagonal, partial correlations, Cholesky, Gaussian draws, the
  check ``find_violation``);
* :mod:`~spdgraph._kernels.blas`: BLAS held at one thread (``one_blas_thread``);
* :mod:`~spdgraph._kernels.po`: the partial orthogonalization kernels;
* :mod:`~spdgraph._kernels.portable`: kernels with the same bits on every CPU;
* :mod:`~spdgraph._kernels.condition`: scaled condition number estimates;
* :mod:`~spdgraph._kernels.dd`, :mod:`~spdgraph._kernels.sem`,
  :mod:`~spdgraph._kernels.chol_uniform`: the other generators' numerics;
* :mod:`~spdgraph._kernels.chordal`: maximum cardinality search, the perfect
  elimination order and the minimum-degree triangulation (plain NumPy, so that
  :mod:`spdgraph.graphs` re-exports ``perfect_elimination_order`` without Numba);
* :mod:`~spdgraph._kernels.glasso_cd`, :mod:`~spdgraph._kernels.lasso_cd`: the
  validation study's coordinate descent kernels;
* :mod:`~spdgraph._kernels.raw_blas`: BLAS and LAPACK routines on views, without copies.
"""

from spdgraph._kernels.cache import install_when_numba_loads

# an unwritable Numba cache: compile uncached with one warning instead of failing on import
install_when_numba_loads()
