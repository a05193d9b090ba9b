"""``spdgraph graph FAMILY --p 100 [options] --seed S -o g.txt``: write a graph of a family.

The families are :data:`spdgraph.graphs.FAMILIES` (``hub``, ``cluster``,
``band``, ...) and their R aliases (``AR(1)``, ``smallworld``, ``random``...),
spelled as every entry point spells them (:func:`spdgraph.vocabulary.canonical_family`:
case, ``-``, ``_`` and parentheses ignored). Each option maps to
the family function's parameter of the same name; an option the family does
not take is an error naming the options it does take. The file's suffix
picks the format, every one of which ``spdgraph sample`` (and
:func:`spdgraph.read_graph`) reads back with the same nodes in the same
order: ``.csv`` (0/1 adjacency with the labels on the header row and the
first column), ``.graphml``, ``.gml``, ``.npy``
(0/1 adjacency) or, for anything else, an edge list (the nodes first, one per
line, then one ``u v`` edge per line, after ``#`` comment lines recording the
family, its parameters and the seed). ``--sparse`` (or ``--backend scipy``)
builds the graph as a sparse adjacency, never a networkx graph nor a ``p x p``
array, and writes it as ``.npz`` (``scipy.sparse.save_npz`` of the symmetric
CSR adjacency) or an edge list: the way to write a graph of a million nodes.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spdgraph.cli._arguments import add_count, add_output, add_seed, report_written
from spdgraph.cli._options import _key_value, _non_negative_int, count_argument
from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.vocabulary import canonical_family

__all__: list[str] = []

#: command line option -> family parameter (all default to None: not given)
_OPTIONS: dict[str, str] = {
    "d": "erdos_renyi: density d (default huge's min(1, 3/p))",
    "n_hubs": "hub: number of hubs",
    "mode": "hub: huge (a star per group of nodes) or bdgraph (random hubs linked to all)",
    "n_groups": "cluster: number of groups",
    "prob": "cluster: edge probability within a group (or a comma list, one per group)",
    "prob_between": "cluster: edge probability between groups",
    "sizes": "cluster: comma list of group sizes (sum p)",
    "bandwidth": "band: width b (edges |i - j| <= b)",
    "neighbors": "small_world: ring neighbours on each side",
    "rewire": "small_world: rewiring probability",
    "shape": "lattice: ROWSxCOLS (or one side)",
    "center": "star: the centre node",
}


def _floats(text: str) -> float | list[float]:
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or a comma list, got {text!r}"
        ) from None
    return values[0] if len(values) == 1 else values


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace("x", ",").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected integers like 3,4 or 3x4, got {text!r}"
        ) from None


_TYPES: dict[str, Any] = {
    "d": float,
    "n_hubs": count_argument("n_hubs"),
    "mode": str,
    "n_groups": count_argument("n_groups"),
    "prob": _floats,
    "prob_between": float,
    "sizes": _ints,
    "bandwidth": count_argument("bandwidth"),
    "neighbors": count_argument("neighbors"),
    "rewire": float,
    "shape": _ints,
    "center": count_argument("center", low=0),
}


def _flag(key: str) -> str:
    return f"--{key.replace('_', '-')}"


def make_family_graph(
    family: str,
    p: object,
    seed: int | None,
    given: dict[str, Any],
    *,
    flag: Callable[[str], str] = _flag,
    seed_flag: str = "--seed",
    backend: str = "networkx",
) -> Any:
    """The graph of ``spdgraph graph`` and ``sample --graph-family`` (``graphs.family_graph``).

    Only the command's spelling of the refusals is here: ``flag(name)`` and
    ``seed_flag`` spell the options as the calling command names them;
    ``backend`` is the family's ``backend=``.
    """
    from spdgraph.graphs import FAMILIES, family_graph

    spec = FAMILIES[canonical_family(family)]  # the spellings simulate and a study accept
    if "seed" in given:
        raise InvalidOptionError(f"give the graph's seed with {seed_flag}.")
    unknown = [k for k in given if spec.r_arguments.get(k, k) not in spec.parameters]
    if unknown:
        options = ", ".join(flag(k) for k in spec.parameters) or "none but p"
        raise InvalidOptionError(
            f"{flag(unknown[0])} does not apply to graph family {spec.name!r}; its options: "
            f"{options}."
        )
    parameters = spec.arguments(given)
    if seed is not None and not spec.draws(parameters):
        raise InvalidOptionError(f"graph family {spec.name!r} is not random; drop {seed_flag}.")
    if isinstance(parameters.get("shape"), list) and len(parameters["shape"]) == 1:
        parameters["shape"] = parameters["shape"][0]
    return family_graph(spec.name, p, seed=seed, backend=backend, **parameters)


def _header(g: Any) -> list[str]:
    lines = [f"spdgraph graph {g.graph['family']}"]
    lines.append("parameters " + json.dumps(g.graph["parameters"]))
    if "seed" in g.graph:
        lines.append(f"seed {g.graph['seed']}")
    return lines


def write_graph(g: Any, path: Path) -> None:
    """Write ``g`` in the format of ``path``'s suffix, through spdgraph.io's one door to disk."""
    from spdgraph.io import write_atomically

    # an existing output was refused without --overwrite before any work (cli.WRITERS)
    write_atomically(path, lambda tmp: _write_graph_file(g, tmp, path.suffix.lower()))


def _write_graph_file(g: Any, tmp: Path, suffix: str) -> None:
    import networkx as nx
    import numpy as np

    nodes = list(g.nodes)
    adjacency = nx.to_numpy_array(g, nodelist=nodes, weight=None).astype(bool)
    if suffix == ".csv":  # labels on the header row and first column: integer labels
        # alone on a header row would read back as a numeric matrix
        rows = ["," + ",".join(str(x) for x in nodes)]
        rows += [
            f"{x}," + ",".join("1" if v else "0" for v in row)
            for x, row in zip(nodes, adjacency, strict=True)
        ]
        tmp.write_text("\n".join(rows) + "\n", encoding="utf-8")
    elif suffix == ".npy":
        with open(tmp, "wb") as fh:
            np.save(fh, adjacency.astype(np.int8), allow_pickle=False)
    elif suffix in (".graphml", ".gml"):
        flat = g.copy()
        flat.graph = {"spdgraph": "\n".join(_header(g))}  # JSON text: both formats keep it
        (nx.write_graphml if suffix == ".graphml" else nx.write_gml)(flat, tmp)
    else:
        text = [f"# {line}" for line in _header(g)]
        text += ["# nodes, in order"] + [str(x) for x in nodes] + ["# edges"]
        text += [f"{u} {v}" for u, v in g.edges]
        tmp.write_text("\n".join(text) + "\n", encoding="utf-8")


#: Suffixes ``--sparse`` writes: a scipy.sparse .npz, or (any other) an edge list.
_DENSE_SUFFIXES = (".csv", ".npy", ".graphml", ".gml")


def write_sparse_graph(adjacency: Any, header: list[str], path: Path) -> None:
    """Write a symmetric sparse adjacency as ``.npz`` or an edge list, through io's door."""
    from spdgraph.io import write_atomically

    write_atomically(path, lambda tmp: _write_sparse_file(adjacency, header, tmp, path.suffix))


