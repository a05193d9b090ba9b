"""``spdgraph sample``: sample matrices on a graph file and save them in any file format.

The progress bar is :class:`spdgraph.sampling._progress.Progress`, shown only on a
terminal and after :data:`spdgraph.sampling.PROGRESS_DELAY` seconds.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from spdgraph.cli._arguments import add_scheduler, scheduler_session
from spdgraph.cli._graph import _add_graph_family_options, _graph_argument
from spdgraph.cli._options import (
    _add_format_option,
    _key_value,
    _non_negative_int,
    _output_format,
    add_sample_arguments,
    sample_arguments,
)
from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.parameters import SAMPLE_PARAMETERS, sample_defaults

#: With ``--scheduler`` but no ``--chunks``, the run is split into about this many chunks.
SCHEDULER_CHUNK_COUNT = 50

#: An in-memory run of at least this many matrices on a terminal prints a hint
#: about ``--chunks`` (which gives a progress bar and bounded memory).
LARGE_RUN = 1000


def _stderr_is_tty() -> bool:
    from spdgraph.sampling import stderr_is_tty

    return stderr_is_tty()


def _compute(delayed: Any, *, client: Any, progress: bool, desc: str) -> None:
    """Run a dask delayed object (a lazy write) with a progress bar where possible."""
    from spdgraph.sampling import PROGRESS_DELAY, Progress

    bar = Progress(desc, enabled=progress, delay=PROGRESS_DELAY)
    try:
        if client is not None:
            future = client.compute(delayed)
            if bar.enabled:
                _distributed_progress(future, bar)
            future.result()
        else:
            import dask
            from dask.callbacks import Callback

            class _Progress(Callback):
                def _start_state(self, dsk: Any, state: Any) -> None:
                    total = sum(len(state[k]) for k in ("ready", "waiting", "running"))
                    bar.set(len(state["finished"]), total + len(state["finished"]))

                def _posttask(self, *args: Any) -> None:
                    bar.update()

            with _Progress():
                dask.compute(delayed)
    finally:
        bar.close()


def _distributed_progress(future: Any, bar: Any) -> None:
    """Drive ``bar`` from the scheduler's progress reports until ``future`` is done."""
    from distributed.diagnostics.progressbar import TextProgressBar

    class _Progress(TextProgressBar):
        def _draw_bar(self, remaining: int, all: int, **kwargs: Any) -> None:
            bar.set(all - remaining, all)

        def _draw_stop(self, **kwargs: Any) -> None:
            pass

    _Progress([future], scheduler=future.client.scheduler.address)


def _save_output(da: Any, output: str, *, client: Any, args: argparse.Namespace) -> None:
    from spdgraph import io

    progress = not args.no_progress and _stderr_is_tty()

    def compute(delayed: Any) -> None:
        _compute(delayed, client=client, progress=progress, desc=f"writing {output}")

    io.write_array(da, output, compute=compute, format=_output_format(args))


def _takes_dag(method: str) -> bool:
    """Whether ``method`` is DAG-capable: its graph file is then read as directed."""
    from spdgraph.errors import UnknownMethodError
    from spdgraph.plugins import find_generator

    try:
        return find_generator(method)[0].accepts_dag
    except UnknownMethodError:
        return False  # spdgraph.sample reports it


def _check_family_memory(args: argparse.Namespace) -> None:
    """``--graph-family``: the sampling memory guard from its ``p``, before the graph is made."""
    if args.graph_family is None:
        return
    p = dict(args.graph_option or []).get("p")
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        return  # the family's own checks name the problem
    from spdgraph.sampling import check_need

    table = sample_arguments(args)
    names = ("size", "chunks", "normalize", "min_eigenvalue", "condition_number")
    check_need(p, args.method, **{name: table[name] for name in names})


def refuse_flag_options(options: Mapping[str, object], flags: Iterable[str]) -> None:
    """Refuse an ``--option NAME=...`` whose NAME is one of ``flags`` (it has its own flag).

    The one check of ``spdgraph sample`` and ``spdgraph simulate``: each passes the
    names of the ``sample()`` parameters it gives flags to. The first such name, in
    sorted order, is named in the :class:`InvalidOptionError`.
    """
    clash = sorted(set(options) & set(flags))
    if clash:
        raise InvalidOptionError(
            f"--option {clash[0]}=... names a sample parameter; use its own flag "
            f"(--{clash[0].replace('_', '-')}) instead."
        )


