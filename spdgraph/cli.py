"""The ``spdgraph`` command line.

``spdgraph demo`` (also the default with no arguments) samples matrices on a
random graph with the built-in defaults and prints a summary;
``spdgraph methods`` lists the registered generators;
``spdgraph sample GRAPH -o out.nc`` samples matrices on a graph read from a
file and saves them; ``spdgraph draw out.nc --n-obs 200 -o data.nc`` draws
Gaussian data from them; ``spdgraph info out.nc`` summarises a file with
diagnostics.

Each subcommand is registered by a small ``_add_<name>_parser(sub)`` function
listed in :data:`SUBCOMMANDS`. Errors of the spdgraph hierarchy print one
``spdgraph: error: ...`` line and exit with status 2; nothing is left
half-written.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph._version import __version__
from spdgraph.errors import FileError, InvalidOptionError, SpdgraphError

# --------------------------------------------------------------------------- diagnostics


def _link_strength(m: np.ndarray, adjacency: np.ndarray) -> float:
    """The paper's R: max over edges i<j of |m_ij| / m_ii (0 without edges)."""
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    if iu.size == 0:
        return 0.0
    return float(np.max(np.abs(m[iu, ju]) / np.diag(m)[iu]))


def _diagnostics(stack: np.ndarray, adjacency: np.ndarray) -> dict[str, np.ndarray]:
    """Per-matrix R, smallest eigenvalue, condition number and max |non-edge| of a stack."""
    nonedge = ~adjacency & ~np.eye(adjacency.shape[0], dtype=bool)
    eig = np.linalg.eigvalsh(stack) if stack.shape[0] else np.empty((0, adjacency.shape[0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(eig[:, 0] > 0, eig[:, -1] / eig[:, 0], np.inf)
    return {
        "R": np.array([_link_strength(m, adjacency) for m in stack]),
        "min_eig": eig[:, 0],
        "cond": cond,
        "nonedge": (
            np.abs(stack[:, nonedge]).max(axis=1) if nonedge.any() else np.zeros(len(stack))
        ),
        "asym": np.array([not np.array_equal(m, m.T) for m in stack], dtype=bool),
    }


# --------------------------------------------------------------------------- progress


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


#: Seconds a computation runs before its progress bar appears.
PROGRESS_DELAY = 0.5


class _Bar:
    """A progress bar on stderr: tqdm when installed, else a simple text bar.

    Disabled when stderr is not a terminal; appears only after ``delay``
    seconds, so short runs show nothing.
    """

    def __init__(self, desc: str, *, enabled: bool, delay: float | None = None) -> None:
        self.enabled = enabled
        self.desc = desc
        self.delay = PROGRESS_DELAY if delay is None else delay
        self.done = 0
        self.total = 0
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = False
        self._tqdm: Any = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._tqdm = tqdm(
                    total=0, desc=desc, file=sys.stderr, delay=self.delay, unit="task"
                )

    def set(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if not self.enabled:
            return
        if self._tqdm is not None:
            if self._tqdm.total != total:
                self._tqdm.total = total
            self._tqdm.update(done - self._tqdm.n)
            return
        now = time.monotonic()
        if now - self._start < self.delay or (now - self._last < 0.1 and done < total):
            return
        self._last = now
        width = 30
        frac = done / total if total else 1.0
        bar = "#" * int(width * frac)
        sys.stderr.write(f"\r{self.desc} [{bar:<{width}}] {done}/{total} ({frac:.0%})")
        sys.stderr.flush()
        self._shown = True

    def update(self, k: int = 1) -> None:
        self.set(self.done + k, self.total)

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
        elif self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._shown = False


def _compute(delayed: Any, *, client: Any, progress: bool, desc: str) -> None:
    """Run a dask delayed object (a lazy write) with a progress bar where possible."""
    bar = _Bar(desc, enabled=progress)
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


def _distributed_progress(future: Any, bar: _Bar) -> None:
    """Drive ``bar`` from the scheduler's progress reports until ``future`` is done."""
    from distributed.diagnostics.progressbar import TextProgressBar

    class _Progress(TextProgressBar):
        def _draw_bar(self, remaining: int, all: int, **kwargs: Any) -> None:
            bar.set(all - remaining, all)

        def _draw_stop(self, **kwargs: Any) -> None:
            pass

    _Progress([future], scheduler=future.client.scheduler.address)


# --------------------------------------------------------------------------- reading graphs


def _parse_token(token: str) -> int | str:
    return int(token) if re.fullmatch(r"[+-]?\d+", token) else token


def _read_edge_list(path: Path) -> Any:
    import networkx as nx

    nodes: dict[str, None] = {}
    edges: list[tuple[str, str]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tokens = [t for t in re.split(r"[\s,;]+", line) if t]
            if "\x00" in line:
                raise FileError(f"{path}: line {lineno} is binary, not an edge list.")
            nodes.setdefault(tokens[0])
            if len(tokens) >= 2:
                nodes.setdefault(tokens[1])
                edges.append((tokens[0], tokens[1]))
    if not nodes:
        raise FileError(
            f"{path}: no nodes found; an edge list has one edge 'u v' per line (a line with "
            "a single node adds an isolated node, '#' starts a comment)."
        )
    as_int = all(re.fullmatch(r"[+-]?\d+", t) for t in nodes)
    conv: Callable[[str], Any] = int if as_int else str
    g = nx.Graph()
    g.add_nodes_from(conv(t) for t in nodes)
    g.add_edges_from((conv(u), conv(v)) for u, v in edges if u != v)
    return g


def _read_csv(path: Path) -> Any:
    import pandas as pd

    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    tokens = [t.strip() for t in first.strip().split(",")]
    numeric = all(re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t) for t in tokens)
    if numeric:
        return np.loadtxt(path, delimiter=",", ndmin=2)
    if tokens and tokens[0] == "":
        frame = pd.read_csv(path, index_col=0)
    else:  # a header row only: the same labels on the rows
        frame = pd.read_csv(path)
        frame.index = frame.columns
    frame.index = [_parse_token(str(x)) for x in frame.index]
    frame.columns = [_parse_token(str(x)) for x in frame.columns]
    return frame


def read_graph(path: str | os.PathLike[str]) -> Any:
    """Read a graph file for ``spdgraph sample``.

    By suffix: ``.graphml``; ``.gml``; ``.npy`` (square adjacency array);
    ``.csv`` (square adjacency, optionally with node labels as a header row
    and first column); anything else is an edge list (one ``u v`` pair per
    line, whitespace or comma separated, extra columns ignored, ``#``
    comments, a single token adds an isolated node; labels are integers when
    all are, else strings).

    Raises
    ------
    FileError
        Missing or unreadable file.
    """
    import networkx as nx

    path = Path(path)
    if not path.is_file():
        raise FileError(f"cannot read graph file {os.fspath(path)!r}: no such file.")
    suffix = path.suffix.lower()
    try:
        if suffix == ".graphml":
            return nx.read_graphml(path)
        if suffix == ".gml":
            try:
                return nx.read_gml(path)
            except nx.NetworkXError as exc:
                if "label" not in str(exc):
                    raise
                return nx.read_gml(path, label="id")
        if suffix == ".npy":
            return np.load(path, allow_pickle=False)
        if suffix == ".csv":
            return _read_csv(path)
        return _read_edge_list(path)
    except FileError:
        raise
    except (OSError, ValueError, SyntaxError, UnicodeDecodeError, nx.NetworkXError) as exc:
        raise FileError(
            f"cannot read graph file {os.fspath(path)!r} as {suffix or 'an edge list'} "
            f"({type(exc).__name__}: {exc})."
        ) from exc


# --------------------------------------------------------------------------- option parsing


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


#: ``sample`` parameters with a dedicated option; every other keyword-only
#: parameter of :func:`spdgraph.sample` gets a generic ``--name VALUE`` option.
_SAMPLE_EXPLICIT = {"size", "seed", "kind", "normalize", "entries", "factor", "chunks"}

#: With ``--scheduler`` but no ``--chunks``, the run is split into about this many chunks.
SCHEDULER_CHUNK_COUNT = 50

#: An in-memory run of at least this many matrices on a terminal prints a hint
#: about ``--chunks`` (which gives a progress bar and bounded memory).
LARGE_RUN = 1000


def _extra_sample_parameters() -> list[inspect.Parameter]:
    import spdgraph

    return [
        param
        for name, param in inspect.signature(spdgraph.sample).parameters.items()
        if param.kind is inspect.Parameter.KEYWORD_ONLY and name not in _SAMPLE_EXPLICIT
    ]


# --------------------------------------------------------------------------- demo, methods


def _cmd_demo(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph.graphs import erdos_renyi

    graph = erdos_renyi(args.p, args.d, seed=args.seed)
    print(
        f"spdgraph {__version__}: Erdős–Rényi graph with p={args.p}, d={args.d} "
        f"({graph.number_of_edges()} edges), {args.size} matrices per method, seed={args.seed}"
    )
    header = ("method", "seconds", "mean R", "min eig", "max cond", "zeros ok")
    print("{:<8}{:>10}{:>10}{:>12}{:>12}{:>10}".format(*header))
    for method in args.methods:
        t0 = time.perf_counter()
        da = spdgraph.sample(
            graph,
            method=method,
            size=args.size,
            seed=args.seed,
            normalize=False,
            entries="uniform",
        )
        elapsed = time.perf_counter() - t0
        adjacency = da["adjacency"].values
        values = da.values
        ratios = [_link_strength(m, adjacency) for m in values]
        eig = np.linalg.eigvalsh(values)
        nonedge = ~adjacency & ~np.eye(args.p, dtype=bool)
        zeros_ok = bool(np.all(values[:, nonedge] == 0))
        print(
            f"{method:<8}{elapsed:>10.3f}{np.mean(ratios):>10.4f}{eig[:, 0].min():>12.3g}"
            f"{(eig[:, -1] / eig[:, 0]).max():>12.3g}{'yes' if zeros_ok else 'NO':>10}"
        )
    print("R: the paper's link strength max_{i<j edge} |m_ij|/m_ii (U(0,1) entries, raw scale).")
    return 0


def _add_demo_parser(sub: Any) -> None:
    demo = sub.add_parser("demo", help="sample on a random graph and print a summary")
    demo.add_argument("--p", type=int, default=100, help="number of nodes (default 100)")
    demo.add_argument("--d", type=float, default=0.25, help="edge probability (default 0.25)")
    demo.add_argument("--size", type=int, default=10, help="matrices per method (default 10)")
    demo.add_argument("--seed", type=int, default=2018, help="seed (default 2018)")
    demo.add_argument(
        "--methods", nargs="+", default=["po", "dd"], help="methods to compare (default: po dd)"
    )
    demo.set_defaults(func=_cmd_demo)


def _cmd_methods(args: argparse.Namespace) -> int:
    import spdgraph

    for name, description in spdgraph.methods().items():
        print(f"{name:<20} {description}")
    return 0


def _add_methods_parser(sub: Any) -> None:
    methods = sub.add_parser("methods", help="list registered generator methods")
    methods.set_defaults(func=_cmd_methods)


# --------------------------------------------------------------------------- sample


#: How long ``--scheduler`` waits for the scheduler to answer.
SCHEDULER_TIMEOUT = "10s"


def _connect(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        from spdgraph.errors import MissingDependencyError

        raise MissingDependencyError(
            '--scheduler needs dask.distributed; install it with pip install "spdgraph[dask]".'
        ) from None
    try:
        # the default scheduler while it lives, so that xarray picks a cluster-wide write lock
        return Client(address, timeout=SCHEDULER_TIMEOUT, set_as_default=True)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InvalidOptionError(
            f"cannot connect to the dask scheduler at {address!r} ({exc}); start one with "
            "`dask scheduler` or check the address."
        ) from exc


def _save_output(da: Any, output: str, *, client: Any, args: argparse.Namespace) -> None:
    from spdgraph import io

    progress = not args.no_progress and _stderr_is_tty()

    def compute(delayed: Any) -> None:
        _compute(delayed, client=client, progress=progress, desc=f"writing {output}")

    io._save(da, output, compute=compute)


def _cmd_sample(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph import io

    io.check_writable(args.output)  # before any heavy work
    graph = read_graph(args.graph)
    factor = None
    if args.factor is not None:
        factor_path = Path(args.factor)
        if factor_path.suffix.lower() != ".npy" or not factor_path.is_file():
            raise FileError(f"--factor must be an existing .npy file, got {args.factor!r}.")
        try:
            factor = np.load(factor_path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise FileError(f"cannot read factor file {args.factor!r} ({exc}).") from exc
    options = dict(args.option or [])
    extra = {
        param.name: getattr(args, f"extra_{param.name}")
        for param in _extra_sample_parameters()
        if hasattr(args, f"extra_{param.name}")
    }
    clash = sorted(set(options) & ({"method", "graph", *_SAMPLE_EXPLICIT} | set(extra)))
    if clash:
        raise InvalidOptionError(
            f"--option {clash[0]}=... names a sample parameter; use its own flag "
            f"(--{clash[0].replace('_', '-')}) instead."
        )
    chunks = args.chunks
    n = args.size if args.size is not None else 1
    if chunks is None and args.scheduler:
        chunks = max(1, math.ceil(n / SCHEDULER_CHUNK_COUNT))
    if chunks is None and n >= LARGE_RUN and not args.no_progress and _stderr_is_tty():
        print(
            f"spdgraph: sampling {n} matrices in memory; pass --chunks N for a progress bar "
            "and bounded memory.",
            file=sys.stderr,
        )
    client = _connect(args.scheduler) if args.scheduler else None
    try:
        da = spdgraph.sample(
            graph,
            method=args.method,
            size=args.size,
            seed=args.seed,
            kind=args.kind,
            normalize=args.normalize,
            entries=args.entries,
            factor=factor,
            chunks=chunks,
            **extra,
            **options,
        )
        _save_output(da, args.output, client=client, args=args)
    finally:
        if client is not None:
            client.close()
    count = da.sizes.get("sample", 1)
    print(
        f"wrote {count} {da.name} matri{'x' if args.size is None else 'ces'} "
        f"({da.sizes['node']} nodes, method {da.attrs['method']}, seed {da.attrs['seed']}) "
        f"to {args.output}"
    )
    return 0


def _add_sample_parser(sub: Any) -> None:
    sample = sub.add_parser(
        "sample",
        help="sample matrices on a graph read from a file and save them (.nc or .zarr)",
        description=(
            "Sample SPD matrices whose zeros are exactly the non-edges of GRAPH and save "
            "them with their graph and provenance. GRAPH is an edge list (text: one 'u v' "
            "per line), GraphML (.graphml), GML (.gml), or an adjacency matrix (.npy, "
            ".csv)."
        ),
    )
    sample.add_argument("graph", metavar="GRAPH", help="graph file")
    sample.add_argument(
        "-o", "--output", required=True, help="output file: .nc (netCDF) or .zarr (Zarr)"
    )
    sample.add_argument("-m", "--method", default="po", help="generator (default po)")
    sample.add_argument(
        "--size",
        type=_non_negative_int,
        default=None,
        help="number of matrices (a stack); default: one matrix",
    )
    sample.add_argument(
        "--seed",
        type=_non_negative_int,
        default=None,
        help="seed (default: fresh entropy, recorded in the file)",
    )
    sample.add_argument(
        "--kind",
        default="covariance",
        choices=["covariance", "precision", "concentration"],
        help="how to read the matrix (default covariance)",
    )
    sample.add_argument(
        "--normalize",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rescale to unit diagonal (default: yes)",
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
    for param in _extra_sample_parameters():
        sample.add_argument(
            f"--{param.name.replace('_', '-')}",
            dest=f"extra_{param.name}",
            type=_literal,
            default=argparse.SUPPRESS,
            metavar="VALUE",
            help=f"sample(..., {param.name}=VALUE), a Python literal (default {param.default!r})",
        )
    sample.add_argument(
        "--chunks",
        type=_positive_int,
        default=None,
        help="matrices per dask chunk: compute lazily, chunk by chunk, with a progress bar "
        "(default: in memory, as spdgraph.sample; about "
        f"{SCHEDULER_CHUNK_COUNT} chunks with --scheduler)",
    )
    sample.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a dask.distributed scheduler to compute on (e.g. tcp://host:8786)",
    )
    sample.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    sample.set_defaults(func=_cmd_sample)


# --------------------------------------------------------------------------- draw


def _cmd_draw(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph import io

    io.check_writable(args.output)
    matrices = spdgraph.open(args.input)
    data = matrices.spd.draw(args.n_obs, seed=args.seed)
    io.save(data, args.output)
    count = data.sizes.get("sample", 1)
    print(
        f"wrote {args.n_obs} observations x {data.sizes['node']} nodes for {count} "
        f"matri{'x' if count == 1 else 'ces'} (seed {data.attrs['seed']}) to {args.output}"
    )
    return 0


def _add_draw_parser(sub: Any) -> None:
    draw = sub.add_parser(
        "draw", help="draw Gaussian data N(0, Sigma) from saved matrices and save it"
    )
    draw.add_argument("input", metavar="MATRICES", help="file written by `spdgraph sample`")
    draw.add_argument(
        "--n-obs", type=_non_negative_int, required=True, help="observations per matrix"
    )
    draw.add_argument("--seed", type=_non_negative_int, default=None, help="seed")
    draw.add_argument("-o", "--output", required=True, help="output file: .nc or .zarr")
    draw.set_defaults(func=_cmd_draw)


# --------------------------------------------------------------------------- info


def _format_labels(labels: Sequence[Any], limit: int = 6) -> str:
    shown = [str(x) for x in labels[:limit]]
    if len(labels) > limit:
        shown[-1:] = ["...", str(labels[-1])]
    return ", ".join(shown)


def _cmd_info(args: argparse.Namespace) -> int:
    from spdgraph import io

    fmt = io.file_format(args.input)
    da = io._open(args.input, load=False)
    try:
        return _print_info(da, args, fmt)
    finally:
        da.close()


def _print_info(da: Any, args: argparse.Namespace, fmt: str) -> int:
    first = ("kind", "method", "plugin", "method_options", "seed", "normalize", "entries")
    keys = [k for k in first if k in da.attrs] + [k for k in da.attrs if k not in first]
    width = max([len(str(k)) + 2 for k in keys] + [12])

    def line(key: str, value: object) -> None:
        print(f"{key + ':':<{width}}{value}")

    line("file", f"{args.input} ({'netCDF' if fmt == 'netcdf' else 'Zarr'})")
    line("name", da.name)
    line("dims", ", ".join(f"{d}: {n}" for d, n in da.sizes.items()))
    if "node" in da.coords:
        labels = da["node"].values.tolist()
        line("labels", f"{_format_labels(labels)} ({len(labels)} nodes, {da['node'].dtype})")
    for key in keys:
        line(key, da.attrs[key])
    matrix_dims = da.dims in (("node", "node_2"), ("sample", "node", "node_2"))
    if not matrix_dims or "adjacency" not in da.coords:
        return 0
    adjacency = np.asarray(da["adjacency"].values, dtype=bool)
    p = adjacency.shape[0]
    edges = int(np.triu(adjacency, 1).sum())
    density = edges / (p * (p - 1) / 2) if p > 1 else 0.0
    line("graph", f"{edges} edges, density {density:.3g}")
    stacked = da.dims[0] == "sample"
    n = da.sizes["sample"] if stacked else 1
    parts: list[dict[str, np.ndarray]] = []
    block = 256
    for start in range(0, n, block):
        values = np.asarray(
            da.isel(sample=slice(start, start + block)).values if stacked else da.values[None],
            dtype=np.float64,
        )
        parts.append(_diagnostics(values, adjacency))
    if not parts:
        print("diagnostics: none (no matrices)")
        return 0
    d = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    structural = int(da.attrs.get("structural_zeros", 1)) == 1
    kind = str(da.attrs.get("kind", da.name))
    print(f"diagnostics over {n} matri{'x' if n == 1 else 'ces'}:")
    print(
        "  link strength R = max_(i<j edge) |m_ij|/m_ii: "
        f"min {d['R'].min():.4g}, median {np.median(d['R']):.4g}, max {d['R'].max():.4g}"
    )
    print(f"  smallest eigenvalue: min {d['min_eig'].min():.4g}")
    print(f"  condition number:    max {d['cond'].max():.4g}")
    max_nonedge = float(d["nonedge"].max())
    note = "must be 0" if structural else "zeros not structural"
    print(f"  max |non-edge|:      {max_nonedge:.4g} ({note})")
    problems = []
    if d["asym"].any():
        problems.append(f"{int(d['asym'].sum())} matrices not exactly symmetric")
    if structural and max_nonedge != 0:
        problems.append("non-zero entries on non-edges")
    if kind != "partial_correlation" and not (d["min_eig"] > 0).all():
        problems.append("matrices that are not positive definite")
    if problems:
        print("  check: FAILED (" + "; ".join(problems) + ")")
        return 1
    print(
        "  check: ok (exactly symmetric"
        + (", exact zeros" if structural else "")
        + (", positive definite)" if kind != "partial_correlation" else ")")
    )
    return 0


def _add_info_parser(sub: Any) -> None:
    info = sub.add_parser("info", help="summarise a saved file, with diagnostics")
    info.add_argument("input", metavar="FILE", help=".nc or .zarr file")
    info.set_defaults(func=_cmd_info)


# --------------------------------------------------------------------------- main


#: Subcommand registrars, in help order; a new subcommand is a function
#: ``_add_<name>_parser(sub)`` (calling ``set_defaults(func=...)``) added here.
def _add_reproduce_parser(sub: Any) -> None:
    from spdgraph.experiments.cli import add_reproduce_parser  # light: argparse only

    add_reproduce_parser(sub)


SUBCOMMANDS: list[Callable[[Any], None]] = [
    _add_demo_parser,
    _add_methods_parser,
    _add_sample_parser,
    _add_draw_parser,
    _add_info_parser,
    _add_reproduce_parser,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``spdgraph`` command."""
    parser = argparse.ArgumentParser(
        prog="spdgraph",
        description="Sample SPD covariance/precision matrices with an exact graph zero pattern.",
    )
    parser.add_argument("--version", action="version", version=f"spdgraph {__version__}")
    sub = parser.add_subparsers(dest="command")
    for register in SUBCOMMANDS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``spdgraph`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            args = parser.parse_args(["demo"])
    except SystemExit as exc:  # --help, --version, or a usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return int(args.func(args))
    except SpdgraphError as exc:
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"spdgraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("spdgraph: interrupted; nothing was written.", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
