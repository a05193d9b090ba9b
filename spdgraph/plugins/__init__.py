"""Plugins: the pluggy manager, the hook specifications, the plugin record types.

Public (through :mod:`spdgraph`): ``get_plugin_manager``, ``reset_plugin_manager``,
``hookimpl``/``hookspec``, ``Generator`` (alias of ``GeneratorSpec``), ``OptionSpec``,
``GraphData``, ``DAG``, ``GraphBackend``. Internal interface: ``find_generator`` and
``generators`` (the cached generator table), ``mark_broken`` and ``failure_reason``
(a faulty plugin's record), ``plugin_table`` (a table of what every plugin's hook
returns, for generators and file formats), ``graph_backends``, ``graph_backend`` and
``find_backend`` (the cached graph backend table), ``DEFAULT_PLUGINS`` (the built-in
graph backends and generators under :mod:`spdgraph.plugins.builtin`, registered
exactly as third-party plugins are), ``check_options`` (:mod:`~spdgraph.plugins.options`).
"""

from spdgraph.plugins._manager import (
    AUTOLOAD_ENV,
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    broken_plugins,
    failure_reason,
    find_generator,
    generators,
    get_plugin_manager,
    load_entry_points,
    mark_broken,
    mark_skipped,
    plugin_table,
    reset_plugin_manager,
)
from spdgraph.plugins.backends import GraphBackend as GraphBackend  # spdgraph.GraphBackend
from spdgraph.plugins.backends import find_backend, graph_backend, graph_backends

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "broken_plugins",
    "failure_reason",
    "find_backend",
    "find_generator",
    "generators",
    "get_plugin_manager",
    "graph_backend",
    "graph_backends",
    "load_entry_points",
    "mark_broken",
    "mark_skipped",
    "plugin_table",
    "reset_plugin_manager",
]
