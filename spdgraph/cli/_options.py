"""Argument types shared by the ``spdgraph`` subcommands."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Callable, Mapping
from typing import Any

from spdgraph.errors import InvalidOptionError, SpdgraphError

#: A Sphinx role (``:func:`x```, ``:class:`~a.B```) or reST inline literal (````x````).
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``([^`]*)``")


def plain_text(text: str | None) -> str | None:
    """Help text without reST markup: roles become their target, literals their text.

    >>> plain_text("To a file (:func:`spdgraph.simulate`, :class:`~spdgraph.io.Format`), ``-o``.")
    'To a file (spdgraph.simulate, Format), -o.'
    """
    if not text:
        return text

    def role(match: re.Match[str]) -> str:
        target = match.group(1).strip()
        short = match.group(0).split("`")[1].startswith("~")
        return target.rsplit(".", 1)[-1] if short else target

    return _LITERAL.sub(r"\1", _ROLE.sub(role, text))


def plain_help(parser: argparse.ArgumentParser) -> None:
    """Strip reST markup from the texts of a parser and its subcommands (docstring help)."""
    parser.description = plain_text(parser.description)
    parser.epilog = plain_text(parser.epilog)
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain_text(choice.help)
            for sub in action.choices.values():
                plain_help(sub)


def _add_switch(parser: argparse.ArgumentParser, flag: str, *, default: bool, help: str) -> None:
    """A ``--flag`` / ``--no-flag`` pair (argparse's ``BooleanOptionalAction``)."""
    parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help)


#: Longest option value read as a Python literal (a longer one is refused, not parsed).
MAX_VALUE_CHARS = 10_000


def _literal(text: str) -> Any:
    """A Python literal (number, string, list, True/None...), else the text itself."""
    if len(text) > MAX_VALUE_CHARS:
        raise argparse.ArgumentTypeError(
            f"the value {text[:30]!r}... has {len(text):,} characters, more than the "
            f"{MAX_VALUE_CHARS:,} an option value may have; pass large inputs as files"
        )
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError):
        return text
    except (RecursionError, MemoryError):
        raise argparse.ArgumentTypeError(
            f"the value {text[:30]!r}... nests too deep to read; write it plainly"
        ) from None


def _key_value(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected key=value with a Python identifier as key, got {text!r}"
        )
    return key.strip(), _literal(value.strip())


def _non_negative_int(text: str) -> int:
    """A seed on the command line: any integer >= 0 (seeds have no 2**53 cap)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a non-negative integer, got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def count_argument(name: str, low: int = 1) -> Callable[[str], int]:
    """An argparse type: the text as an integer checked by :func:`spdgraph.vocabulary.check_count`.

    So ``--p 0`` is refused with the message ``p=0`` gets from the Python API.
    """

    def parse(text: str) -> int:
        from spdgraph.vocabulary import check_count

        value = _literal(text.strip())  # 2.5 and True are refused as the API refuses them
        try:
            return check_count(value, name, low)
        except InvalidOptionError as exc:  # a usage error; a TooLargeError is main's to report
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def vocabulary_argument(canonical: Callable[[object], str]) -> Callable[[str], str]:
    """An argparse type from a :mod:`spdgraph.vocabulary` canonicaliser (same spellings)."""

    def parse(text: str) -> str:
        try:
            return canonical(text)
        except SpdgraphError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = canonical.__name__
    return parse


def kind_argument(text: str) -> str:
    """``--kind``: :func:`spdgraph.vocabulary.canonical_kind` (any case, alias concentration)."""
    from spdgraph.vocabulary import canonical_kind

    return vocabulary_argument(canonical_kind)(text)


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


def _add_verify_option(parser: argparse.ArgumentParser) -> None:
    """``--no-verify``: open a spdgraph file whose digests were removed, unchecked."""
    parser.add_argument(
        "--no-verify",
        dest="no_verify",
        action="store_true",
        help="open input files without checking their digests (a file spdgraph wrote "
        "whose digests were removed is refused otherwise)",
    )


def _verify(args: argparse.Namespace) -> bool:
    """Whether to check the input files' digests (not ``--no-verify``)."""
    return not getattr(args, "no_verify", False)


def table_argument(name: str) -> Callable[[str], Any]:
    """An argparse type from the ``sample()`` parameter table: the text read as a Python
    literal, then checked by the table's row, so ``--max-redraws -1`` is refused with
    the message ``sample(max_redraws=-1)`` gets."""
    from spdgraph.parameters import SAMPLE_PARAMETERS

    def parse(text: str) -> Any:
        try:
            return SAMPLE_PARAMETERS[name].check(_literal(text.strip()))
        except InvalidOptionError as exc:  # a usage error; a TooLargeError is main's
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def add_sample_arguments(
    parser: argparse.ArgumentParser,
    *,
    skip: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """A ``--name`` argument for every row of :data:`spdgraph.parameters.SAMPLE_PARAMETERS`
    the command does not spell itself (``cli=False`` rows, ``skip``): a
    ``--name/--no-name`` switch for a boolean, else ``--name VALUE`` checked by
    :func:`table_argument`; help from the row's doc. ``defaults`` (by name) are
    set on the namespace; any other argument not given is absent from it
    (:func:`sample_arguments` then leaves it to ``sample``'s default).
    """
    from spdgraph.parameters import SAMPLE_PARAMETERS, Boolean

    for row in SAMPLE_PARAMETERS.values():
        if not row.cli or row.name in skip:
            continue
        default = (defaults or {}).get(row.name, argparse.SUPPRESS)
        shown = row.default if default is argparse.SUPPRESS else default
        flag, text = "--" + row.name.replace("_", "-"), f"{row.doc} (default {shown!r})"
        if isinstance(row.constraint, Boolean) and row.none is None:
            parser.add_argument(
                flag, dest=row.name, action=argparse.BooleanOptionalAction, default=default,
                help=text,
            )  # fmt: skip
        else:
            parser.add_argument(
                flag, dest=row.name, type=table_argument(row.name), default=default,
                metavar=row.name.upper(), help=f"{text}: {row.describe()}",
            )  # fmt: skip


def sample_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The ``sample()`` parameters :func:`add_sample_arguments` added, as given on the
    command line (or defaulted), by name."""
    from spdgraph.parameters import SAMPLE_PARAMETERS

    return {
        name: getattr(args, name)
        for name, row in SAMPLE_PARAMETERS.items()
        if row.cli and hasattr(args, name)
    }
