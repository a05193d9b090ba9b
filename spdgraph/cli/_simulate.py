"""``spdgraph simulate hub --p 50 --n 100 -o sim.nc``: :func:`spdgraph.simulate` to a file.

GRAPH (positional, as for ``spdgraph graph``, or ``--graph``) is a family name of
R huge/BDgraph (``random``, ``hub``, ``cluster``, ``band``, ``scale-free``,
``smallworld``, ``circle``, ``star``, ``lattice``, ``AR(1)``, ``AR(2)``) with
``--p``, or a graph file (:func:`spdgraph.read_graph`). The parameters of
:func:`spdgraph.sample` have
their own flags, built from its table (``--normalize``, ``--max-redraws``...);
family, method and data options are repeatable ``--option KEY=VALUE`` (Python
literals: ``--option g=4 --option v=0.3``).
The output's suffix picks the format among the registered ones that hold a
Dataset (``.nc`` netCDF, ``.zarr``, a plugin's), ``--format NAME`` names one,
and any other path is a folder of CSV files
(:func:`spdgraph.simulation.save_simulation`). An existing output is refused
unless ``--overwrite``, as for every command that writes. ``--sparse`` is
``simulate(..., sparse=True)``: the precision stays sparse (``dd``, ``huge``,
``gwishart`` on a chordal graph; graphs of a million nodes) and is written as
coordinate triplets with their digests, so only ``.nc`` and ``.zarr`` outputs
are accepted (checked before any work). With ``--sparse``, ``--chunks N`` draws
the data in blocks of N rows from the one factorization (the same bits), computed
and written block by block (a ``.zarr`` output for data larger than memory), and
``--scheduler ADDRESS|local`` computes the blocks on a dask cluster; ``--resume``
finishes an interrupted ``.zarr`` save, drawing only the blocks not yet written
(the same command: seed and chunks). Uses the public API only.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from spdgraph.cli._arguments import (
    add_count,
    add_resume,
    add_scheduler,
    check_block_save,
    check_resume,
    scheduler_session,
)
from spdgraph.cli._options import (
    _add_format_option,
    _key_value,
    _non_negative_int,
    _output_format,
    add_sample_arguments,
    count_argument,
    sample_arguments,
)
from spdgraph.cli._sample import refuse_flag_options

__all__: list[str] = []


def _check_sparse_output(output: Path, format: str | None) -> None:
    """``--sparse``: a netCDF or Zarr output (the triplets' formats), before any work."""
    from spdgraph.io import check_dataset_format, check_sparse_format, file_formats

    # save_simulation: any path without a registered Dataset format's suffix is a CSV folder
    suffixes = {s for f in file_formats().values() if f.holds_datasets for s in f.suffixes}
    unnamed = format is None and output.suffix.lower() not in suffixes
    fmt = check_dataset_format(output, "csv" if unnamed else format)
    check_sparse_format(fmt, "--sparse writes the precision sparse (sample(..., sparse=True))")


def _nodes(graph: Any, p: int | None) -> int | None:
    """The nodes of GRAPH: ``--p`` for a family, else the graph file's (an array or a graph)."""
    if isinstance(graph, str):
        return p
    return int(graph.shape[0]) if hasattr(graph, "shape") else len(graph)


def _graph_argument(args: argparse.Namespace) -> str:
    """GRAPH, positional as for ``spdgraph graph``, or ``--graph`` (both: the same)."""
    from spdgraph.errors import InvalidOptionError

    given = {value for value in (args.family, args.graph) if value is not None}
    if len(given) > 1:
        raise InvalidOptionError(
            f"the graph is given twice, differently: {args.family!r} (GRAPH) and "
            f"--graph {args.graph!r}; give it once."
        )
    if not given:
        raise InvalidOptionError(
            "spdgraph simulate needs a graph: a family name (spdgraph simulate hub --p 50 ...) "
            "or a graph file."
        )
    return given.pop()


def _cmd_simulate(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph.errors import InvalidOptionError
    from spdgraph.simulation import canonical_family, check_simulation_target, save_simulation

    output = Path(args.output)
    named = spdgraph.io.file_formats().get(args.format or "")
    other = next((f for f in spdgraph.io.file_formats().values()
                  if output.suffix.lower() in f.suffixes), None)  # fmt: skip
    if named is not None and other is not None and other.name != named.name:
        raise InvalidOptionError(
            f"--format {named.name} writes {named.title}; {args.output!r} names a "
            f"{other.title} output. Drop --format or change the suffix."
        )
    if args.sparse:  # before any work
        _check_sparse_output(output, _output_format(args))
    elif args.chunks is not None:
        raise InvalidOptionError(
            "--chunks draws the data of a --sparse simulation in blocks; a dense simulation "
            "is made in memory: add --sparse, or drop --chunks."
        )
    fmt = check_simulation_target(output, args.overwrite, _output_format(args))  # before work
    check_resume(args, fmt)
    graph: Any = _graph_argument(args)
    try:
        canonical_family(graph)
    except InvalidOptionError as exc:
        if not Path(graph).exists():
            raise InvalidOptionError(f"{exc} No graph file {graph!r} exists either.") from None
        graph = spdgraph.read_graph(graph)
    options = dict(args.option or [])
    table = sample_arguments(args)  # the sample() parameters, built from the table
    refuse_flag_options(options, table)  # --kind, --size, --sparse or a flag given
    options.update({k: v for k, v in table.items() if k not in ("kind", "size", "sparse")})
    related = None
    if args.groups:
        related = {"n_graphs": args.groups, "n_add": args.n_add, "n_remove": args.n_remove}
    if args.chunks is not None:
        options["chunks"] = args.chunks  # the data's rows per block (--sparse)
    with scheduler_session(args) as client:  # the data's blocks are computed on its workers
        p = _nodes(graph, args.p)
        if args.chunks is not None and p is not None:  # a block per thread, not the whole data
            check_block_save(args, p, args.n, fmt.name, client)
        sim = spdgraph.simulate(
            graph, args.n, p=args.p, method=args.method, kind=table["kind"], data=args.data,
            missing=args.missing, size=table["size"], related=related, seed=args.seed,
            sparse=table["sparse"], **options,
        )  # fmt: skip
        # an existing output was refused without --overwrite before any work (cli.WRITERS)
        path = save_simulation(
            sim, output, overwrite=True, format=_output_format(args), resume=args.resume
        )
    print(
        f"wrote {path}: {sim.attrs['graph_family']} graph, p = {sim.attrs['p']}, "
        f"{sim.attrs['n_edges']} edges, n = {sim.attrs['n']}, seed = {sim.attrs['seed']}"
    )
    return 0


def _add_simulate_parser(sub: Any) -> None:
    """Register ``spdgraph simulate``."""
    cmd = sub.add_parser(
        "simulate",
        help="graph + precision + covariance + data in one file (as huge.generator, bdgraph.sim)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    cmd.add_argument(
        "family",
        nargs="?",
        metavar="GRAPH",
        help="a family name (hub, AR(1)...) or a graph file, as for spdgraph graph",
    )
    cmd.add_argument("--graph", help="the same as GRAPH (either one; both must agree)")
    cmd.add_argument(
        "--p", type=count_argument("p"), default=None, help="number of nodes (with a family)"
    )
    cmd.add_argument(
        "--n",
        type=count_argument("n", low=0),
        default=0,
        help="number of observations (default 0)",
    )
    cmd.add_argument("--method", default="po", help="generator (default po; huge, gwishart...)")
    cmd.add_argument("--data", default="gaussian", help="gaussian, binary, mixed, t(df=5)...")
    cmd.add_argument("--missing", type=float, default=0.0, help="MCAR rate of missing values")
    for name, text in (  # the related graphs: counts, 0 by default (none)
        ("groups", "K related graphs (group dim)"),
        ("n_add", "edges added per related graph"),
        ("n_remove", "edges removed per related graph"),
    ):
        flag = "--" + name.replace("_", "-")
        cmd.add_argument(flag, type=count_argument(name, low=0), default=0, help=text)
    cmd.add_argument(
        "--seed", type=_non_negative_int, default=None, help="root seed (default: fresh)"
    )
    cmd.add_argument(
        "--option", type=_key_value, action="append", metavar="KEY=VALUE", help="repeatable"
    )
    # --kind, --size, --sparse, --normalize, ...: one per row of sample()'s table
    add_sample_arguments(
        cmd,
        skip=("chunks",),  # the matrices are made in memory; --chunks is the data's
        defaults={"kind": "precision", "size": None, "sparse": False},
    )
    add_count(
        cmd, "--chunks", help="with --sparse: the data's rows per block, drawn and written "
        "block by block (the same bits; a .zarr output for data larger than memory)",
    )  # fmt: skip
    add_scheduler(cmd, "the data's blocks")
    add_resume(cmd)
    _add_format_option(cmd, "the simulation (a format that holds Datasets)")
    cmd.add_argument(
        "-o",
        "--output",
        required=True,
        help=".nc, .zarr, a plugin's suffix or a CSV folder",
    )
    cmd.set_defaults(func=_cmd_simulate)
