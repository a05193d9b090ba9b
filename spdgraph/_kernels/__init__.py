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
* :mod:`~spdgraph._kernels.glasso_cd`, :mod:`~spdgraph._kernels.lasso_cd`: the
  validation study's coordinate descent kernels;
* :mod:`~spdgraph._kernels.raw_blas`: BLAS and LAPACK routines on views, without copies.
"""
