"""The call record: what :func:`spdgraph.sample` was asked, and what it will compute.

:class:`SampleCall` holds the arguments of one call exactly as given, named once
(``sample`` builds it; groups of related graphs replace its seed;
``estimate_need`` builds one too). :func:`spdgraph.sampling._request.build_request`
checks it whole and returns a :class:`SampleRequest`, every field checked, that
the eager path, the lazy path and the engine execute. Neither imports the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spdgraph.parameters import SAMPLE_PARAMETERS
from spdgraph.plugins.types import EntrySampler, GeneratorSpec, GraphData
from spdgraph.seeds import MatrixStreams

if TYPE_CHECKING:
    from spdgraph.sampling._adapt import SparseGraph

__all__ = ["LAYOUTS", "SampleCall", "SampleRequest"]

#: The layouts of a result, each with its executor and memory model: in memory,
#: lazy (dask chunks) and sparse (PyData sparse, no dense p x p array).
LAYOUTS = ("dense", "lazy", "sparse")


class SampleCall:
    """The arguments of one :func:`spdgraph.sample` call, unchecked (see there).

    ``method``, the method's ``method_options`` and ``arguments``: the call's
    ``sample()`` parameters by name (:data:`spdgraph.parameters.SAMPLE_PARAMETERS`),
    one mapping, so that a new parameter needs no field here. ``call.get(name)``
    reads one (its table default when not given).

    Examples
    --------
    >>> call = SampleCall("dd", size=3)
    >>> call.get("size"), call.get("kind")
    (3, 'covariance')
    >>> call.replace(size=5).get("size")
    5
    """

    __slots__ = ("arguments", "method", "method_options")

    def __init__(
        self,
        method: object = "po",
        *,
        method_options: Mapping[str, Any] | None = None,
        **arguments: object,
    ) -> None:
        self.method = method
        self.method_options: Mapping[str, Any] = dict(method_options or {})
        self.arguments: Mapping[str, object] = dict(arguments)

    def get(self, name: str) -> object:
        """The argument ``name`` as given, else its default in the table."""
        if name in self.arguments:
            return self.arguments[name]
        return SAMPLE_PARAMETERS[name].default

    def replace(self, **changes: object) -> SampleCall:
        """The same call with some arguments changed (a group's seed, say)."""
        return SampleCall(
            self.method, method_options=self.method_options, **{**self.arguments, **changes}
        )


@dataclass(frozen=True)
class SampleRequest:
    """Everything one :func:`spdgraph.sample` call computes, checked.

    ``n`` matrices (``stacked`` unless ``size`` was None) of ``kind`` on
    ``graph``, by ``gen`` of ``plugin`` with the user's method ``options``;
    matrix ``k`` from child ``k`` of ``root`` or from ``factors[k]``;
    ``chunks`` None for the eager path, else matrices per dask chunk;
    ``portable`` the generator's portable mode; ``uncertified`` and
    ``max_redraws`` what to do with a matrix failing its certificate. ``attrs`` is
    the provenance the output carries; ``progress`` whether the eager path shows a progress bar
    (``sample(progress=...)``, resolved). ``layout`` (one of :data:`LAYOUTS`) chooses
    the executor and the memory model, nothing else: ``"dense"`` the eager engine,
    ``"lazy"`` one dask task per chunk, ``"sparse"`` the sparse construction (``graph``
    is then a :class:`~spdgraph.sampling._adapt.SparseGraph`). ``arguments`` holds
    every ``sample()`` parameter checked by the table
    (:func:`spdgraph.parameters.check_sample_arguments`): the code that uses a new
    parameter reads ``request.arguments[name]``.
    """

    graph: GraphData | SparseGraph
    gen: GeneratorSpec
    plugin: str
    kind: str
    n: int
    stacked: bool
    normalize: bool
    entries: EntrySampler
    options: dict[str, Any]
    min_eigenvalue: float | None
    condition_number: float | None
    chunks: int | None
    root: np.random.SeedSequence | None
    factors: np.ndarray | None
    attrs: dict[str, Any] = field(default_factory=dict)
    progress: bool = False
    portable: bool = False
    uncertified: str = "redraw"
    max_redraws: int = 20
    layout: str = "dense"
    arguments: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dense_graph(self) -> GraphData:
        """The graph of a dense or lazy request (a boolean ``p x p`` adjacency)."""
        assert isinstance(self.graph, GraphData), "a sparse request has a SparseGraph"
        return self.graph

    def rngs(self, start: int = 0, stop: int | None = None) -> MatrixStreams | None:
        """The generators of matrices ``start .. stop - 1`` (all by default; None
        with explicit factors), made on first use (:class:`~spdgraph.seeds.MatrixStreams`)."""
        if self.root is None:
            return None
        return MatrixStreams(self.root, start, self.n if stop is None else stop)

    def generator_arguments(self) -> dict[str, Any]:
        """The keyword arguments the generator gets besides ``rng``/``entries``/``factor``:
        the method options, the table's ``to_generator`` parameters, ``portable=True`` in
        portable mode and, for a DAG-capable generator, ``dag=`` (the directed adjacency)
        and ``kind=``."""
        arguments = dict(self.options)
        arguments.update(
            (name, self.arguments[name])
            for name, row in SAMPLE_PARAMETERS.items()
            if row.to_generator and name in self.arguments
        )
        if self.portable:
            arguments["portable"] = True
        if self.gen.accepts_dag:
            arguments.update(dag=self.dense_graph.directed, kind=self.kind)
        return arguments
