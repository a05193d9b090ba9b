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

from spdgraph._machine import Progress, available_memory, interactive, require_dask
from spdgraph._threads import available_cores
from spdgraph.accessor import _marginal_draws as _marginals
from spdgraph.accessor._units import aligned_chunks, dense_drawer, draw_rows, unit_rows
from spdgraph.errors import InvalidOptionError, MatrixError, TooLargeError, written
from spdgraph.sampling import ACHIEVED_SPECTRUM
from spdgraph.seeds import SeedLike, group_root, seed_attrs, seed_sequence, without_seed_attrs
from spdgraph.vocabulary import check_count

if TYPE_CHECKING:  # pragma: no cover
    from spdgraph.accessor._layout import SpdArrayView

__all__ = ["check_draw_chunks", "check_draw_memory", "draw_data", "draw_need"]


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


#: Unit-sized float64 temporaries at the draws' peak (:mod:`spdgraph.accessor._units`):
#: the normal draws and their transform (the solve's copy), plus
#: :data:`MARGINAL_TEMPORARIES` with marginals (the transformed unit) and
#: :data:`MISSING_TEMPORARIES` with missing values (the uniform draws and their mask).
#: Measured by ``tests/test_memory_guards.py`` (tracemalloc).
UNIT_TEMPORARIES = 3.0
MARGINAL_TEMPORARIES = 1.0
MISSING_TEMPORARIES = 1.25


def _temporaries(p: int, sparse: bool, marginals: bool, missing: bool) -> int:
    """Bytes a draw holds besides its output: a few draw units."""
    units = UNIT_TEMPORARIES
    if not sparse:
        units += MARGINAL_TEMPORARIES * marginals + MISSING_TEMPORARIES * missing
    return int(8 * units * unit_rows(p) * p)


def draw_need(
    n: int,
    n_obs: int,
    p: int,
    *,
    sparse: bool = False,
    marginals: bool = False,
    missing: bool = False,
    chunks: int | None = None,
) -> int:
    """Peak bytes of drawing ``n_obs`` observations of ``p`` nodes from ``n`` matrices.

    In memory (``chunks=None``) both paths hold the output (``8 n n_obs p``
    bytes), the ``obs`` coordinate (``8 n_obs``) and a few draw units
    (:data:`UNIT_TEMPORARIES`, with ``marginals``/``missing``
    :data:`MARGINAL_TEMPORARIES`/:data:`MISSING_TEMPORARIES` more), whatever
    ``n_obs`` is. Chunked, each of the machine's threads holds a block of
    ``chunks`` rows and its units, and the dense factors (``8 n p**2``) are held
    once; the data are never whole (a sparse factor is planned, and refused when
    it would not fit, by the draw itself).

    >>> draw_need(1, 10**6, 10) / (8 * 10**7)  # the data, obs labels and a few units
    1.149152
    """
    temporaries = _temporaries(p, sparse, marginals, missing)
    if chunks is not None:
        factors = 0 if sparse else 8 * n * p * p
        return factors + available_cores() * (8 * min(chunks, n_obs) * p + temporaries)
    if not n:
        return 8 * n_obs
    return 8 * n * n_obs * p + 8 * n_obs + temporaries


#: The share of the available memory a draw may plan to take: its estimate is within
#: 25% of its measured peak (``tests/test_memory_guards.py``), and the memory other
#: processes hold grows while it runs.
MEMORY_HEADROOM = 0.75


#: The block a refused draw is told to take when that fits: 128 MiB of values (a
#: Zarr chunk of a sensible size), else the largest that fits.
SUGGESTED_BLOCK_BYTES = 2**27


