"""The core: :func:`spdgraph.sample` and :func:`spdgraph.methods`.

Whoever wrote the generator, the core does the same things around it:
:mod:`spdgraph.sampling._request` checks every argument (cheap, before any heavy work),
adapts the graph, finds the method and fixes the random streams;
:mod:`spdgraph.sampling._engine` generates, verifies (shape, dtype, symmetry, exact
zeros, positive definiteness), rescales to unit diagonal when asked and
controls the spectrum, eagerly here or chunk by chunk in :mod:`spdgraph.sampling._lazy`;
:mod:`spdgraph.sampling._output` builds the labelled :class:`xarray.DataArray`.

The helpers that used to live here are still importable from this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.parameters import SAMPLE_PARAMETERS
from spdgraph.plugins import generators
from spdgraph.sampling._adapt import adapt_graph
from spdgraph.sampling._compile import note_compilation
from spdgraph.sampling._engine import Block, generate_block
from spdgraph.sampling._output import build_dataarray, certificate_attrs
from spdgraph.sampling._record import SampleCall, SampleRequest
from spdgraph.sampling._request import build_request
from spdgraph.seeds import SeedLike
from spdgraph.spectrum import spectrum_attrs

__all__ = ["adapt_graph", "methods", "sample"]


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
    portable: bool = False,
    progress: bool | None = None,
    uncertified: str = "redraw",
    max_redraws: int = 20,
    complete: bool = False,
    sparse: bool = False,
    certificate: str = "any",
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
        installed graph backend plugin reads. Self-loops are ignored. A list or
        tuple of graphs over the same nodes (e.g. from
        :func:`spdgraph.graphs.related_graphs`) gives one array with a leading
        ``group`` dimension: group ``k`` is sampled from its own seed stream
        and keeps its graph in the ``adjacency`` coordinate, dims ``("group",
        "node", "node_2")``; so a list of ``(u, v)`` pairs is no edge list (it
        is refused saying so: pass ``networkx.Graph(edges)``).
        A DAG-capable method (``method="dag"``) takes a directed acyclic
        graph instead: a ``networkx.DiGraph``, a directed ``igraph.Graph``,
        ``spdgraph.DAG(path)`` (a graph file read as directed) or
        ``spdgraph.DAG(array)``; every other method refuses directed graphs.
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
    portable
        ``True``: identical bits on every machine (any x86-64 or arm64 CPU,
        any BLAS), from kernels whose order of operations does not depend on
        the CPU (no BLAS or LAPACK, no fastmath; see
        ``docs/reproducibility.md``). Methods that declare it: ``po``, ``dd``,
        ``dag``, ``huge``. The values agree with the default mode to rounding
        (about 1e-15 of the largest diagonal entry). Costs about 1.0-1.2x the
        default time up to p = 400 (sparse), 1.6x at p = 400 dense, 2-4x at
        p = 1000, and about 4 s of compilation on the first call of a process;
        spectrum targets (LAPACK's eigenvalues) are refused.
        ``False`` (default): the fastest kernels of this machine, identical bits
        on this machine whatever the threads, chunks or scheduler, values within
        rounding of any other machine's.
    progress
        A progress bar on stderr (tqdm when installed, else a text bar) over the
        matrices of an eager call: ``True``, ``False``, or ``None`` (default) for
        one when stderr is a terminal or a notebook runs the call and the work is
        estimated above 2 s. The bits do not depend on it. Lazy (``chunks``)
        work shows progress when computed, e.g. under
        ``dask.diagnostics.ProgressBar()`` or a distributed dashboard.
    uncertified
        What happens when one matrix fails its positive-definiteness certificate
        (Cholesky, a positive normal diagonal, a scaled condition number at most
        1e12), e.g. about one dense PO matrix in a thousand at p = 200:
        ``"redraw"`` (default) draws that matrix again from its own redraw
        stream (matrix ``k`` still depends on ``k`` alone) and records the
        number of redraws per matrix in ``attrs["redraws"]`` (eager results);
        the law is then the generator's law conditioned on the certificate (see
        ``docs/generators.md``). ``"raise"``: a
        :class:`~spdgraph.errors.UncertifiedMatrixError`.
    max_redraws
        The redraws allowed per matrix before the graph is declared
        uncertifiable (a :class:`~spdgraph.errors.GeneratorOutputError`).
    complete
        Take a dense weighted array given as ``graph`` (no zero off its
        diagonal, values other than 1, e.g. ``np.cov(X)``) as the complete
        graph it encodes. By default such an array is refused with a
        ``GraphError`` saying to threshold it: it is rarely meant as a graph.
    sparse
        ``True``: build the matrix without any dense ``p x p`` intermediate and
        return it backed by a PyData ``sparse.COO`` array (same dims,
        coordinates and attrs), for generators that declare a sparse
        construction (``dd``, ``huge`` with ``unit_variance=False``,
        ``gwishart`` on chordal graphs, third parties'
        ``GeneratorSpec.sparse_function``); see ``docs/large_graphs.md``.
    certificate
        How positive definiteness of a sparse result may be proven:
        ``"any"`` (default) tries diagonal dominance, then a sparse Cholesky
        factorization, and where neither is within reach (the factor would not
        fit, or cvxopt is missing) a randomized proof whose chance of passing a
        matrix that is not positive definite is at most 1e-12, recorded in
        ``attrs["certificate"]`` and ``attrs["certificate_failure_probability"]``;
        ``"deterministic"`` refuses the randomized proof (a ``TooLargeError``
        or ``MissingDependencyError`` instead). Dense results are always proven
        deterministically (weighted diagonal dominance, a Cholesky factorization
        with its rounding bounded, or the generator's proven condition bound).
    **method_options
        Options of the chosen method (e.g. ``residual_tolerance`` for
        ``"po"``); unknown names are an error. A parameter of
        :data:`spdgraph.parameters.SAMPLE_PARAMETERS` not spelled out above is
        taken here as well (the table checks it).

    Returns
    -------
    xarray.DataArray
        Named ``"covariance"`` or ``"precision"``, with node labels on
        ``node`` and ``node_2``, a boolean ``adjacency`` coordinate and
        provenance attrs (``method``, ``method_options`` as JSON, ``plugin``,
        ``seed``, ``kind``, ``normalize`` as 0/1, ``entries``,
        ``spdgraph_version``); with a ``min_eigenvalue`` or
        ``condition_number`` target, also the achieved ``min_eigenvalue`` and
        ``condition_number`` (floats; lists along ``sample`` for a stack).
        Without a target the spectrum is not computed (it would cost more than
        the sampling): :func:`spdgraph.diagnostics` computes it when asked.
        Positive definiteness is always proven: ``attrs["certificate"]`` names
        the proof (the proofs a stack took, joined by "; ") and
        ``attrs["certificate_lambda_min_lower_bound"]`` is the proven lower
        bound of the smallest eigenvalue that it gives (a float; the smallest
        over a stack): what the proof gives, not an estimate of ``lambda_min``.
        A lazy result (``chunks``) records neither (its matrices are made at
        ``.compute()``, after the attrs are set): ``.compute()`` then
        ``.spd.check()`` records the bound.

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
    >>> spdgraph.sample([g, nx.path_graph(["a", "b", "c", "d"])], seed=1).dims
    ('group', 'node', 'node_2')
    """

    given = locals()  # sample()'s own arguments, by the table's names
    arguments = {name: given[name] for name in SAMPLE_PARAMETERS if name in given}
    # a parameter of the table not spelled in the signature arrives among the options
    arguments.update({k: v for k, v in method_options.items() if k in SAMPLE_PARAMETERS})
    options = {k: v for k, v in method_options.items() if k not in SAMPLE_PARAMETERS}
    call = SampleCall(method, method_options=options, **arguments)
    if isinstance(graph, list | tuple):  # related graphs: one array with a `group` dim
        from spdgraph.sampling._groups import sample_groups

        return sample_groups(graph, call, _run)
    return _run(build_request(graph, call))


