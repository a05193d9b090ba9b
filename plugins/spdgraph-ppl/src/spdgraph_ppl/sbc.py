"""Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and Gelman 2018).

Repeat: draw parameters from the prior, data given them, and L posterior draws
given the data; the rank of each true scalar among its L posterior draws (the
number of draws below it) is uniform on ``0..L`` when the posterior sampler
is right. Draws should be nearly independent (thin MCMC output first).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.stats
import xarray as xr

from spdgraph_ppl._exact import prior_draws
from spdgraph_ppl._graph import GraphStructure

__all__ = [
    "SBCModel",
    "SBCResult",
    "free_entries",
    "from_free_entries",
    "gwishart_sbc_model",
    "plot_rank_ecdf",
    "rank_uniformity",
    "sbc",
    "sbc_data",
    "sbc_prior",
]


@dataclass(frozen=True)
class SBCModel:
    """The three steps of one SBC simulation.

    Parameters
    ----------
    draw_prior
        ``draw_prior(rng)``: a dict of named parameter arrays drawn from the prior.
    draw_data
        ``draw_data(rng, params)``: data given the parameters.
    fit
        ``fit(data, seed)``: a dict with the same names, each an array whose
        leading axis holds L (nearly independent) posterior draws.
    dims
        Optional dimension names per parameter (without the draw axis).
    """

    draw_prior: Callable[[np.random.Generator], Mapping[str, np.ndarray]]
    draw_data: Callable[[np.random.Generator, Mapping[str, np.ndarray]], Any]
    fit: Callable[[Any, int], Mapping[str, np.ndarray]]
    dims: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class SBCResult:
    """Ranks and their uniformity test.

    Attributes
    ----------
    ranks
        One variable per parameter, dims ``("simulation", ...)``; ``attrs["n_draws"]`` is L.
    uniformity
        :func:`rank_uniformity` of the ranks.
    """

    ranks: xr.Dataset
    uniformity: xr.Dataset

    @property
    def min_pvalue(self) -> float:
        """The smallest per-entry p-value, Bonferroni-adjusted over all entries."""
        return float(self.uniformity.attrs["min_pvalue_bonferroni"])


def rank_uniformity(ranks: xr.Dataset, n_bins: int | None = None) -> xr.Dataset:
    """Chi-square test of uniform ranks on ``0..L`` for every parameter entry.

    Parameters
    ----------
    ranks
        What :func:`sbc` returns as ``ranks`` (``attrs["n_draws"]`` = L).
    n_bins
        Number of equal-width bins of the L + 1 rank values; the default keeps
        at least 5 expected counts per bin (at most 20 bins) and must divide
        L + 1 into equal parts when given.

    Returns
    -------
    xarray.Dataset
        ``<name>_chi2`` and ``<name>_pvalue`` per parameter entry; attrs
        ``n_bins`` and ``min_pvalue_bonferroni`` (the smallest p-value times
        the number of entries, capped at 1).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = xr.Dataset({"x": ("simulation", rng.integers(0, 10, 200))}, attrs={"n_draws": 9})
    >>> out = rank_uniformity(r)
    >>> int(out.attrs["n_bins"]), bool(out["x_pvalue"] > 0.001)
    (10, True)
    """
    n_draws = int(ranks.attrs["n_draws"])
    n_sim = int(ranks.sizes["simulation"])
    n_values = n_draws + 1
    if n_bins is None:
        divisors = [k for k in range(1, min(20, n_values) + 1) if n_values % k == 0]
        fitting = [k for k in divisors if n_sim / k >= 5]
        n_bins = max(fitting) if fitting else 1
    if n_values % n_bins:
        raise ValueError(f"n_bins={n_bins} does not divide the {n_values} rank values.")
    width = n_values // n_bins
    out = xr.Dataset(attrs={"n_bins": n_bins})
    pvalues = []
    for name, da in ranks.data_vars.items():
        counts = (da // width).astype(np.int64)
        hist = xr.concat([(counts == k).sum("simulation") for k in range(n_bins)], dim="bin")
        expected = n_sim / n_bins
        chi2 = ((hist - expected) ** 2 / expected).sum("bin")
        pvalue = xr.apply_ufunc(scipy.stats.chi2(max(n_bins - 1, 1)).sf, chi2)
        out[f"{name}_chi2"] = chi2
        out[f"{name}_pvalue"] = pvalue
        pvalues.append(np.ravel(pvalue.values))
    allp = np.concatenate(pvalues) if pvalues else np.array([1.0])
    out.attrs["min_pvalue_bonferroni"] = float(min(1.0, allp.min() * allp.size))
    return out


def sbc(
    model: SBCModel,
    *,
    n_simulations: int = 100,
    seed: int | None = None,
    n_bins: int | None = None,
) -> SBCResult:
    """Simulation-based calibration of any model: prior -> data -> posterior -> ranks.

    Parameters
    ----------
    model
        The :class:`SBCModel` (the PPL modules build one:
        :func:`spdgraph_ppl.pymc.sbc_model`, :func:`spdgraph_ppl.numpyro.sbc_model`).
    n_simulations
        Number of simulations.
    seed
        Seed of the whole run (prior, data and posterior seeds derive from it).
    n_bins
        Passed to :func:`rank_uniformity`.

    Returns
    -------
    SBCResult
        The ranks (xarray, dims ``("simulation", ...)``) and their chi-square test.

    Examples
    --------
    A conjugate normal model with an exact posterior is calibrated:

    >>> m = SBCModel(
    ...     draw_prior=lambda rng: {"mu": rng.normal()},
    ...     draw_data=lambda rng, t: rng.normal(t["mu"], 1.0, size=4),
    ...     fit=lambda y, s: {"mu": np.random.default_rng(s).normal(
    ...         y.sum() / 5, np.sqrt(1 / 5), size=19)},
    ... )
    >>> res = sbc(m, n_simulations=200, seed=1)
    >>> res.ranks["mu"].sizes["simulation"], res.min_pvalue > 0.001
    (200, True)
    """
    root = np.random.SeedSequence(seed)
    ranks: dict[str, list[np.ndarray]] = {}
    n_draws: int | None = None
    for child in root.spawn(int(n_simulations)):
        prior_seq, data_seq, fit_seq = child.spawn(3)
        truth = model.draw_prior(np.random.default_rng(prior_seq))
        data = model.draw_data(np.random.default_rng(data_seq), truth)
        posterior = model.fit(data, int(fit_seq.generate_state(1)[0]))
        for name, value in truth.items():
            draws = np.asarray(posterior[name])
            if n_draws is None:
                n_draws = draws.shape[0]
            elif draws.shape[0] != n_draws:
                raise ValueError("every fit must return the same number of posterior draws.")
            ranks.setdefault(name, []).append((draws < np.asarray(value)).sum(axis=0))
    dims = dict(model.dims or {})
    ds = xr.Dataset(
        {
            name: (
                (
                    "simulation",
                    *dims.get(name, tuple(f"{name}_dim_{k}" for k in range(np.ndim(vals[0])))),
                ),
                np.stack(vals),
            )
            for name, vals in ranks.items()
        },
        attrs={"n_draws": int(n_draws or 0)},
    )
    return SBCResult(ranks=ds, uniformity=rank_uniformity(ds, n_bins))


def plot_rank_ecdf(result: SBCResult, name: str, *, level: float = 0.99, ax: Any = None) -> Any:
    """ECDF of the SBC ranks minus the uniform CDF, with a pointwise binomial envelope.

    One line per entry of parameter ``name``; the grey band holds the
    ``level`` central interval of the same difference for uniform ranks at
    each rank value (pointwise, so a few excursions over all values are
    expected). Needs matplotlib.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    ranks = result.ranks[name]
    n_draws = int(result.ranks.attrs["n_draws"])
    n_sim = int(ranks.sizes["simulation"])
    grid = np.arange(n_draws + 1)
    uniform = (grid + 1) / (n_draws + 1)
    lo = scipy.stats.binom.ppf((1 - level) / 2, n_sim, uniform) / n_sim - uniform
    hi = scipy.stats.binom.ppf((1 + level) / 2, n_sim, uniform) / n_sim - uniform
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(grid, lo, hi, step="post", color="0.85", label=f"{level:.0%} envelope")
    flat = ranks.stack(entry_all=[d for d in ranks.dims if d != "simulation"])
    for k in range(flat.sizes["entry_all"]):
        values = np.asarray(flat.isel(entry_all=k).values)
        ecdf = np.searchsorted(np.sort(values), grid, side="right") / n_sim
        ax.step(grid, ecdf - uniform, where="post", lw=1)
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set_xlabel(f"rank among {n_draws} posterior draws")
    ax.set_ylabel("ECDF - uniform CDF")
    ax.legend(loc="upper right", fontsize="small")
    return ax


