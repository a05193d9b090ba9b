"""Neighbourhood selection (Meinshausen and Bühlmann 2006), R ``huge(method = "mb")``'s way.

Each node is regressed on all the others by the lasso

    minimize_w  (1 / (2 n)) ||y - Z w||^2 + lambda ||w||_1

on columns standardized to mean 0 and ``||z||^2 = n`` (so ``Z'Z / n`` is the
sample correlation: huge solves the same problem written with the
correlation matrix ``S``), along ONE penalty grid common to all nodes:
``nlambda`` values log-spaced from ``max_{i != j} |S_ij|`` down to
``lambda_min_ratio`` times that (huge's defaults 10 and 0.1). Edge ``i - j``
is selected when ``w_ij != 0`` or (``rule="and"``: and) ``w_ji != 0``; huge's
default is ``sym = "or"``.

The lasso is scikit-learn's coordinate descent (``enet_path``) on a
working set per node and penalty (the active set plus the columns whose
gradient at the previous penalty's solution already exceeds the new penalty:
its KKT violators), checked against the optimality (KKT) conditions on every
node: the gradients of a block of nodes come from one
matrix product ``X' R`` (BLAS, ``p x block``), violators join the candidate
set and the fit is repeated until none is left. Nothing ``p x p`` is ever
built: memory is the standardized data plus ``p x block`` floats.

The penalty is chosen as R ``huge.select`` does for ``mb`` (its default
``"ric"``, or ``"stars"``, see :func:`neighbourhood_selection`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.validation._glasso_select import LAMBDA_MIN_RATIO, NLAMBDA, STARS_THRESH, _check_grid
from spdgraph.validation._lasso import require_sklearn
from spdgraph.validation._stars import stars_subsample_size, stars_variability

__all__ = ["MB_CRITERIA", "MB_RULES", "NeighbourhoodSelection", "neighbourhood_selection"]

#: Penalty choices of :func:`neighbourhood_selection` (R ``huge.select`` for ``mb``).
MB_CRITERIA = ("ric", "stars")
#: How the two node-wise regressions make an edge (R ``huge``'s ``sym``).
MB_RULES = ("or", "and")
#: Nodes fitted together (the gradients of a block are one ``p x BLOCK`` product).
BLOCK = 256
#: scikit-learn's coordinate-descent tolerance (its duality gap, relative to ``||y||^2``).
CD_TOL = 1e-10


@dataclass(frozen=True)
class NeighbourhoodSelection:
    """Result of :func:`neighbourhood_selection`.

    Attributes
    ----------
    lambdas
        The penalty grid, decreasing.
    path
        One ``(p, p)`` symmetric boolean ``scipy.sparse.csr_array`` per
        penalty of ``lambdas``: the selected edges (no diagonal).
    selected
        The edges at the chosen penalty (same format).
    lambda_
        The chosen penalty (``"ric"``: huge's rotation penalty, not
        necessarily on the grid).
    scores
        ``"stars"``: the variability per penalty (``inf`` past the first that
        reaches the threshold); ``"ric"``: empty.
    criterion, rule
        As asked.
    threads
        ``{"blas_threads": b, "numba_threads": m}`` in force during the fit.
    """

    lambdas: np.ndarray
    path: tuple
    selected: Any
    lambda_: float
    scores: np.ndarray
    criterion: str
    rule: str
    threads: dict[str, int] = field(default_factory=dict)

    def adjacency(self) -> np.ndarray:
        """The selected edges as a dense ``(p, p)`` boolean array (``p^2`` bytes)."""
        return np.asarray(self.selected.toarray(), dtype=bool)

    def edges(self) -> np.ndarray:
        """The selected edges as a ``(k, 2)`` array of node pairs ``i < j``."""
        upper = _upper(self.selected)
        return np.column_stack([upper.row, upper.col]).astype(np.int64)


def _upper(adj):
    from scipy import sparse

    return sparse.triu(adj, k=1, format="coo")


def standardize_columns(x: object) -> np.ndarray:
    """Columns centred and scaled to ``||z||^2 = n``, in one Fortran-ordered float64 copy.

    A float64 (memory-mapped) array is read as is (``np.asarray`` does not
    copy it); the only copy is the standardized result.
    """
    arr = np.asarray(x)
    if arr.ndim != 2 or arr.shape[0] < 3 or arr.shape[1] < 2:
        raise InvalidOptionError(
            f"x must be (n, p) data with n >= 3 observations and p >= 2 nodes, got shape "
            f"{arr.shape}."
        )
    mean = arr.mean(axis=0, dtype=float)
    out = np.empty(arr.shape, dtype=float, order="F")
    np.subtract(arr, mean, out=out)
    if not np.all(np.isfinite(out)):
        raise InvalidOptionError("x contains NaN or infinite values; remove or impute them.")
    sd = np.sqrt(np.einsum("ij,ij->j", out, out) / arr.shape[0])
    if np.any(sd == 0):
        raise InvalidOptionError(
            f"data columns {np.flatnonzero(sd == 0)[:10].tolist()} are constant; "
            "a node needs varying observations (drop those columns)."
        )
    out /= sd
    return out


def lambda_max(xs: np.ndarray, block: int = BLOCK) -> float:
    """``max_{i != j} |S_ij|`` of standardized data, one ``block x p`` product at a time."""
    n, p = xs.shape
    top = 0.0
    for start in range(0, p, block):
        nodes = np.arange(start, min(p, start + block))
        g = xs[:, nodes].T @ xs
        g[np.arange(nodes.size), nodes] = 0.0
        top = max(top, float(np.max(np.abs(g))) / n)
    return top


def mb_penalties(xs: np.ndarray, nlambda: int, lambda_min_ratio: float) -> np.ndarray:
    """R huge's grid: ``exp(seq(log(lmax), log(ratio * lmax), length = nlambda))``."""
    top = lambda_max(xs)
    if top == 0.0:
        raise InvalidOptionError("all sample correlations are 0: no penalty grid to build.")
    return np.exp(np.linspace(np.log(top), np.log(lambda_min_ratio * top), nlambda))