def _write_sparse_file(adjacency: Any, header: list[str], tmp: Path, suffix: str) -> None:
    import numpy as np
    import scipy.sparse

    if suffix.lower() == ".npz":
        with open(tmp, "wb") as fh:
            scipy.sparse.save_npz(fh, scipy.sparse.csr_matrix(adjacency))
        return
    upper = scipy.sparse.triu(adjacency, 1).tocoo()
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("".join(f"# {line}\n" for line in header))
        fh.write("# nodes, in order\n")
        np.savetxt(fh, np.arange(adjacency.shape[0]), fmt="%d")
        fh.write("# edges\n")
        np.savetxt(fh, np.column_stack([upper.row, upper.col]), fmt="%d")


def _cmd_graph_sparse(args: argparse.Namespace, output: Path, given: dict[str, Any]) -> int:
    if output.suffix.lower() in _DENSE_SUFFIXES:
        raise InvalidOptionError(
            f"--sparse writes .npz (the sparse adjacency) or an edge list (.txt), not "
            f"{output.suffix}; change the output's suffix."
        )
    adjacency = make_family_graph(args.family, args.p, args.seed, given, backend="scipy")
    family = canonical_family(args.family)
    header = [f"spdgraph graph {family}", "parameters " + json.dumps({"p": args.p, **given})]
    if args.seed is not None:
        header.append(f"seed {args.seed}")
    write_sparse_graph(adjacency, header, output)
    seed = f", seed {args.seed}" if args.seed is not None else ""
    edges = f"{adjacency.nnz // 2} edges{seed}, sparse"
    return report_written(f"{family} graph (p = {adjacency.shape[0]}, {edges})", args.output)


