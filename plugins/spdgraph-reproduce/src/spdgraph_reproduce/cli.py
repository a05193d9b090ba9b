"""``spdgraph reproduce``: the command line of :mod:`spdgraph_reproduce`.

Added to the ``spdgraph`` command by :mod:`spdgraph_reproduce.plugin`; this
module imports argparse only, the studies are imported by the handler.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from spdgraph_reproduce._defaults import DEFAULT_OUT

STUDY_CHOICES = ("ratio", "condition", "timing", "kramer", "all")

#: Default output folder of :func:`spdgraph_reproduce.run_study` and ``--out``.


def add_reproduce_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``reproduce`` on the ``spdgraph`` command's subparsers."""
    parser = subparsers.add_parser(
        "reproduce",
        help="reproduce the paper's figures (ratio, condition, timing, kramer, all)",
        description=(
            "Run a study of the paper, resuming from the cells already in --out, and write "
            "tidy results (netCDF, CSV), PNG figures and a summary table."
        ),
    )
    parser.add_argument("study", choices=STUDY_CHOICES, help="which study to run")
    parser.add_argument(
        "--quick", action="store_true", help="reduced grid that finishes in minutes"
    )
    parser.add_argument(
        "--out", default=DEFAULT_OUT, help=f"output folder (default ./{DEFAULT_OUT})"
    )
    parser.add_argument("--seed", type=int, default=2018, help="study seed (default 2018)")
    parser.add_argument(
        "--scheduler",
        default=None,
        help="dask.distributed scheduler address (tcp://host:port), or 'local' for a "
        "LocalCluster of --jobs workers",
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="generators to use (ratio/condition: po dd; timing: every registered one; "
        "kramer: po dd, plus gwishart when installed)",
    )
    parser.add_argument(
        "--learners", nargs="+", default=None, help="kramer learners (default: all six)"
    )
    parser.add_argument(
        "--max-p", type=int, default=None, help="ratio/condition/timing: skip grid p above this"
    )
    parser.add_argument("--reps", type=int, default=None, help="kramer: replications")
    parser.add_argument(
        "--batch", type=int, default=None, help="timing: matrices per batch (paper: 5000)"
    )
    parser.add_argument("--n", type=int, nargs="+", default=None, help="kramer: sample sizes")
    parser.add_argument(
        "--d", type=float, nargs="+", default=None, help="override the density grid"
    )
    parser.add_argument(
        "--settings",
        nargs="+",
        choices=("paper", "gmat"),
        default=None,
        help="ratio: entry settings (default both)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=1,
        help="local worker processes when no --scheduler is given (default 1)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_reproduce)
    return parser


def run_reproduce(args: argparse.Namespace) -> int:
    """Handler of ``spdgraph reproduce``."""
    from spdgraph_reproduce._study import STUDIES, run_study

    chosen = STUDIES if args.study == "all" else (args.study,)
    t_start = time.perf_counter()
    for study in chosen:
        options: dict[str, Any] = {"d": tuple(args.d) if args.d else None}
        if study == "kramer":
            options.update(reps=args.reps, n=tuple(args.n) if args.n else None)
        else:
            if args.max_p is not None:
                options["max_p"] = args.max_p
            if study == "timing":
                options["batch"] = args.batch
            if study == "ratio":
                options["settings"] = tuple(args.settings) if args.settings else None
        res = run_study(
            study,
            args.out,
            quick=args.quick,
            seed=args.seed,
            scheduler=args.scheduler,
            progress=not args.no_progress,
            methods=args.methods,
            learners=args.learners,
            jobs=args.jobs,
            **options,
        )
        print(
            f"== {study}: {res.computed} cells computed, {res.skipped} reused, "
            f"{res.seconds:.1f} s; files in {args.out}"
        )
        with _wide():
            print(res.summary.to_string())
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0


class _wide:
    def __enter__(self) -> None:
        import pandas as pd

        self.ctx = pd.option_context("display.width", 200, "display.max_columns", 30)
        self.ctx.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.ctx.__exit__(*exc)