def _cmd_sample(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph import io

    io.check_writable(args.output, format=_output_format(args))  # before any heavy work
    if not args.sparse:  # the sparse path has its own guard, on the non-zeros
        _check_family_memory(args)
    graph = _graph_argument(args, directed=_takes_dag(args.method))
    factor = None
    if args.factor is not None:
        factor_path = Path(args.factor)
        if factor_path.suffix.lower() != ".npy" or not factor_path.is_file():
            raise FileError(f"--factor must be an existing .npy file, got {args.factor!r}.")
        from spdgraph.plugins.graph_files import load_npy

        try:
            factor = load_npy(factor_path, "factor file")  # its header checked first
        except (OSError, ValueError) as exc:
            raise FileError(f"cannot read factor file {args.factor!r} ({exc}).") from exc
    options = dict(args.option or [])
    table = sample_arguments(args)  # every sample() parameter, built from the table
    refuse_flag_options(options, {"method", "graph", *SAMPLE_PARAMETERS})
    n = table["size"] if table["size"] is not None else 1
    if table["chunks"] is None and args.scheduler:
        table["chunks"] = max(1, math.ceil(n / SCHEDULER_CHUNK_COUNT))
    if table["chunks"] is None and n >= LARGE_RUN and not args.no_progress and _stderr_is_tty():
        print(
            f"spdgraph: sampling {n} matrices in memory; pass --chunks N for bounded memory.",
            file=sys.stderr,
        )
    with scheduler_session(args) as client:  # checked, connected, closed afterwards
        table.update(seed=args.seed, entries=args.entries, factor=factor)
        table["progress"] = False if args.no_progress or table["chunks"] is not None else None
        da = spdgraph.sample(graph, method=args.method, **table, **options)
        _save_output(da, args.output, client=client, args=args)
    count = da.sizes.get("sample", 1)
    print(
        f"wrote {count} {da.name} matri{'x' if table['size'] is None else 'ces'} "
        f"({da.sizes['node']} nodes, method {da.attrs['method']}, seed {da.attrs['seed']}) "
        f"to {args.output}"
    )
    return 0


def _add_sample_parser(sub: Any) -> None:
    sample = sub.add_parser(
        "sample",
        help="sample matrices on a graph read from a file and save them (.nc, .zarr, .csv...)",
        description=(
            "Sample SPD matrices whose zeros are exactly the non-edges of GRAPH and save "
            "them with their graph and provenance. GRAPH is an edge list (text: one 'u v' "
            "per line), GraphML (.graphml), GML (.gml), or an adjacency matrix (.npy, "
            ".csv); or, instead of GRAPH, --graph-family NAME --graph-option p=P makes it."
        ),
    )
    sample.add_argument("graph", metavar="GRAPH", nargs="?", help="graph file")
    _add_graph_family_options(sample)
    sample.add_argument(
        "-o",
        "--output",
        required=True,
        help="output: a .nc (netCDF) file, a .zarr (Zarr) store, a .csv table (a folder of "
        "CSV tables for a stack), or any registered format's suffix",
    )
    _add_format_option(sample)
    sample.add_argument("-m", "--method", default="po", help="generator (default po)")
    sample.add_argument(
        "--seed",
        type=_non_negative_int,
        default=None,
        help="seed (default: fresh entropy, recorded in the file)",
    )
    sample.add_argument(
        "--entries",
        default="normal",
        choices=["normal", "uniform"],
        help="distribution of the random entries (default normal)",
    )
    sample.add_argument("--factor", metavar="FILE.npy", help="explicit initial factor(s) (po)")
    sample.add_argument(
        "--option",
        metavar="KEY=VALUE",
        action="append",
        type=_key_value,
        help="method option, VALUE a Python literal (repeatable), e.g. "
        "--option residual_tolerance=1e-6",
    )
    # --size, --kind, --normalize, --chunks, --sparse, ...: one per row of the table
    add_sample_arguments(sample, defaults=sample_defaults())
    _add_execution_options(sample)
    sample.set_defaults(func=_cmd_sample)


def _add_execution_options(sample: argparse.ArgumentParser) -> None:
    """Where and how the matrices are computed: a scheduler (with about
    :data:`SCHEDULER_CHUNK_COUNT` chunks when ``--chunks`` is not given), progress."""
    add_scheduler(sample, "the chunks")
    sample.add_argument("--no-progress", action="store_true", help="never show a progress bar")
