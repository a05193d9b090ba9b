"""spdgraph: SPD covariance and concentration matrices with an exact graph zero pattern.

>>> import spdgraph
>>> from spdgraph.graphs import erdos_renyi
>>> cov = spdgraph.sample(erdos_renyi(20, 0.2, seed=1), method="po", seed=2)
>>> cov.name, cov.shape
('covariance', (20, 20))

The public names are imported on first use (module ``__getattr__``), so that
``import spdgraph`` and ``spdgraph --version`` do not pay for xarray, scipy,
pandas and numba; ``spdgraph.sample`` and every other name work as before.
The first public name used (``spdgraph.sample``, ``spdgraph.open``...) also
registers the ``da.spd`` accessor (``import spdgraph.accessor`` does it too).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from spdgraph import errors
from spdgraph._version import __version__
from spdgraph.errors import *  # noqa: F403 - every exception and warning class (errors.__all__)

#: Public name -> (module, attribute in it; None for the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "graphs": ("spdgraph.graphs", None),
    "spectrum": ("spdgraph.spectrum", None),
    "diagnostics": ("spdgraph.accessor", "diagnostics"),
    "FileFormat": ("spdgraph.io", "FileFormat"),
    "read_graph": ("spdgraph.io", "read_graph"),
    "save": ("spdgraph.io", "save"),
    "open": ("spdgraph.io", "open"),
    "GraphBackend": ("spdgraph.plugins", "GraphBackend"),
    "get_plugin_manager": ("spdgraph.plugins", "get_plugin_manager"),
    "reset_plugin_manager": ("spdgraph.plugins", "reset_plugin_manager"),
    "hookimpl": ("spdgraph.plugins.hookspecs", "hookimpl"),
    "hookspec": ("spdgraph.plugins.hookspecs", "hookspec"),
    "OptionSpec": ("spdgraph.plugins.options", "OptionSpec"),
    "DAG": ("spdgraph.plugins.types", "DAG"),
    "EntrySampler": ("spdgraph.plugins.types", "EntrySampler"),
    "Generator": ("spdgraph.plugins.types", "Generator"),
    "GeneratorSpec": ("spdgraph.plugins.types", "GeneratorSpec"),
    "GraphData": ("spdgraph.plugins.types", "GraphData"),
    "WarmupStep": ("spdgraph.plugins.types", "WarmupStep"),
    "adapt_graph": ("spdgraph.sampling", "adapt_graph"),
    "methods": ("spdgraph.sampling", "methods"),
    "sample": ("spdgraph.sampling", "sample"),
    "warmup": ("spdgraph.sampling", "warmup"),
    "simulate": ("spdgraph.simulation", "simulate"),
}

if TYPE_CHECKING:  # what the names are, for type checkers and IDEs
    from spdgraph import graphs, spectrum
    from spdgraph.accessor import diagnostics
    from spdgraph.io import FileFormat, read_graph, save
    from spdgraph.io import open as open
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


def _register_accessor() -> None:
    """Give every DataArray ``da.spd`` once a public name is used (``spdgraph.sample``...).

    The registration belongs here, in the room above the rooms that hand out
    arrays (``sampling``, ``io``, ``simulation``) and the accessor they are
    used with: none of them reaches up to the accessor to register it.
    """
    importlib.import_module("spdgraph.accessor")


def __getattr__(name: str) -> Any:
    """Import a public name, or a subpackage (``spdgraph.io``), on first use."""
    if name not in _LAZY:
        if name.startswith("_") or importlib.util.find_spec(f"spdgraph.{name}") is None:
            raise AttributeError(f"module 'spdgraph' has no attribute {name!r}")
        _register_accessor()
        return importlib.import_module(f"spdgraph.{name}")  # sets the attribute itself
    _register_accessor()
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later look-ups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
