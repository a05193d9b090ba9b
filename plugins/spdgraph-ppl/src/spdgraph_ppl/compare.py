"""Compare MCMC draws of K with exact draws, entry by entry, within Monte Carlo error."""

from __future__ import annotations

import numpy as np
import xarray as xr

from spdgraph_ppl._graph import graph_structure
from spdgraph_ppl.sbc import free_entries, free_entry_labels

__all__ = ["compare_to_exact"]


def _ess(x: np.ndarray) -> float:
    import arviz as az

    return float(az.ess(np.ascontiguousarray(x), method="bulk"))


def compare_to_exact(mcmc: object, exact: object, graph: object) -> xr.Dataset:
    """Mean and variance of every free entry of K: MCMC against exact draws.

    Parameters
    ----------
    mcmc
        MCMC draws of K, ``(chain, draw, p, p)`` (an array, or a DataArray such
        as ``idata.posterior["K"]``).
    exact
        Independent exact draws, ``(n, p, p)`` (e.g. :func:`spdgraph_ppl.exact_posterior`).
    graph
        The graph.

    Returns
    -------
    xarray.Dataset
        Over dim ``entry`` (``"K[a,b]"``, the diagonal then the edges):
        ``mean_mcmc``, ``mean_exact``, ``z_mean``, ``var_mcmc``, ``var_exact``,
        ``z_var`` and ``ess`` (ArviZ bulk ESS of the entry). The z-scores use
        the MCMC error from the ESS (of the entry for the mean, of its squared
        deviation for the variance; variance error ``(m4 - s^4) / ess``) plus
        the exact draws' own error. Second moments across entries, over dims
        ``(entry, entry_2)``: ``cov_mcmc``, ``cov_exact`` and ``z_cov`` (the
        same construction on the products of deviations; the diagonal of
        ``z_cov`` is ``z_var``).
    """
    s = graph_structure(graph)
    draws = np.asarray(getattr(mcmc, "values", mcmc), dtype=np.float64)
    if draws.ndim == 3:
        draws = draws[None]
    ex = free_entries(np.asarray(getattr(exact, "values", exact), dtype=np.float64), s)
    chains = free_entries(draws, s)  # (chain, draw, m)
    flat = chains.reshape(-1, chains.shape[-1])
    mean_m, var_m = flat.mean(axis=0), flat.var(axis=0)
    mean_e, var_e = ex.mean(axis=0), ex.var(axis=0)
    n_e = ex.shape[0]
    m = chains.shape[-1]
    ess = np.array([_ess(chains[..., t]) for t in range(m)])
    ess_sq = np.array([_ess((chains[..., t] - mean_m[t]) ** 2) for t in range(m)])
    m4 = ((flat - mean_m) ** 4).mean(axis=0)
    m4_e = ((ex - mean_e) ** 4).mean(axis=0)
    z_mean = (mean_m - mean_e) / np.sqrt(var_m / ess + var_e / n_e)
    z_var = (var_m - var_e) / np.sqrt((m4 - var_m**2) / ess_sq + (m4_e - var_e**2) / n_e)
    dev = chains - mean_m  # (chain, draw, m)
    dev_e = ex - mean_e
    dflat = dev.reshape(-1, m)
    cov_m = dflat.T @ dflat / flat.shape[0]
    cov_e = dev_e.T @ dev_e / n_e
    z_cov = np.empty((m, m))
    for a in range(m):
        for b in range(a, m):
            prod = dev[..., a] * dev[..., b]
            prod_e = dev_e[:, a] * dev_e[:, b]
            se2 = prod.var() / _ess(prod) + prod_e.var() / n_e
            z_cov[a, b] = z_cov[b, a] = (cov_m[a, b] - cov_e[a, b]) / np.sqrt(se2)
    labels = free_entry_labels(s)
    return xr.Dataset(
        {
            "cov_mcmc": (("entry", "entry_2"), cov_m),
            "cov_exact": (("entry", "entry_2"), cov_e),
            "z_cov": (("entry", "entry_2"), z_cov),
            "mean_mcmc": ("entry", mean_m),
            "mean_exact": ("entry", mean_e),
            "z_mean": ("entry", z_mean),
            "var_mcmc": ("entry", var_m),
            "var_exact": ("entry", var_e),
            "z_var": ("entry", z_var),
            "ess": ("entry", ess),
        },
        coords={"entry": labels, "entry_2": labels},
    )
