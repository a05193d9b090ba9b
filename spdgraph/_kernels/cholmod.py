"""cvxopt's CHOLMOD and AMD for the sparse kernels: the import, and matrices handed over.

* :func:`require_cholmod`: ``(cvxopt, cvxopt.cholmod, cvxopt.amd)``, or a
  :class:`~spdgraph.errors.MissingDependencyError` naming the ``large`` extra;
* :func:`cvxopt_triplets` and :func:`lower_spmatrix`: a cvxopt ``spmatrix`` from
  triplets or from a scipy.sparse matrix's lower triangle, built from buffers,
  long columns transposed (cvxopt's build is quadratic in a column's length);
* :func:`amd_order`: AMD's order of a symmetric CSR pattern.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import MissingDependencyError

__all__ = ["LONG_COLUMN", "amd_order", "cvxopt_triplets", "lower_spmatrix", "require_cholmod"]


def require_cholmod() -> tuple[Any, Any, Any]:
    """``(cvxopt, cvxopt.cholmod, cvxopt.amd)``, or a MissingDependencyError naming the extra."""
    try:
        import cvxopt
        from cvxopt import amd, cholmod
    except ImportError as exc:
        raise MissingDependencyError(
            "a sparse Cholesky factorization (exact draws from a sparse matrix, and the "
            "positive-definiteness proof of a sparse matrix that is not diagonally dominant) "
            'needs cvxopt (CHOLMOD): pip install "spdgraph[large]"'
        ) from exc
    return cvxopt, cholmod, amd


#: cvxopt builds a sparse matrix from triplets in time growing with the square of
#: each column's entries (2.5 s for one column of 10**5, 23 s for a star of 300,000
#: nodes): the entries of columns longer than this go in transposed, as rows.
LONG_COLUMN = 256


def cvxopt_triplets(values: Any, rows: np.ndarray, cols: np.ndarray, p: int) -> Any:
    """A cvxopt spmatrix from triplets, long columns built transposed (see LONG_COLUMN)."""
    cvxopt, _, _ = require_cholmod()
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    long = (np.bincount(cols, minlength=p) > LONG_COLUMN)[cols]  # a boolean gather
    if not long.any():
        return cvxopt.spmatrix(values, cvxopt.matrix(rows), cvxopt.matrix(cols), (p, p))
    short = ~long
    if isinstance(values, np.ndarray):
        short_values = cvxopt.matrix(np.ascontiguousarray(values[short]))
        long_values = cvxopt.matrix(np.ascontiguousarray(values[long]))
    else:
        short_values = long_values = values
    out = cvxopt.spmatrix(
        short_values, cvxopt.matrix(rows[short]), cvxopt.matrix(cols[short]), (p, p)
    )
    transposed = cvxopt.spmatrix(
        long_values, cvxopt.matrix(cols[long]), cvxopt.matrix(rows[long]), (p, p)
    )
    return out + transposed.T


def lower_spmatrix(matrix: Any) -> Any:
    """The lower triangle of a scipy.sparse matrix as a cvxopt spmatrix (buffers, no loops)."""
    import scipy.sparse

    from spdgraph._kernels.sparse import lower_entries, lower_triplets

    csr = scipy.sparse.csr_array(matrix)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    # the triplets written once, in the int64 cvxopt takes: no COO of the whole matrix
    count = lower_entries(csr.indptr, csr.indices)
    rows = np.empty(count, dtype=np.int64)
    cols = np.empty(count, dtype=np.int64)
    values = np.empty(count, dtype=np.float64)
    lower_triplets(csr.indptr, csr.indices, csr.data, rows, cols, values)
    return cvxopt_triplets(values, rows, cols, matrix.shape[0])


def amd_order(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """AMD order of a symmetric CSR pattern (its lower triangle handed to cvxopt)."""
    from spdgraph._kernels.coarsen import lower_triplets_by_column

    _, _, amd = require_cholmod()
    p = indptr.size - 1
    rows, cols = lower_triplets_by_column(indptr, indices)
    pattern = cvxopt_triplets(1.0, rows, cols, p)
    return np.asarray(amd.order(pattern), dtype=np.int64).ravel()
