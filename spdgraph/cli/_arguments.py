"""Arguments several commands declare alike, each declared once: seed, output, counts, edits,
a dask scheduler, ``--resume`` of a block-wise save.

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
    "add_resume",
    "add_scheduler",
    "add_seed",
    "check_block_save",
    "check_resume",
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


def add_resume(parser: argparse.ArgumentParser) -> None:
    """``--resume``: finish an interrupted block-wise save (``save(..., resume=True)``)."""
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --chunks and a .zarr output: finish an interrupted save, writing only the "
        "blocks not yet written and verified (the same command, seed and chunks)",
    )


def check_resume(args: argparse.Namespace, fmt: Any) -> None:
    """Refuse ``--resume`` for an output not written block by block, before any work."""
    if not args.resume or fmt.writes_blocks:
        return
    from spdgraph.errors import InvalidOptionError
    from spdgraph.io import file_formats

    able = [f"{f.name} ({', '.join(f.suffixes)})" for f in file_formats().values()
            if f.writes_blocks]  # fmt: skip
    raise InvalidOptionError(
        f"--resume finishes a save written block by block, and {args.output!r} is a "
        f"{fmt.title} output, written whole; drop --resume or write to "
        f"{', '.join(able) or 'a format that writes blocks'}."
    )


def check_block_save(
    args: argparse.Namespace, p: int, n_obs: int, format_name: str, client: Any = None,
    matrices: int = 1,
) -> None:  # fmt: skip
    """``--chunks``: refuse, before any draw, a save whose blocks will not fit in memory.

    The save holds one block (``--chunks`` rows x ``p`` x 8 bytes per matrix) per
    thread computing them (:func:`spdgraph.io.save_need` with ``block=`` and
    ``threads=``): the local scheduler's, or the ``client``'s workers' (a
    LocalCluster's share this machine), whatever the size of the whole data.
    """
    from spdgraph.errors import TooLargeError
    from spdgraph.io import save_need
    from spdgraph.sampling import available_memory

    rows = min(int(args.chunks), max(int(n_obs), 1))
    block = 8 * matrices * rows * p
    threads = None if client is None else sum(client.nthreads().values()) or None
    need = save_need(8 * matrices * n_obs * p, format_name, block=block, threads=threads)
    available = available_memory()
    if available is None or need <= available:
        return
    raise TooLargeError(
        f"saving blocks of --chunks {args.chunks:,} rows of {p:,} nodes "
        f"({block / 2**30:,.2f} GiB each, one per thread) as {format_name} to "
        f"{args.output!r} needs about {need / 2**30:,.1f} GiB while it writes, but only "
        f"{available / 2**30:,.1f} GiB of memory is available; nothing was drawn. Give a "
        "smaller --chunks."
    )
