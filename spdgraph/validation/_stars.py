"""StARS: the graphical lasso penalty chosen by subsampling stability.

Liu, Roeder and Wasserman (2010), as R ``huge``'s ``huge.select(criterion =
"stars")``: ``rep`` subsamples of ``b`` rows (without replacement; ``b =
10 sqrt(n)`` when ``n > 144``, else ``0.8 n``) are each fitted along the
penalty path from the largest penalty down; the instability of a penalty is
the mean over node pairs of ``2 theta (1 - theta)``, ``theta`` the share of
subsamples that select the pair; it is made monotone (the largest instability
at this or any larger penalty) and the smallest penalty whose instability
does not exceed ``beta`` (0.1) is chosen. The path stops at the first penalty
past ``beta``: the dense end of the path is never fitted.
"""

from __future__ import annotations

import numpy as np

from spdgraph.errors import InvalidOptionError, written

__all__: list[str] = []


def stars_subsample_size(n: int) -> int:
    """``huge``'s subsample size: ``floor(10 sqrt(n))`` when ``n > 144``, else ``floor(0.8 n)``."""
    return int(np.floor(10.0 * np.sqrt(n))) if n > 144 else max(2, int(np.floor(0.8 * n)))


def stars_instability(
    x: np.ndarray,
    grid: np.ndarray,
    *,
    own_top: bool,
    rep: int,
    beta: float,
    rng: np.random.Generator,
    penalize_diagonal: bool,
    kkt_tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The grid, its monotone instability (``inf`` past the stop) and the chosen index.

    With ``own_top`` the grid is rescaled to start at the largest off-diagonal
    ``|S_ij|`` over the subsamples (and the full data), where no subsample
    selects anything: otherwise one strongly correlated pair can make the
    first penalty unstable already and StARS would return the empty graph.
    """
    from spdgraph.validation._glasso import _Solver

    if isinstance(rep, bool) or not isinstance(rep, (int, np.integer)) or rep < 2:
        raise InvalidOptionError(f"stars_rep must be an integer >= 2, got {written(rep)}.")
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0 < beta < 0.5:
        raise InvalidOptionError(f"stars_beta must be a number in (0, 0.5), got {written(beta)}.")
    n, p = x.shape
    b = stars_subsample_size(n)
    solvers = []
    top = float(grid[0])
    for _ in range(int(rep)):
        rows = np.sort(rng.choice(n, size=b, replace=False))
        xs = x[rows] - x[rows].mean(axis=0)
        s = xs.T @ xs / b
        np.fill_diagonal(s, np.maximum(np.diag(s), 1e-12))
        top = max(top, float(np.max(np.abs(s - np.diag(np.diag(s))))))
        solvers.append(_Solver(s, penalize_diagonal, max_iter, 2))
    if own_top:
        grid = grid * (top / float(grid[0]))
    iu = np.triu_indices(p, 1)
    inst = np.full(grid.size, np.inf)
    worst, best = 0.0, 0
    for k, rho in enumerate(grid):
        freq = np.zeros(iu[0].size)
        for solver in solvers:
            freq += solver.solve(float(rho), kkt_tol).precision[iu] != 0
        theta = freq / len(solvers)
        worst = max(worst, float(np.mean(2.0 * theta * (1.0 - theta))))
        inst[k] = worst
        if worst > beta:
            break
        best = k
    return grid, inst, best
