"""``spdgraph draw``: data from saved matrices, Gaussian or with copula/discrete marginals.

``spdgraph draw M.nc --n-obs 200 --marginals "t(df=5)" --missing 0.1 -o x.nc``
draws Gaussian-copula data (``--marginals`` for every node, ``--marginal
NODE=SPEC`` per node; SPEC is ``gaussian``, ``binary``,
``ordinal(n_categories=3)``, ``ordinal(cuts=[-1, 0.5])`` or a scipy.stats
distribution with literal arguments such as ``poisson(3)``; read by
:func:`spdgraph.marginals.parse_marginal`, as ``simulate``'s ``data``). The input is any
file ``spdgraph.open`` reads (its format recognised by content); the output's
format comes from its suffix (``.nc``, ``.zarr``, ``.csv``, a plugin's) or
``--format NAME``, through the format table of :mod:`spdgraph.io`.
``--chunks N`` draws blocks of N rows (``da.spd.draw(..., chunks=N)``: the same
bits), computed and written block by block, data larger than memory to a Zarr
store; ``--scheduler ADDRESS|local`` computes the blocks on a dask cluster; ``--resume``
finishes an interrupted ``.zarr`` save, drawing only the blocks not yet written.
"""

from __future__ import annotations

import argparse
from typing import Any

from spdgraph.cli._arguments import (
    add_count,
    add_output,
    add_resume,
    add_scheduler,
    add_seed,
    check_block_save,
    check_resume,
    report_written,
    scheduler_session,
)
from spdgraph.cli._options import (
    _add_format_option,
    _add_verify_option,
    _output_format,
    _verify,
)
from spdgraph.errors import InvalidOptionError

__all__: list[str] = []


def _marginals(args: argparse.Namespace, labels: list[Any]) -> object:
    from spdgraph.marginals import parse_marginal

    per_node = dict(args.marginal or [])
    if not per_node:
        return None if args.marginals is None else parse_marginal(args.marginals)
    by_text = {str(label): label for label in labels}
    unknown = [key for key in per_node if key not in by_text]
    if unknown:
        raise InvalidOptionError(f"--marginal names {unknown[0]!r}, which is not a node.")
    common = "gaussian" if args.marginals is None else parse_marginal(args.marginals)
    specs = {by_text[k]: parse_marginal(str(v)) for k, v in per_node.items()}
    return [specs.get(label, common) for label in labels]


def _cmd_draw(args: argparse.Namespace) -> int:
    import xarray as xr

    import spdgraph
    from spdgraph import io

    fmt = io.check_writable(args.output, format=_output_format(args))  # before heavy work
    check_resume(args, fmt)
    matrices = spdgraph.open(args.input, verify=_verify(args))
    if isinstance(matrices, xr.Dataset):  # a simulation: draw from its true matrix
        matrices = io.simulation_truth(matrices)
    marginals = _marginals(args, matrices.spd._labels())
    _check_draw_and_save(matrices, args, fmt.name, marginals is not None)
    with scheduler_session(args) as client:  # the blocks are computed on its workers
        if args.chunks is not None:  # a block per thread, whatever the whole data's size
            p = int(matrices.shape[-1])
            check_block_save(args, p, args.n_obs, fmt.name, client, _matrix_count(matrices))
        data = matrices.spd.draw(
            args.n_obs, seed=args.seed, marginals=marginals, missing=args.missing,
            chunks=args.chunks,
        )  # fmt: skip
        io.write_array(data, args.output, format=_output_format(args), resume=args.resume)
    count = data.sizes.get("sample", 1) * data.sizes.get("group", 1)
    kind = "" if marginals is None else " (copula/discrete marginals)"
    matrices = f"{count} matri{'x' if count == 1 else 'ces'} (seed {data.attrs['seed']})"
    what = f"{args.n_obs} observations x {data.sizes['node']} nodes{kind} for {matrices}"
    return report_written(what, args.output)


def _matrix_count(matrices: Any) -> int:
    """The matrices a draw draws from: 1, or a stack's."""
    return 1 if matrices.ndim == 2 else int(matrices.size // matrices.shape[-1] ** 2)


def _check_draw_and_save(
    matrices: Any, args: argparse.Namespace, format_name: str, marginals: bool
) -> None:
    """Refuse a draw whose data and the save's copies of them will not fit, before drawing."""
    from spdgraph.accessor import check_draw_memory
    from spdgraph.io import save_need
    from spdgraph.layout import is_sparse

    p, n_obs, n = int(matrices.shape[-1]), int(args.n_obs), _matrix_count(matrices)
    check_draw_memory(
        n, n_obs, p, then_save=save_need(8 * n * n_obs * p, format_name), chunks=args.chunks,
        chunks_option="--chunks ", sparse=is_sparse(matrices), marginals=marginals,
        missing=bool(args.missing),
    )  # fmt: skip


def _add_draw_parser(sub: Any) -> None:
    draw = sub.add_parser(
        "draw",
        help="draw data from saved matrices (Gaussian, or Gaussian-copula marginals: "
        "continuous, binary, ordinal, counts; optional missing values) and save it",
        description=(
            "Draw n observations from each saved matrix: Gaussian N(0, Sigma), or with "
            "--marginals/--marginal Gaussian-copula data with scipy.stats or discrete "
            "marginals (binary, ordinal, Poisson, ...), with --missing values missing "
            "completely at random. Saved as netCDF (.nc), Zarr (.zarr), CSV (.csv) or any "
            "registered format."
        ),
    )
    draw.add_argument("input", metavar="MATRICES", help="file written by `spdgraph sample`")
    add_count(draw, "--n-obs", low=0, required=True, help="observations per matrix")
    add_seed(draw)
    add_output(
        draw,
        "output: a .nc (netCDF) file, a .zarr (Zarr) store, a .csv table (a folder of "
        "CSV tables for a stack), or any registered format's suffix",
    )
    _add_format_option(draw)
    draw.add_argument(
        "--marginals",
        metavar="SPEC",
        help="marginal of every node: gaussian, standardized (unit variance), binary, "
        "ordinal(n_categories=K), "
        "ordinal(cuts=[...]) or a scipy.stats distribution, e.g. 't(df=5)', 'poisson(3)'",
    )
    draw.add_argument(
        "--marginal",
        metavar="NODE=SPEC",
        action="append",
        type=_key_value_text,
        help="marginal of one node (repeatable; others get --marginals or stay Gaussian)",
    )
    draw.add_argument(
        "--missing", type=float, default=0.0, help="rate of values missing completely at random"
    )
    add_count(
        draw, "--chunks", help="rows per block: drawn and written block by block (the same "
        "bits; a .zarr output for data larger than memory)",
    )  # fmt: skip
    add_scheduler(draw, "the blocks")
    add_resume(draw)
    _add_verify_option(draw)
    draw.set_defaults(func=_cmd_draw)


def _key_value_text(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    if not key or not value:
        raise argparse.ArgumentTypeError(f"expected NODE=SPEC, got {text!r}")
    return key.strip(), value.strip()
