"""spdgraph: SPD covariance and concentration matrices with an exact graph zero pattern.

>>> import spdgraph
>>> from spdgraph.graphs import erdos_renyi
>>> cov = spdgraph.sample(erdos_renyi(20, 0.2, seed=1), method="po", seed=2)
>>> cov.name, cov.shape
('covariance', (20, 20))

The public names are imported on first use (module ``__getattr__``), so that
``import spdgraph`` and ``spdgraph --version`` do not pay for xarray, scipy,
pandas and numba; ``spdgraph.sample`` and every other name work as before.
Importing a room that hands out arrays (``sampling``, ``io``, ``simulation``:
``spdgraph.sample``, ``from spdgraph.io import open``...) also registers the
``da.spd`` accessor; the package does it, so none of them reaches up to it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
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


#: The rooms that hand out DataArrays: once one is imported, ``da.spd`` is registered.
_ARRAY_ROOMS = frozenset({"spdgraph.sampling", "spdgraph.io", "spdgraph.simulation"})


def _register_accessor() -> None:
    """Give every DataArray ``da.spd`` (importing the accessor registers it).

    The registration belongs here, in the room above the rooms that hand out
    arrays (:data:`_ARRAY_ROOMS`) and the accessor they are used with: none of
    them reaches up to the accessor, however spdgraph is imported
    (``import spdgraph``, ``from spdgraph.sampling import sample``...).
    """
    importlib.import_module("spdgraph.accessor")


class _ThenRegister(importlib.abc.Loader):
    """A room's own loader, then :func:`_register_accessor` once the room is complete."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _register_accessor()

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, resources...
        return getattr(self._loader, name)


class _AccessorOnImport(importlib.abc.MetaPathFinder):
    """Finds an array room as the other finders do, its loader wrapped (:class:`_ThenRegister`)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _ARRAY_ROOMS or "spdgraph.accessor" in sys.modules:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _ThenRegister(spec.loader)
                return spec
        return None


if not any(type(f).__name__ == "_AccessorOnImport" for f in sys.meta_path):
    sys.meta_path.insert(0, _AccessorOnImport())


def __getattr__(name: str) -> Any:
    """Import a public name, or a subpackage (``spdgraph.io``), on first use."""
    if name not in _LAZY:
        if name.startswith("_") or importlib.util.find_spec(f"spdgraph.{name}") is None:
            raise AttributeError(f"module 'spdgraph' has no attribute {name!r}")
        return importlib.import_module(f"spdgraph.{name}")  # sets the attribute itself
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
