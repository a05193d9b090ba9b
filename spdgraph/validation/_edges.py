"""Edge sets: scoring a sparse estimate against a sparse truth in O(edges), never p x p.

A node pair ``i < j`` is one integer, its *edge key* ``i * p + j`` (int64);
a graph is the sorted array of its edges' keys. An estimate, a selection or
a truth given as a ``scipy.sparse`` array or matrix, a PyData ``sparse``
array (``simulate(..., sparse=True)``'s ``adjacency``, ``precision``, ...) or
a DataArray holding one is read on its stored entries only: every pair it
does not store is 0 (not selected, score 0). Confusion counts are then set
intersections (``tn = p(p-1)/2 - tp - fp - fn``), and a score sweep sorts the
stored pairs only; the arithmetic on each pair is the dense code's, so the
counts, metrics and curve areas equal the dense ones bit for bit.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.layout import is_sparse

__all__ = [
    "PairValues",
    "check_selection_rule",
    "edge_counts",
    "edge_keys",
    "is_sparse_matrix",
    "pair_values",
    "select_stored",
    "selection_matrix",
    "sparse_adjacency",
    "sweep_counts",
    "tie_counts",
]

Counts = tuple[int, int, int, int]


@dataclass(frozen=True)
class PairValues:
    """The node pairs a matrix stores, each once: ``keys`` sorted, with both triangles' values.

    ``upper[k]`` is the value at ``(i, j)`` and ``lower[k]`` at ``(j, i)`` of
    the pair ``keys[k] = i * p + j`` (``i < j``); an entry not stored is 0.0.
    """

    p: int
    keys: np.ndarray
    upper: np.ndarray
    lower: np.ndarray


def is_sparse_matrix(obj: object) -> bool:
    """Whether ``obj`` is a scipy.sparse array or matrix, a PyData sparse array or a DataArray
    holding one."""
    module = sys.modules.get("scipy.sparse")
    return (module is not None and bool(module.issparse(obj))) or is_sparse(obj)


def _triplets(matrix: Any) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``(p, rows, cols, values)`` of a sparse matrix's stored entries (values as stored)."""
    holder = sys.modules.get("xarray")
    if holder is not None and isinstance(matrix, holder.DataArray):
        matrix = matrix.data  # a PyData sparse array in memory (is_sparse said so)
    shape = tuple(matrix.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidOptionError(f"a sparse estimate or graph must be (p, p), got shape {shape}.")
    p = int(shape[0])
    if p > 3_037_000_499:  # p * p must fit an int64 edge key
        raise InvalidOptionError(f"{p} nodes is beyond the int64 edge keys (at most 3.0e9).")
    scipy_sparse = sys.modules.get("scipy.sparse")
    if scipy_sparse is not None and scipy_sparse.issparse(matrix):
        coo = matrix.tocoo()
        return p, np.asarray(coo.row), np.asarray(coo.col), np.asarray(coo.data)
    coo = matrix.asformat("coo")  # PyData: COO (itself), GCXS, DOK
    fill = coo.fill_value
    if fill != 0:
        raise InvalidOptionError(
            f"a sparse array whose fill value is {written(fill)} gives every pair it does not "
            "store that value: pass one whose fill value is 0 (or False)."
        )
    return p, np.asarray(coo.coords[0]), np.asarray(coo.coords[1]), np.asarray(coo.data)


def _sparse_pairs(matrix: Any) -> PairValues:
    p, rows, cols, values = _triplets(matrix)
    off = rows != cols
    rows, cols, values = rows[off], cols[off], values[off].astype(float)
    if not np.all(np.isfinite(values)):
        raise InvalidOptionError("a sparse matrix stores non-finite values; pass finite ones.")
    upper = rows < cols
    low, high = np.where(upper, rows, cols), np.where(upper, cols, rows)
    keys, where = np.unique(low.astype(np.int64) * p + high, return_inverse=True)
    # bincount adds 0.0 + v: the value itself (a duplicate entry is summed, as densified)
    up = np.bincount(where[upper], weights=values[upper], minlength=keys.size)
    down = np.bincount(where[~upper], weights=values[~upper], minlength=keys.size)
    return PairValues(p, keys, up, down)


def _dense_pairs(matrix: Any) -> PairValues:
    dense = np.asarray(matrix)
    if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
        raise InvalidOptionError(f"an estimate or graph must be (p, p), got shape {dense.shape}.")
    p = dense.shape[0]
    iu, ju = np.triu_indices(p, 1)
    up, down = dense[iu, ju].astype(float), dense[ju, iu].astype(float)
    keep = (up != 0) | (down != 0)
    keys = iu[keep].astype(np.int64) * p + ju[keep]
    return PairValues(p, keys, up[keep], down[keep])


def pair_values(matrix: Any) -> PairValues:
    """The pairs of ``matrix``: its stored off-diagonal entries (sparse) or nonzero ones."""
    return _sparse_pairs(matrix) if is_sparse_matrix(matrix) else _dense_pairs(matrix)


def edge_keys(matrix: Any) -> tuple[int, np.ndarray]:
    """``(p, keys)``: the sorted keys of the pairs nonzero in either triangle of ``matrix``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from spdgraph.validation._edges import edge_keys
    >>> edge_keys(sparse.csr_array(np.array([[1, 0, 0], [2, 0, 0], [0, 3, 0]])))
    (3, array([1, 5]))
    """
    pairs = pair_values(matrix)
    return pairs.p, pairs.keys[(pairs.upper != 0) | (pairs.lower != 0)]


def edge_counts(selected: Any, truth: Any) -> Counts:
    """``(tp, fp, fn, tn)`` of a selection against a truth, by intersecting their edge keys."""
    p, chosen = edge_keys(selected)
    q, true = edge_keys(truth)
    if p != q:
        raise InvalidOptionError(f"the estimate has {p} nodes but the graph has {q} nodes.")
    tp = int(np.intersect1d(chosen, true, assume_unique=True).size)
    fp, fn = int(chosen.size) - tp, int(true.size) - tp
    return tp, fp, fn, p * (p - 1) // 2 - tp - fp - fn


def selection_matrix(p: int, keys: np.ndarray) -> Any:
    """The upper-triangle boolean ``scipy.sparse.csr_array`` of sorted edge keys."""
    from scipy import sparse

    index = np.int32 if p < 2**31 else np.int64
    rows, cols = np.divmod(keys, p)
    indptr = np.zeros(p + 1, dtype=np.int64 if keys.size >= 2**31 else index)
    np.cumsum(np.bincount(rows, minlength=p), out=indptr[1:])
    data = np.ones(keys.size, dtype=bool)
    return sparse.csr_array((data, cols.astype(index), indptr), shape=(p, p))


def sparse_adjacency(matrix: Any) -> Any:
    """A symmetric boolean ``csr_array`` of the pairs nonzero in either triangle (diagonal False).

    What a custom metric receives when the truth or the selection is sparse.
    """
    p, keys = edge_keys(matrix)
    upper = selection_matrix(p, keys)
    return (upper + upper.T).tocsr()


def check_selection_rule(rule: str) -> None:
    """Refuse a selection rule that is not one of ``select_edges``'s."""
    if rule not in ("nonzero", "lfdr", "threshold"):
        raise InvalidOptionError(f"rule must be 'nonzero', 'lfdr' or 'threshold', got {rule!r}.")


def select_stored(estimate: Any, rule: str, cutoff: float) -> Any:
    """``select_edges`` of a sparse estimate, on its stored pairs (every other one is 0).

    The upper triangle of the selection, a boolean ``csr_array``; the rule
    ``"lfdr"`` (a null fitted to every pair) and a negative threshold (every
    unstored pair selected) are refused.
    """
    if np.dtype(estimate.dtype) == np.bool_:  # an adjacency: either triangle
        return selection_matrix(*edge_keys(estimate))
    check_selection_rule(rule)
    if rule == "lfdr":
        raise InvalidOptionError(
            "rule 'lfdr' fits its null to all p(p-1)/2 values of the estimate, most of which "
            "a sparse estimate does not store: use rule='threshold' with a cutoff on |value| "
            "(or 'nonzero'), or pass the estimate dense (estimate.toarray(), where p is small)."
        )
    if rule == "threshold" and cutoff < 0:
        raise InvalidOptionError(
            f"rule 'threshold' with cutoff {written(cutoff)} below 0 selects every pair a "
            "sparse estimate does not store: pass a cutoff >= 0."
        )
    pairs = pair_values(estimate)
    if pairs.upper.any() and pairs.lower.any():
        vals = (pairs.upper + pairs.lower) / 2.0  # both triangles: as a dense estimate
    else:  # one triangle of a symmetric matrix: its values (0.0 + v is v)
        vals = pairs.upper + pairs.lower
    keep = vals != 0 if rule == "nonzero" else np.abs(vals) > cutoff
    return selection_matrix(pairs.p, pairs.keys[keep])


def tie_counts(scores: np.ndarray, true: np.ndarray, n_pairs: int, n_true: int) -> np.ndarray:
    """Confusion counts at every distinct nonzero threshold of ``scores``, sparse to dense.

    ``scores`` (``|score|`` of some pairs, every other pair scoring 0) and
    ``true`` (whether each is a true edge) are aligned; ``n_pairs`` is
    ``p(p-1)/2`` and ``n_true`` the number of true edges. A tie group is one
    step; the pairs scoring 0 are never selected (the curves close at (1, 1)).
    Returns ``(steps, 4)`` int64 rows ``(tp, fp, fn, tn)``, the empty selection first.
    """
    order = np.argsort(-scores, kind="stable")
    s, t = scores[order], true[order]
    cut = np.flatnonzero(np.r_[s[1:] != s[:-1], s.size > 0])  # last index of each tie group
    cut = cut[s[cut] != 0]
    tp = np.r_[0, np.cumsum(t, dtype=np.int64)[cut]]
    fp = np.r_[0, cut + 1] - tp
    return np.stack([tp, fp, n_true - tp, n_pairs - n_true - fp], axis=1).astype(np.int64)


def sweep_counts(scores: Any, truth: Any) -> np.ndarray:
    """:func:`tie_counts` of a score matrix (``max(|s_ij|, |s_ji|)``) on its stored pairs."""
    pairs = pair_values(scores)
    p, true = edge_keys(truth)
    if p != pairs.p:
        raise InvalidOptionError(f"the scores have {pairs.p} nodes but the graph has {p} nodes.")
    s = np.maximum(np.abs(pairs.upper), np.abs(pairs.lower))
    hit = np.isin(pairs.keys, true, assume_unique=True)
    return tie_counts(s, hit, p * (p - 1) // 2, int(true.size))