def _cmd_graph(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if not output.parent.is_dir():  # before any work (the writer checks it again)
        raise FileError(f"the folder of {args.output!r} does not exist; create it first.")
    given = {k: getattr(args, k) for k in _OPTIONS if getattr(args, k) is not None}
    if args.sparse or args.backend == "scipy":
        return _cmd_graph_sparse(args, output, given)
    g = make_family_graph(args.family, args.p, args.seed, given)
    write_graph(g, output)
    seed = f", seed {g.graph['seed']}" if "seed" in g.graph else ""
    edges = f"{g.number_of_edges()} edges{seed}"
    return report_written(
        f"{g.graph['family']} graph (p = {g.number_of_nodes()}, {edges})", args.output
    )


def _add_graph_parser(sub: Any) -> None:
    graph = sub.add_parser(
        "graph",
        help="write a graph of a family (hub, cluster, band, scale_free, ...) to a file",
        description="Write a seeded graph of a family of R huge / BDgraph to a graph file "
        "that `spdgraph sample` reads (.txt edge list, .csv, .graphml, .gml, .npy).",
    )
    graph.add_argument("family", help="graph family, e.g. hub, cluster, band (see docs/graphs.md)")
    add_count(graph, "--p", required=True, help="number of nodes")
    for key, doc in _OPTIONS.items():
        graph.add_argument(f"--{key.replace('_', '-')}", type=_TYPES[key], default=None, help=doc)
    add_seed(graph, "seed (random families)")
    add_output(graph, "graph file to write")
    graph.add_argument(
        "--backend",
        choices=("networkx", "scipy"),
        default="networkx",
        help="build the graph as a networkx graph (default) or a scipy.sparse adjacency "
        "(as --sparse)",
    )
    graph.add_argument(
        "--sparse",
        action="store_true",
        help="build and write the graph sparse (no p x p array): to .npz or an edge list; "
        "for large p",
    )
    graph.set_defaults(func=_cmd_graph)


def _add_graph_family_options(sample: Any) -> None:
    """``spdgraph sample``'s options to make the graph of a family in place of GRAPH."""
    sample.add_argument(
        "--graph-family",
        metavar="NAME",
        help="instead of GRAPH: a graph of this family (spdgraph graph's families)",
    )
    sample.add_argument(
        "--graph-option",
        metavar="KEY=VALUE",
        action="append",
        type=_key_value,
        help="a parameter of --graph-family (repeatable), p required, e.g. "
        "--graph-option p=100 --graph-option n_hubs=5",
    )
    sample.add_argument(
        "--graph-seed", type=_non_negative_int, default=None, help="seed of a random family"
    )


def _graph_argument(args: argparse.Namespace, *, directed: bool = False) -> Any:
    """The graph to sample on: the GRAPH file (read as directed for a DAG method),
    or a ``--graph-family`` graph made here."""
    family_flags = args.graph_option or args.graph_seed is not None
    if (args.graph is None) == (args.graph_family is None):
        raise InvalidOptionError(
            "give either a GRAPH file or --graph-family NAME --graph-option p=P (not both)."
        )
    if args.graph_family is None:
        if family_flags:
            raise InvalidOptionError("--graph-option and --graph-seed go with --graph-family.")
        from spdgraph.io import read_graph

        return read_graph(args.graph, directed=directed)
    given = dict(args.graph_option or [])
    if "p" not in given:
        raise InvalidOptionError("--graph-family needs --graph-option p=P (the number of nodes).")
    p = given.pop("p")
    return make_family_graph(
        args.graph_family,
        p,
        args.graph_seed,
        given,
        flag=lambda key: f"--graph-option {key}=...",
        seed_flag="--graph-seed",
    )
