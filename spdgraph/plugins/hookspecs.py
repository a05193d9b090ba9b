"""Hook specifications: the contract between spdgraph and its plugins.

spdgraph's built-in adapters and generators are plugins themselves, registered
exactly as third-party plugins are. A plugin is a module (or any object) with
functions decorated by :data:`spdgraph.hookimpl` whose names match the hooks
below. Third-party plugins are found through the ``spdgraph`` entry point
group::

    [project.entry-points.spdgraph]
    myplugin = "my_package.spdgraph_plugin"

Set the environment variable ``SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD`` to any
non-empty value to skip entry-point loading (built-in plugins still load).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

from spdgraph.plugins.types import GeneratorSpec, GraphData

if TYPE_CHECKING:
    from spdgraph.io import FileFormat

__all__ = [
    "hookimpl",
    "hookspec",
    "spdgraph_adapt_dag",
    "spdgraph_adapt_graph",
    "spdgraph_add_cli_commands",
    "spdgraph_count_nodes",
    "spdgraph_file_formats",
    "spdgraph_register_generators",
]

#: Marker of spdgraph's hook specifications (used in this module only).
hookspec = pluggy.HookspecMarker("spdgraph")
#: Marker for plugin functions implementing a hook: ``@spdgraph.hookimpl``.
hookimpl = pluggy.HookimplMarker("spdgraph")


@hookspec(firstresult=True)
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Turn a graph object into a canonical adjacency plus node labels.

    Called for every graph given to :func:`spdgraph.sample`; the first
    implementation returning a non-None result wins. Implementations registered
    later (third-party plugins) are tried before the built-in ones, so a plugin
    can take over a type spdgraph already knows.

    An adapter that recognises the object but finds it invalid (directed,
    parallel edges, non-symmetric, NaN...) raises :class:`spdgraph.GraphError`
    with a message saying how to fix the input. Self-loops are ignored, never
    an error: the diagonal of a graph matrix is always non-zero. The core
    validates the result (square boolean symmetric adjacency, one unique label
    per node, at least one node). See the plugin author guide (docs/plugins.md).

    Parameters
    ----------
    graph
        Whatever the user passed as ``graph``.

    Returns
    -------
    GraphData or None
        A :class:`spdgraph.GraphData` when the adapter recognises the object,
        or ``None`` to let other adapters try.
    """


