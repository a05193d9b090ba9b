"""Benchmark: how the learner ``"glasso"`` chooses its penalty (cv, ebic, stars).

The table behind the default ``criterion`` of ``spdgraph.validation.score``
(docs/validation.md). For ``p`` in ``--p`` and ``n = k p`` for ``k`` in
``--ratios``, three graph families (Erdős–Rényi with mean degree 3,
``scale_free``, ``hub``), a PO truth (``kind="precision"``) per family and
replicate, Gaussian data drawn from it, and each criterion scored by
``spdgraph.validation.score(x, truth, "glasso", criterion=...)``: mean TPR,
TDR and F1 over families and replicates (TDR and F1 are NaN when nothing is
selected; ``empty`` counts those cases, left out of the TDR mean), and the
mean number of selected edges against the true count.

Seeds: 34_000 + a running index (used nowhere else in the project).

    python benchmarks/bench_glasso_selection.py [--p 15 30 100] [--ratios 1 5 20 100]
        [--reps 3] [--jobs 2] [--csv out.csv]
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

CRITERIA = ("cv", "ebic", "stars")
FAMILIES = ("erdos_renyi", "scale_free", "hub")
SEED0 = 34_000


def _graph(family: str, p: int, seed: int):
    from spdgraph.graphs import erdos_renyi, hub, scale_free

    if family == "erdos_renyi":
        return erdos_renyi(p, min(1.0, 3.0 / (p - 1)), seed=seed)
    if family == "scale_free":
        return scale_free(p, seed=seed)
    return hub(p, mode="bdgraph", seed=seed)


def _case(args: tuple[int, int, str, int, tuple[str, ...]]) -> list[dict]:
    import spdgraph
    from spdgraph.validation import draw_gaussian, score

    p, ratio, family, rep, criteria = args
    index = (FAMILIES.index(family) * 10 + rep) * 1000 + p * 7 + ratio
    seed = SEED0 + index
    g = _graph(family, p, seed)
    prec = spdgraph.sample(g, "po", seed=seed, kind="precision")
    x = draw_gaussian(prec.values, ratio * p, seed=seed + 1)
    rows = []
    for criterion in criteria:
        t0 = time.perf_counter()
        s = score(x, prec, "glasso", seed=seed + 2, criterion=criterion)
        m = s.metrics()
        rows.append(
            {"p": p, "ratio": ratio, "family": family, "rep": rep, "criterion": criterion,
             "tpr": s.tpr, "tdr": s.tdr, "f1": m["f1"], "n_selected": s.n_selected,
             "n_true": s.n_true, "seconds": time.perf_counter() - t0}
        )  # fmt: skip
    return rows


def _mean(values: list[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return float(np.mean(vals)) if vals else math.nan


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[15, 30, 100])
    parser.add_argument("--ratios", type=int, nargs="+", default=[1, 5, 20, 100])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--csv", default=None, help="also write every case to this CSV")
    parser.add_argument(
        "--from-csv", default=None, help="print the table of a CSV written before (no fits)"
    )
    parser.add_argument(
        "--reuse", default=None, help="CSV of an earlier run: its (case, criterion) rows are kept"
    )
    args = parser.parse_args(argv)
    cases = list(itertools.product(args.p, args.ratios, FAMILIES, range(args.reps)))
    kept: list[dict] = []
    if args.reuse:
        import pandas as pd

        kept = pd.read_csv(args.reuse).to_dict("records")
    done = {(r["p"], r["ratio"], r["family"], r["rep"], r["criterion"]) for r in kept}
    todo = [(*case, tuple(c for c in CRITERIA if (*case, c) not in done)) for case in cases]
    t0 = time.perf_counter()
    if args.from_csv:
        import pandas as pd

        rows = pd.read_csv(args.from_csv).to_dict("records")
        args.p = sorted({int(r["p"]) for r in rows})
        cases = sorted({(r["p"], r["ratio"], r["family"], r["rep"]) for r in rows})
        args.ratios = sorted({int(r["ratio"]) for r in rows})
    else:
        rows = [r for r in kept if (r["p"], r["ratio"], r["family"], r["rep"]) in set(cases)]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for part in pool.map(_case, [t for t in todo if t[-1]]):
                rows.extend(part)
                if args.csv:  # written as cases finish: a long run can be read midway
                    import pandas as pd

                    pd.DataFrame(rows).to_csv(args.csv, index=False)
    print(f"{len(cases)} data sets x {len(CRITERIA)} criteria in {time.perf_counter() - t0:.0f} s")
    print(f"{'p':>4} {'n':>6} {'criterion':>9} {'TPR':>6} {'TDR':>6} {'F1':>6} "
          f"{'selected':>9} {'true':>6} {'empty':>5} {'s/fit':>6}")  # fmt: skip
    for p, ratio, crit in itertools.product(args.p, args.ratios, CRITERIA):
        part = [r for r in rows if (r["p"], r["ratio"], r["criterion"]) == (p, ratio, crit)]
        if not part:
            continue
        empty = sum(r["n_selected"] == 0 for r in part)
        print(
            f"{p:>4} {ratio * p:>6} {crit:>9} {_mean([r['tpr'] for r in part]):6.2f} "
            f"{_mean([r['tdr'] for r in part]):6.2f} {_mean([r['f1'] for r in part]):6.2f} "
            f"{_mean([r['n_selected'] for r in part]):9.1f} "
            f"{_mean([r['n_true'] for r in part]):6.1f} {empty:>5} "
            f"{_mean([r['seconds'] for r in part]):6.2f}"
        )


if __name__ == "__main__":
    main()
