"""``spdgraph score``: score learners on drawn data against the true graph(s), as CSV.

``spdgraph score data.nc truth.nc --learner shrink --learner lasso --seed 0``
prints :func:`spdgraph.validation.score_table` (one row per group, sample and
learner: TPR, FPR, TDR, F1, MCC, SHD) as CSV; ``--areas`` adds the areas under
the ROC and precision-recall curves of the node-wise lasso path of each data
set (``--path glasso``: of the graphical lasso path instead); ``-o FILE.csv``
writes the table instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from spdgraph.cli._arguments import add_count, add_seed
from spdgraph.cli._options import (
    _add_verify_option,
    _verify,
    vocabulary_argument,
)

__all__: list[str] = []


def _areas(data: Any, truth: Any, table: Any, method: str = "lasso") -> Any:
    from spdgraph.validation import curve_areas, learner_path, path_table, truth_for

    leading = [d for d in ("group", "sample") if d in data.dims]
    rows = []
    for _, row in table.iterrows():
        where = {
            d: list(data[d].values).index(row[d]) if d in data.coords else int(row[d])
            for d in leading
        }
        x = data.isel(where)
        graph = truth_for(truth, where.get("group"))
        rows.append(curve_areas(path_table(learner_path(x.values, method=method), graph)))
    return table.assign(
        **{
            f"{method}_path_roc_auc": [r["roc_auc"] for r in rows],
            f"{method}_path_pr_auc": [r["pr_auc"] for r in rows],
        }
    )


def _criterion(text: str) -> str:
    """``--criterion``: validation's one check of it (stars, ebic, cv)."""
    from spdgraph.validation import check_criterion

    return vocabulary_argument(check_criterion)(text)


def _cmd_score(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph.io import simulation_inputs
    from spdgraph.validation import score_table

    # a simulation file gives its data (as DATA) and its true matrix (as MATRICES)
    verify = _verify(args)
    data, truth = simulation_inputs(
        spdgraph.open(args.data, verify=verify), spdgraph.open(args.truth, verify=verify)
    )
    table = score_table(
        data, truth, args.learner or ["lasso"], seed=args.seed, cv=args.cv,
        criterion=args.criterion, gamma=args.gamma,
    )  # fmt: skip
    if args.areas:
        table = _areas(data, truth, table, args.path)
    if args.output:
        from spdgraph.io import write_atomically

        # an existing output was refused without --overwrite before any work (cli.WRITERS)
        write_atomically(args.output, lambda tmp: table.to_csv(tmp, index=False))
        print(f"wrote {len(table)} scores to {args.output}")
    else:
        table.to_csv(sys.stdout, index=False)
    return 0


def _add_score_parser(sub: Any) -> None:
    score = sub.add_parser(
        "score",
        help="score structure learners on drawn data against the true graph(s) (CSV table)",
    )
    score.add_argument(
        "data", metavar="DATA", help="data file written by `spdgraph draw` or `spdgraph simulate`"
    )
    score.add_argument(
        "truth",
        metavar="MATRICES",
        help="the matrices the data came from (their graphs), or a `spdgraph simulate` file",
    )
    score.add_argument(
        "--learner",
        action="append",
        help="built-in learner (repeatable): lasso, adalasso, ridge, pls, shrink, glasso",
    )
    add_seed(score, "CV folds' seed")
    add_count(score, "--cv", low=2, default=5, help="cross-validation folds")
    score.add_argument(
        "--criterion",
        type=_criterion,
        default=None,
        help="how glasso chooses its penalty: stars, ebic or cv (default: the library's, "
        "see docs/validation.md)",
    )
    score.add_argument("--gamma", type=float, default=0.5, help="EBIC's gamma (--criterion ebic)")
    score.add_argument(
        "--areas", action="store_true", help="add ROC/PR areas of the node-wise lasso path"
    )
    score.add_argument(
        "--path",
        choices=("lasso", "glasso"),
        default="lasso",
        help="path of --areas: node-wise lasso (default) or graphical lasso",
    )
    score.add_argument("-o", "--output", help="write the table to this CSV file")
    _add_verify_option(score)
    score.set_defaults(func=_cmd_score)
