"""spdgraph plugin of spdgraph-reproduce: adds ``spdgraph reproduce`` to the command line.

Registered through the ``spdgraph`` entry point group; it implements only
``spdgraph_add_cli_commands`` and imports nothing heavy (argparse only), so
loading it costs ``spdgraph.sample`` nothing.
"""

from __future__ import annotations

import argparse

from spdgraph import hookimpl


@hookimpl
def spdgraph_add_cli_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add ``spdgraph reproduce``."""
    from spdgraph_reproduce.cli import add_reproduce_parser

    add_reproduce_parser(subparsers)
