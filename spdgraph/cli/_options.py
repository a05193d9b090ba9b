"""Argument types shared by the ``spdgraph`` subcommands."""

from __future__ import annotations

import argparse
import ast
from typing import Any


def _add_switch(parser: argparse.ArgumentParser, flag: str, *, default: bool, help: str) -> None:
    """A ``--flag`` / ``--no-flag`` pair (argparse's ``BooleanOptionalAction``)."""
    parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help)


def _literal(text: str) -> Any:
    """A Python literal (number, string, list, True/None...), else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _key_value(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected key=value with a Python identifier as key, got {text!r}"
        )
    return key.strip(), _literal(value.strip())


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a non-negative integer, got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _add_format_option(parser: argparse.ArgumentParser, what: str = "the output") -> None:
    """``--format NAME``: the file format of ``-o`` when its suffix names none."""
    parser.add_argument(
        "--format",
        metavar="NAME",
        default="auto",
        help=f"file format of {what}: 'auto' (default: from the suffix, e.g. .nc, .zarr, "
        ".csv) or the name of a registered format (netcdf, zarr, csv, or a plugin's; "
        "csv writes a .csv file for one table, a folder of CSV tables for a stack)",
    )


def _output_format(args: argparse.Namespace) -> str | None:
    """The format named by ``--format`` (None for ``auto``: from the suffix)."""
    name = getattr(args, "format", None)
    return None if name in (None, "auto") else str(name)