# ----------------------------------------------------------------------- G-Wishart pieces


def free_entries(k: np.ndarray, structure: GraphStructure) -> np.ndarray:
    """The free entries of K along a last axis: the diagonal, then the edges i < j row-major.

    Examples
    --------
    >>> import networkx as nx
    >>> from spdgraph_ppl import graph_structure
    >>> s = graph_structure(nx.path_graph(3))
    >>> free_entries(np.array([[2.0, 1, 0], [1, 3, 4], [0, 4, 9]]), s).tolist()
    [2.0, 3.0, 9.0, 1.0, 4.0]
    """
    rows, cols = structure.edges
    idx = np.arange(structure.p)
    return np.concatenate([k[..., idx, idx], k[..., rows, cols]], axis=-1)


def from_free_entries(values: np.ndarray, structure: GraphStructure) -> np.ndarray:
    """The symmetric K of its free entries (inverse of :func:`free_entries`)."""
    values = np.asarray(values, dtype=np.float64)
    p = structure.p
    rows, cols = structure.edges
    k = np.zeros((*values.shape[:-1], p, p))
    k[..., np.arange(p), np.arange(p)] = values[..., :p]
    k[..., rows, cols] = values[..., p:]
    k[..., cols, rows] = values[..., p:]
    return k


def free_entry_labels(structure: GraphStructure) -> list[str]:
    """Names ``"K[a,b]"`` of the free entries, in :func:`free_entries` order."""
    lab = structure.labels
    rows, cols = structure.edges
    return [f"K[{lab[i]},{lab[i]}]" for i in range(structure.p)] + [
        f"K[{lab[i]},{lab[j]}]" for i, j in zip(rows, cols, strict=True)
    ]


