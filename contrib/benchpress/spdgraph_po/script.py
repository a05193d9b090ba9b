"""benchpress parameters module ``spdgraph_po``: adjacency CSV -> covariance CSV.

Run by Snakemake (``script: "script.py"``), which defines ``snakemake``; its
wildcards (strings) carry the module's settings and the seed. Input: the
graph as benchpress writes it (first row the node labels, then the symmetric
0/1 matrix). Output: the covariance matrix, labelled header row, comma
separated, no row names. Importable for tests: :func:`write_covariance`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

import spdgraph
from spdgraph.io import save_csv


def _flag(text: object) -> bool:
    value = str(text).strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ValueError(f"normalize must be true or false, got {text!r}")


def write_covariance(
    adjmat_csv: str,
    output_csv: str,
    *,
    seed: int,
    method: str = "po",
    kind: str = "precision",
    entries: str = "normal",
    normalize: bool = True,
) -> None:
    """Sample on the graph of ``adjmat_csv`` and write the covariance to ``output_csv``."""
    frame = pd.read_csv(adjmat_csv, header=0, dtype=str)
    labels = list(frame.columns)
    adjacency = frame.astype(float).to_numpy() != 0
    graph = pd.DataFrame(adjacency, index=labels, columns=labels)
    matrix = spdgraph.sample(
        graph, method, seed=seed, kind=kind, entries=entries, normalize=normalize
    )
    covariance = matrix.spd.inverse() if kind == "precision" else matrix
    save_csv(covariance, output_csv)


def main(snakemake: Any) -> None:
    """Entry point under Snakemake."""
    wc = snakemake.wildcards
    write_covariance(
        snakemake.input["adjmat"],
        snakemake.output["params"],
        seed=int(wc["seed"]),
        method=str(wc["method"]),
        kind=str(wc["kind"]),
        entries=str(wc["entries"]),
        normalize=_flag(wc["normalize"]),
    )


if "snakemake" in globals():
    main(globals()["snakemake"])
