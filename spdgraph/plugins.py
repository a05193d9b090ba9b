"""The plugin manager: built-in plugins first, then the ``spdgraph`` entry points.

The manager is built on first use and cached. Built-in adapters and
generators are registered from :data:`DEFAULT_PLUGINS` exactly as third-party
plugins are; then, unless the environment variable
``SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD`` is set to a non-empty value, every entry
point of group ``spdgraph`` is loaded.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any

import pluggy

from spdgraph import hookspecs
from spdgraph._types import Generator
from spdgraph.errors import PluginError

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "generators",
    "get_plugin_manager",
    "reset_plugin_manager",
]

#: Built-in plugin modules, registered in this order before any entry point.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "spdgraph._builtin.adapt_numpy",
    "spdgraph._builtin.adapt_scipy",
    "spdgraph._builtin.adapt_pandas",
    "spdgraph._builtin.adapt_xarray",
    "spdgraph._builtin.adapt_networkx",
    "spdgraph._builtin.adapt_igraph",
    "spdgraph._builtin.gen_po",
    "spdgraph._builtin.gen_dd",
)

#: Entry point group searched for third-party plugins.
ENTRY_POINT_GROUP = "spdgraph"

#: Environment variable that disables entry-point autoloading when non-empty.
AUTOLOAD_ENV = "SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD"

_lock = threading.Lock()
_manager: pluggy.PluginManager | None = None


def _build_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("spdgraph")
    pm.add_hookspecs(hookspecs)
    for modname in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(modname), name=modname)
    if not os.environ.get(AUTOLOAD_ENV):
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    pm.check_pending()
    return pm


def get_plugin_manager() -> pluggy.PluginManager:
    """Return the cached plugin manager, building it on first use.

    Plugins may be registered at run time with
    ``get_plugin_manager().register(obj, name=...)``, e.g. in a notebook or a
    test, without packaging them.

    Examples
    --------
    >>> import spdgraph
    >>> pm = spdgraph.get_plugin_manager()
    >>> pm.is_registered(pm.get_plugin("spdgraph._builtin.gen_po"))
    True
    """
    global _manager
    if _manager is None:
        with _lock:
            if _manager is None:
                _manager = _build_plugin_manager()
    return _manager


def reset_plugin_manager() -> None:
    """Forget the cached manager; the next use builds a fresh one.

    Useful after installing a plugin distribution in a running session, or
    after changing ``SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD``.
    """
    global _manager
    with _lock:
        _manager = None


def generators() -> dict[str, tuple[Generator, str]]:
    """Collect every registered generator, keyed by name.

    Returns a mapping ``name -> (Generator, plugin_name)``. Raises
    :class:`~spdgraph.errors.PluginError` when two plugins register the same
    name or a plugin returns something that is not a :class:`Generator`.
    """
    pm = get_plugin_manager()
    table: dict[str, tuple[Generator, str]] = {}
    # Call each implementation on its own so every generator is tied to the
    # plugin that registered it (for error messages that name the culprit).
    for impl in pm.hook.spdgraph_register_generators.get_hookimpls():  # registration order
        registered: Any = impl.function()  # validated item by item below
        if registered is None:
            continue
        if isinstance(registered, Generator):
            registered = [registered]
        for gen in registered:
            if not isinstance(gen, Generator):
                raise PluginError(
                    f"plugin {impl.plugin_name!r} registered {gen!r}, which is not a "
                    "spdgraph.Generator; return spdgraph.Generator(...) objects from "
                    "spdgraph_register_generators."
                )
            if not isinstance(gen.name, str) or not gen.name:
                raise PluginError(
                    f"plugin {impl.plugin_name!r} registered a generator with an invalid "
                    f"name {gen.name!r}; use a non-empty string."
                )
            if gen.name in table:
                other = table[gen.name][1]
                raise PluginError(
                    f"generator name {gen.name!r} is registered twice: by plugin {other!r} "
                    f"and by plugin {impl.plugin_name!r}; uninstall or disable one of them "
                    f"(or rename the generator in your plugin)."
                )
            table[gen.name] = (gen, impl.plugin_name)
    return table
