"""Local false discovery rates of correlations under a fitted correlation null.

An fdrtool-like procedure (Strimmer 2008, ``statistic="correlation"``) written
for spdgraph:

1. the null density of a correlation ``r`` with ``kappa`` degrees of freedom
   is ``f0(r) = (1 - r^2)^((kappa - 3)/2) / B(1/2, (kappa - 1)/2)``, i.e.
   ``r^2 ~ Beta(1/2, (kappa - 1)/2)`` (for a sample correlation of n
   independent normal pairs, ``kappa = n - 1``);
2. ``kappa`` and the null proportion ``eta0`` are fitted by truncated maximum
   likelihood on the central values ``|r| <= x0`` (``x0`` the ``pct0``
   quantile of ``|r|``), ``eta0 = P(|r| <= x0) / F0(x0)`` clipped to (0, 1];
3. two-sided p-values under the fitted null get a decreasing density ``g``
   by the Grenander estimator (slopes of the least concave majorant of their
   empirical distribution function);
4. ``lfdr = min(1, eta0 / g(p))``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from spdgraph.errors import InvalidOptionError, written

__all__ = ["LocalFdr", "correlation_null_pdf", "grenander", "local_fdr"]


@dataclass(frozen=True)
class LocalFdr:
    """Result of :func:`local_fdr`.

    Attributes
    ----------
    lfdr
        Local false discovery rate of each input value (same shape).
    pvalue
        Two-sided p-value of each value under the fitted null.
    kappa
        Fitted degrees of freedom of the correlation null.
    eta0
        Fitted proportion of null values.
    cutoff
        The censoring point ``x0`` used to fit the null.
    """

    lfdr: np.ndarray
    pvalue: np.ndarray
    kappa: float
    eta0: float
    cutoff: float


def correlation_null_pdf(r: np.ndarray, kappa: float) -> np.ndarray:
    """Density of a null correlation with ``kappa`` degrees of freedom (``kappa > 1``).

    Examples
    --------
    >>> from scipy import integrate
    >>> from spdgraph.validation import correlation_null_pdf
    >>> round(integrate.quad(correlation_null_pdf, -1, 1, args=(30.0,))[0], 8)
    1.0
    """
    r = np.asarray(r, dtype=float)
    logc = -special.betaln(0.5, (kappa - 1.0) / 2.0)
    with np.errstate(divide="ignore"):
        return np.exp(logc + (kappa - 3.0) / 2.0 * np.log1p(-(r**2)))


def grenander(x: np.ndarray) -> np.ndarray:
    """Grenander estimate of a decreasing density on [0, 1], evaluated at ``x``.

    The density is the left derivative of the least concave majorant of the
    empirical distribution function of ``x`` (values in [0, 1]).

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import grenander
    >>> g = grenander(np.random.default_rng(0).uniform(size=2000))
    >>> bool(np.all(np.diff(g[np.argsort(g)]) >= 0)), round(float(np.median(g)), 1)
    (True, 1.0)
    """
    x = np.asarray(x, dtype=float)
    m = x.size
    order = np.argsort(x, kind="stable")
    xs = x[order]
    # knots of the ECDF: (0, 0) and (x_(i), i/m) taking the last of ties
    ux, last = np.unique(xs, return_index=False, return_counts=True)
    fx = np.cumsum(last) / m
    px = np.concatenate([[0.0], ux])
    py = np.concatenate([[0.0], fx])
    if px[1] == 0.0:  # a value exactly 0: merge with the origin knot
        px, py = px[1:], py[1:]
        px[0] = 0.0
    # upper hull (least concave majorant) by a monotone chain
    hull: list[int] = []
    for k in range(px.size):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (px[b] - px[a]) * (py[k] - py[a]) - (py[b] - py[a]) * (px[k] - px[a])
            if cross >= 0:  # b is on or below the chord a-k
                hull.pop()
            else:
                break
        hull.append(k)
    hx, hy = px[hull], py[hull]
    slopes = np.diff(hy) / np.diff(hx) if hx.size > 1 else np.array([np.inf])
    # each x lies in the segment (hx[s], hx[s+1]]; x == 0 uses the first segment
    seg = np.clip(np.searchsorted(hx, x, side="left") - 1, 0, slopes.size - 1)
    return slopes[seg]


def _fit_null(r2_central: np.ndarray, x0: float) -> float:
    """Truncated ML estimate of kappa from r^2 values with |r| <= x0."""
    t = x0 * x0

    def nll(log_km1: float) -> float:
        b = np.exp(log_km1) / 2.0  # (kappa - 1) / 2
        logpdf = stats.beta.logpdf(r2_central, 0.5, b)
        return -(np.sum(logpdf) - r2_central.size * np.log(stats.beta.cdf(t, 0.5, b)))

    res = optimize.minimize_scalar(nll, bounds=(np.log(0.5), np.log(1e5)), method="bounded")
    return float(np.exp(res.x) + 1.0)


def local_fdr(r: np.ndarray, *, pct0: float = 0.75) -> LocalFdr:
    """Local fdr of correlation-like values under a fitted correlation null.

    Parameters
    ----------
    r
        Values in (-1, 1) (e.g. the upper triangle of an estimated partial
        correlation matrix). At least 10 values are needed.
    pct0
        Quantile of ``|r|`` used as censoring point for fitting the null
        (fdrtool's ``pct0``); values above it are treated as possibly
        non-null when fitting.

    Returns
    -------
    LocalFdr
        lfdr, p-values, fitted ``kappa`` and ``eta0``.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.validation import local_fdr
    >>> rng = np.random.default_rng(1)
    >>> null = np.sqrt(rng.beta(0.5, 24.5, 900)) * rng.choice([-1, 1], 900)  # kappa = 50
    >>> res = local_fdr(np.concatenate([null, np.full(100, 0.7)]))
    >>> 40 < res.kappa < 60, int(np.sum(res.lfdr[900:] < 0.2)), int(np.sum(res.lfdr[:900] < 0.2))
    (True, 100, 3)
    """
    r = np.asarray(r, dtype=float)
    flat = r.ravel()
    if flat.size < 10:
        raise InvalidOptionError(
            f"local_fdr needs at least 10 values to fit the null, got {flat.size}."
        )
    if not np.all(np.isfinite(flat)):
        raise InvalidOptionError("local_fdr got non-finite values; pass correlations in (-1, 1).")
    if not 0.0 < pct0 < 1.0:
        raise InvalidOptionError(f"pct0 must be in (0, 1), got {written(pct0)}.")
    a = np.minimum(np.abs(flat), 1.0 - 1e-12)
    x0 = float(np.quantile(a, pct0))
    if x0 <= 0.0:  # mostly exact zeros: fall back to the largest value
        x0 = float(a.max()) if a.max() > 0 else 1e-12
    central = a[a <= x0]
    kappa = _fit_null(np.maximum(central**2, 1e-300), x0)
    b = (kappa - 1.0) / 2.0
    f0_x0 = stats.beta.cdf(x0 * x0, 0.5, b)
    eta0 = float(np.clip(central.size / a.size / f0_x0, 1e-12, 1.0)) if f0_x0 > 0 else 1.0
    pvalue = stats.beta.sf(a**2, 0.5, b)
    g = grenander(pvalue)
    with np.errstate(divide="ignore"):
        lfdr = np.minimum(1.0, eta0 / g)
    return LocalFdr(
        lfdr=lfdr.reshape(r.shape),
        pvalue=pvalue.reshape(r.shape),
        kappa=kappa,
        eta0=eta0,
        cutoff=x0,
    )
