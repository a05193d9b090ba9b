"""The core: validate, dispatch to a generator plugin, validate its output, label it.

Whoever wrote the generator, the core does the same things around it, in this
order: check every argument (cheap, before any heavy work), adapt the graph,
find the method, derive one random stream per matrix, generate, verify the
result (shape, dtype, symmetry, exact zeros, positive definiteness), rescale to
unit diagonal when asked, and build the labelled :class:`xarray.DataArray`.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import xarray as xr

from spdgraph._blas import one_blas_thread
from spdgraph._dask import check_chunks, lazy_block
from spdgraph._types import EntrySampler, Generator, GraphData
from spdgraph._version import __version__
from spdgraph.errors import (
    FactorError,
    GeneratorOutputError,
    GraphError,
    GraphTypeError,
    InvalidOptionError,
    TooLargeError,
    UnknownMethodError,
    UnknownOptionError,
)
from spdgraph.plugins import generators, get_plugin_manager
from spdgraph.spectrum import check_targets, control_spectrum, spectrum_attrs

__all__ = ["adapt_graph", "methods", "sample"]

Kind = Literal["covariance", "precision"]
SeedLike = int | np.random.Generator | np.random.SeedSequence | None

_KIND_ALIASES = {
    "covariance": "covariance",
    "precision": "precision",
    "concentration": "precision",
}

#: Bytes of float64 work space the core and the built-in generators need per
#: matrix entry (factor, product, output, validation copy).
_WORK_ARRAYS_PER_MATRIX = 4


# --------------------------------------------------------------------------- graphs


def adapt_graph(graph: object) -> GraphData:
    """Turn any supported graph object into canonical adjacency plus labels.

    Dispatches to the ``spdgraph_adapt_graph`` hook (built-in adapters handle
    networkx, igraph, numpy, scipy.sparse, pandas and xarray inputs) and
    validates the result.

    Parameters
    ----------
    graph
        A graph object some registered adapter recognises.

    Returns
    -------
    GraphData
        Boolean symmetric adjacency with a False diagonal, and the node labels.

    Raises
    ------
    GraphTypeError
        No adapter recognises the object.
    GraphError
        The object is recognised but invalid (directed, parallel edges, ...).

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> g = spdgraph.adapt_graph(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.adjacency.sum()
    (['a', 'b', 'c'], np.int64(4))
    """
    result = get_plugin_manager().hook.spdgraph_adapt_graph(graph=graph)
    if result is None:
        raise GraphTypeError(
            f"no adapter recognises a graph of type {type(graph).__module__}."
            f"{type(graph).__qualname__}; pass a networkx or igraph graph, a square "
            "numpy/scipy.sparse adjacency matrix, an adjacency pandas.DataFrame, or "
            "install/register an adapter plugin for this type."
        )
    if not isinstance(result, GraphData):
        raise GraphTypeError(
            f"a graph adapter returned {type(result).__name__} instead of spdgraph.GraphData."
        )
    adjacency = np.asarray(result.adjacency)
    if adjacency.dtype != bool or adjacency.ndim != 2 or adjacency.shape[0] != adjacency.shape[1]:
        raise GraphError(
            "a graph adapter returned an adjacency that is not a square boolean matrix "
            f"(dtype {adjacency.dtype}, shape {adjacency.shape})."
        )
    p = adjacency.shape[0]
    if p == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    if adjacency.diagonal().any() or not np.array_equal(adjacency, adjacency.T):
        raise GraphError("a graph adapter returned a non-symmetric adjacency or self-loops.")
    labels = list(result.labels)
    if len(labels) != p:
        raise GraphError(f"a graph adapter returned {len(labels)} labels for {p} nodes.")
    _check_unique(labels)
    return GraphData(adjacency=adjacency, labels=labels)


def _check_unique(labels: Sequence[Hashable]) -> None:
    seen: set[Hashable] = set()
    for label in labels:
        try:
            if label in seen:
                raise GraphError(
                    f"node label {label!r} appears twice; node labels must be unique."
                )
            seen.add(label)
        except TypeError as exc:
            raise GraphError(f"node label {label!r} is not hashable.") from exc


def _label_array(labels: Sequence[Hashable]) -> np.ndarray:
    """Labels as a 1-D coordinate array: int64, str, or object as a last resort."""
    if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in labels):
        return np.asarray(labels, dtype=np.int64)
    if all(isinstance(x, str) for x in labels):
        return np.asarray(labels, dtype=str)
    out = np.empty(len(labels), dtype=object)
    for i, x in enumerate(labels):
        out[i] = x
    return out


# --------------------------------------------------------------------------- methods


def methods() -> dict[str, str]:
    """List registered generator methods with one-line descriptions.

    Returns
    -------
    dict
        ``{name: description}``, sorted by name, including methods provided by
        installed plugins.

    Examples
    --------
    >>> import spdgraph
    >>> {"po", "dd"} <= set(spdgraph.methods())
    True
    >>> spdgraph.methods()["dd"]
    'diagonal dominance (gmat diagdom): fast, but links weaken like 1/(p d)'
    """
    return {name: gen.description for name, (gen, _) in sorted(generators().items())}


def _find_generator(method: str) -> tuple[Generator, str]:
    if not isinstance(method, str):
        raise UnknownMethodError(
            f"method must be a string naming a generator, got {type(method).__name__}; "
            f"known methods: {', '.join(sorted(generators()))}."
        )
    table = generators()
    if method not in table:
        raise UnknownMethodError(
            f"unknown method {method!r}; known methods: {', '.join(sorted(table))} "
            "(plugins add more; see spdgraph.methods())."
        )
    return table[method]


# --------------------------------------------------------------------------- arguments


def _check_kind(kind: object) -> str:
    if not isinstance(kind, str) or kind.lower() not in _KIND_ALIASES:
        raise InvalidOptionError(
            f"kind must be 'covariance' or 'precision' (alias 'concentration'), got {kind!r}."
        )
    return _KIND_ALIASES[kind.lower()]


def _check_size(size: object) -> int | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise InvalidOptionError(
            f"size must be None (one matrix) or a non-negative integer (a stack), got {size!r}."
        )
    if size < 0:
        raise InvalidOptionError(f"size must be non-negative, got {size}.")
    return int(size)


def _check_normalize(normalize: object) -> bool:
    if not isinstance(normalize, bool | np.bool_):
        raise InvalidOptionError(f"normalize must be True or False, got {normalize!r}.")
    return bool(normalize)


def resolve_entries(entries: object, negative_share: object = None) -> tuple[EntrySampler, str]:
    """Turn the ``entries`` argument into a validated sampler and a description.

    ``"normal"`` draws N(0, 1), ``"uniform"`` draws U(0, 1) (the paper's
    choice); a callable ``(rng, shape) -> array`` is wrapped so that its output
    is checked for shape and finiteness; a frozen :mod:`scipy.stats`
    distribution (e.g. ``scipy.stats.norm(0, 2)``) is drawn with
    ``dist.rvs(size=shape, random_state=rng)`` and described as
    ``"scipy.stats:norm(0, 2)"``.

    With ``negative_share=s`` (a float in [0, 1]) the sampler first draws the
    values as above, then, from the same generator, one U(0, 1) number ``u``
    per value (same shape, C order), and returns ``-|v|`` where ``u < s`` and
    ``|v|`` elsewhere: each entry is negative with probability ``s``, its
    magnitude distributed as ``|v|``.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.core import resolve_entries
    >>> sampler, label = resolve_entries("normal", negative_share=0.0)
    >>> label, bool((sampler(np.random.default_rng(0), (3, 3)) >= 0).all())
    ('normal', True)
    """
    base, label = _resolve_base_entries(entries)
    if negative_share is None:
        return base, label
    share = _check_negative_share(negative_share)

    def signed(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        magnitude = np.abs(base(rng, shape))
        u = rng.random(magnitude.shape)
        return np.where(u < share, -magnitude, magnitude)

    return signed, label


def _check_negative_share(negative_share: object) -> float:
    if (
        isinstance(negative_share, bool)
        or not isinstance(negative_share, numbers.Real)
        or not 0.0 <= float(negative_share) <= 1.0
    ):
        raise InvalidOptionError(
            "negative_share must be None (signs as drawn) or a number in [0, 1] (the "
            f"probability that each entry is negative), got {negative_share!r}."
        )
    return float(negative_share)


def _frozen_label(dist: Any) -> str:
    name = getattr(getattr(dist, "dist", None), "name", type(dist).__name__)
    parts = [repr(a) for a in getattr(dist, "args", ())]
    parts += [f"{k}={v!r}" for k, v in sorted(getattr(dist, "kwds", {}).items())]
    return f"scipy.stats:{name}({', '.join(parts)})"


def _resolve_base_entries(entries: object) -> tuple[EntrySampler, str]:
    if isinstance(entries, str):
        name = entries.lower()
        if name == "normal":
            return (lambda rng, shape: rng.standard_normal(shape)), "normal"
        if name == "uniform":
            return (lambda rng, shape: rng.random(shape)), "uniform"
        raise InvalidOptionError(
            f"unknown entries distribution {entries!r}; use 'normal', 'uniform', a frozen "
            "scipy.stats distribution or a callable (rng, shape) -> ndarray."
        )
    if hasattr(entries, "rvs") and hasattr(entries, "freeze") and not hasattr(entries, "dist"):
        name = getattr(entries, "name", "dist")
        raise InvalidOptionError(
            f"entries is the scipy.stats distribution {name!r} itself, not a frozen one; "
            f"freeze it with its parameters, e.g. scipy.stats.{name}() or "
            f"scipy.stats.{name}(loc=0, scale=2)."
        )
    if hasattr(entries, "rvs") and hasattr(entries, "dist") and not isinstance(entries, type):
        # a frozen scipy.stats distribution (duck-typed: scipy.stats is not imported here)
        frozen: Any = entries
        label = _frozen_label(frozen)

        def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
            return frozen.rvs(size=shape, random_state=rng)

        return _checked(draw, label), label
    if callable(entries):
        name = getattr(entries, "__qualname__", None) or type(entries).__name__
        return _checked(entries, name), f"callable:{name}"
    raise InvalidOptionError(
        "entries must be 'normal', 'uniform', a frozen scipy.stats distribution (e.g. "
        "scipy.stats.norm(0, 2)) or a callable (rng, shape) -> ndarray, "
        f"got {type(entries).__name__}."
    )


def _checked(draw: Callable[..., Any], label: str) -> EntrySampler:
    def sampler(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        values = np.asarray(draw(rng, shape), dtype=np.float64)
        if values.shape != tuple(shape):
            raise InvalidOptionError(
                f"the entries {label} returned shape {values.shape} when asked "
                f"for {tuple(shape)}; it must return an array of exactly that shape."
            )
        if not np.all(np.isfinite(values)):
            raise InvalidOptionError(
                f"the entries {label} returned non-finite values; it must return finite numbers."
            )
        return values

    return sampler


def seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """Root :class:`numpy.random.SeedSequence` of a call, never mutating the input.

    An int or a SeedSequence always gives the same root; a Generator gives a
    root drawn from it (advancing it); None gives fresh OS entropy, recorded in
    the output's ``seed`` attribute so the call can be repeated.
    """
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(
            seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size
        )
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4, dtype=np.uint64).tolist())
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise InvalidOptionError(f"seed must be non-negative, got {seed}.")
        return np.random.SeedSequence(int(seed))
    raise InvalidOptionError(
        f"seed must be None, a non-negative int, a numpy.random.Generator or a "
        f"numpy.random.SeedSequence, got {type(seed).__name__}."
    )


def child_generator(root: np.random.SeedSequence, k: int) -> np.random.Generator:
    """Generator of matrix ``k``: the k-th child of ``root`` (as ``root.spawn`` gives)."""
    child = np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, k), pool_size=root.pool_size
    )
    return np.random.Generator(np.random.PCG64(child))


def _check_factor(factor: object, p: int, size: int | None) -> tuple[np.ndarray, int, bool]:
    """Validate ``factor``; return it as (n, p, p) float64, n and whether a stack."""
    try:
        f = np.asarray(factor, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise FactorError("factor must be a real numeric array.") from exc
    if f.ndim == 2:
        if size is not None:
            raise FactorError(
                f"a 2-D factor gives one matrix but size={size}; pass size=None, or a "
                f"({size}, {p}, {p}) stack of factors."
            )
        stacked, f = False, f[None]
    elif f.ndim == 3:
        if size is not None and f.shape[0] != size:
            raise FactorError(
                f"factor holds {f.shape[0]} matrices but size={size}; make them agree "
                "(or pass size=None)."
            )
        stacked = True
    else:
        raise FactorError(f"factor must be (p, p) or (size, p, p), got shape {f.shape}.")
    if f.shape[1:] != (p, p):
        raise FactorError(
            f"factor rows are the node vectors: it must be {p} x {p} for this {p}-node "
            f"graph, got {f.shape[1]} x {f.shape[2]}."
        )
    if not np.all(np.isfinite(f)):
        raise FactorError("factor holds NaN or inf; every entry must be finite.")
    zero_rows = np.argwhere(~f.any(axis=2))
    if zero_rows.size:
        k, i = zero_rows[0]
        raise FactorError(
            f"factor {k} has an all-zero row {i}: it is rank deficient and Q Q^T cannot be "
            "positive definite. Every row must be a non-zero vector, and the rows linearly "
            "independent."
        )
    ranks = np.linalg.matrix_rank(f)
    deficient = np.flatnonzero(np.atleast_1d(ranks) < p)
    if deficient.size:
        k = int(deficient[0])
        raise FactorError(
            f"factor {k} has rank {int(np.atleast_1d(ranks)[k])} < {p}: its rows are linearly "
            "dependent, so Q Q^T cannot be positive definite. Use linearly independent rows."
        )
    return f, f.shape[0], stacked


def _check_options(gen: Generator, plugin: str, options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(gen.options))
    if unknown:
        accepted = ", ".join(sorted(gen.options)) or "none"
        raise UnknownOptionError(
            f"method {gen.name!r} (plugin {plugin!r}) does not accept option(s) "
            f"{', '.join(map(repr, unknown))}; its options are: {accepted}."
        )
    merged = dict(gen.options)
    merged.update(options)
    return merged


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(n: int, p: int, arrays_per_matrix: int = _WORK_ARRAYS_PER_MATRIX) -> None:
    """Raise :class:`TooLargeError` if ``n`` p x p matrices will not fit in memory."""
    need = n * p * p * 8 * arrays_per_matrix
    available = _available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{n} matrices of {p} x {p} need about {need / 2**30:.1f} GiB of working "
            f"memory but only {available / 2**30:.1f} GiB is available; ask for fewer "
            "matrices per call (a smaller size, or chunks with dask) or a smaller graph."
        )


# --------------------------------------------------------------------------- generation


def _validate_matrix(
    m: object, adjacency: np.ndarray, k: int, gen: Generator, plugin: str
) -> np.ndarray:
    who = f"generator {gen.name!r} (plugin {plugin!r})"
    p = adjacency.shape[0]
    if not isinstance(m, np.ndarray):
        raise GeneratorOutputError(f"{who} returned {type(m).__name__}, not a numpy array.")
    if m.shape != (p, p):
        raise GeneratorOutputError(
            f"{who} returned shape {m.shape} for matrix {k}, expected ({p}, {p})."
        )
    if m.dtype != np.float64:
        raise GeneratorOutputError(f"{who} returned dtype {m.dtype}, expected float64.")
    if not np.all(np.isfinite(m)):
        raise GeneratorOutputError(f"{who} returned non-finite values in matrix {k}.")
    if not np.array_equal(m, m.T):
        i, j = np.argwhere(m != m.T)[0]
        raise GeneratorOutputError(
            f"{who} returned matrix {k} that is not exactly symmetric "
            f"([{i}, {j}] = {m[i, j]!r} but [{j}, {i}] = {m[j, i]!r}); symmetrize with "
            "(M + M.T) / 2."
        )
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    bad = nonedge & (m != 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise GeneratorOutputError(
            f"{who} returned matrix {k} with a non-zero entry {m[i, j]!r} at [{i}, {j}], "
            "which is not an edge of the graph; non-edges must be exactly 0."
        )
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError as exc:
        raise GeneratorOutputError(
            f"{who} returned matrix {k} that is not positive definite (Cholesky failed)."
        ) from exc
    return m


def normalize_to_unit_diagonal(m: np.ndarray) -> np.ndarray:
    """Rescale an SPD matrix (or stack) to unit diagonal, keeping exact symmetry and zeros.

    ``D^{-1/2} M D^{-1/2}`` computed as ``M * (d_i d_j)`` so that ``[i, j]`` and
    ``[j, i]`` use the same product; the diagonal is then set to exactly 1.
    """
    d = 1.0 / np.sqrt(np.diagonal(m, axis1=-2, axis2=-1))
    scale = d[..., :, None] * d[..., None, :]
    out = m * scale
    idx = np.arange(m.shape[-1])
    out[..., idx, idx] = 1.0
    return out


def generate_block(
    graph: GraphData,
    gen: Generator,
    plugin: str,
    *,
    rngs: Sequence[np.random.Generator] | None,
    factors: np.ndarray | None,
    entries: EntrySampler,
    options: Mapping[str, Any],
    normalize: bool,
    min_eigenvalue: float | None = None,
    condition_number: float | None = None,
    return_spectrum: bool = False,
) -> Any:
    """Generate, validate, (optionally) normalize and control an ``(n, p, p)`` block.

    This is the unit of work that a batch, a chunk of a dask array or a
    worker process computes. ``rngs`` has one generator per matrix (or
    ``factors`` one factor per matrix). ``min_eigenvalue`` and
    ``condition_number`` (checked with :func:`spdgraph.spectrum.check_targets`)
    are applied by :func:`spdgraph.spectrum.control_spectrum` after the
    normalization. Returns the block, or ``(block, lmin, lmax)`` with the
    achieved extreme eigenvalues per matrix when ``return_spectrum`` (computed
    once, however the block was made).
    """
    adjacency = graph.adjacency
    p = adjacency.shape[0]
    n = len(factors) if factors is not None else len(rngs or ())
    factor_kw: dict[str, Any] = {}
    if gen.batch_function is not None:
        if gen.accepts_factor:
            factor_kw["factors"] = factors
        out = gen.batch_function(
            adjacency.copy(), rngs=rngs, entries=entries, **factor_kw, **options
        )
        if not isinstance(out, np.ndarray) or out.shape != (n, p, p):
            raise GeneratorOutputError(
                f"generator {gen.name!r} (plugin {plugin!r}) batch function returned "
                f"{getattr(out, 'shape', type(out).__name__)}, expected ({n}, {p}, {p})."
            )
        with one_blas_thread():
            for k in range(n):
                _validate_matrix(out[k], adjacency, k, gen, plugin)
        block = out
    else:
        block = np.empty((n, p, p), dtype=np.float64)
        for k in range(n):
            if gen.accepts_factor:
                factor_kw["factor"] = None if factors is None else factors[k].copy()
            rng = None if rngs is None else rngs[k]
            m = gen.function(adjacency.copy(), rng=rng, entries=entries, **factor_kw, **options)
            with one_blas_thread():
                block[k] = _validate_matrix(m, adjacency, k, gen, plugin)
    if normalize and n:
        block = normalize_to_unit_diagonal(block)
    if return_spectrum or min_eigenvalue is not None or condition_number is not None:
        # the core's own LAPACK work runs on one BLAS thread: the same bits whatever
        # the thread settings, and no oversubscription when batches run in threads
        with one_blas_thread():
            block, lmin, lmax = control_spectrum(
                block,
                normalized=normalize,
                min_eigenvalue=min_eigenvalue,
                condition_number=condition_number,
            )
        if return_spectrum:
            return block, lmin, lmax
    return block


def _json_default(value: Any) -> Any:
    """JSON fallback: numpy scalars as numbers, arrays as a reproducible summary."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]
        return f"ndarray(shape={value.shape}, dtype={value.dtype}, sha256={digest})"
    return repr(value)


def _json_options(options: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(options.items())), default=_json_default)


