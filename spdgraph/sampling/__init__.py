"""Sampling: one :func:`spdgraph.sample` call, from its arguments to a labelled DataArray.

How a call travels: ``_core.sample`` asks ``_request.build_request`` for one checked
``SampleRequest`` (every argument, by the table of :mod:`spdgraph.parameters` first,
whatever the layout; the options against their declarations, the
memory guard from the node count, the graph adapted once by ``_adapt`` or
``_adapt_dag``, the seed root or the explicit factors); the eager path (``_core``)
or the lazy one (``_lazy``, dask, one task per chunk) runs ``_engine.generate_block``
(generate, check, normalize, control a block); ``_output`` labels the values.
``_groups`` samples a list of related graphs, ``_entries`` resolves entry samplers,
``_memory`` holds the memory models (dense and lazy; sparse), ``_sparse`` the sparse
layout (its refusals, its graph, its executor), ``_progress`` decides when a call shows a bar.

Interface for the rest of the package: ``sample``, ``methods``, ``adapt_graph``
(public as ``spdgraph.*``), ``adapt_for`` (a graph read once as ``sample`` of a
method and layout reads it; ``simulate`` uses it), ``ACHIEVED_SPECTRUM``,
``estimate_need`` and ``check_need`` (the memory guard, also for a graph not built
yet), ``warmup`` (public as
``spdgraph.warmup``: compile every kernel ahead; ``_warmup`` also says once when a
first call compiles). ``Progress``, ``PROGRESS_DELAY``, ``stderr_is_tty``,
``interactive``, ``require_dask`` and ``available_memory`` are the machine's
facts of :mod:`spdgraph._machine`, handed on for the command line (which uses
public modules only).
"""

from spdgraph._machine import (
    PROGRESS_DELAY,
    Progress,
    available_memory,
    interactive,
    require_dask,
    stderr_is_tty,
)
from spdgraph.sampling._core import adapt_graph, methods, sample
from spdgraph.sampling._output import ACHIEVED_SPECTRUM
from spdgraph.sampling._request import adapt_for, check_need, estimate_need
from spdgraph.sampling._sparse_certify import comparison_weights, prove_positive_definite
from spdgraph.sampling._warmup import warmup

__all__ = [
    "ACHIEVED_SPECTRUM",
    "PROGRESS_DELAY",
    "Progress",
    "adapt_for",
    "adapt_graph",
    "available_memory",
    "check_need",
    "comparison_weights",
    "estimate_need",
    "interactive",
    "methods",
    "prove_positive_definite",
    "require_dask",
    "sample",
    "stderr_is_tty",
    "warmup",
]
