"""``spdgraph related``: K related graphs from a base graph, sampled into one file (``group``).

``spdgraph related BASE -k 3 --n-add 2 --n-remove 1 --seed 0 -o groups.nc`` makes
the graphs with :func:`spdgraph.graphs.related_graphs`, samples one matrix (or
``--size`` matrices) per graph with :func:`spdgraph.sample` and saves the array
with its ``group`` dimension (in any registered file format, from the suffix of ``-o``
or ``--format``); ``--graphs-dir DIR`` also writes each graph as a
labelled 0/1 adjacency CSV (``group_<k>.csv``). ``spdgraph draw`` then draws
data per group.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from spdgraph.cli._arguments import add_count, add_edits, add_output, add_seed, report_written
from spdgraph.cli._options import (
    _add_format_option,
    _output_format,
    kind_argument,
)
from spdgraph.errors import FileError

__all__: list[str] = []


def _write_graphs(graphs: list[Any], folder: str) -> None:
    import networkx as nx
    import numpy as np

    from spdgraph.io import write_table

    target = Path(folder)
    if not target.is_dir():
        raise FileError(f"--graphs-dir {folder!r} is not an existing folder; create it first.")
    for k, g in enumerate(graphs):
        nodes = list(g.nodes)
        adjacency = nx.to_numpy_array(g, nodelist=nodes, weight=None).astype(bool)
        np.fill_diagonal(adjacency, False)
        write_table(adjacency, [str(x) for x in nodes], target / f"group_{k}.csv")


def _cmd_related(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph import io
    from spdgraph.graphs import related_graphs

    io.check_writable(args.output, format=_output_format(args))  # before any heavy work
    base = spdgraph.read_graph(args.graph)
    if not hasattr(base, "nodes"):  # an adjacency matrix file
        import networkx as nx
        import pandas as pd

        base = (
            nx.from_pandas_adjacency(base)
            if isinstance(base, pd.DataFrame)
            else nx.from_numpy_array(base)
        )
    graphs = related_graphs(
        base,
        args.n_graphs,
        n_add=args.n_add,
        n_remove=args.n_remove,
        mode=args.mode,
        seed=args.seed,
    )
    if args.graphs_dir:
        _write_graphs(graphs, args.graphs_dir)
    da = spdgraph.sample(graphs, args.method, size=args.size, seed=args.seed, kind=args.kind)
    io.write_array(da, args.output, format=_output_format(args))
    edits = f"{args.mode}: +{args.n_add}/-{args.n_remove} edges"
    what = f"{args.n_graphs} related graphs ({edits}) sampled as {da.name}"
    return report_written(f"{what} (seed {da.attrs['seed']})", args.output)


def _add_related_parser(sub: Any) -> None:
    related = sub.add_parser(
        "related",
        help="make K related graphs from a base graph and sample them into one file (group dim)",
    )
    related.add_argument("graph", metavar="BASE", help="graph file of the shared base graph")
    add_count(related, "-k", "--n-graphs", required=True, help="graphs (groups or time steps)")
    add_edits(related, "per graph (group) or per step (time)")
    related.add_argument(
        "--mode",
        choices=["group", "time"],
        default="group",
        help="group: each graph edits the base; time: each step edits the last",
    )
    related.add_argument("-m", "--method", default="po", help="generator (default po)")
    add_count(related, "--size", low=0, help="matrices per graph (default: one)")
    related.add_argument("--kind", default="covariance", type=kind_argument)
    add_seed(related)
    related.add_argument(
        "--graphs-dir", metavar="DIR", help="also write each graph as a 0/1 adjacency CSV in DIR"
    )
    _add_format_option(related)
    add_output(
        related,
        "output: .nc, .zarr, .csv (a folder of CSV tables per group) or any registered "
        "format's suffix",
    )
    related.set_defaults(func=_cmd_related)