def _solve_node(xs, y, cand, w, lam, max_iter):
    """scikit-learn's coordinate descent on the candidate columns, warm-started from ``w``."""
    from sklearn import config_context
    from sklearn.linear_model import enet_path

    if cand.size == 0:
        return np.zeros(0)
    xc = np.asfortranarray(xs[:, cand])
    with warnings.catch_warnings(), config_context(skip_parameter_validation=True):
        warnings.simplefilter("ignore")  # ConvergenceWarning: the KKT check follows anyway
        _alphas, coefs, _gaps = enet_path(
            xc, y, l1_ratio=1.0, alphas=np.array([lam]), coef_init=w[cand].copy(),
            tol=CD_TOL, max_iter=max_iter, check_input=False, precompute=False,
        )  # fmt: skip
    return coefs[:, 0]


def _fit_block(xs, nodes, lambdas, max_iter):
    """Supports of the block's nodes at every penalty: ``[(rows, cols)]`` per penalty."""
    n, p = xs.shape
    b_idx = np.arange(nodes.size)
    ys = np.ascontiguousarray(xs[:, nodes].T)  # (B, n): y of each node
    corr = xs.T @ ys.T / n  # (p, B): the node's correlations with every column
    corr[nodes, b_idx] = 0.0
    w = np.zeros((p, nodes.size))
    fitted = np.zeros((n, nodes.size))
    grad = corr.copy()
    cands: list[np.ndarray] = [np.zeros(0, dtype=np.intp)] * nodes.size
    out = []
    for lam in lambdas:
        for b in b_idx:  # the working set: the active set and its KKT violators at lam
            over = np.flatnonzero(np.abs(grad[:, b]) > lam)
            cands[b] = np.union1d(np.flatnonzero(w[:, b]), over[over != nodes[b]])
        todo = b_idx
        while todo.size:
            for b in todo:
                cand = cands[b]
                coef = _solve_node(xs, ys[b], cand, w[:, b], lam, max_iter)
                w[:, b] = 0.0
                w[cand, b] = coef
                fitted[:, b] = xs[:, cand] @ w[cand, b] if cand.size else 0.0
            grad[:, todo] = corr[:, todo] - xs.T @ fitted[:, todo] / n
            grad[nodes[todo], todo] = 0.0
            again = []
            for b in todo:
                outside = np.abs(grad[:, b]) > lam * (1.0 + 1e-9)
                outside[cands[b]] = False
                if outside.any():
                    cands[b] = np.union1d(cands[b], np.flatnonzero(outside))
                    again.append(b)
            todo = np.asarray(again, dtype=np.intp)
        rows, cols = np.nonzero(w.T)
        out.append((nodes[rows].astype(np.int32), cols.astype(np.int32)))
    return out


