"""spdgraph: SPD covariance and concentration matrices with an exact graph zero pattern.

>>> import spdgraph
>>> from spdgraph.graphs import erdos_renyi
>>> cov = spdgraph.sample(erdos_renyi(20, 0.2, seed=1), method="po", seed=2)
>>> cov.name, cov.shape
('covariance', (20, 20))
"""

import spdgraph.accessor  # noqa: F401 - registers ``da.spd``
from spdgraph import errors, graphs, spectrum
from spdgraph._version import __version__
from spdgraph.accessor import diagnostics
from spdgraph.errors import *  # noqa: F403 - every exception and warning class (errors.__all__)
from spdgraph.io import FileFormat, read_graph, save
from spdgraph.io import open as open  # public, but not in __all__ (see below)
from spdgraph.plugins import GraphBackend, get_plugin_manager, reset_plugin_manager
from spdgraph.plugins.hookspecs import hookimpl, hookspec
from spdgraph.plugins.options import OptionSpec
from spdgraph.plugins.types import (
    DAG,
    EntrySampler,
    Generator,
    GeneratorSpec,
    GraphData,
    WarmupStep,
)
from spdgraph.sampling import adapt_graph, methods, sample, warmup
from spdgraph.simulation import simulate

# ``open`` is public (spdgraph.open) but kept out of __all__ so that
# ``from spdgraph import *`` never shadows the builtin open.
__all__ = [
    "DAG",
    "EntrySampler",
    "FileFormat",
    "Generator",
    "GeneratorSpec",
    "GraphBackend",
    "GraphData",
    "OptionSpec",
    "WarmupStep",
    "__version__",
    "adapt_graph",
    "diagnostics",
    "get_plugin_manager",
    "graphs",
    "hookimpl",
    "hookspec",
    "methods",
    "read_graph",
    "reset_plugin_manager",
    "sample",
    "save",
    "simulate",
    "spectrum",
    "warmup",
]
__all__ += errors.__all__  # every exception and warning class
