"""Schäfer–Strimmer shrinkage estimate of partial correlations (corpcor-like)."""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.numerics import partial_correlation
from spdgraph.errors import InvalidOptionError

__all__ = ["shrink_pcor", "shrinkage_intensity", "standardize"]


def standardize(x: np.ndarray) -> np.ndarray:
    """Center the columns of ``x`` and scale them to unit sample sd (ddof 1).

    Raises :class:`~spdgraph.InvalidOptionError` for a constant column.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 3:
        raise InvalidOptionError(
            f"data must be a 2-D (observations, nodes) array with at least 3 rows, "
            f"got shape {x.shape}."
        )
    if not np.all(np.isfinite(x)):
        raise InvalidOptionError("data contain NaN or infinite values; remove or impute them.")
    xc = x - x.mean(axis=0)
    sd = xc.std(axis=0, ddof=1)
    if np.any(sd == 0):
        bad = np.flatnonzero(sd == 0).tolist()
        raise InvalidOptionError(
            f"data columns {bad} are constant; a node needs varying observations."
        )
    return xc / sd


def shrinkage_intensity(x: np.ndarray) -> tuple[float, np.ndarray]:
    """Schäfer–Strimmer optimal shrinkage intensity towards the identity.

    With standardized columns ``x_ki``, ``w_kij = x_ki x_kj``,
    ``wbar_ij = mean_k w_kij``, the correlation ``r_ij = n/(n-1) wbar_ij``
    and ``Var(r_ij) = n/(n-1)^3 sum_k (w_kij - wbar_ij)^2``;
    ``lambda* = sum_{i != j} Var(r_ij) / sum_{i != j} r_ij^2`` clipped to [0, 1].

    Returns
    -------
    (lambda*, R)
        The intensity and the empirical correlation matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import shrinkage_intensity
    >>> lam, r = shrinkage_intensity(np.random.default_rng(0).normal(size=(20, 5)))
    >>> 0 <= lam <= 1, r.shape
    (True, (5, 5))
    """
    xs = standardize(x)
    n = xs.shape[0]
    wbar = xs.T @ xs / n
    r = wbar * (n / (n - 1.0))
    # sum_k (w_kij - wbar_ij)^2 = sum_k x_ki^2 x_kj^2 - n wbar_ij^2
    sq = xs * xs
    ssw = sq.T @ sq - n * wbar * wbar
    var_r = ssw * (n / (n - 1.0) ** 3)
    off = ~np.eye(r.shape[0], dtype=bool)
    denom = float(np.sum(r[off] ** 2))
    lam = 1.0 if denom == 0.0 else float(np.clip(np.sum(var_r[off]) / denom, 0.0, 1.0))
    np.fill_diagonal(r, 1.0)
    return lam, r


def shrink_pcor(x: np.ndarray) -> np.ndarray:
    """Partial correlations from the Schäfer–Strimmer shrinkage correlation.

    ``R* = lambda* I + (1 - lambda*) R``; ``pcor = -(R*)^-1`` scaled to unit
    diagonal (diagonal set to 1).

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import shrink_pcor
    >>> pc = shrink_pcor(np.random.default_rng(0).normal(size=(30, 4)))
    >>> pc.shape, bool(np.allclose(pc, pc.T)), float(pc[0, 0])
    ((4, 4), True, 1.0)
    """
    lam, r = shrinkage_intensity(x)
    rstar = lam * np.eye(r.shape[0]) + (1.0 - lam) * r
    return precision_to_pcor(np.linalg.inv(rstar))


def precision_to_pcor(omega: np.ndarray) -> np.ndarray:
    """``pcor_ij = -omega_ij / sqrt(omega_ii omega_jj)``, unit diagonal, exactly symmetric."""
    return partial_correlation(np.asarray(omega, dtype=float))
