"""Plugins: the pluggy manager, the hook specifications, the plugin record types.

Public (through :mod:`spdgraph`): ``get_plugin_manager``, ``reset_plugin_manager``,
``hookimpl``/``hookspec``, ``Generator`` (alias of ``GeneratorSpec``), ``OptionSpec``,
``GraphData``, ``DAG``. Internal interface: ``find_generator`` and ``generators``
(the cached generator table), ``DEFAULT_PLUGINS`` (the built-in adapters and
generators under :mod:`spdgraph.plugins.builtin`, registered exactly as third-party
plugins are), ``check_options`` (:mod:`~spdgraph.plugins.options`).
"""

from spdgraph.plugins._manager import (
    AUTOLOAD_ENV,
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    broken_plugins,
    find_generator,
    generators,
    get_plugin_manager,
    load_entry_points,
    mark_broken,
    mark_skipped,
    reset_plugin_manager,
)

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "broken_plugins",
    "find_generator",
    "generators",
    "get_plugin_manager",
    "load_entry_points",
    "mark_broken",
    "mark_skipped",
    "reset_plugin_manager",
]
