"""The plugin manager: built-in plugins first, then the ``spdgraph`` entry points.

The manager is built on first use and cached. Built-in adapters and
generators are registered from :data:`DEFAULT_PLUGINS` exactly as third-party
plugins are; then, unless the environment variable
``SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD`` is set to a non-empty value, every entry
point of group ``spdgraph`` is loaded.

The generator table (what ``spdgraph_register_generators`` returns, by name) is
built through pluggy's hook calling and cached; registering or unregistering a
plugin on the manager invalidates it.
"""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from typing import Any

import pluggy

from spdgraph.errors import PluginError, PluginWarning, UnknownMethodError
from spdgraph.plugins import hookspecs
from spdgraph.plugins.options import check_declarations
from spdgraph.plugins.types import GeneratorSpec

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "broken_plugins",
    "find_generator",
    "generators",
    "get_plugin_manager",
    "mark_broken",
    "reset_plugin_manager",
]

#: Built-in plugin modules, registered in this order before any entry point.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "spdgraph.plugins._builtin.adapt_numpy",
    "spdgraph.plugins._builtin.adapt_scipy",
    "spdgraph.plugins._builtin.adapt_pandas",
    "spdgraph.plugins._builtin.adapt_xarray",
    "spdgraph.plugins._builtin.adapt_networkx",
    "spdgraph.plugins._builtin.adapt_igraph",
    "spdgraph.plugins._builtin.adapt_rustworkx",
    "spdgraph.plugins._builtin.adapt_networkit",
    "spdgraph.plugins._builtin.adapt_sparse",
    "spdgraph.plugins._builtin.adapt_path",
    "spdgraph.plugins._builtin.gen_po",
    "spdgraph.plugins._builtin.gen_dd",
    "spdgraph.plugins._builtin.gen_uniform",
    "spdgraph.plugins._builtin.gen_dag",
    "spdgraph.plugins._builtin.gen_huge",
    "spdgraph.io._netcdf",
    "spdgraph.io._zarr",
    "spdgraph.io._tables",
)

#: Entry point group searched for third-party plugins.
ENTRY_POINT_GROUP = "spdgraph"

#: Environment variable that disables entry-point autoloading when non-empty.
AUTOLOAD_ENV = "SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD"

_lock = threading.RLock()
_manager: SpdgraphPluginManager | None = None


class SpdgraphPluginManager(pluggy.PluginManager):
    """A :class:`pluggy.PluginManager` that counts (un)registrations.

    :attr:`generation` changes whenever a plugin is registered or
    unregistered, so tables derived from the hooks (the generators) can be
    cached until the set of plugins changes.
    """

    def __init__(self, project_name: str = "spdgraph") -> None:
        super().__init__(project_name)
        self.generation = 0

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        """Register a plugin (see :meth:`pluggy.PluginManager.register`)."""
        result = super().register(plugin, name)
        self.generation += 1
        return result

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        """Unregister a plugin (see :meth:`pluggy.PluginManager.unregister`)."""
        result = super().unregister(plugin, name)
        self.generation += 1
        return result


def _build_plugin_manager() -> SpdgraphPluginManager:
    pm = SpdgraphPluginManager("spdgraph")
    pm.add_hookspecs(hookspecs)
    for modname in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(modname), name=modname)
    if not os.environ.get(AUTOLOAD_ENV):
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    pm.check_pending()
    return pm


