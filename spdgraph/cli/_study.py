"""``spdgraph study run STUDY.toml -o DIR``: run a simulation study (:func:`spdgraph.study.run`).

Cells run on local processes (``--workers N``, default the CPU count) or on a
dask.distributed cluster (``--scheduler tcp://host:8786``, or ``--scheduler
local`` for a LocalCluster of ``--workers`` processes); the results are the
same bits either way. Finished cells are stored in ``DIR/cells`` as they
finish: a rerun (after an interruption, or with more grid values) computes
only the missing cells. ``spdgraph study report DIR`` rebuilds ``DIR/report.html``
(one self-contained page: tables, figures, failures) from the stored cells.
Uses the public API only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from spdgraph.cli._arguments import add_count, add_output, add_scheduler, seconds
from spdgraph.cli._options import _add_format_option, _output_format

__all__: list[str] = []


def _cmd_study_run(args: argparse.Namespace) -> int:
    import spdgraph.study

    done: list[Any] = []
    try:
        result = spdgraph.study.run(
            args.study,
            args.output,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=None if args.progress is None else args.progress,
            plots=False if args.no_plots else None,
            on_cell=done.append,
            results_format=_output_format(args),
            scheduler_timeout=args.scheduler_timeout,
            wait=args.wait,
            timeout=args.timeout,
            sparse=args.sparse,
        )
    except KeyboardInterrupt:
        print(
            f"spdgraph: interrupted; {len(done)} cells finished in this run are stored in "
            f"{args.output}/cells: run the same command again to continue.",
            file=sys.stderr,
        )
        return 130
    print(
        f"{args.output}: {result.computed} cells computed, {result.skipped} reused; "
        f"{len(result.table)} rows in results.csv"
    )
    for path in result.files:
        print(f"  {path}")
    return 0


def _cmd_study_report(args: argparse.Namespace) -> int:
    import spdgraph.study

    path = spdgraph.study.report(args.folder, args.study, plots=False if args.no_plots else None)
    print(path)
    return 0


def _cmd_study_data(args: argparse.Namespace) -> int:
    """``spdgraph study data DIR --cell ... -o cell.nc``: a cell's truth and data, verified."""
    import spdgraph.study
    from spdgraph.errors import FileError
    from spdgraph.simulation import save_simulation

    out = Path(args.output)
    if out.exists() and not args.overwrite:  # before anything is written
        raise FileError(f"{str(out)!r} exists; pass --overwrite to replace it.")
    ds = spdgraph.study.cell_data(args.folder, args.cell)
    scripts = [
        spdgraph.study.r_script(args.folder, args.cell, learner,
                                out.with_name(f"{out.stem}-{learner}-repeat{args.repeat}.R"),
                                repeat=args.repeat)
        for learner in args.r_script or []
    ]  # fmt: skip
    if out.suffix.lower() == ".csv":  # CSV tables hold one simulation: a folder per repeat
        paths = [
            save_simulation(ds.isel(repeat=r), out.with_name(f"{out.stem}-repeat{r}.csv"),
                         overwrite=args.overwrite)
            for r in range(ds.sizes["repeat"])
        ]  # fmt: skip
    else:
        paths = [save_simulation(ds, out, overwrite=args.overwrite)]
    for path in paths:
        print(f"{path}: cell {ds.attrs['cell']}, {ds.sizes['repeat']} repeat(s)")
    for script in scripts:
        print(f"{script}: run it with Rscript {script.name} (in its folder or not)")
    return 0


def _add_data_parser(actions: Any) -> None:
    data = actions.add_parser(
        "data", help="a stored cell's truth and the exact data its learners saw (verified)"
    )
    data.add_argument("folder", help="the study's folder (what study run wrote)")
    data.add_argument(
        "--cell", required=True, help="the cell: its key (cells/<key>.json) or axis=value,..."
    )
    data.add_argument("-o", "--output", required=True, help="cell.nc, cell.zarr or a folder")
    data.add_argument(
        "--r-script",
        action="append",
        metavar="LEARNER",
        help="also write a .R script reproducing this R learner's fit (repeatable)",
    )
    data.add_argument("--repeat", type=int, default=0, help="the repeat of --r-script (0)")
    data.add_argument("--overwrite", action="store_true", help="replace an existing output")
    data.set_defaults(func=_cmd_study_data)


def _add_study_parser(sub: Any) -> None:
    """Register ``spdgraph study run``."""
    cmd = sub.add_parser(
        "study",
        help="simulation studies from a TOML file (grid, learners, scores; resumable)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    actions = cmd.add_subparsers(dest="study_command", required=True)
    run = actions.add_parser("run", help="run the cells not yet stored, then tables and plots")
    run.add_argument("study", help="the study's TOML file (docs/study.md)")
    add_output(run, "the study's folder (created)")
    add_count(run, "--workers", help="processes (default: CPUs)")
    add_scheduler(run, "the cells")
    run.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        help="seconds an R or command learner's fit may take when it sets no timeout "
        "(default: the study's timeout, else no limit)",
    )
    run.add_argument(
        "--sparse",
        action="store_true",
        default=None,
        help="sparse truths, data through files, scores from edge sets (the TOML's "
        "sparse = true; docs/study.md)",
    )
    run.add_argument(
        "--wait",
        action="store_true",
        help="wait while another run uses the folder (default: refuse)",
    )
    run.add_argument("--no-plots", action="store_true", help="skip the plots")
    _add_format_option(run, "the results table (results.<suffix>; default netCDF)")
    bar = run.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None)
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    run.set_defaults(func=_cmd_study_run)
    rep = actions.add_parser(
        "report", help="rebuild DIR/report.html (and the tables, plots) from the stored cells"
    )
    rep.add_argument("folder", help="the study's folder (what study run wrote)")
    rep.add_argument(
        "--study", default=None, help="the study's TOML file (default: DIR/study.json)"
    )
    rep.add_argument("--no-plots", action="store_true", help="skip the plots")
    rep.set_defaults(func=_cmd_study_report)
    _add_data_parser(actions)