def build_dataarray(
    values: Any,
    graph: GraphData,
    *,
    kind: str,
    stacked: bool,
    attrs: Mapping[str, Any],
) -> xr.DataArray:
    """Wrap values (numpy or dask) in the labelled DataArray every generator returns.

    Dims are ``("node", "node_2")`` (with a leading ``"sample"`` for a
    stack); both matrix dims carry the node labels; the boolean ``adjacency``
    coordinate over ``(node, node_2)`` carries the graph.
    """
    labels = _label_array(graph.labels)
    coords: dict[str, Any] = {
        "node": ("node", labels),
        "node_2": ("node_2", labels.copy()),
        "adjacency": (("node", "node_2"), graph.adjacency.copy()),
    }
    dims: tuple[str, ...] = ("node", "node_2")
    if stacked:
        dims = ("sample", *dims)
        coords["sample"] = ("sample", np.arange(values.shape[0], dtype=np.int64))
    else:
        values = values[0]
    return xr.DataArray(values, dims=dims, coords=coords, name=kind, attrs=dict(attrs))


def sample(
    graph: object,
    method: str = "po",
    *,
    size: int | None = None,
    seed: SeedLike = None,
    kind: str = "covariance",
    normalize: bool = True,
    entries: str | Callable[[np.random.Generator, tuple[int, ...]], np.ndarray] | Any = "normal",
    factor: np.ndarray | None = None,
    min_eigenvalue: float | None = None,
    condition_number: float | None = None,
    negative_share: float | None = None,
    chunks: int | None = None,
    **method_options: Any,
) -> xr.DataArray:
    """Sample SPD matrices whose off-diagonal zeros are exactly the non-edges of a graph.

    Parameters
    ----------
    graph
        An undirected graph: ``networkx.Graph``, ``igraph.Graph``, a square
        symmetric adjacency array (numpy, scipy.sparse, ``pandas.DataFrame``
        with node labels on index and columns, 2-D ``xarray.DataArray``), a
        DataArray spdgraph returned (same graph again), or anything an
        installed adapter plugin accepts. Self-loops are ignored.
    method
        Name of a registered generator: ``"po"`` (partial orthogonalization),
        ``"dd"`` (diagonal dominance), or one from a plugin; see
        :func:`spdgraph.methods`.
    size
        ``None`` for one matrix with dims ``("node", "node_2")``; an int ``n``
        for a stack with dims ``("sample", "node", "node_2")``.
    seed
        ``int``, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
        or ``None``. Matrix ``k`` is drawn from the ``k``-th child of the
        seed's :class:`~numpy.random.SeedSequence`, so it does not depend on
        ``size``; ``size=None`` gives matrix 0. The root entropy is recorded in
        ``attrs["seed"]``.
    kind
        ``"covariance"`` (zeros are marginal independences) or ``"precision"``
        (zeros are conditional independences; alias ``"concentration"``).
        The returned DataArray is named after it.
    normalize
        Rescale to unit diagonal (correlation scale, as gmat 0.2.x returns).
        ``False`` returns the raw matrix (as in the paper's experiments).
    entries
        Distribution of the random entries: ``"normal"`` (N(0, 1)),
        ``"uniform"`` (U(0, 1), the paper's), a frozen :mod:`scipy.stats`
        distribution (``scipy.stats.t(df=3)``, drawn with
        ``.rvs(size=shape, random_state=rng)``) or a callable ``(rng, shape)
        -> ndarray``. See ``docs/controlled.md`` for how each generator uses them.
    factor
        PO only: an explicit initial ``(p, p)`` factor, or ``(size, p, p)``
        stack, whose rows are the node vectors in node order. No random draw
        happens then. Must be finite with linearly independent rows.
    min_eigenvalue
        Target smallest eigenvalue ``eps > 0`` of every returned matrix
        (``eps < 1`` with ``normalize=True``); see :mod:`spdgraph.spectrum`.
    condition_number
        Target condition number ``k0 > 1`` of every returned matrix. With
        ``normalize=False`` it can be combined with ``min_eigenvalue``.
    negative_share
        Sign control: each random entry is made negative with this
        probability (in [0, 1]) and positive otherwise, keeping its
        magnitude; the signs are drawn from the same stream right after the
        values. ``None`` keeps the signs as drawn.
    chunks
        ``None`` (default) computes the result in memory. An int returns a
        lazy dask-backed DataArray with that many matrices per chunk, computed
        on the active dask scheduler (a ``dask.distributed`` Client when one
        is active), bit-for-bit equal to the in-memory result whatever the
        chunking. Needs dask (``pip install "spdgraph[dask]"``); all arguments
        are still checked immediately.
    **method_options
        Options of the chosen method (e.g. ``residual_tolerance`` for
        ``"po"``); unknown names are an error.

    Returns
    -------
    xarray.DataArray
        Named ``"covariance"`` or ``"precision"``, with node labels on
        ``node`` and ``node_2``, a boolean ``adjacency`` coordinate and
        provenance attrs (``method``, ``method_options`` as JSON, ``plugin``,
        ``seed``, ``kind``, ``normalize`` as 0/1, ``entries``,
        ``spdgraph_version``), and the achieved ``min_eigenvalue`` and
        ``condition_number`` (floats; lists along ``sample`` for a stack).

    Raises
    ------
    GraphTypeError, GraphError
        Unsupported or invalid graph.
    UnknownMethodError, UnknownOptionError, InvalidOptionError, FactorError
        Bad method, options or arguments; raised before any heavy work.
    TooLargeError
        The request does not fit in memory.
    GeneratorOutputError
        A generator returned an invalid matrix (names the plugin).

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> g = nx.cycle_graph(["a", "b", "c", "d"])
    >>> cov = spdgraph.sample(g, method="po", seed=1)
    >>> cov.dims
    ('node', 'node_2')
    >>> float(cov.sel(node="a", node_2="c"))  # not linked: exactly zero
    0.0
    >>> spdgraph.sample(g, size=5, seed=1, kind="precision").dims
    ('sample', 'node', 'node_2')
    """
    # 1. cheap argument checks, before any heavy work
    kind = _check_kind(kind)
    size = _check_size(size)
    normalize = _check_normalize(normalize)
    sampler, entries_label = resolve_entries(entries, negative_share)
    eps, k0 = check_targets(min_eigenvalue, condition_number, normalize)
    gen, plugin = _find_generator(method)
    options = _check_options(gen, plugin, method_options)
    chunks = check_chunks(chunks)
    if factor is not None and not gen.accepts_factor:
        explicit = sorted(n for n, (g, _) in generators().items() if g.accepts_factor)
        raise InvalidOptionError(
            f"method {method!r} does not take an explicit factor; factor is only for "
            f"{', '.join(map(repr, explicit)) or 'no installed method'}."
        )
    if factor is not None and negative_share is not None:
        raise InvalidOptionError(
            "negative_share controls the signs of random entries, but with an explicit "
            "factor nothing is drawn; set the signs in the factor instead."
        )
    # 2. the graph
    graph_data = adapt_graph(graph)
    p = graph_data.adjacency.shape[0]
    # 3. random streams or factors
    attrs: dict[str, Any] = {
        "method": gen.name,
        "method_options": _json_options(options),
        "plugin": plugin,
        "kind": kind,
        "normalize": int(normalize),
        "spdgraph_version": __version__,
    }
    if eps is not None:
        attrs["min_eigenvalue_target"] = eps
    if k0 is not None:
        attrs["condition_number_target"] = k0
    if factor is not None:
        factors, n, stacked = _check_factor(factor, p, size)
        check_memory(n if chunks is None else min(n, chunks), p)
        rngs, root = None, None
        attrs["factor"] = "given"
        attrs["seed"] = "none (explicit factor)"
    else:
        n = 1 if size is None else size
        stacked = size is not None
        check_memory(n if chunks is None else min(n, chunks), p)
        root = seed_sequence(seed)
        rngs = [child_generator(root, k) for k in range(n)] if chunks is None else None
        factors = None
        attrs["entries"] = entries_label
        if negative_share is not None:
            attrs["negative_share"] = float(negative_share)
        attrs["seed"] = str(root.entropy)
        if root.spawn_key:
            attrs["seed_spawn_key"] = ",".join(str(x) for x in root.spawn_key)
    # 4. generate, validate, normalize, label
    if chunks is not None:  # lazily: one generate_block task per chunk (spdgraph._dask)
        lazy = lazy_block(
            graph_data,
            gen,
            plugin,
            n=n,
            chunks=chunks,
            root=root,
            factors=factors,
            entries=sampler,
            options=options,
            normalize=normalize,
            min_eigenvalue=eps,
            condition_number=k0,
        )
        return build_dataarray(lazy, graph_data, kind=kind, stacked=stacked, attrs=attrs)
    block, lmin, lmax = generate_block(
        graph_data,
        gen,
        plugin,
        rngs=rngs,
        factors=factors,
        entries=sampler,
        options=options,
        normalize=normalize,
        min_eigenvalue=eps,
        condition_number=k0,
        return_spectrum=True,
    )
    attrs.update(spectrum_attrs(lmin, lmax, stacked=stacked))
    return build_dataarray(block, graph_data, kind=kind, stacked=stacked, attrs=attrs)