def mb_path(
    xs: np.ndarray, lambdas: np.ndarray, rule: str, max_iter: int = 100_000
) -> list[object]:
    """The selected graphs along ``lambdas`` (decreasing): symmetric boolean CSR arrays."""
    from scipy import sparse

    require_sklearn("neighbourhood selection (the mb learner)")
    p = xs.shape[1]
    parts = [_fit_block(xs, np.arange(s, min(p, s + BLOCK)), lambdas, max_iter)
             for s in range(0, p, BLOCK)]  # fmt: skip
    graphs = []
    for k in range(len(lambdas)):
        rows = np.concatenate([part[k][0] for part in parts])
        cols = np.concatenate([part[k][1] for part in parts])
        directed = sparse.csr_array(
            (np.ones(rows.size, dtype=bool), (rows, cols)), shape=(p, p), dtype=bool
        )
        sym = directed + directed.T if rule == "or" else directed.multiply(directed.T)
        graphs.append(sparse.csr_array(sym, dtype=bool))
    return graphs


def ric_penalty(xs: np.ndarray, shifts: np.ndarray, block: int = BLOCK) -> float:
    """R huge's rotation information criterion (``huge.select(criterion = "ric")``).

    For each shift ``r`` (in ``1..n``), the largest ``|sum_m x[(m + r) mod n, j]
    x[m, k]|`` over ``j != k``; the smallest of these over the shifts, over ``n``.
    ``rep`` products ``p x n x p`` in ``block``-column pieces; a shift stops as
    soon as its maximum passes the smallest so far (same result, less work).
    """
    n, p = xs.shape
    best = np.inf
    for r in shifts:
        rolled = np.roll(xs, -int(r) % n, axis=0)
        top = 0.0
        for start in range(0, p, block):
            nodes = np.arange(start, min(p, start + block))
            g = rolled[:, nodes].T @ xs
            g[np.arange(nodes.size), nodes] = 0.0
            top = max(top, float(np.max(np.abs(g))))
            if top >= best:
                break  # this shift cannot lower the minimum: skip its other blocks
        best = min(best, top)
    return float(best) / n


def _stars(x, lambdas, rule, rep, thresh, rng, max_iter):
    """StARS on huge's scale: variabilities (``inf`` past the stop) and the chosen index."""
    from scipy import sparse

    n, p = x.shape
    b = stars_subsample_size(n)
    paths = []
    for _ in range(rep):
        rows = np.sort(rng.choice(n, size=b, replace=False))
        paths.append(mb_path(standardize_columns(np.asarray(x)[rows]), lambdas, rule, max_iter))
    variability = np.full(lambdas.size, np.inf)
    best = 0
    for k in range(lambdas.size):
        counts = sparse.triu(sum(path[k].astype(np.int32) for path in paths), k=1)  # type: ignore[attr-defined]
        variability[k] = stars_variability(counts.data / rep, p)
        if variability[k] >= thresh:
            break
        best = k
    return variability, best


def _check_options(rule, criterion, rep, thresh):
    if rule not in MB_RULES:
        raise InvalidOptionError(f"rule must be one of {list(MB_RULES)}, got {written(rule)}.")
    if criterion not in MB_CRITERIA:
        raise InvalidOptionError(
            f"criterion must be one of {list(MB_CRITERIA)} for neighbourhood selection "
            f"(R huge.select's choices for mb), got {written(criterion)}."
        )
    if isinstance(rep, bool) or not isinstance(rep, (int, np.integer)) or rep < 2:
        raise InvalidOptionError(f"rep must be an integer >= 2, got {written(rep)}.")
    if isinstance(thresh, bool) or not isinstance(thresh, (int, float)) or not 0 < thresh < 1:
        raise InvalidOptionError(
            f"stars_thresh must be a number in (0, 1) (huge's scale; its default is 0.1), "
            f"got {written(thresh)}."
        )


