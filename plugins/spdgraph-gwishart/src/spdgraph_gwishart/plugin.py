"""The plugin module named by the ``spdgraph`` entry point: ``method="gwishart"``.

The default sampler is Lenkoski's (2013) G-Wishart sampler, as in R BDgraph's
``rgwish`` (its marginals are right, but it is known not to be exact for every
graph: see the README; ``algorithm="chordal"`` is exact on decomposable graphs),
with BDgraph's parametrization: ``K ~ W_G(b, D)`` has density
proportional to ``|K|^((b - 2) / 2) exp(-tr(D K) / 2)`` on the SPD matrices
with zeros on the non-edges of G. For the complete graph this is the Wishart
law with ``b + p - 1`` degrees of freedom and scale ``D^-1``, so
``E[K] = (b + p - 1) D^-1``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.linalg

import spdgraph
from spdgraph_gwishart._kernels import complete_covariance
from spdgraph_gwishart.chordal import chordal_gwishart

__all__ = ["DEFAULTS", "OPTIONS", "gwishart", "wishart_bartlett"]

#: Options of ``method="gwishart"`` and their defaults.
DEFAULTS: dict[str, Any] = {
    "b": 3.0,
    "algorithm": "lenkoski",
    "D": None,
    "tol": 1e-12,
    "max_iter": 10_000,
    "residual_tolerance": 1e-6,
}


#: The declared options: spdgraph checks every value a user passes against these
#: before any work (``D`` depends on p, so :func:`scale_matrix` checks it at the call).
OPTIONS: dict[str, spdgraph.OptionSpec] = {
    "b": spdgraph.OptionSpec(
        DEFAULTS["b"], float, low=2.0, low_inclusive=False, doc="degrees of freedom"
    ),
    "algorithm": spdgraph.OptionSpec(
        DEFAULTS["algorithm"], str, choices=("lenkoski", "chordal"), doc="the sampler"
    ),
    "D": spdgraph.OptionSpec(
        DEFAULTS["D"], None, doc="scale matrix: None (identity), a number c (c I) or p x p SPD"
    ),
    "tol": spdgraph.OptionSpec(
        DEFAULTS["tol"], float, low=0.0, low_inclusive=False, doc="convergence of the sweeps"
    ),
    "max_iter": spdgraph.OptionSpec(
        DEFAULTS["max_iter"], int, low=1, doc="largest number of sweeps"
    ),
    "residual_tolerance": spdgraph.OptionSpec(
        DEFAULTS["residual_tolerance"],
        float,
        low=0.0,
        low_inclusive=False,
        doc="largest relative residual accepted on a non-edge",
    ),
}


def _check_number(value: object, name: str, *, lower: float, strict: bool = True) -> float:
    x = float("nan")
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        x = float(value)
    if not (np.isfinite(x) and (x > lower if strict else x >= lower)):
        rel = ">" if strict else ">="
        raise spdgraph.InvalidOptionError(
            f"gwishart option {name} must be a finite number {rel} {lower:g}, got {value!r}."
        )
    return x


def scale_matrix(D: object, p: int) -> np.ndarray:
    """Validate the ``D`` option and return it as a ``(p, p)`` SPD float64 array.

    ``None`` is the identity, a positive number ``c`` is ``c * I``, an array
    must be ``(p, p)``, finite, symmetric (to a relative 1e-12; it is then
    symmetrized) and positive definite.

    Examples
    --------
    >>> scale_matrix(2.0, 2)
    array([[2., 0.],
           [0., 2.]])
    """
    if D is None:
        return np.eye(p)
    if isinstance(D, numbers.Real) and not isinstance(D, bool):
        return _check_number(D, "D (a scalar means D * I)", lower=0.0) * np.eye(p)
    try:
        d = np.array(D, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be None (identity), a positive number or a p x p "
            "symmetric positive definite array."
        ) from exc
    if d.shape != (p, p):
        raise spdgraph.InvalidOptionError(
            f"gwishart option D must be {p} x {p} for this {p}-node graph, got shape {d.shape}."
        )
    if not np.all(np.isfinite(d)):
        raise spdgraph.InvalidOptionError("gwishart option D holds NaN or inf.")
    if not np.allclose(d, d.T, rtol=1e-12, atol=0.0):
        raise spdgraph.InvalidOptionError("gwishart option D must be symmetric.")
    d = (d + d.T) * 0.5
    try:
        np.linalg.cholesky(d)
    except np.linalg.LinAlgError as exc:
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be positive definite (its Cholesky factorization failed)."
        ) from exc
    return d


def wishart_bartlett(rng: np.random.Generator, b: float, D: np.ndarray) -> np.ndarray:
    """A Wishart draw ``K0 ~ W(b + p - 1, D^-1)`` (BDgraph's ``W(b, D)``), Bartlett's way.

    ``Phi`` is upper triangular with ``Phi_ii^2 ~ chi2(b + p - 1 - i)``
    (drawn first, i = 0..p-1) and standard normal ``Phi_ij``, i < j (drawn
    next, row-major order); with ``T`` the upper Cholesky factor of ``D^-1``
    (``T^T T = D^-1``), ``K0 = (Phi T)^T (Phi T)``.

    Examples
    --------
    >>> import numpy as np
    >>> k0 = wishart_bartlett(np.random.default_rng(0), 3.0, np.eye(3))
    >>> bool(np.array_equal(k0, k0.T)), k0.shape
    (True, (3, 3))
    """
    p = D.shape[0]
    phi = np.zeros((p, p))
    phi[np.arange(p), np.arange(p)] = np.sqrt(rng.chisquare(b + p - 1 - np.arange(p)))
    iu = np.triu_indices(p, 1)
    phi[iu] = rng.standard_normal(iu[0].size)
    d_inv = scipy.linalg.cho_solve(scipy.linalg.cho_factor(D), np.eye(p))
    t = np.linalg.cholesky((d_inv + d_inv.T) * 0.5).T
    psi = phi @ t
    k0 = psi.T @ psi
    return (k0 + k0.T) * 0.5


def gwishart(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator,
    entries: spdgraph.EntrySampler,
    b: float = DEFAULTS["b"],
    algorithm: str = DEFAULTS["algorithm"],
    D: Any = DEFAULTS["D"],
    tol: float = DEFAULTS["tol"],
    max_iter: int = DEFAULTS["max_iter"],
    residual_tolerance: float = DEFAULTS["residual_tolerance"],
) -> np.ndarray:
    """One G-Wishart draw ``K ~ W_G(b, D)`` with exact zeros on non-edges.

    ``algorithm="lenkoski"`` (default) is Lenkoski's (2013) sampler as in R
    BDgraph's ``rgwish``; it is exact for the complete graph, but not in
    general (its joint law differs, e.g. for a graph without edges; see the
    plugin README). ``algorithm="chordal"`` is exact, for decomposable graphs
    and any SPD ``D`` (:mod:`spdgraph_gwishart.chordal`).

    Lenkoski's steps:

    1. ``K0 ~ W(b, D)`` by :func:`wishart_bartlett`; ``Sigma = K0^-1``; ``W = Sigma``.
    2. Sweep over the nodes j until the largest change of W is at most
       ``tol * max_i W_ii``: with N the neighbours of j,
       ``beta = W[N, N]^-1 Sigma[N, j]`` and ``W[-j, j] = W[-j, N] beta``
       (zero off the diagonal for a node without neighbours). More than
       ``max_iter`` sweeps raise :class:`spdgraph.NumericalError`.
    3. ``K = W^-1`` (Cholesky solve, symmetrized). Its non-edge entries are at
       rounding/convergence level; they are checked against
       ``residual_tolerance`` (relative, ``|k_ij| / sqrt(k_ii k_jj)``) and set to
       exactly 0. For the complete graph ``K = K0`` (no iteration).

    ``entries`` is not used: the law fixes the distribution of every draw.

    The draw is an unnormalized precision matrix: call
    ``spdgraph.sample(g, "gwishart", kind="precision", normalize=False)``.
    With the core's defaults (``kind="covariance"``, ``normalize=True``) it
    is relabelled a covariance and rescaled to unit diagonal.

    Examples
    --------
    >>> import numpy as np, spdgraph
    >>> adjacency = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> k = gwishart(adjacency, rng=np.random.default_rng(1), entries=None)
    >>> k[0, 2]
    np.float64(0.0)
    """
    p = adjacency.shape[0]
    b = _check_number(b, "b (degrees of freedom)", lower=2.0)
    tol = _check_number(tol, "tol", lower=0.0)
    residual_tolerance = _check_number(residual_tolerance, "residual_tolerance", lower=0.0)
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise spdgraph.InvalidOptionError(
            f"gwishart option max_iter must be a positive integer, got {max_iter!r}."
        )
    d = scale_matrix(D, p)
    if algorithm == "chordal":
        return chordal_gwishart(adjacency, rng, b, d)
    if algorithm != "lenkoski":
        raise spdgraph.InvalidOptionError(
            f"gwishart option algorithm must be 'lenkoski' or 'chordal', got {algorithm!r}."
        )
    k0 = wishart_bartlett(rng, b, d)
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    if not nonedge.any():
        return k0
    sigma = scipy.linalg.cho_solve(scipy.linalg.cho_factor(k0), np.eye(p))
    sigma = (sigma + sigma.T) * 0.5
    lengths = adjacency.sum(axis=1)
    nbr_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    nbr_idx = np.nonzero(adjacency)[1].astype(np.int64)  # row-major: sorted per row
    w, sweeps, change = complete_covariance(sigma, nbr_ptr, nbr_idx, tol, int(max_iter))
    if sweeps < 0:
        raise spdgraph.NumericalError(
            f"the G-Wishart completion did not converge in max_iter={max_iter} sweeps "
            f"(last relative change {change:.3g} > tol={tol:g}); raise max_iter or tol."
        )
    try:
        k = scipy.linalg.cho_solve(scipy.linalg.cho_factor(w), np.eye(p))
    except np.linalg.LinAlgError as exc:  # pragma: no cover - W is SPD in exact arithmetic
        raise spdgraph.NumericalError(
            "the completed G-Wishart covariance is not positive definite; lower tol."
        ) from exc
    k = (k + k.T) * 0.5
    diag = np.sqrt(np.diag(k))
    residual = float((np.abs(k[nonedge]) / np.outer(diag, diag)[nonedge]).max())
    if residual > residual_tolerance:
        raise spdgraph.NumericalError(
            f"the G-Wishart draw has a relative residual {residual:.3g} on a non-edge, above "
            f"residual_tolerance={residual_tolerance:g}; lower tol (now {tol:g}) or raise "
            "residual_tolerance."
        )
    k[nonedge] = 0.0
    return k


@spdgraph.hookimpl
def spdgraph_register_generators() -> list[spdgraph.Generator]:
    """Register ``gwishart``."""
    return [
        spdgraph.Generator(
            name="gwishart",
            function=gwishart,
            description="G-Wishart W_G(b, D) precision draw (Lenkoski 2013 as BDgraph's "
            "rgwish; algorithm='chordal' exact on decomposable graphs); for the draw itself "
            "call with kind='precision', normalize=False",
            options=dict(OPTIONS),
            intended_kind="precision",  # a draw of the precision K ~ W_G(b, D)
            # K0, Sigma, W, K, D^-1 and the solves' identities (fitted to the measured
            # peak: benchmarks/bench_memory_guard.py in spdgraph's repository)
            work_per_matrix=0.4,
            work_per_call=8.1,
        )
    ]
