"""Plain data types shared by the core, the hooks and the plugins."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

__all__ = [
    "DAG",
    "EntrySampler",
    "Generator",
    "GeneratorSpec",
    "GraphBackend",
    "GraphData",
    "SparseGraphData",
    "WarmupStep",
    "default_seconds",
    "standard_normal_entries",
]


class EntrySampler(Protocol):
    """Draws the random entries a generator needs.

    ``entries(rng, shape)`` returns a float64 array of the given shape drawn
    from the distribution the user chose with ``sample(entries=...)``, using
    only the given :class:`numpy.random.Generator`.
    """

    def __call__(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray: ...


def standard_normal_entries(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """The sampler of ``entries="normal"``: i.i.d. N(0, 1) values, ``rng.standard_normal(shape)``.

    A generator receives this very function as ``entries`` when the user
    chose ``"normal"`` (the default; not with ``negative_share``), so it may
    test ``entries is standard_normal_entries`` and draw a derived quantity
    whose law is known exactly instead of the raw entries. The built-in
    ``po`` does: it draws the triangular coordinates of its Gaussian factor
    by the Bartlett decomposition rather than the factor and its QR.

    Examples
    --------
    >>> import numpy as np
    >>> standard_normal_entries(np.random.default_rng(0), (2, 3)).shape
    (2, 3)
    """
    return rng.standard_normal(shape)


@dataclass(frozen=True)
class GraphData:
    """Canonical form of a graph, as a graph backend's ``to_graph`` returns it.

    Parameters
    ----------
    adjacency
        Boolean ``(p, p)`` array, symmetric, with a ``False`` diagonal:
        ``adjacency[i, j]`` is True when nodes ``i`` and ``j`` are linked.
    labels
        The ``p`` node labels, in the order of the rows of ``adjacency``.
    directed
        For a directed graph (a backend's ``to_graph`` of a directed type):
        the boolean ``(p, p)`` array with ``directed[i, j]`` True for the edge
        ``i -> j``; then ``adjacency`` is its skeleton as returned by the
        backend, and the zero pattern of the matrices once the core has
        adapted it for a ``kind``. None for an undirected graph.
    attrs
        Graph attributes a backend's ``from_graph`` stores where its type has
        room (``{"kind": "precision"}`` from ``da.spd.graph``); empty by default.
    """

    adjacency: np.ndarray
    labels: Sequence[Hashable]
    directed: np.ndarray | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SparseGraphData:
    """An undirected graph as its upper-triangle edges, for a backend's ``from_sparse``.

    What the graph families (:mod:`spdgraph.graphs`) build at any size: no
    ``p x p`` array exists, so a backend's ``from_sparse`` builds its type
    from the edge list alone.

    Parameters
    ----------
    upper
        ``scipy.sparse.csr_array`` of shape ``(p, p)``, dtype int8, holding a
        1 at ``[i, j]`` for every edge with ``i < j`` (strict upper triangle),
        indices sorted, no duplicates.
    labels
        The ``p`` node labels, in row order.
    attrs
        Graph attributes to store where the type has room (``family``,
        ``parameters``, ``seed`` of a family's graph).

    Examples
    --------
    >>> import scipy.sparse
    >>> upper = scipy.sparse.csr_array(([1], ([0], [2])), shape=(3, 3), dtype="int8")
    >>> [x.tolist() for x in SparseGraphData(upper, [0, 1, 2]).edges()]
    [[0], [2]]
    """

    upper: Any
    labels: Sequence[Hashable]
    attrs: Mapping[str, Any] = field(default_factory=dict)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows and columns (int64) of the edges ``i < j``, in row-major order."""
        upper = self.upper
        counts = np.diff(upper.indptr)
        rows = np.repeat(np.arange(upper.shape[0], dtype=np.int64), counts)
        return rows, np.asarray(upper.indices, dtype=np.int64)


@dataclass(frozen=True)
class DAG:
    """Marks a graph as directed acyclic, for the DAG-capable methods (``method="dag"``).

    A ``networkx.DiGraph`` or a directed ``igraph.Graph`` is directed by its
    type; an adjacency array is not, so it must be wrapped: ``DAG(array)``
    reads ``array[i, j] != 0`` as the edge ``i -> j`` (e.g. a strictly upper
    triangular array after a topological order). Wrapping a directed graph
    object is allowed too. Methods that are not DAG-capable refuse a DAG.

    Parameters
    ----------
    graph
        A directed graph object, an adjacency array or a graph file path that a graph
        backend (:class:`spdgraph.GraphBackend`) recognises.

    Examples
    --------
    >>> import numpy as np
    >>> import spdgraph
    >>> da = spdgraph.sample(spdgraph.DAG(np.triu(np.ones((3, 3)), 1)), "dag", seed=1)
    >>> da["dag"].values.astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """

    graph: object


def default_seconds(p: int, edges: int) -> float:
    """The cost model of a generator that declares none: 0.5 s for one matrix at
    ``p = 1000``, scaling as ``p**3`` (the dense end of PO on one core).

    Examples
    --------
    >>> default_seconds(2000, 0)
    4.0
    """
    return 0.5 * (p / 1000.0) ** 3


@dataclass(frozen=True)
class WarmupStep:
    """One step of :func:`spdgraph.warmup` that a generator declares.

    Parameters
    ----------
    label
        The step's name (a key of the dict ``spdgraph.warmup()`` returns).
    run
        ``run(sample)`` calls ``sample`` (:func:`spdgraph.sample`, passed in: a
        plugin need not import the core) on a small seeded problem taking the
        code paths whose kernels compile.
    portable
        Run only by ``spdgraph.warmup(portable=True)`` (compiled per process).

    Examples
    --------
    >>> import numpy as np
    >>> step = WarmupStep("dd", lambda sample: sample(np.ones((3, 3)), "dd", seed=1))
    >>> import spdgraph
    >>> step.run(spdgraph.sample).shape
    (3, 3)
    """

    label: str
    run: Callable[[Callable[..., Any]], object]
    portable: bool = False


@dataclass(frozen=True)
class GeneratorSpec:
    """A named generator strategy, registered by a plugin (also ``spdgraph.Generator``).

    Named ``GeneratorSpec`` so that it cannot be confused with
    :class:`numpy.random.Generator`, which appears in the same signatures;
    ``spdgraph.Generator`` is the same class.

    Parameters
    ----------
    name
        The value users pass as ``spdgraph.sample(..., method=name)``.
    function
        ``function(adjacency, *, rng, entries, **options) -> ndarray`` returns
        one ``(p, p)`` float64 matrix for the boolean adjacency, drawing all
        randomness from ``rng`` (a :class:`numpy.random.Generator`) and its
        random entries through ``entries(rng, shape)``. When
        ``accepts_factor`` is true, it also receives ``factor=`` (a ``(p, p)``
        array or None).
    description
        One line shown by :func:`spdgraph.methods`.
    options
        The method options the generator accepts: each name mapped to an
        :class:`spdgraph.OptionSpec` (default, type, range or choices, doc) or
        to a plain default (a bool, int, float or str default fixes the type,
        anything else is unchecked). The core checks every option a user
        passes, and rejects unknown names, before any work is done.
    accepts_factor
        Whether the generator understands an explicit initial ``factor``.
    batch_function
        Optional ``batch_function(adjacency, *, rngs, entries, factors,
        **options) -> ndarray`` computing a whole ``(n, p, p)`` stack at once
        (``rngs`` is a sequence of n generators, one per matrix, made on first
        access: a :class:`spdgraph.seeds.MatrixStreams`; ``factors`` an
        ``(n, p, p)`` array or None). Matrix ``k`` must depend only on
        ``rngs[k]`` (or ``factors[k]``): results do not depend on the batch
        size. When absent, the core calls ``function`` once per matrix.
    accepts_dag
        Whether the generator takes a directed acyclic graph instead of an
        undirected one. The core then takes the directed graph a backend
        reads (``GraphData.directed``) and passes ``dag=`` (the boolean
        ``directed`` array, ``dag[i, j]`` for ``i -> j``) and ``kind=``
        (``"covariance"`` or ``"precision"``) to the generator; the
        ``adjacency`` it gets, and that its matrices are checked against, is
        the pattern of that kind: the moral graph for a precision, the pairs
        with a common ancestor for a covariance (others never see a DAG).
    intended_kind
        ``"precision"`` or ``"covariance"`` when the generator's rule is
        defined for that kind (e.g. R huge's rule builds a precision matrix);
        a call asking for the other kind then records ``attrs["kind_note"]``
        and warns once per process (the matrix is still a valid matrix of the
        asked kind). None (default): no preferred kind.
    portable
        Whether the generator supports ``spdgraph.sample(..., portable=True)``:
        it then gets ``portable=True`` and must return the same bits on every
        CPU (no BLAS/LAPACK, no fastmath, no SIMD-dispatched transcendental
        functions on the path that determines the values; see
        ``docs/reproducibility.md``). A generator without it is refused in
        portable mode.
    work_per_matrix, work_per_call, work_apart
        The generator's working memory in ``p x p`` float64 arrays, per matrix
        of a batch (e.g. drawn factors) and per call (its temporaries, and one
        copy for the core's check of a matrix proven by a factorization),
        besides the matrices it returns; the memory guard adds them to the
        core's needs (the larger of work and matrices with ``work_apart``: the
        work is freed before the matrices are made).
    seconds
        The cost model of the progress bar: ``seconds(p, edges)``, rough seconds
        for one matrix on ``p`` nodes and ``edges`` edges on one core;
        ``sample(progress=None)`` shows a bar when the estimate of the call is
        above 2 s. None: :func:`default_seconds` (0.5 s at ``p = 1000``, ``p**3``).
    compiles
        Whether the generator's first call in a process compiles Numba kernels:
        the core then prints a one-line note on stderr before it (once per
        process, when ``kernels_cached()`` says False).
    kernels_cached
        ``kernels_cached() -> bool | None``: whether the compiled kernels are in
        Numba's on-disk cache already (None when unknown: no note).
    warmup
        The :class:`WarmupStep` s :func:`spdgraph.warmup` runs for this
        generator, in order (a compiled generator lists the small problems that
        compile each of its kernels).
    proves_pd
        Whether ``batch_function`` proves its matrices positive definite by
        construction. It then also receives ``condition_bounds=``, an ``(n,)``
        float64 array of infinities, and may set entry ``k`` to a *proven*
        upper bound of the scaled 1-norm condition number of matrix ``k``
        (``||S M S||_1 ||(S M S)^-1||_1``, ``S = diag(M)^(-1/2)``), accounting
        for every rounding of its own arithmetic. The core then checks that
        matrix's pattern and diagonal but not its positive definiteness
        (no factorization; see docs/errors.md, "Certificate by construction");
        entries left infinite get the core's full check. The proof is the generator's: a wrong
        bound breaks the guarantee, so leave this False unless the bound is
        derived (``po`` derives it from the triangular factor it multiplied:
        :func:`spdgraph._kernels.certify.construction_bound`).
    sparse_function, sparse_work_per_entry
        Optional ``sparse_function(adjacency, *, rng, entries, kind, **options)``:
        ``function``'s matrix for the same stream as a float64 scipy.sparse matrix
        built without a dense ``p x p`` array (``adjacency`` a boolean ``csr_array``),
        or ``(matrix, notes)`` (``notes`` go to the attrs): the capability of
        ``sample(..., sparse=True)``. Its working bytes per stored entry (guard).
    """

    name: str
    function: Callable[..., np.ndarray]
    description: str
    options: Mapping[str, Any] = field(default_factory=dict)
    accepts_factor: bool = False
    batch_function: Callable[..., np.ndarray] | None = None
    work_per_matrix: float = 0.0
    work_per_call: float = 3.25
    accepts_dag: bool = False
    portable: bool = False
    intended_kind: str | None = None
    seconds: Callable[[int, int], float] | None = None
    compiles: bool = False
    kernels_cached: Callable[[], bool | None] | None = None
    warmup: Sequence[WarmupStep] = ()
    proves_pd: bool = False
    sparse_function: Callable[..., Any] | None = None
    sparse_work_per_entry: float = 48.0
    work_apart: bool = False

    def seconds_per_matrix(self, p: int, edges: int) -> float:
        """The cost model's seconds for one matrix (:attr:`seconds` or the default).

        Examples
        --------
        >>> import spdgraph
        >>> gen, _ = spdgraph.plugins.find_generator("dd")
        >>> gen.seconds_per_matrix(1000, 0) < gen.seconds_per_matrix(2000, 0)
        True
        """
        return (self.seconds or default_seconds)(p, edges)

    @property
    def defaults(self) -> dict[str, Any]:
        """Every option's default: what the generator gets when the user passes none.

        Examples
        --------
        >>> import spdgraph
        >>> gen, _ = spdgraph.plugins.find_generator("po")
        >>> gen.defaults
        {'residual_tolerance': 1e-08}
        """
        from spdgraph.plugins.options import OptionSpec

        return {
            name: spec.default if isinstance(spec, OptionSpec) else spec
            for name, spec in self.options.items()
        }


#: The plugin record under its first name (``spdgraph.Generator``).
Generator = GeneratorSpec


@dataclass(frozen=True)
class GraphBackend:
    """One graph library (or input kind), both ways: recognise, read, count, build back.

    Returned by a plugin's ``spdgraph_graph_backends`` hook. The core asks the
    registered backends in turn (those registered last first, so a plugin can
    take over a type spdgraph knows) which one ``recognises`` the object, and
    then uses that backend alone: ``count_nodes`` for the memory guard,
    ``to_graph`` for the graph. ``da.spd.graph(name)`` calls ``from_graph`` of
    the backend called ``name``.

    Parameters
    ----------
    name
        Unique name, the value of ``da.spd.graph(name)`` (``"networkx"``).
    recognises
        ``recognises(obj) -> bool``: whether ``obj`` is of this backend's type.
        Cheap, never raising, never importing the library (test
        ``sys.modules.get("lib")`` first: an object of a library exists only
        once the user has imported it).
    to_graph
        ``to_graph(obj) -> GraphData`` for an object it recognises, the node
        labels kept. Undirected: ``adjacency`` boolean, symmetric, False
        diagonal (self-loops ignored). A directed type: ``directed`` set too
        (``directed[i, j]`` for ``i -> j``, self-loops kept for the core to
        refuse) and ``adjacency`` its skeleton; the core refuses it for the
        methods that take an undirected graph and the DAG-capable methods
        take only it. Invalid input raises :class:`spdgraph.GraphError` saying
        how to fix it. The core checks the result.
    from_graph
        Optional ``from_graph(GraphData) -> obj``: the graph built back in the
        library's type, ``labels`` kept and ``attrs`` (``{"kind": ...}``)
        stored where the type has room; a missing library is a
        :class:`spdgraph.MissingDependencyError` naming the extra. None: input
        only.
    count_nodes
        Optional ``count_nodes(obj) -> int | None``: the node count, in time
        and memory far below ``p x p``, so that the memory guard refuses a
        request that cannot fit before any ``p x p`` array exists. None (or
        returning None): the core adapts first and checks right after.
    undirected_hint
        What to tell a user who passes a directed graph of this type to a
        method taking an undirected one (``"Use G.to_undirected()."``).
    from_sparse
        Optional ``from_sparse(SparseGraphData) -> obj``: the undirected graph
        built straight from its upper-triangle edges (a
        :class:`SparseGraphData`), in time and memory proportional to ``p``
        plus the edges, never a ``p x p`` array; what the graph families'
        ``backend=`` uses. None: the families build the dense
        :class:`GraphData` for ``from_graph`` (refused when it does not fit in
        memory).

    Examples
    --------
    >>> import spdgraph
    >>> names = {b.name for b, _ in spdgraph.plugins.graph_backends()}
    >>> {"networkx", "igraph", "numpy", "scipy", "pandas", "xarray", "file"} <= names
    True
    >>> import numpy as np
    >>> backend, plugin = spdgraph.plugins.graph_backend("numpy")
    >>> backend.from_graph(spdgraph.GraphData(np.eye(2, dtype=bool) ^ True, [0, 1])).tolist()
    [[False, True], [True, False]]
    """

    name: str
    recognises: Callable[[Any], bool]
    to_graph: Callable[[Any], GraphData]
    from_graph: Callable[[GraphData], Any] | None = None
    count_nodes: Callable[[Any], int | None] | None = None
    undirected_hint: str = ""
    from_sparse: Callable[[SparseGraphData], Any] | None = None
