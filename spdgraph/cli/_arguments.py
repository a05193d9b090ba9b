"""Arguments several commands declare alike, each declared once: seed, output, counts, edits.

The types are :mod:`spdgraph.cli._options`' (a count is checked by
:func:`spdgraph.vocabulary.check_count`, so ``--p 0`` is refused with the
Python API's message); here only how a command adds them.
"""

from __future__ import annotations

import argparse

from spdgraph.cli._options import _non_negative_int, count_argument

__all__ = ["add_count", "add_edits", "add_output", "add_seed", "report_written"]


def add_seed(parser: argparse.ArgumentParser, help: str = "seed") -> None:
    """``--seed S``: any integer >= 0, default None (a fresh seed)."""
    parser.add_argument("--seed", type=_non_negative_int, default=None, help=help)


def add_output(parser: argparse.ArgumentParser, help: str) -> None:
    """``-o/--output PATH``, required (refused without ``--overwrite`` when it exists)."""
    parser.add_argument("-o", "--output", required=True, help=help)


def add_count(
    parser: argparse.ArgumentParser,
    *flags: str,
    help: str,
    low: int = 1,
    default: int | None = None,
    required: bool = False,
) -> None:
    """A count option (``--p``, ``-k/--n-graphs``...), named in messages by its long flag."""
    name = flags[-1].lstrip("-").replace("-", "_")
    parser.add_argument(
        *flags, type=count_argument(name, low=low), default=default, required=required, help=help
    )


def add_edits(parser: argparse.ArgumentParser, per: str) -> None:
    """``--n-add`` and ``--n-remove``: edges added and removed ``per`` related graph or step."""
    add_count(parser, "--n-add", low=0, default=0, help=f"edges added {per}")
    add_count(parser, "--n-remove", low=0, default=0, help=f"edges removed {per}")


def report_written(what: str, output: object) -> int:
    """Say what a command wrote, as every writing command says it, and exit 0.

    >>> report_written("3 graphs", "g.nc")
    wrote 3 graphs to g.nc
    0
    """
    print(f"wrote {what} to {output}")
    return 0