def _run(request: SampleRequest) -> xr.DataArray:
    """One checked request to its labelled DataArray, by the executor of its layout:
    the eager engine, the lazy one (dask chunks) or the sparse construction."""
    if request.layout == "sparse":
        from spdgraph.sampling._sparse import sample_sparse

        return sample_sparse(request)
    note_compilation(request.gen)
    if request.layout == "lazy":  # lazily: one engine task per chunk
        from spdgraph.sampling._lazy import sample_lazy

        return _label(request, sample_lazy(request), request.attrs)
    return _sample_eager(request)


#: Largest run of matrices the progress path makes at once (see _blocks_with_progress).
PROGRESS_RUN_BYTES = 16 * 2**20


def _sample_eager(request: SampleRequest) -> xr.DataArray:
    """The eager path: the whole stack in memory.

    The achieved spectrum is recorded only when a target was set (the
    control computes it anyway); otherwise computing every eigenvalue would
    cost more than the sampling (ask :func:`spdgraph.diagnostics`). With
    ``request.progress`` the stack is made a few matrices at a time under a
    progress bar: the same bits, since matrix ``k`` depends only on its stream.
    """
    if request.progress:
        block = _blocks_with_progress(request)
    else:
        block = generate_block(request, rngs=request.rngs(), factors=request.factors)
    attrs = {**request.attrs, **_redraw_attrs(request, block)}
    if block.proven is not None:
        attrs.update(certificate_attrs(block.proven))
    if block.lmin is None or block.lmax is None:
        return _label(request, block.values, attrs)
    spectrum = spectrum_attrs(block.lmin, block.lmax, stacked=request.stacked)
    return _label(request, block.values, {**attrs, **spectrum})


