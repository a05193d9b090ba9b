"""The body of ``da.spd.draw``: Gaussian data from a matrix or a stack, then marginals.

Matrix ``k`` draws its latent Gaussian rows from its own child stream of the
call's :data:`spdgraph.seeds.DRAW` domain, its missing-value mask from the
:data:`spdgraph.seeds.MISSING` domain (the stream tree of :mod:`spdgraph.seeds`),
so plain Gaussian data are the same bits with or without the other options.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import cholesky_factors, cholesky_inverse, gaussian_draws
from spdgraph._machine import Progress, available_memory, interactive
from spdgraph.accessor import _marginal_draws as _marginals
from spdgraph.errors import InvalidOptionError, MatrixError, TooLargeError, written
from spdgraph.sampling import ACHIEVED_SPECTRUM
from spdgraph.seeds import (
    DRAW,
    MISSING,
    SeedLike,
    domain_stream,
    group_root,
    seed_attrs,
    seed_sequence,
    without_seed_attrs,
)
from spdgraph.vocabulary import check_count

if TYPE_CHECKING:  # pragma: no cover
    from spdgraph.accessor._layout import SpdArrayView

__all__ = ["check_draw_memory", "draw_data", "draw_need"]


def _coords_and_dims(da: xr.DataArray, stacked: bool, n_obs: int) -> tuple[dict, tuple]:
    coords: dict[str, Any] = {"obs": ("obs", np.arange(n_obs, dtype=np.int64))}
    if "node" in da.coords:
        coords["node"] = ("node", da["node"].values.copy())
    dims: tuple[str, ...] = ("obs", "node")
    if stacked:
        dims = ("sample", *dims)
        if "sample" in da.coords:
            coords["sample"] = ("sample", da["sample"].values.copy())
    elif "sample" in da.coords and da["sample"].ndim == 0:
        coords["sample"] = da["sample"].values.copy()
    return coords, dims


#: Entries (float64) of one block of rows: the dense draw turns its standard normal
#: draws into data, marginals and missing values a block at a time, in place in the
#: output, so its temporaries are a few blocks whatever ``n_obs`` is (32 MiB each).
BLOCK_ENTRIES = 2**22
#: Block-sized float64 temporaries at the dense draw's peak: the product (or the
#: triangular solve's copy), plus :data:`MARGINAL_TEMPORARIES` with marginals (the
#: transformed block and a column's masks) and :data:`MISSING_TEMPORARIES` with
#: missing values (the uniform draws and their mask). Measured by
#: ``tests/test_memory_guards.py`` (tracemalloc).
BLOCK_TEMPORARIES = 1.0
MARGINAL_TEMPORARIES = 0.5
MISSING_TEMPORARIES = 0.25
#: Output-sized float64 arrays the sparse draw holds per matrix besides the output
#: (counted for every matrix): the normal draws ``z`` and the whitened solve.
SPARSE_DRAW_ARRAYS = 1.5


def block_rows(p: int) -> int:
    """Rows per block of the dense draw (:data:`BLOCK_ENTRIES` entries, at least one row)."""
    return max(1, BLOCK_ENTRIES // max(p, 1))


def draw_need(
    n: int,
    n_obs: int,
    p: int,
    *,
    sparse: bool = False,
    marginals: bool = False,
    missing: bool = False,
) -> int:
    """Peak bytes of drawing ``n_obs`` observations of ``p`` nodes from ``n`` matrices.

    Both paths hold the output (``8 n n_obs p`` bytes) and the ``obs``
    coordinate (``8 n_obs``). The dense draw adds :data:`BLOCK_TEMPORARIES`
    (and with ``marginals``/``missing`` :data:`MARGINAL_TEMPORARIES`/
    :data:`MISSING_TEMPORARIES`) blocks of at most :data:`BLOCK_ENTRIES`
    entries, whatever ``n_obs`` is; the sparse draw
    :data:`SPARSE_DRAW_ARRAYS` output-sized arrays for the matrix being drawn.

    >>> draw_need(1, 10**6, 10) / (8 * 10**7)  # the data, obs labels and one block
    1.51943
    """
    if not n:
        return 8 * n_obs
    data = 8 * n * n_obs * p + 8 * n_obs
    if sparse:
        return data + int(8 * n_obs * p * SPARSE_DRAW_ARRAYS)
    temporaries = BLOCK_TEMPORARIES
    temporaries += MARGINAL_TEMPORARIES * marginals + MISSING_TEMPORARIES * missing
    return data + int(8 * temporaries * min(n_obs, block_rows(p)) * p)


def check_draw_memory(n: int, n_obs: int, p: int, *, then_save: int = 0, **options: bool) -> None:
    """Refuse, before any allocation, data that cannot fit (:func:`draw_need`).

    ``then_save`` is what a save of the data holds besides them
    (:func:`spdgraph.io.save_need`), for a caller that draws and saves (the
    ``spdgraph draw`` command): the peak is then the data with the larger of
    the draw's temporaries and the save's copies. ``options`` go to
    :func:`draw_need`.
    """
    need = draw_need(n, n_obs, p, **options)
    if then_save:
        need = max(need, 8 * n * n_obs * p + 8 * n_obs + then_save)
    available = available_memory()
    if available is not None and need > available:
        most = n_obs * available // need
        raise TooLargeError(
            f"{n_obs:,} observations of {p} nodes for {n} matri{'x' if n == 1 else 'ces'} "
            f"({8 * n * n_obs * p / 2**30:,.1f} GiB of data) need about "
            f"{need / 2**30:,.1f} GiB{' with the save' if then_save else ''} but only "
            f"{available / 2**30:,.1f} GiB is available; draw fewer observations (at most "
            f"about {most:,} here) or fewer matrices at once, or draw in chunks: several "
            "smaller draws, each with its own seed."
        )


def draw_data(
    view: SpdArrayView,
    n_obs: int,
    seed: SeedLike = None,
    *,
    marginals: object = None,
    missing: float = 0.0,
    progress: bool | None = None,
    method: str = "cholesky",
    tolerance: float = 1e-10,
) -> xr.DataArray:
    """Draw data from the matrix (or each of a stack): Gaussian, copula, discrete, mixed.

    The latent data are X ~ N(0, Sigma), Sigma the array itself for a
    covariance or correlation and the inverse for a precision Omega (with
    Omega = L L^T, ``x = L^{-T} z`` by a triangular solve; Sigma is never
    formed). With ``marginals``, each node's latent value is standardized
    and mapped through its marginal (a Gaussian copula, as huge's
    nonparanormal and bdgraph.sim's data types): ``F^{-1}(Phi(z))`` for a
    scipy.stats distribution, a cut into categories for
    :class:`spdgraph.marginals.Ordinal`. The graph is then the conditional
    independence graph of the latent Gaussian, not of the observed data.

    Parameters
    ----------
    n_obs
        Number of observations per matrix.
    seed
        As for :func:`spdgraph.sample`. The observations of matrix ``k``
        (``k`` its ``sample`` coordinate when that is a non-negative
        integer, else its position) come from their own stream, so they
        do not depend on the stack size: ``da.isel(sample=[k]).spd.draw``
        gives the same rows as ``da.spd.draw`` at ``k``. The streams are
        distinct from those :func:`spdgraph.sample` draws matrices from,
        even with the same seed; the latent Gaussian rows do not depend on
        ``marginals`` or ``missing``.
    marginals
        None (Gaussian data), or one spec for every node, a sequence with
        one spec per node, or a mapping node label -> spec (others stay
        Gaussian). A spec is ``"gaussian"`` (the latent values),
        ``"standardized"`` (the latent values over their standard deviation:
        unit variance), ``"binary"`` (cut at 0), a
        frozen scipy.stats distribution (continuous: ``t(df=5)``,
        ``lognorm(1)``, ``expon()``, ``gamma(2)``...; discrete:
        ``poisson(3)``, ``nbinom(5, 0.5)``, ``bernoulli(0.3)``) or an
        :class:`~spdgraph.marginals.Ordinal`.
    missing
        Rate in [0, 1) of values set to NaN completely at random (MCAR).
    progress
        A progress bar over the matrices: ``True``, ``False`` or ``None``
        (default: shown when interactive and the work is large, about 2 s).
        The values do not depend on it.
    method, tolerance
        For a sparse matrix (``sample(..., sparse=True)``): ``"cholesky"``
        (default) draws exactly through a sparse Cholesky factorization
        (CHOLMOD in a fill-reducing order; the factor's size is predicted first
        and a factor that would not fit is refused, with the predicted fill);
        ``"cg"`` draws by conjugate gradients on a splitting of a diagonally
        dominant matrix, the law exact up to the relative residual
        ``tolerance`` (recorded in ``attrs["draw_tolerance"]``). Needs the
        ``large`` extra (cvxopt). A dense matrix takes only ``"cholesky"``.

    Returns
    -------
    xarray.DataArray
        Named ``"data"``, dims ``("obs", "node")`` (``("sample", "obs",
        "node")`` for a stack), node labels kept. ``attrs["seed"]`` records
        the root entropy (replay with ``seed=int(attrs["seed"])``);
        the matrix's provenance is kept with a ``matrix_`` prefix (not
        the achieved spectrum: one value per matrix); with
        marginals, ``marginals``, ``data_types`` and ``latent_graph``
        record them (``missing_rate`` with missing values).

    Examples
    --------
    >>> import networkx as nx, numpy as np, spdgraph
    >>> from scipy import stats
    >>> cov = spdgraph.sample(nx.path_graph(3), seed=0)
    >>> x = cov.spd.draw(20_000, seed=1)
    >>> x.dims, x.shape
    (('obs', 'node'), (20000, 3))
    >>> bool(np.allclose(np.cov(x.values.T), cov.values, atol=0.05))
    True
    >>> mixed = cov.spd.draw(5, seed=1, marginals=["binary", stats.poisson(3), "gaussian"])
    >>> mixed.attrs["data_types"]
    'binary,count,gaussian'
    >>> bool((mixed.values[:, 2] == x.values[:5, 2]).all())  # same latent draws
    True
    """
    if "group" in view._da.dims:
        return _draw_groups(view, n_obs, seed, marginals, missing)
    from spdgraph.layout import is_sparse

    if is_sparse(view._da) or method != "cholesky":
        return _draw_sparse(view, n_obs, seed, marginals, missing, method, tolerance)
    if progress is not None and not isinstance(progress, bool | np.bool_):
        raise InvalidOptionError(
            f"progress must be True, False or None (automatic), got {written(progress)}."
        )
    n_obs = check_count(n_obs, "n_obs", low=0)  # 10**400: TooLargeError, no float arithmetic
    kind = view._require_scale("draw()")
    stacked = view._stacked()
    nodes = _marginals.resolve(marginals, view._labels())
    rate = _marginals.check_missing(missing)
    root = seed_sequence(seed)
    m = view._spd_stack("draw()")
    n, p = m.shape[0], m.shape[-1]
    check_draw_memory(n, n_obs, p, marginals=nodes is not None, missing=bool(rate))
    factors = cholesky_factors(m, MatrixError) if n else m
    streams = view._stream_indices(stacked, n)
    out = np.empty((n, n_obs, p), dtype=np.float64)
    scale = "precision" if kind == "precision" else "covariance"
    if progress is None:  # about a second per 1e9 multiply-adds: a bar from ~2 s on
        progress = interactive() and n * n_obs * p * p > 2e9
    bar = Progress("drawing data", total=n, enabled=bool(progress), delay=0.0, unit="matrix")
    for k in range(n):
        sd = None
        if nodes is not None:
            if kind == "precision":
                sd = np.sqrt(np.diagonal(cholesky_inverse(m[k : k + 1], MatrixError)[0]))
            else:
                sd = np.sqrt(np.diagonal(m[k]))
        _draw_one(out[k], root, streams[k], factors[k], scale, (nodes, sd, rate))
        bar.update()
    bar.close()
    da = view._da
    coords, dims = _coords_and_dims(da, stacked, n_obs)
    attrs: dict[str, Any] = {
        f"matrix_{k}": v for k, v in da.attrs.items() if k not in ACHIEVED_SPECTRUM
    }
    attrs.update({"source_kind": kind, "n_obs": n_obs, **seed_attrs(root)})
    attrs.update(_marginals.marginal_attrs(nodes, rate))
    return xr.DataArray(
        out if stacked else out[0], dims=dims, coords=coords, name="data", attrs=attrs
    )


def _draw_one(
    out: np.ndarray,
    root: np.random.SeedSequence,
    stream: int,
    factor: np.ndarray,
    scale: str,
    observed: tuple[list[_marginals.NodeMarginal] | None, np.ndarray | None, float],
) -> None:
    """Fill one matrix's ``(n_obs, p)`` data in place, a block of rows at a time.

    The normal draws go straight into ``out``; each block of :func:`block_rows`
    rows is then turned into data, its marginals and its missing values, so the
    temporaries are a few blocks. The streams are read in row order, so the
    bits are those of drawing the whole matrix at once (one block when ``n_obs``
    is at most :func:`block_rows`).
    """
    nodes, sd, rate = observed
    domain_stream(root, DRAW, stream).standard_normal(out=out)
    missing = domain_stream(root, MISSING, stream) if rate else None
    rows = block_rows(out.shape[1])
    for start in range(0, out.shape[0], rows):
        block = out[start : start + rows]
        block[...] = gaussian_draws(block, factor, scale)
        if nodes is not None and sd is not None:
            block[...] = _marginals.transform(block, sd, nodes)
        if missing is not None:
            _marginals.apply_missing(block, rate, missing)


def _draw_sparse(
    view: SpdArrayView,
    n_obs: object,
    seed: SeedLike,
    marginals: object,
    missing: object,
    method: str,
    tolerance: float,
) -> xr.DataArray:
    from spdgraph.accessor._sparse import draw_sparse
    from spdgraph.layout import is_sparse

    if not is_sparse(view._da):
        raise InvalidOptionError(
            f"method={written(method)} is for sparse matrices (sample(..., sparse=True)); a "
            "dense matrix draws by its dense Cholesky factor: drop method."
        )
    if marginals is not None or missing:
        raise InvalidOptionError(
            "draw() of a sparse matrix gives Gaussian data only: marginals and missing need "
            "the dense path (sample without sparse=True)."
        )
    return draw_sparse(
        view, check_count(n_obs, "n_obs", low=0), seed, method=method, tolerance=tolerance,
        layout=_coords_and_dims, check_memory=partial(check_draw_memory, sparse=True),
    )  # fmt: skip


def _draw_groups(
    view: SpdArrayView, n_obs: int, seed: SeedLike, marginals: object, missing: float
) -> xr.DataArray:
    """Data per group of a ``group``-stacked array, each group from its own seed stream."""
    da = view._da
    if da.dims[0] != "group":
        raise MatrixError(f"the 'group' dim must come first, got dims {da.dims}.")
    root = seed_sequence(seed)
    parts = [
        draw_data(
            type(view)(da.isel(group=k)),
            n_obs,
            group_root(root, k),
            marginals=marginals,
            missing=missing,
        )
        for k in range(da.sizes["group"])
    ]
    out = xr.concat(parts, dim="group", coords="minimal", compat="override")
    if "group" in da.coords:
        out = out.assign_coords(group=("group", da["group"].values.copy()))
    out.attrs = {**without_seed_attrs(parts[0].attrs), **seed_attrs(root)}
    return out
