"""The plugin manager: built-in plugins first, then the ``spdgraph`` entry points.

The manager is built on first use and cached. Built-in graph backends
and generators are registered from :data:`DEFAULT_PLUGINS` exactly as third-party
plugins are; then, unless the environment variable
``SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD`` is set to a non-empty value, every entry
point of group ``spdgraph`` is loaded.

Every table derived from the hooks (the generators, the graph backends, the file
formats: what each plugin returns, by name) is built by one builder,
:func:`plugin_table`, and kept in one cache, :func:`cached_table`; registering or
unregistering a plugin on the manager invalidates them all.
"""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import pluggy

from spdgraph.errors import PluginError, PluginWarning, UnknownMethodError
from spdgraph.plugins import hookspecs
from spdgraph.plugins.options import check_declarations
from spdgraph.plugins.types import GeneratorSpec

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "PluginTable",
    "broken_plugins",
    "cached_table",
    "find_generator",
    "generators",
    "get_plugin_manager",
    "load_entry_points",
    "mark_broken",
    "mark_skipped",
    "plugin_table",
    "reset_plugin_manager",
]

_T = TypeVar("_T")

#: ``name -> (object, name of the plugin that returned it)``: a table
#: :func:`plugin_table` builds (``PluginTable[GeneratorSpec]``...).
PluginTable = dict[str, tuple[_T, str]]

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
    "spdgraph.io._csv",
    "spdgraph.study._kinds",
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
    pm.check_pending()  # the built-ins: a fault here is spdgraph's own bug
    if not os.environ.get(AUTOLOAD_ENV):
        load_entry_points(pm)
    return pm


def _distributions() -> list[Any]:
    import importlib.metadata

    return list(importlib.metadata.distributions())


def load_entry_points(pm: pluggy.PluginManager, group: str = ENTRY_POINT_GROUP) -> int:
    """Load every ``group`` entry point, one at a time: a faulty one harms only itself.

    An entry point whose import raises, or whose hook implementations pluggy
    refuses (a hook no spec declares, an argument the spec lacks), is skipped
    with a :class:`~spdgraph.errors.PluginWarning` naming it and its
    distribution, and listed by :func:`broken_plugins`; the built-ins and the
    other plugins are registered as usual. ``SystemExit`` and
    ``KeyboardInterrupt`` raised by a plugin's import are not errors: they
    propagate. Returns the number of plugins registered.
    """
    count = 0
    for dist in _distributions():
        for ep in dist.entry_points:
            if ep.group != group or pm.has_plugin(ep.name) or pm.is_blocked(ep.name):
                continue
            who = _entry_point_name(ep.name, dist)
            try:
                plugin = ep.load()
            except Exception as exc:
                mark_skipped(who, f"importing it raised {type(exc).__name__}: {exc}")
                continue
            if _shadows_builtin(pm, plugin, who):
                continue
            try:
                pm.register(plugin, name=ep.name)
                pm.check_pending()  # a hookimpl no spec declares: this plugin's own
            except Exception as exc:  # pluggy.PluginValidationError, a hostile plugin object
                if pm.has_plugin(ep.name):
                    pm.unregister(name=ep.name)
                mark_skipped(who, f"its hooks are invalid ({type(exc).__name__}: {exc})")
                continue
            count += 1
    return count


def _entry_point_name(name: str, dist: Any) -> str:
    try:
        meta = dist.metadata
        return f"{name} (distribution {meta['Name']} {meta['Version']})"
    except Exception:  # a distribution with broken metadata
        return name


def _shadows_builtin(pm: pluggy.PluginManager, plugin: object, who: str) -> bool:
    """Refuse a plugin object that is a built-in module already registered."""
    builtin = next((name for name in DEFAULT_PLUGINS if pm.get_plugin(name) is plugin), None)
    if builtin is None:
        return False
    mark_skipped(who, f"it points at the built-in plugin {builtin!r}, which stays as it is")
    return True


#: entry point -> why it could not be loaded (kept when the generator table is rebuilt)
_load_failures: dict[str, str] = {}


def mark_skipped(who: str, reason: str) -> None:
    """Record a plugin that could not be loaded (or whose subcommands were refused)
    and warn once; unlike :func:`mark_broken` it stays listed until the manager is
    reset, since nothing re-judges it."""
    if who not in _load_failures:
        _load_failures[who] = reason
        warnings.warn(f"spdgraph: plugin {who} is skipped: {reason}", PluginWarning, stacklevel=4)


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
        _tables.clear()
        _broken.clear()
        _load_failures.clear()


#: (manager id, generation) -> {hook: table}: every table derived from the hooks
#: (generators, graph backends, file formats), all dropped together when a
#: plugin is registered or unregistered.
_tables: dict[tuple[int, int], dict[str, PluginTable[Any]]] = {}


def cached_table(
    hook: str,
    kind: type[_T],
    check: Callable[[object, str, PluginTable[_T]], _T],
) -> PluginTable[_T]:
    """The table :func:`plugin_table` builds for ``hook``, cached until the plugins change.

    The one cache of spdgraph's registries: the generator, graph backend and
    file-format tables are all built here. When a plugin has been registered
    or unregistered since the last table was built, every cached table is
    dropped and the plugins' faults are judged again (the marks of
    :func:`mark_broken` are cleared). Returns a copy.
    """
    pm = get_plugin_manager()
    key = (id(pm), pm.generation)
    with _lock:
        if key not in _tables:
            _tables.clear()
            _broken.clear()  # registered plugins changed: judge them again
            _tables[key] = {}
        tables = _tables[key]
        if hook not in tables:
            if hook != _GENERATORS_HOOK and _GENERATORS_HOOK not in tables:
                generators()  # the generator table judges the plugins first
            tables[hook] = plugin_table(pm, hook, kind, check)
        return dict(tables[hook])