def get_plugin_manager() -> SpdgraphPluginManager:
    """Return the cached plugin manager, building it on first use.

    Plugins may be registered at run time with
    ``get_plugin_manager().register(obj, name=...)``, e.g. in a notebook or a
    test, without packaging them.

    Examples
    --------
    >>> import spdgraph
    >>> pm = spdgraph.get_plugin_manager()
    >>> pm.is_registered(pm.get_plugin("spdgraph.plugins._builtin.gen_po"))
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
        _table_cache.clear()
        _broken.clear()


#: (manager id, generation) -> generator table
_table_cache: dict[tuple[int, int], dict[str, tuple[GeneratorSpec, str]]] = {}


def generators() -> dict[str, tuple[GeneratorSpec, str]]:
    """Collect every registered generator, keyed by name.

    Returns a mapping ``name -> (GeneratorSpec, plugin_name)``, built by calling
    the ``spdgraph_register_generators`` hook through the plugin manager and
    cached until a plugin is registered or unregistered. Raises
    :class:`~spdgraph.errors.PluginError` when two plugins register the same
    name or a plugin returns something that is not a :class:`Generator`.
    """
    pm = get_plugin_manager()
    key = (id(pm), pm.generation)
    table = _table_cache.get(key)
    if table is None:
        with _lock:
            _broken.clear()  # registered plugins changed: judge them again
            table = _build_table(pm)
            _table_cache.clear()
            _table_cache[key] = table
    return dict(table)


#: plugin name -> why it was skipped (a faulty plugin harms only itself)
_broken: dict[str, str] = {}


def broken_plugins() -> dict[str, str]:
    """Plugins skipped because they failed, with the reason (``spdgraph methods`` lists them).

    A plugin whose ``spdgraph_register_generators`` raises, returns something
    that is not a :class:`~spdgraph.GeneratorSpec`, declares an option its own
    declaration refuses (or whose check raises), reuses a registered name, or
    whose adapter raises an error that is not spdgraph's, is skipped with one
    warning naming it; built-in methods and other plugins keep working.
    """
    generators()  # registration faults are found when the table is built
    return dict(_broken)


def mark_broken(plugin: str, reason: str) -> None:
    """Record ``plugin`` as broken and warn once, naming it and the reason."""
    if plugin not in _broken:
        _broken[plugin] = reason
        warnings.warn(
            f"spdgraph: plugin {plugin!r} is skipped: {reason}", PluginWarning, stacklevel=3
        )


def _registered_by(pm: pluggy.PluginManager, impl: Any, impls: list[Any]) -> list[Any]:
    # each plugin's implementation is called through pluggy (a hook caller
    # restricted to that plugin), so every generator stays tied to the plugin
    # that registered it, for error messages that name the culprit
    others = [other.plugin for other in impls if other is not impl]
    return list(pm.subset_hook_caller("spdgraph_register_generators", others)())


def _build_table(pm: pluggy.PluginManager) -> dict[str, tuple[GeneratorSpec, str]]:
    impls = pm.hook.spdgraph_register_generators.get_hookimpls()  # registration order
    table: dict[str, tuple[GeneratorSpec, str]] = {}
    for impl in impls:
        try:
            found: dict[str, tuple[GeneratorSpec, str]] = {}
            for registered in _registered_by(pm, impl, impls):
                for gen in [registered] if isinstance(registered, GeneratorSpec) else registered:
                    _check_generator(gen, impl.plugin_name, {**table, **found})
                    found[gen.name] = (gen, impl.plugin_name)
        except Exception as exc:  # a faulty plugin harms only itself
            reason = (
                str(exc)
                if isinstance(exc, PluginError)
                else (f"its spdgraph_register_generators failed with {type(exc).__name__}: {exc}")
            )
            mark_broken(impl.plugin_name, reason)
            continue
        table.update(found)
    return table


def _check_generator(
    gen: object, plugin: str, table: dict[str, tuple[GeneratorSpec, str]]
) -> None:
    if not isinstance(gen, GeneratorSpec):
        raise PluginError(
            f"plugin {plugin!r} registered {gen!r}, which is not a "
            "spdgraph.Generator; return spdgraph.Generator(...) objects from "
            "spdgraph_register_generators."
        )
    if not isinstance(gen.name, str) or not gen.name:
        raise PluginError(
            f"plugin {plugin!r} registered a generator with an invalid "
            f"name {gen.name!r}; use a non-empty string."
        )
    try:
        check_declarations(gen.options, gen.name, plugin)
    except PluginError:
        raise
    except Exception as exc:  # an option's own check raised
        raise PluginError(
            f"plugin {plugin!r} declares options for {gen.name!r} whose checks fail on their "
            f"own defaults ({type(exc).__name__}: {exc})."
        ) from exc
    if gen.name in table:
        other = table[gen.name][1]
        raise PluginError(
            f"generator name {gen.name!r} is registered twice: by plugin {other!r} "
            f"and by plugin {plugin!r}; uninstall or disable one of them "
            f"(or rename the generator in your plugin)."
        )


def find_generator(method: object) -> tuple[GeneratorSpec, str]:
    """The registered generator called ``method`` and the name of its plugin.

    Raises :class:`~spdgraph.errors.UnknownMethodError` listing the known
    methods when there is none.
    """
    table = generators()
    if not isinstance(method, str):
        raise UnknownMethodError(
            f"method must be a string naming a generator, got {type(method).__name__}; "
            f"known methods: {', '.join(sorted(table))}."
        )
    if method not in table:
        broken = "".join(f"; plugin {name!r} was skipped: {why}" for name, why in _broken.items())
        raise UnknownMethodError(
            f"unknown method {method!r}; known methods: {', '.join(sorted(table))} "
            f"(plugins add more; see spdgraph.methods()){broken}."
        )
    return table[method]
