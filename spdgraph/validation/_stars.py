"""StARS: the graphical lasso penalty chosen by subsampling stability.

Liu, Roeder and Wasserman (2010), on R ``huge``'s scale (``huge.select(criterion
= "stars")``, huge 1.3.5): ``rep`` subsamples of ``b`` rows (without
replacement; ``b = floor(10 sqrt(n))`` when ``n > 144``, else ``floor(0.8 n)``)
are each fitted along the penalty path from the largest penalty down; with
``theta`` the share of subsamples that select a pair, the variability of a
penalty is huge's ``4 sum theta (1 - theta) / (p (p - 1))`` (the sum over all
ordered pairs ``i != j``; twice the mean over pairs of ``2 theta (1 - theta)``
that Liu et al. write). The chosen penalty is the one before the first whose
variability reaches ``stars_thresh`` (0.1, huge's default), the first penalty
when the first already does. Each subsample's covariance is rescaled to the
full data's variances, so that on standardized data it is the subsample's
correlation, as huge computes it. The path stops at the first penalty whose
variability reaches the threshold: the dense end is never fitted.

One difference from huge remains: when no penalty of the grid reaches the
threshold, huge returns the first (largest) penalty (``which.max`` of an
all-``FALSE`` vector is 1) and spdgraph the last (smallest), the penalty the
rule asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.vocabulary import check_count

__all__: list[str] = []


def stars_subsample_size(n: int) -> int:
    """``huge``'s subsample size: ``floor(10 sqrt(n))`` when ``n > 144``, else ``floor(0.8 n)``."""
    return int(np.floor(10.0 * np.sqrt(n))) if n > 144 else max(2, int(np.floor(0.8 * n)))


def stars_variability(theta: np.ndarray, p: int) -> float:
    """huge's variability ``4 sum_{i != j} theta (1 - theta) / (p (p - 1))``.

    ``theta`` holds the selection shares of the ``p (p - 1) / 2`` unordered
    pairs; each appears twice in huge's sum over the full matrix.
    """
    theta = np.asarray(theta, dtype=float)
    return float(8.0 * np.sum(theta * (1.0 - theta)) / (p * (p - 1))) if p > 1 else 0.0


def stars_instability(
    x: np.ndarray,
    grid: np.ndarray,
    *,
    rep: int,
    thresh: float,
    rng: np.random.Generator,
    penalize_diagonal: bool,
    kkt_tol: float,
    max_iter: int,
    subsamples: Sequence[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The grid, its variability (``inf`` past the stop) and the chosen index.

    The grid is used as given (huge's: from the full data's largest
    ``|S_ij|``). ``subsamples`` (row-index arrays) replaces the random
    draw, e.g. to replay R's subsamples.
    """
    from spdgraph.validation._glasso import _Solver

    check_count(rep, "stars_rep", low=2)
    if isinstance(thresh, bool) or not isinstance(thresh, (int, float)) or not 0 < thresh < 1:
        raise InvalidOptionError(
            f"stars_thresh must be a number in (0, 1) (huge's scale; its default is 0.1), "
            f"got {written(thresh)}."
        )
    n, p = x.shape
    b = stars_subsample_size(n)
    if subsamples is None:
        subsamples = [np.sort(rng.choice(n, size=b, replace=False)) for _ in range(int(rep))]
    full_var = np.var(x, axis=0)
    solvers = []
    for rows in subsamples:
        xs = x[rows] - x[rows].mean(axis=0)
        s = xs.T @ xs / len(rows)
        var = np.diag(s).copy()
        scale = np.sqrt(np.where(var > 0, full_var / np.maximum(var, 1e-300), 1.0))
        s = s * np.outer(scale, scale)
        np.fill_diagonal(s, np.maximum(np.where(var > 0, full_var, 0.0), 1e-12))
        solvers.append(_Solver(s, penalize_diagonal, max_iter, 2))
    iu = np.triu_indices(p, 1)
    variability = np.full(grid.size, np.inf)
    best = 0
    for k, rho in enumerate(grid):
        freq = np.zeros(iu[0].size)
        for solver in solvers:
            freq += solver.solve(float(rho), kkt_tol).precision[iu] != 0
        variability[k] = stars_variability(freq / len(solvers), p)
        if variability[k] >= thresh:
            break
        best = k
    return grid, variability, best