_GENERATORS_HOOK = "spdgraph_register_generators"


def generators() -> PluginTable[GeneratorSpec]:
    """Collect every registered generator, keyed by name.

    Returns a mapping ``name -> (GeneratorSpec, plugin_name)``, built by calling
    the ``spdgraph_register_generators`` hook through the plugin manager and
    cached until a plugin is registered or unregistered. Raises
    :class:`~spdgraph.errors.PluginError` when two plugins register the same
    name or a plugin returns something that is not a :class:`Generator`.
    """
    return cached_table(_GENERATORS_HOOK, GeneratorSpec, _check_generator)


#: plugin name -> why it was skipped (a faulty plugin harms only itself)
_broken: dict[str, str] = {}


def broken_plugins() -> dict[str, str]:
    """Plugins skipped because they failed, with the reason (``spdgraph methods`` lists them).

    A plugin whose ``spdgraph_register_generators`` raises, returns something
    that is not a :class:`~spdgraph.GeneratorSpec`, declares an option its own
    declaration refuses (or whose check raises), reuses a registered name, or
    whose graph backend raises an error that is not spdgraph's, is skipped with one
    warning naming it; built-in methods and other plugins keep working.
    """
    generators()  # registration faults are found when the table is built
    return {**_load_failures, **_broken}


def mark_broken(plugin: str, reason: str) -> None:
    """Record ``plugin`` as broken and warn once, naming it and the reason."""
    if plugin not in _broken:
        _broken[plugin] = reason
        warnings.warn(
            f"spdgraph: plugin {plugin!r} is skipped: {reason}", PluginWarning, stacklevel=3
        )


def failure_reason(hook: str, exc: BaseException) -> str:
    """Why a plugin whose ``hook`` raised ``exc`` is broken (for :func:`mark_broken`).

    A :class:`~spdgraph.errors.PluginError` (a check on what the plugin
    returned) already says it; any other exception is named with the hook.
    """
    if isinstance(exc, PluginError):
        return str(exc)
    return f"its {hook} failed with {type(exc).__name__}: {exc}"


def plugin_table(
    pm: pluggy.PluginManager,
    hook: str,
    kind: type[_T],
    check: Callable[[object, str, PluginTable[_T]], _T],
) -> PluginTable[_T]:
    """Ask every plugin's ``hook`` and build the ``name -> (object, plugin name)`` table.

    Plugins are asked in registration order, each alone (through a hook
    caller restricted to it), so every object stays tied to the plugin that
    returned it, for messages that name the culprit. A hook may return one
    ``kind`` object or a list of them. ``check(obj, plugin, table so far)``
    returns the object to keep (its ``name`` is the key) or raises
    :class:`~spdgraph.errors.PluginError`. A plugin whose hook raises, or one
    of whose objects fails the check, is skipped whole and marked broken (one
    :class:`~spdgraph.errors.PluginWarning`): a faulty plugin harms only itself.
    Used for the generator, graph backend and file-format tables (:func:`cached_table`).
    """
    impls = getattr(pm.hook, hook).get_hookimpls()  # registration order
    table: PluginTable[_T] = {}
    for impl in impls:
        others = [other.plugin for other in impls if other is not impl]
        try:
            found: PluginTable[_T] = {}
            for result in pm.subset_hook_caller(hook, others)():
                for obj in [result] if isinstance(result, kind) else result:
                    checked = check(obj, impl.plugin_name, {**table, **found})
                    found[checked.name] = (checked, impl.plugin_name)  # type: ignore[attr-defined]
        except Exception as exc:  # a faulty plugin harms only itself
            mark_broken(impl.plugin_name, failure_reason(hook, exc))
            continue
        table.update(found)
    return table


def _check_generator(gen: object, plugin: str, table: PluginTable[GeneratorSpec]) -> GeneratorSpec:
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
    return gen


def find_generator(method: object) -> tuple[GeneratorSpec, str]:
    """The registered generator called ``method`` and the name of its plugin.

    Names are case-insensitive (``"PO"`` finds ``"po"``). Raises
    :class:`~spdgraph.errors.UnknownMethodError` listing the known methods,
    with a "did you mean" for a near miss, when there is none.
    """
    table = generators()
    if not isinstance(method, str):
        raise UnknownMethodError(
            f"method must be a string naming a generator, got {type(method).__name__}; "
            f"known methods: {', '.join(sorted(table))}."
        )
    if method not in table:
        folded = {name.casefold(): name for name in table}
        if method.casefold() in folded:  # method names are case-insensitive ("PO" is "po")
            return table[folded[method.casefold()]]
        import difflib

        near = difflib.get_close_matches(method.casefold(), list(folded), n=1, cutoff=0.5)
        hint = f" Did you mean {folded[near[0]]!r}?" if near else ""
        skipped = {**_load_failures, **_broken}
        broken = "".join(f"; plugin {name!r} was skipped: {why}" for name, why in skipped.items())
        raise UnknownMethodError(
            f"unknown method {method!r};{hint} known methods: {', '.join(sorted(table))} "
            f"(plugins add more; see spdgraph.methods()){broken}."
        )
    return table[method]
