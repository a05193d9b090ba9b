"""Hook specifications: the contract between spdgraph and its plugins.

spdgraph's built-in graph backends and generators are plugins themselves, registered
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
from collections.abc import Callable, Sequence
from typing import TypeVar

import pluggy

from spdgraph.plugins.formats import FileFormat
from spdgraph.plugins.learners import LearnerKind
from spdgraph.plugins.types import GeneratorSpec, GraphBackend

__all__ = [
    "hookimpl",
    "hookspec",
    "offering",
    "spdgraph_add_cli_commands",
    "spdgraph_file_formats",
    "spdgraph_graph_backends",
    "spdgraph_learner_kinds",
    "spdgraph_register_generators",
]

#: Marker of spdgraph's hook specifications (used in this module only).
hookspec = pluggy.HookspecMarker("spdgraph")
#: Marker for plugin functions implementing a hook: ``@spdgraph.hookimpl``.
hookimpl = pluggy.HookimplMarker("spdgraph")

_T = TypeVar("_T")


def offering(*items: _T, trylast: bool = False) -> Callable[[], list[_T]]:
    """A hook implementation that returns ``items``: a plugin module offering fixed objects.

    The built-in graph backends and file formats each offer one object; the
    module binds the result to the hook's name, which is how pluggy finds it,
    exactly as if the function had been written with ``@hookimpl``::

        spdgraph_graph_backends = offering(BACKEND)

    ``trylast=True`` is ``@hookimpl(trylast=True)``: asked after the others.

    Examples
    --------
    >>> hook = offering("a", "b")
    >>> hook(), hook.spdgraph_impl["trylast"]
    (['a', 'b'], False)
    """

    def implementation() -> list[_T]:
        return list(items)

    names = ", ".join(repr(getattr(item, "name", item)) for item in items)
    implementation.__doc__ = f"Offer {names}."
    return hookimpl(trylast=trylast)(implementation)


@hookspec
def spdgraph_graph_backends() -> Sequence[GraphBackend]:
    """Register graph backends: the graph types a plugin teaches spdgraph, both ways.

    Called through the plugin manager on every plugin when spdgraph first
    needs its backends, and again only after a plugin is registered or
    unregistered (the table is cached); each returns the
    :class:`spdgraph.GraphBackend` objects it provides, one per graph library
    (``name``, ``recognises``, ``to_graph``, optional ``count_nodes`` and
    ``from_graph``). For every graph given to :func:`spdgraph.sample` the core
    asks the backends in turn, those of plugins registered later first (so a
    plugin can take over a type spdgraph knows), which one ``recognises`` it,
    and uses that one alone: ``count_nodes`` for the memory guard before any
    ``p x p`` array exists, ``to_graph`` for the graph (checked by the core).
    ``da.spd.graph(name)`` builds the graph back with ``from_graph`` of the
    backend called ``name``. Two plugins registering the same name is an
    error naming both. See the plugin author guide (docs/plugins.md).

    Returns
    -------
    Sequence[GraphBackend]
        The :class:`spdgraph.GraphBackend` objects this plugin provides.
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
    format's ``recognises(path)`` (content first), then the suffix. What a
    format holds is on its record, never read from its name: Datasets
    (``save_dataset``, ``variables`` and ``open_dataset``, for simulations and
    a study's results), sparse arrays (``holds_sparse``), digests kept in its
    attrs (``keeps_digests``). A name or suffix registered twice skips the
    later plugin with a :class:`spdgraph.PluginWarning`. See the plugin author
    guide (docs/plugins.md).

    Returns
    -------
    Sequence[FileFormat]
        The formats this plugin provides.
    """


@hookspec
def spdgraph_learner_kinds() -> Sequence[LearnerKind]:
    """Register learner kinds: the ways a study's ``[[learners]]`` entry can give a learner.

    Called through the plugin manager on every plugin when a study first needs
    its learner kinds, and again only after a plugin is registered or
    unregistered (the table is cached); each returns the
    :class:`spdgraph.plugins.learners.LearnerKind` objects it provides. The
    built-in kinds (``function``, ``estimator``, ``r``, ``command`` and the
    learners built into spdgraph, chosen by ``name`` alone) come from this
    hook too (``spdgraph.study._kinds``). A study picks a learner's kind by
    the one kind key its entry holds (``julia = "..."`` selects the kind
    whose ``key`` is ``"julia"``), calls the kind's ``check`` when it loads the
    study and its ``fit`` in every cell; failures, warnings, timing records,
    selection recognition and scoring are the study's, the same for every
    kind. A kind name or key registered twice skips the later plugin with a
    :class:`spdgraph.PluginWarning`. See docs/architecture.md, "A learner kind".

    Returns
    -------
    Sequence[LearnerKind]
        The learner kinds this plugin provides.
    """