def _fitting_chunks(n: int, n_obs: int, p: int, available: int, **options: bool) -> int:
    """Rows per block for a chunked draw within half of ``available`` (0: none fits)."""
    spare = available // 2 - draw_need(n, n_obs, p, chunks=0, **options)
    rows = min(spare // (8 * p * available_cores()), SUGGESTED_BLOCK_BYTES // (8 * p))
    return 0 if rows < 1 else aligned_chunks(min(int(rows), max(n_obs, 1)), p)


def check_draw_memory(
    n: int,
    n_obs: int,
    p: int,
    *,
    then_save: int = 0,
    chunks: int | None = None,
    chunks_option: str = "chunks=",
    **options: bool,
) -> None:
    """Refuse, before any allocation, data that cannot fit (:func:`draw_need`).

    ``then_save`` is what a save of the data holds besides them
    (:func:`spdgraph.io.save_need`), for a caller that draws and saves (the
    ``spdgraph draw`` command): the peak is then the data with the larger of
    the draw's temporaries and the save's copies. With ``chunks`` the data are
    a dask array: the check is the factors and a block per thread. A draw may
    plan to take :data:`MEMORY_HEADROOM` of the available memory. Refused
    data in memory are told the ``chunks`` that fit, spelled ``chunks_option``
    (``"--chunks "`` on the command line). ``options`` go to :func:`draw_need`.
    """
    need = draw_need(n, n_obs, p, chunks=chunks, **options)
    if then_save and chunks is None:
        need = max(need, 8 * n * n_obs * p + 8 * n_obs + then_save)
    available = available_memory()
    if available is None or need <= MEMORY_HEADROOM * available:
        return
    available = int(MEMORY_HEADROOM * available)
    what = (
        f"{n_obs:,} observations of {p:,} nodes for {n} matri{'x' if n == 1 else 'ces'} "
        f"({8 * n * n_obs * p / 2**30:,.1f} GiB of data)"
    )
    fits = _fitting_chunks(n, n_obs, p, available, **options)
    if chunks is not None:
        smaller = f"; use smaller blocks ({chunks_option}{fits:,})" if fits else ""
        raise TooLargeError(
            f"{what} drawn in blocks of {chunks:,} rows need about {need / 2**30:,.1f} GiB "
            f"(the factors and a block per thread, {available_cores()} threads) but only "
            f"{available / 2**30:,.1f} GiB is free to take{smaller}."
        )
    chunked = (
        f"draw them in blocks that fit with {chunks_option}{fits:,} (a dask array of row "
        "blocks, the same bits; saved to a Zarr store (.zarr) block by block), or "
        if fits
        else ""
    )
    raise TooLargeError(
        f"{what} need about {need / 2**30:,.1f} GiB{' with the save' if then_save else ''} "
        f"but only {available / 2**30:,.1f} GiB is free to take (of the memory available); "
        f"{chunked}draw fewer "
        f"observations (at most about {n_obs * available // need:,} here) or fewer "
        "matrices at once."
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
    chunks: int | None = None,
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
    chunks
        None (default: the data in memory) or the rows per block of a dask
        array (needs dask): data larger than memory, computed block by block
        under whatever dask scheduler is active (a ``distributed.Client``
        too) and saved block by block by :func:`spdgraph.save` to a Zarr
        store. Each matrix's factor is one task every block reads (computed
        once, not per block). The rows are drawn in units of
        ``attrs["draw_unit_rows"]`` rows, each from its own stream, so the
        values are the same bits whatever ``chunks`` is, and the same as in
        memory; a multiple of the unit wastes no work (a block cutting a unit
        draws the whole unit).

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
    >>> lazy = cov.spd.draw(20_000, seed=1, chunks=5_000)  # a dask array, 4 blocks
    >>> lazy.data.numblocks, bool((lazy.values == x.values).all())  # the same bits
    ((4, 1), True)
    """
    if "group" in view._da.dims:
        return _draw_groups(view, n_obs, seed, marginals, missing, chunks)
    from spdgraph.layout import is_sparse

    chunks = check_draw_chunks(chunks)
    if is_sparse(view._da) or method != "cholesky":
        return _draw_sparse(view, n_obs, seed, marginals, missing, method, tolerance, chunks)
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
    check_draw_memory(n, n_obs, p, chunks=chunks, marginals=nodes is not None, missing=bool(rate))
    streams = view._stream_indices(stacked, n)
    makers = [
        partial(dense_drawer, m[k], kind, root, streams[k], n_obs, (nodes, rate)) for k in range(n)
    ]
    if progress is None:  # about a second per 1e9 multiply-adds: a bar from ~2 s on
        progress = interactive() and n * n_obs * p * p > 2e9
    bar = Progress(
        "drawing data", total=n, enabled=bool(progress) and chunks is None, delay=0.0,
        unit="matrix",
    )  # fmt: skip
    out = draw_rows(makers, n_obs, p, chunks, bar.update)
    bar.close()
    da = view._da
    coords, dims = _coords_and_dims(da, stacked, n_obs)
    attrs: dict[str, Any] = {
        f"matrix_{k}": v for k, v in da.attrs.items() if k not in ACHIEVED_SPECTRUM
    }
    attrs.update({"source_kind": kind, "n_obs": n_obs, **seed_attrs(root)})
    attrs.update(_marginals.marginal_attrs(nodes, rate))
    attrs["draw_unit_rows"] = unit_rows(p)
    return xr.DataArray(
        out if stacked else out[0], dims=dims, coords=coords, name="data", attrs=attrs
    )


def check_draw_chunks(chunks: object) -> int | None:
    """``chunks`` (rows per block of a chunked draw) checked: None or a positive count."""
    if chunks is None:
        return None
    rows = check_count(chunks, "chunks", low=1)
    require_dask("da.spd.draw(..., chunks=...)")
    return rows


def _draw_sparse(
    view: SpdArrayView,
    n_obs: object,
    seed: SeedLike,
    marginals: object,
    missing: object,
    method: str,
    tolerance: float,
    chunks: int | None,
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
        layout=_coords_and_dims, chunks=chunks,
        check_memory=partial(check_draw_memory, sparse=True, chunks=chunks),
    )  # fmt: skip


def _draw_groups(
    view: SpdArrayView,
    n_obs: int,
    seed: SeedLike,
    marginals: object,
    missing: float,
    chunks: int | None,
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
            chunks=chunks,
        )
        for k in range(da.sizes["group"])
    ]
    out = xr.concat(parts, dim="group", coords="minimal", compat="override")
    if "group" in da.coords:
        out = out.assign_coords(group=("group", da["group"].values.copy()))
    out.attrs = {**without_seed_attrs(parts[0].attrs), **seed_attrs(root)}
    return out
