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
from typing import Any

import numpy as np

from spdgraph.plugins.types import EntrySampler, GeneratorSpec, GraphData
from spdgraph.seeds import MatrixStreams, SeedLike

__all__ = ["SampleCall", "SampleRequest"]


@dataclass(frozen=True)
class SampleCall:
    """The arguments of one :func:`spdgraph.sample` call, unchecked (see there).

    Examples
    --------
    >>> SampleCall("dd", size=3).size
    3
    """

    method: object = "po"
    size: object = None
    seed: SeedLike = None
    kind: object = "covariance"
    normalize: object = True
    entries: object = "normal"
    factor: object = None
    min_eigenvalue: object = None
    condition_number: object = None
    negative_share: object = None
    chunks: object = None
    portable: object = False
    progress: object = None
    uncertified: object = "redraw"
    max_redraws: object = 20
    method_options: Mapping[str, Any] = field(default_factory=dict)
    complete: object = False
    certificate: object = "any"


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
    (``sample(progress=...)``, resolved).
    """

    graph: GraphData
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

    def rngs(self, start: int = 0, stop: int | None = None) -> MatrixStreams | None:
        """The generators of matrices ``start .. stop - 1`` (all by default; None
        with explicit factors), made on first use (:class:`~spdgraph.seeds.MatrixStreams`)."""
        if self.root is None:
            return None
        return MatrixStreams(self.root, start, self.n if stop is None else stop)

    def generator_arguments(self) -> dict[str, Any]:
        """The keyword arguments the generator gets besides ``rng``/``entries``/``factor``:
        the method options, ``portable=True`` in portable mode and, for a DAG-capable
        generator, ``dag=`` (the directed adjacency) and ``kind=``."""
        arguments = dict(self.options)
        if self.portable:
            arguments["portable"] = True
        if self.gen.accepts_dag:
            arguments.update(dag=self.graph.directed, kind=self.kind)
        return arguments
