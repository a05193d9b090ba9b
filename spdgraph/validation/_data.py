"""Gaussian data from a precision matrix."""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.numerics import cholesky_factors, gaussian_draws
from spdgraph.errors import InvalidOptionError, NumericalError
from spdgraph.vocabulary import check_count

__all__ = ["draw_gaussian"]


def draw_gaussian(
    precision: np.ndarray,
    n: int,
    seed: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """Draw ``n`` observations of ``N(0, precision^-1)``.

    With the Cholesky factor ``precision = L L^T``, ``x = L^-T z`` for
    ``z ~ N(0, I)`` has covariance ``(L L^T)^-1``; one triangular solve, no
    inverse.

    Parameters
    ----------
    precision
        ``(p, p)`` SPD matrix (numpy array or a DataArray spdgraph returned).
    n
        Number of observations (>= 1).
    seed
        Seed of the standard normal draws.

    Returns
    -------
    numpy.ndarray
        ``(n, p)`` observations.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import draw_gaussian
    >>> x = draw_gaussian(np.diag([1.0, 4.0]), 20000, seed=0)
    >>> bool(np.allclose(x.var(axis=0), [1.0, 0.25], rtol=0.05))
    True
    """
    m = np.asarray(precision, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise InvalidOptionError(f"precision must be a (p, p) matrix, got shape {m.shape}.")
    n = check_count(n, "n")
    try:
        chol = cholesky_factors(m, NumericalError, "the precision")
    except NumericalError:
        raise NumericalError(
            "the precision matrix is not numerically positive definite (Cholesky failed)."
        ) from None
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    z = rng.standard_normal((m.shape[0], int(n)))  # drawn node-major, as always
    return gaussian_draws(z.T, chol, "precision")
