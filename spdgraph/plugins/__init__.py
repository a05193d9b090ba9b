"""Plugins: the pluggy manager, the hook specifications, the plugin record types.

Public (through :mod:`spdgraph`): ``get_plugin_manager``, ``reset_plugin_manager``,
``hookimpl``/``hookspec``, ``Generator`` (alias of ``GeneratorSpec``), ``OptionSpec``,
``GraphData``, ``DAG``, ``GraphBackend``. Internal interface: ``find_generator`` and
``generators`` (the cached generator table), ``mark_broken`` and ``failure_reason``
(a faulty plugin's record), ``plugin_table`` (a table of what every plugin's hook
returns) and ``cached_table`` (the one cache every such table is kept in: generators,
graph backends, file formats), ``graph_backends``, ``graph_backend`` and
``find_backend`` (the graph backend table), :class:`~spdgraph.plugins.formats.FileFormat`
(the file-format record; ``spdgraph.io.file_formats`` is its table),
``read_graph`` and ``count_graph_file`` (graph files, :mod:`~spdgraph.plugins.graph_files`,
read by the built-in path backend and public as ``spdgraph.read_graph``),
``DEFAULT_PLUGINS`` (the built-in graph backends and generators under
``spdgraph.plugins._builtin`` and the built-in file formats of :mod:`spdgraph.io`,
registered exactly as third-party plugins are), ``check_options``
(:mod:`~spdgraph.plugins.options`).
"""

from spdgraph.plugins._manager import (
    AUTOLOAD_ENV,
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    SpdgraphPluginManager,
    broken_plugins,
    cached_table,
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
from spdgraph.plugins.backends import find_backend, graph_backend, graph_backends
from spdgraph.plugins.graph_files import count_graph_file, read_graph
from spdgraph.plugins.types import GraphBackend as GraphBackend  # spdgraph.GraphBackend

__all__ = [
    "AUTOLOAD_ENV",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "broken_plugins",
    "cached_plugin_manager",
    "cached_table",
    "count_graph_file",
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
    "read_graph",
    "reset_plugin_manager",
]


def cached_plugin_manager() -> SpdgraphPluginManager | None:
    """The plugin manager :func:`get_plugin_manager` has built, or None (builds nothing).

    The command line reads it to list plugins' subcommands without loading every
    built-in plugin when no manager exists yet.
    """
    from spdgraph.plugins import _manager

    return _manager._manager
