"""The ``spdgraph`` command line.

``spdgraph demo`` (also the default with no arguments) samples matrices on a
random graph with the built-in defaults and prints a summary;
``spdgraph methods`` lists the registered generators;
``spdgraph sample GRAPH -o out.nc`` samples matrices on a graph read from a
file (:func:`spdgraph.read_graph`) and saves them (in the file format the
suffix of ``-o`` or ``--format`` names: netCDF, Zarr, CSV or a plugin's; every
command that reads or writes an spdgraph array finds its format through the
format table of :mod:`spdgraph.io` only); ``spdgraph draw out.nc
--n-obs 200 -o data.nc`` draws Gaussian data from them; ``spdgraph info
out.nc`` summarises a file with diagnostics; ``spdgraph graph hub --p 100 -o
g.txt`` writes a graph of a family of :mod:`spdgraph.graphs`.

Each built-in subcommand is registered by a small ``_add_<name>_parser(sub)``
function listed in :data:`SUBCOMMANDS` (one module per command group:
``_basic``, ``_sample``, ``_info``, ``_graph``...). Plugins add their own subcommands through
the ``spdgraph_add_cli_commands`` hook (``spdgraph reproduce`` comes from the
spdgraph-reproduce distribution); the core names none of them. Errors of the
spdgraph hierarchy print one ``spdgraph: error: ...`` line and exit with status
2; nothing is left half-written. A closed output pipe (``spdgraph info x.nc |
head``) ends the command quietly.

:class:`Progress` is the progress bar the commands (and plugins' commands) use.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from spdgraph import __version__
from spdgraph.cli import _simulate, _study
from spdgraph.cli._basic import _add_demo_parser, _add_methods_parser, _add_warmup_parser
from spdgraph.cli._data import _add_draw_parser
from spdgraph.cli._graph import _add_graph_parser
from spdgraph.cli._info import _add_info_parser
from spdgraph.cli._options import plain_help
from spdgraph.cli._related import _add_related_parser
from spdgraph.cli._sample import _add_sample_parser
from spdgraph.cli._score import _add_score_parser
from spdgraph.errors import FileError, SpdgraphError

__all__ = ["SUBCOMMANDS", "Progress", "build_parser", "main"]

#: Built-in subcommand registrars, in help order; a new subcommand is a function
#: ``_add_<name>_parser(sub)`` (calling ``set_defaults(func=...)``) added here.
SUBCOMMANDS: list[Callable[[Any], None]] = [
    _add_demo_parser,
    _add_methods_parser,
    _add_sample_parser,
    _add_draw_parser,
    _add_info_parser,
    _add_related_parser,
    _add_score_parser,
    _add_graph_parser,
    _add_warmup_parser,
    _simulate._add_simulate_parser,
    _study._add_study_parser,
]


class _PluginSubparsers:
    """What a plugin's ``spdgraph_add_cli_commands`` gets as ``subparsers``: the real
    subparsers, except that a name (or alias) already taken is refused with a
    warning naming both, and the parsers it added can be taken back."""

    def __init__(self, sub: Any, plugin: str, owners: dict[str, str]) -> None:
        self._sub, self._plugin, self._owners = sub, plugin, owners
        self.added: list[str] = []

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        from spdgraph.plugins import mark_skipped

        names = [name, *kwargs.get("aliases", ())]
        taken = [n for n in names if n in self._sub.choices]
        if taken:
            owner = self._owners.get(taken[0], "spdgraph (built-in)")
            mark_skipped(
                self._plugin,
                f"its subcommand {taken[0]!r} would replace the one of {owner}; refused "
                "(rename the plugin's subcommand)",
            )
            return argparse.ArgumentParser(prog=f"spdgraph {name}", add_help=False)  # unused
        parser = self._sub.add_parser(name, **kwargs)
        self.added.extend(names)
        self._owners.update(dict.fromkeys(names, f"plugin {self._plugin!r}"))
        return parser

    def withdraw(self) -> None:
        """Remove every subcommand this plugin added (it failed half-way)."""
        for name in self.added:
            self._sub.choices.pop(name, None)
        self._sub._choices_actions[:] = [
            a for a in self._sub._choices_actions if a.dest not in self.added
        ]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sub, name)


def __getattr__(name: str) -> Any:
    """``Progress`` is imported on first use: ``spdgraph --help`` does not load sampling."""
    if name == "Progress":
        from spdgraph.sampling import Progress

        return Progress
    raise AttributeError(f"module 'spdgraph.cli' has no attribute {name!r}")


def _cli_plugin_manager() -> Any:
    """The plugin manager whose ``spdgraph_add_cli_commands`` hooks add subcommands.

    The cached manager when it is built (plugins registered or blocked at run
    time are in it); else a manager of the entry-point plugins only: no built-in
    plugin adds a subcommand, and building the full manager imports every
    built-in generator and file format (numba, scipy, xarray), which is what
    made ``spdgraph --help`` take seconds. The cached manager is built as usual
    when a command needs it (a plugin that fails to load warns once either way).
    """
    import pluggy

    from spdgraph.plugins import AUTOLOAD_ENV, cached_plugin_manager, hookspecs, load_entry_points

    built = cached_plugin_manager()
    if built is not None:
        return built
    pm = pluggy.PluginManager("spdgraph")
    pm.add_hookspecs(hookspecs)
    if not os.environ.get(AUTOLOAD_ENV):
        load_entry_points(pm)
    return pm


def _add_plugin_commands(sub: Any) -> None:
    """Let every plugin add its subcommands (``spdgraph_add_cli_commands``), in order.

    A plugin harms only itself: a subcommand name already taken (a built-in's or
    an earlier plugin's) is refused with a warning naming both, and a plugin whose
    hook raises is skipped (its half-added subcommands removed) with a warning;
    ``spdgraph methods`` lists it as broken.
    """
    from spdgraph.plugins import mark_skipped

    pm = _cli_plugin_manager()
    hook_name = "spdgraph_add_cli_commands"
    impls = pm.hook.spdgraph_add_cli_commands.get_hookimpls()  # registration order
    owners: dict[str, str] = {}
    for impl in impls:
        # one plugin at a time through pluggy, so that a clash names the plugin
        others = [other.plugin for other in impls if other is not impl]
        proxy = _PluginSubparsers(sub, impl.plugin_name, owners)
        try:
            pm.subset_hook_caller(hook_name, others)(subparsers=proxy)
        except Exception as exc:  # argparse.ArgumentError, a bug in the plugin
            proxy.withdraw()
            mark_skipped(
                impl.plugin_name,
                f"its spdgraph_add_cli_commands failed ({type(exc).__name__}: {exc}); "
                "its subcommands are not available",
            )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``spdgraph`` command, plugins' subcommands included."""
    parser = argparse.ArgumentParser(
        prog="spdgraph",
        description="Sample SPD covariance/precision matrices with an exact graph zero pattern.",
    )
    parser.add_argument("--version", action="version", version=f"spdgraph {__version__}")
    sub = parser.add_subparsers(dest="command")
    for register in SUBCOMMANDS:
        register(sub)
    for name, command in sub.choices.items():
        if name in WRITERS:
            command.add_argument(
                "--overwrite",
                action="store_true",
                help="replace an existing output (default: refuse to)",
            )
    _add_plugin_commands(sub)
    plain_help(parser)  # help texts built from docstrings: plain text, no reST roles
    return parser


#: Built-in commands whose -o/--output is refused when it exists, unless --overwrite
#: (the one place the command line refuses an existing output; the writers then
#: replace it through spdgraph.io's one door to disk).
WRITERS = ("sample", "draw", "related", "graph", "score", "simulate")


def _refuse_existing_output(args: argparse.Namespace) -> None:
    output = getattr(args, "output", None)
    if args.command not in WRITERS or not output or args.overwrite:
        return
    try:
        exists = Path(output).exists()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise FileError(
            f"cannot write {output!r}: {getattr(exc, 'strerror', None) or exc}."
        ) from exc
    if exists:
        raise FileError(
            f"{output!r} exists; pass --overwrite to replace it (or choose another output)."
        )


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (``| head``): stop quietly, as Unix tools do."""
    # later flushes of stdout (at exit) would fail again: point it at /dev/null
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real file descriptor (tests)
        pass
    finally:
        os.close(devnull)
    return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by it


def _exit_status(exc: SystemExit) -> int:
    """What Python makes of ``SystemExit(code)``, without the traceback a thread adds."""
    if exc.code is None or isinstance(exc.code, int):
        return int(exc.code or 0)
    print(f"spdgraph: error: {exc.code}", file=sys.stderr)  # sys.exit("message")
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``spdgraph`` console script; returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:  # answered before the plugins (and what they import) load
        print(f"spdgraph {__version__}")
        return 0
    try:
        parser = build_parser()
    except SpdgraphError as exc:  # a plugin's subcommands clash
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(arguments)
        if args.command is None:
            args = parser.parse_args(["demo"])
    except SystemExit as exc:  # --help, --version, or a usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except SpdgraphError as exc:  # an argument no machine can serve (TooLargeError)
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 2
    try:
        _refuse_existing_output(args)
        status = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except SystemExit as exc:  # plugin code ended the command: its status, no traceback
        return _exit_status(exc)
    except SpdgraphError as exc:
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("spdgraph: interrupted; nothing was written.", file=sys.stderr)
        from spdgraph.io import exit_now, writes_abandoned

        if writes_abandoned():  # nothing left to do: do not wait for it to wind down
            exit_now(130)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
