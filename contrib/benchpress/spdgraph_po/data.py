"""benchpress data rule for ``spdgraph_po``: covariance CSV -> Gaussian data CSV.

Draws ``n`` observations of N(0, Sigma) with spdgraph (Cholesky factor, seeded
by the ``seed`` wildcard) and writes them with the node labels as the header
row, comma separated, no row names. Importable for tests: :func:`write_data`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

import spdgraph  # noqa: F401 - registers the da.spd accessor
from spdgraph.io import save_csv


def write_data(cov_csv: str, output_csv: str, *, n: int, seed: int) -> None:
    """Draw ``n`` Gaussian observations from the covariance in ``cov_csv``."""
    frame = pd.read_csv(cov_csv, header=0)
    labels = [str(x) for x in frame.columns]
    sigma = frame.to_numpy(dtype=float)
    adjacency = sigma != 0
    np.fill_diagonal(adjacency, False)
    cov = xr.DataArray(
        sigma,
        dims=("node", "node_2"),
        coords={"node": labels, "node_2": labels, "adjacency": (("node", "node_2"), adjacency)},
        name="covariance",
        attrs={"kind": "covariance"},
    )
    save_csv(cov.spd.draw(n, seed=seed), output_csv)


def main(snakemake: Any) -> None:
    """Entry point under Snakemake."""
    wc = snakemake.wildcards
    write_data(
        snakemake.input["cov"],
        snakemake.output["data"],
        n=int(wc["n"]),
        seed=int(wc["seed"]),
    )


if "snakemake" in globals():
    main(globals()["snakemake"])