def _redraw_attrs(request: SampleRequest, block: Block) -> dict[str, Any]:
    """``redraws``: how many times each matrix was redrawn (a list for a stack)."""
    if request.root is None or block.redraws is None:
        return {}
    counts = [int(r) for r in block.redraws]
    return {"redraws": counts if request.stacked else (counts or [0])[0]}


def _blocks_with_progress(request: SampleRequest) -> Block:
    """``generate_block`` over runs of matrices, a progress bar counting them.

    The runs are written into the one output stack as they come (never a list
    of parts concatenated at the end: that held the stack twice, beyond what
    the memory guard counts); a run is at most 2% of the stack and 16 MiB, so
    the extra is within the guard's per-call allowance.
    """
    from spdgraph._machine import Progress

    n, p = request.n, request.dense_graph.adjacency.shape[0]
    factors = request.factors
    step = max(1, min(n // 50, PROGRESS_RUN_BYTES // (8 * p * p)))
    values = np.empty((n, p, p), dtype=np.float64)
    lmins: list[np.ndarray | None] = []
    lmaxs: list[np.ndarray | None] = []
    redraws: list[np.ndarray] = []
    proofs: list[np.ndarray] = []
    what = f"sampling {request.gen.name}, p={p}"
    with Progress(what, total=n, unit="matrix", delay=0.0) as bar:
        for k0 in range(0, max(n, 1), step):
            k1 = min(n, k0 + step)
            part = generate_block(
                request,
                rngs=request.rngs(k0, k1),
                first=k0,
                factors=None if factors is None else factors[k0:k1],
            )
            values[k0:k1] = part.values
            if part.redraws is not None:
                redraws.append(part.redraws)
            if part.proven is not None:
                proofs.append(part.proven)
            lmins.append(part.lmin)
            lmaxs.append(part.lmax)
            del part
            bar.update(k1 - k0)
    all_redraws = np.concatenate(redraws)
    proven = np.concatenate(proofs, axis=1) if proofs else None
    if any(x is None for x in lmins + lmaxs):
        return Block(values, redraws=all_redraws, proven=proven)
    return Block(
        values,
        np.concatenate([x for x in lmins if x is not None]),
        np.concatenate([x for x in lmaxs if x is not None]),
        all_redraws,
        proven,
    )


def _label(request: SampleRequest, values: Any, attrs: dict[str, Any]) -> xr.DataArray:
    return build_dataarray(
        values, request.dense_graph, kind=request.kind, stacked=request.stacked, attrs=attrs
    )
