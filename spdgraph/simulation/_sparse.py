"""``spdgraph.simulate(..., sparse=True)`` after sampling: exact data, no dense p x p.

The graph step is the dense layout's (``simulation/_core.py``: one graph, read
once knowing the method); from the matrix of ``sample(..., sparse=True)`` on,
Gaussian data are drawn exactly
through a sparse Cholesky factorization (``da.spd.draw`` on a sparse matrix). The
inverse of a sparse matrix is dense: it is included only while a dense ``p x p``
array stays small (:data:`DENSE_INVERSE_NODES`), and ``attrs["omitted"]`` says so
otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.errors import InvalidOptionError

__all__ = ["DENSE_INVERSE_NODES", "refuse_sparse", "sparse_dataset"]

#: Up to this many nodes the dense inverse (covariance of a precision, or the reverse)
#: and, for a covariance, the partial correlations are included (8 * p**2 bytes each).
DENSE_INVERSE_NODES = 4000


def refuse_sparse(related: object, data: object, missing: object) -> None:
    """What the sparse layout of ``simulate`` cannot do, refused before any work."""
    if related:
        raise InvalidOptionError("sparse=True takes one graph: related graphs need sparse=False.")
    if data != "gaussian" or missing:
        raise InvalidOptionError(
            "sparse=True draws Gaussian data (data='gaussian', missing=0): other data types "
            "need the dense path (sparse=False)."
        )


def sparse_dataset(
    truth: xr.DataArray,
    n: int,
    data_seed: np.random.SeedSequence,
    attrs: dict[str, Any],
    chunks: int | None = None,
) -> xr.Dataset:
    """The sparse layout of :func:`spdgraph.simulate` after sampling (see the module
    docstring): exact Gaussian data (a dask array of blocks of ``chunks`` rows when
    given), the dense inverse while it stays small."""
    kind = str(truth.name)
    observations = truth.spd.draw(int(n), seed=data_seed, chunks=chunks)
    nodes = int(truth.sizes["node"])
    adjacency = truth["adjacency"].reset_coords(drop=True).rename("adjacency")
    adjacency.attrs = {"description": "the true graph: exact zeros of the " + kind}
    variables: dict[str, xr.DataArray] = {kind: truth.drop_vars("adjacency").rename(kind)}
    other = "covariance" if kind == "precision" else "precision"
    if kind == "precision":
        pcor = truth.spd.partial_correlation().drop_vars("adjacency")
        variables["partial_correlation"] = pcor.rename("partial_correlation")
    attrs = dict(attrs)
    if nodes <= DENSE_INVERSE_NODES:
        dense = truth.copy(data=np.asarray(truth.data.todense()))
        inverse = dense.spd.inverse().drop_vars("adjacency")
        variables[other] = inverse.rename(other)
        if kind == "covariance":
            pcor = inverse.assign_coords(adjacency=truth["adjacency"]).spd.partial_correlation()
            variables["partial_correlation"] = pcor.drop_vars("adjacency").rename(
                "partial_correlation"
            )
    else:
        attrs["omitted"] = (
            f"{other}{' and partial_correlation' if kind == 'covariance' else ''}: the inverse "
            f"of a sparse {kind} is a dense {nodes:,} x {nodes:,} matrix (more than "
            f"{DENSE_INVERSE_NODES:,} nodes); invert a small part, or use the data."
        )
    variables["adjacency"] = adjacency
    variables["data"] = observations
    attrs.update(
        {
            "n_edges": int(truth["adjacency"].data.nnz) // 2,
            "data": "gaussian",
            "data_options": json.dumps({}),
            "missing": 0.0,
            "sparse": 1,
        }
    )
    return xr.Dataset(variables, attrs=attrs)
