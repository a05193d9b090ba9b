"""Diagnostics of sampled matrices: link strength, partial correlations, spectrum, zeros.

Private module (named so that it cannot shadow the public function): use
:func:`spdgraph.diagnostics`.

:func:`diagnostics` summarises what makes a synthetic graphical model easy or
hard to learn, per matrix, so that generators can be compared on the same
graph with everything else held equal.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import (
    canonical_kind,
    cholesky_inverse,
    link_strength,
    nonedge_mask,
    partial_correlation,
)
from spdgraph.errors import InvalidOptionError
from spdgraph.layout import dense_values

__all__ = ["diagnostics"]


def _matrices(da: object) -> tuple[np.ndarray, np.ndarray, bool]:
    if not isinstance(da, xr.DataArray):
        raise InvalidOptionError(
            f"diagnostics needs the xarray.DataArray spdgraph.sample returns, got "
            f"{type(da).__name__}."
        )
    if da.dims not in (("node", "node_2"), ("sample", "node", "node_2")):
        raise InvalidOptionError(
            f"diagnostics needs dims ('node', 'node_2') or ('sample', 'node', 'node_2'), got "
            f"{da.dims}; pass the DataArray spdgraph.sample returns (transpose it back if "
            "needed)."
        )
    if "adjacency" not in da.coords:
        raise InvalidOptionError(
            "diagnostics needs the boolean 'adjacency' coordinate spdgraph.sample attaches "
            "(the graph); it is missing. Re-attach it with "
            "da.assign_coords(adjacency=(('node', 'node_2'), adjacency))."
        )
    # a sparse result densified only when it fits (eigenvalues need the dense matrix)
    adjacency = np.asarray(dense_values(da["adjacency"], "diagnostics"), dtype=bool)
    values = np.asarray(dense_values(da, "diagnostics"), dtype=np.float64)  # dask: computed
    stacked = values.ndim == 3
    if not stacked:
        values = values[None]
    if not np.all(np.isfinite(values)):
        raise InvalidOptionError("diagnostics: the matrices hold NaN or inf values.")
    return values, adjacency, stacked


def _kind(da: xr.DataArray, kind: str | None) -> str:
    chosen = kind if kind is not None else da.attrs.get("kind", da.name)
    canonical = canonical_kind(chosen)
    if canonical is None:
        raise InvalidOptionError(
            f"diagnostics cannot tell whether the matrix is a covariance or a precision "
            f"(kind {chosen!r}); pass kind='covariance' or kind='precision'."
        )
    return canonical


def _precisions(values: np.ndarray, kind: str) -> np.ndarray:
    if kind == "precision":
        return values
    try:
        return cholesky_inverse(values, InvalidOptionError, "diagnostics: matrix")
    except InvalidOptionError as exc:
        raise InvalidOptionError(f"{exc} It has no precision matrix.") from None


def diagnostics(da: xr.DataArray, *, kind: str | None = None) -> xr.Dataset:
    """Link strength, partial correlations, spectrum and zero check of sampled matrices.

    Parameters
    ----------
    da
        A matrix or stack as returned by :func:`spdgraph.sample` (dims
        ``("node", "node_2")`` or ``("sample", "node", "node_2")`` with the
        ``adjacency`` coordinate). A dask-backed array is computed.
    kind
        ``"covariance"`` or ``"precision"``; default ``da.attrs["kind"]``
        (else the DataArray's name).

    Returns
    -------
    xarray.Dataset
        One value per matrix (along ``sample`` for a stack, scalars
        otherwise):

        ``link_strength``
            The paper's R: max over edges i < j of ``|m_ij| / m_ii`` (the
            row's diagonal), 0 for a graph without edges.
        ``n_edges``
            Number of edges of the graph.
        ``abs_pcor_min``, ``abs_pcor_median``, ``abs_pcor_mean``, ``abs_pcor_max``
            Summary of ``|rho_ij|`` over the edges i < j, where
            ``rho_ij = -omega_ij / sqrt(omega_ii omega_jj)`` and ``Omega`` is
            the precision: the matrix itself for ``kind="precision"``, its
            inverse (Cholesky solve) for ``kind="covariance"``. NaN without
            edges.
        ``min_eigenvalue``, ``condition_number``
            Extreme eigenvalues of the matrix (``numpy.linalg.eigvalsh``).
        ``max_abs_nonedge``
            Largest ``|m_ij|`` over non-edges i != j: 0 for a valid matrix.

    Raises
    ------
    InvalidOptionError
        Not a DataArray of the expected dims, no ``adjacency`` coordinate,
        unknown kind, or (covariance) not positive definite.

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> da = spdgraph.sample(nx.cycle_graph(6), method="po", seed=0, size=3)
    >>> ds = spdgraph.diagnostics(da)
    >>> sorted(ds.data_vars)  # doctest: +NORMALIZE_WHITESPACE
    ['abs_pcor_max', 'abs_pcor_mean', 'abs_pcor_median', 'abs_pcor_min', 'condition_number',
     'link_strength', 'max_abs_nonedge', 'min_eigenvalue', 'n_edges']
    >>> ds["max_abs_nonedge"].values.tolist()
    [0.0, 0.0, 0.0]
    """
    values, adjacency, stacked = _matrices(da)
    kind = _kind(da, kind)
    n = values.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    nonedge = nonedge_mask(adjacency)
    n_edges = rows.size
    link = np.asarray(link_strength(values, adjacency))
    max_nonedge = np.abs(values[:, nonedge]).max(axis=1) if nonedge.any() else np.zeros(n)

    stats = np.full((n, 4), np.nan)
    if n and n_edges:
        pcor = np.abs(partial_correlation(_precisions(values, kind))[:, rows, cols])
        stats[:] = np.stack(
            [pcor.min(axis=1), np.median(pcor, axis=1), pcor.mean(axis=1), pcor.max(axis=1)],
            axis=1,
        )
    if n:
        w = np.linalg.eigvalsh(values)
        lmin, lmax = w[:, 0], w[:, -1]
    else:
        lmin = lmax = np.empty(0)

    dims: tuple[str, ...] = ("sample",) if stacked else ()

    def var(x: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        return dims, (x if stacked else x[0])

    data = {
        "link_strength": var(link),
        "n_edges": ((), np.int64(n_edges)),
        "abs_pcor_min": var(stats[:, 0]),
        "abs_pcor_median": var(stats[:, 1]),
        "abs_pcor_mean": var(stats[:, 2]),
        "abs_pcor_max": var(stats[:, 3]),
        "min_eigenvalue": var(lmin),
        "condition_number": var(lmax / lmin),
        "max_abs_nonedge": var(max_nonedge),
    }
    coords = {"sample": da["sample"].values} if stacked else {}
    return xr.Dataset(data, coords=coords, attrs={"kind": kind})
