"""Arguments several commands declare alike, each declared once: seed, output, counts, edits,
a dask scheduler.

The types are :mod:`spdgraph.cli._options`' (a count is checked by
:func:`spdgraph.vocabulary.check_count`, so ``--p 0`` is refused with the
Python API's message); here only how a command adds them.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from spdgraph.cli._options import _non_negative_int, count_argument

__all__ = [
    "add_count",
    "add_edits",
    "add_output",
    "add_scheduler",
    "add_seed",
    "report_written",
    "scheduler_session",
    "seconds",
]


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


def seconds(text: str) -> float:
    """A positive, finite number of seconds (an argparse type)."""
    try:
        value = float(text[:40])
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, got {text[:40]!r}"
        )
    return value


def add_scheduler(parser: argparse.ArgumentParser, what: str) -> None:
    """``--scheduler ADDRESS|local`` and ``--scheduler-timeout SECONDS``: where ``what`` runs."""
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help=f"compute {what} on a dask scheduler: its address (tcp://host:8786), or 'local' "
        "(a LocalCluster on this machine)",
    )
    parser.add_argument(
        "--scheduler-timeout",
        type=seconds,
        default=10.0,
        help="seconds to reach the scheduler and hear its whole greeting (default 10)",
    )


@contextlib.contextmanager
def scheduler_session(args: argparse.Namespace) -> Iterator[Any]:
    """The command's ``distributed.Client`` while it runs (None without ``--scheduler``):
    :func:`spdgraph.study.scheduler_client`, checked and closed afterwards."""
    if args.scheduler is None:
        yield None
        return
    from spdgraph.study import scheduler_client

    with scheduler_client(args.scheduler, timeout=args.scheduler_timeout) as client:
        yield client