def neighbourhood_selection(
    x: np.ndarray,
    *,
    rule: str = "or",
    criterion: str = "ric",
    lambdas: np.ndarray | None = None,
    nlambda: int = NLAMBDA,
    lambda_min_ratio: float = LAMBDA_MIN_RATIO,
    rep: int = 20,
    stars_thresh: float = STARS_THRESH,
    seed: int | np.random.Generator | None = None,
    blas_threads: int | None = 1,
    max_iter: int = 100_000,
) -> NeighbourhoodSelection:
    """Neighbourhood selection (Meinshausen–Bühlmann), as R ``huge(method = "mb")``.

    A lasso path per node on one common penalty grid (see
    :mod:`spdgraph.validation._mb`), the edges by the OR or AND rule, the
    penalty chosen by huge's rotation information criterion or StARS. Never
    builds a ``p x p`` float matrix: a Python-only install runs ``p = 10^4``.

    Parameters
    ----------
    x
        ``(n, p)`` observations, e.g. a memory-mapped ``.npy`` (read without a
        float64 copy when it is float64; the one copy is the standardized data).
    rule
        ``"or"`` (huge's default ``sym``): ``i - j`` when either regression
        selects the other; ``"and"``: when both do.
    criterion
        ``"ric"`` (huge.select's default for mb): the penalty is huge's
        rotation information criterion over ``rep`` random cyclic shifts
        (computed on the standardized data, where huge uses the data as
        given), fitted on its own; ``"stars"``: the penalty before the first
        whose subsampling variability (``rep`` subsamples) reaches
        ``stars_thresh``, as for :func:`~spdgraph.validation.select_glasso`.
    lambdas
        The penalty grid (any order; used decreasing), e.g. R's ``fit$lambda``;
        otherwise ``nlambda`` values down to ``lambda_min_ratio`` times
        ``max |S_ij|`` (huge's defaults 10 and 0.1).
    rep, stars_thresh
        huge's ``rep.num`` and ``stars.thresh``.
    seed
        Draws the shifts (``"ric"``) or the subsamples (``"stars"``).
    blas_threads
        BLAS threads (1 by default; ``None`` leaves BLAS alone), Numba held
        within the cores (:func:`spdgraph._threads.thread_budget`).
    max_iter
        scikit-learn's coordinate-descent sweeps per node and penalty.

    Returns
    -------
    NeighbourhoodSelection
        ``lambdas``, ``path`` (sparse boolean graphs), ``selected``,
        ``lambda_``, ``scores``; ``adjacency()`` and ``edges()``.

    Examples
    --------
    >>> import spdgraph, networkx as nx
    >>> from spdgraph.validation import draw_gaussian, neighbourhood_selection
    >>> g = nx.cycle_graph(8)
    >>> prec = spdgraph.sample(g, seed=0, kind="precision")
    >>> x = draw_gaussian(prec.values, 300, seed=1)
    >>> fit = neighbourhood_selection(x, nlambda=5, seed=0)
    >>> len(fit.path), int(fit.path[0].sum()), fit.adjacency().shape
    (5, 0, (8, 8))
    >>> sorted(map(tuple, fit.edges().tolist()))[:3]
    [(0, 1), (0, 7), (1, 2)]
    """
    from spdgraph._threads import check_blas_threads, thread_budget

    _check_options(rule, criterion, rep, stars_thresh)
    check_blas_threads(blas_threads)
    xs = standardize_columns(x)
    if lambdas is None:
        grid = mb_penalties(xs, _check_grid(nlambda, lambda_min_ratio), float(lambda_min_ratio))
    else:
        grid = np.sort(np.asarray(lambdas, dtype=float).ravel())[::-1]
        if grid.size == 0 or not np.all(np.isfinite(grid)) or grid[-1] <= 0:
            raise InvalidOptionError("lambdas must be positive finite numbers.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    with thread_budget(blas_threads) as used:
        path = mb_path(xs, grid, rule, max_iter)
        n = xs.shape[0]
        if criterion == "ric":
            shifts = rng.choice(n, size=rep, replace=False) + 1 if n > rep else np.arange(1, n + 1)
            lam = ric_penalty(xs, shifts)
            selected = mb_path(xs, np.array([lam]), rule, max_iter)[0]
            scores = np.zeros(0)
        else:
            scores, best = _stars(x, grid, rule, int(rep), stars_thresh, rng, max_iter)
            lam, selected = float(grid[best]), path[best]
    return NeighbourhoodSelection(
        lambdas=grid, path=tuple(path), selected=selected, lambda_=float(lam), scores=scores,
        criterion=criterion, rule=rule, threads=dict(used),
    )  # fmt: skip