def sbc_prior(
    structure: GraphStructure, b: float, D: np.ndarray
) -> Callable[[np.random.Generator], dict[str, np.ndarray]]:
    """``draw_prior`` of a G-Wishart SBC: the free entries of an exact prior draw."""

    def draw_prior(rng: np.random.Generator) -> dict[str, np.ndarray]:
        k = prior_draws(structure, b, D, size=1, seed=rng)[0]
        return {"K_free": free_entries(k, structure)}

    return draw_prior


def sbc_data(
    structure: GraphStructure, n_obs: int
) -> Callable[[np.random.Generator, Mapping[str, np.ndarray]], np.ndarray]:
    """``draw_data`` of a G-Wishart SBC: ``n_obs`` rows i.i.d. ``N(0, K^-1)``."""

    def draw_data(rng: np.random.Generator, params: Mapping[str, np.ndarray]) -> np.ndarray:
        k = from_free_entries(params["K_free"], structure)
        # X = Z Phi^-T with K = Phi^T Phi: rows N(0, K^-1)
        phi = np.linalg.cholesky(k).T
        z = rng.standard_normal((n_obs, structure.p))
        return np.linalg.solve(phi, z.T).T

    return draw_data


def gwishart_sbc_model(
    structure: GraphStructure,
    b: float,
    D: np.ndarray,
    n_obs: int,
    posterior: Callable[[np.ndarray, int], np.ndarray],
    thin: int,
) -> SBCModel:
    """The :class:`SBCModel` of a G-Wishart GGM fitted by ``posterior(data, seed) -> K draws``.

    Exact prior draws (:func:`sbc_prior`), ``n_obs`` rows of data
    (:func:`sbc_data`), and ranks on the free entries of K (``K_free``, dim
    ``entry``) of the posterior draws ``(draws, p, p)``, thinned by ``thin``.
    The NumPyro and PyMC ``sbc_model`` differ only in ``posterior``.
    """

    def fit(data: np.ndarray, seed: int) -> dict[str, np.ndarray]:
        return {"K_free": free_entries(posterior(data, seed)[::thin], structure)}

    return SBCModel(
        draw_prior=sbc_prior(structure, b, D),
        draw_data=sbc_data(structure, n_obs),
        fit=fit,
        dims={"K_free": ("entry",)},
    )