@hookspec(firstresult=True)
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Turn a directed acyclic graph object into a directed adjacency plus node labels.

    Called instead of :func:`spdgraph_adapt_graph` when the chosen method is
    DAG-capable (:attr:`spdgraph.Generator.accepts_dag`); the first
    implementation returning a non-None result wins. ``graph`` is what the
    user passed: a directed graph object (``networkx.DiGraph``, a directed
    ``igraph.Graph``) or a :class:`spdgraph.DAG` wrapping one or wrapping an
    adjacency array (an array is read as directed only when wrapped: unwrap
    ``graph.graph``). An undirected graph is not recognised (return None):
    the core then says which inputs a DAG method takes.

    Return a :class:`spdgraph.GraphData` whose ``directed`` is the boolean
    ``(p, p)`` array with ``directed[i, j]`` True for the edge ``i -> j`` and
    whose ``adjacency`` is its skeleton (``directed | directed.T``). The core
    checks it (square, boolean, no self-loop, acyclic, unique labels) and
    computes the zero pattern the requested ``kind`` has.

    Parameters
    ----------
    graph
        Whatever the user passed as ``graph``.

    Returns
    -------
    GraphData or None
        The directed graph, or ``None`` to let other adapters try.
    """


@hookspec(firstresult=True)
def spdgraph_count_nodes(graph: object) -> int | None:
    """Count the nodes of a graph object cheaply, without building its adjacency.

    Called before :func:`spdgraph_adapt_graph`, so that the core's memory
    guard can refuse a request that cannot fit (``TooLargeError``) before any
    ``p x p`` array is allocated. An adapter that recognises the object
    returns its number of nodes (e.g. ``graph.number_of_nodes()`` or
    ``matrix.shape[0]``), in time and memory far below ``p x p``; ``None``
    lets other implementations try. Invalid objects are left to
    :func:`spdgraph_adapt_graph` to report.

    Implementing it is optional: for an object no implementation counts, the
    core adapts the graph first and checks the memory right after (as before
    this hook existed), so a third-party adapter keeps working. The count must
    equal the number of nodes the adapter returns (checked).

    Parameters
    ----------
    graph
        Whatever the user passed as ``graph``.

    Returns
    -------
    int or None
        The number of nodes, or ``None`` when this implementation does not
        recognise the object.
    """


@hookspec
def spdgraph_register_generators() -> Sequence[GeneratorSpec]:
    """Register named generator strategies.

    Called through the plugin manager on every plugin when spdgraph first needs
    its generators, and again only after a plugin is registered or
    unregistered (the table is cached); each returns the
    :class:`spdgraph.Generator` objects it provides. Two plugins registering
    the same name is an error naming both. Users pick a generator by its name
    with ``spdgraph.sample(..., method=name)``: "method" is the word in calls,
    "generator" the plugin object behind it.

    The core validates every matrix a generator returns (shape, float64 dtype,
    finite values, exact symmetry, exact zeros on non-edges, positive
    definiteness by Cholesky) and raises :class:`spdgraph.GeneratorOutputError`
    naming the plugin when any check fails. Normalization to unit diagonal,
    labelling and provenance are done by the core, uniformly for all
    generators. See the plugin author guide (docs/plugins.md).

    Returns
    -------
    Sequence[GeneratorSpec]
        The :class:`spdgraph.Generator` objects this plugin provides.
    """


@hookspec
def spdgraph_add_cli_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add subcommands to the ``spdgraph`` command line.

    Called once each time the ``spdgraph`` command builds its argument parser,
    after the built-in subcommands (``demo``, ``methods``, ``sample``, ``draw``,
    ``info``) are added. An implementation adds its commands with
    ``subparsers.add_parser(name, help=...)`` and sets the handler with
    ``parser.set_defaults(func=handler)``; ``handler(args)`` returns the exit
    status. The core names none of its plugins' commands: ``spdgraph
    reproduce`` comes from the spdgraph-reproduce distribution this way.

    Keep the implementation light (argparse only) and import heavy modules in
    the handler, so that ``spdgraph --help`` stays fast. A handler raising a
    :class:`spdgraph.SpdgraphError` gets the core's treatment: one
    ``spdgraph: error: ...`` line on stderr and exit status 2. Adding a name
    that is already taken is an error of argparse (Python >= 3.11 raises
    ``argparse.ArgumentError``), reported as a :class:`spdgraph.PluginError`
    naming the plugin. See the plugin author guide (docs/plugins.md).

    Parameters
    ----------
    subparsers
        The object ``ArgumentParser.add_subparsers()`` returned for the
        ``spdgraph`` command.
    """


@hookspec
def spdgraph_file_formats() -> Sequence[FileFormat]:
    """Register file formats for :func:`spdgraph.save`, :func:`spdgraph.open` and the CLI.

    Called through the plugin manager on every plugin when spdgraph first needs
    its format table, and again only after a plugin is registered or
    unregistered; each returns the :class:`spdgraph.FileFormat` objects it
    provides (the built-in netCDF, Zarr and CSV formats come from this hook
    too). Saving picks the format whose ``suffixes`` hold the destination's
    suffix (or the one named by ``format=``/``--format``); opening asks each
    format's ``recognises(path)`` (content first), then the suffix. A name or
    suffix registered twice skips the later plugin with a
    :class:`spdgraph.PluginWarning`. See the plugin author guide
    (docs/plugins.md).

    Returns
    -------
    Sequence[FileFormat]
        The formats this plugin provides.
    """
