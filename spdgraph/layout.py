"""The layout of a result: what every consumer dispatches on, so nothing is densified by accident.

spdgraph hands out matrices in four layouts, and a :func:`spdgraph.simulate`
Dataset holding them:

``dense``
    One ``(node, node_2)`` matrix in memory (numpy).
``stack``
    ``(sample, node, node_2)`` matrices in memory (numpy).
``lazy``
    Values still to compute or on disk: a dask array (``sample(..., chunks=)``,
    ``spdgraph.open(..., chunks=)``).
``sparse``
    A PyData ``sparse`` array (``sample(..., sparse=True)``,
    ``simulate(..., sparse=True)``): stored entries only.

Consumers (the ``da.spd`` accessor, :func:`spdgraph.save` / :func:`spdgraph.open`,
``spdgraph info`` and the other commands) ask :func:`layout_of` and take the
sparse or lazy path where they have one; where a computation needs the dense
values (an inverse is dense), :func:`dense_values` is the one place a sparse
array is densified: refused with :class:`~spdgraph.errors.TooLargeError`
before any allocation when the dense array would not fit, so a sparse result
never meets ``sparse``'s raw ``RuntimeError: Cannot convert a sparse array to
dense automatically``.

This module stands on a low floor (it imports only ``errors`` and ``_machine``
of spdgraph), so ``io``, ``accessor`` and the command line read it alike.

Examples
--------
>>> import numpy as np, xarray as xr
>>> from spdgraph.layout import layout_of
>>> layout_of(xr.DataArray(np.eye(3), dims=("node", "node_2")))
'dense'
>>> layout_of(xr.DataArray(np.ones((2, 3, 3)), dims=("sample", "node", "node_2")))
'stack'
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from spdgraph import _machine
from spdgraph.errors import TooLargeError

__all__ = [
    "DATASET",
    "DENSE",
    "LAYOUTS",
    "LAZY",
    "SPARSE",
    "STACK",
    "dense_bytes",
    "dense_values",
    "is_lazy",
    "is_sparse",
    "layout_of",
]

DENSE, STACK, LAZY, SPARSE, DATASET = "dense", "stack", "lazy", "sparse", "dataset"
#: Every layout :func:`layout_of` names.
LAYOUTS = (DENSE, STACK, LAZY, SPARSE, DATASET)
#: Copies of the dense array a densification may hold at once (the array and a cast).
DENSE_COPIES = 2


def _data(obj: object) -> object:
    """The array behind a DataArray or Variable as it is held, else ``obj`` itself.

    Never ``.data``: on values left on disk (``spdgraph.open(..., load=False)``,
    ``xr.open_dataarray``) that would read them all. The held array is then
    xarray's lazy indexing adapter: neither sparse nor dask, read as dense.
    """
    module = sys.modules.get("xarray")
    if module is not None and isinstance(obj, module.DataArray):
        obj = obj.variable
    if module is not None and isinstance(obj, module.Variable):
        return obj._data  # the held array (xarray has no public name for it)
    return obj


def is_sparse(obj: object) -> bool:
    """Whether ``obj`` (an array, or a DataArray / Variable) holds a PyData sparse array.

    Never imports ``sparse``: an object of it exists only once it was imported.
    """
    module = sys.modules.get("sparse")
    return module is not None and isinstance(_data(obj), module.SparseArray)


def is_lazy(obj: object) -> bool:
    """Whether ``obj`` (an array, or a DataArray / Variable) holds a dask array."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(_data(obj), module.Array)


def layout_of(obj: object) -> str:
    """The layout of ``obj``: ``"dense"``, ``"stack"``, ``"lazy"``, ``"sparse"`` or ``"dataset"``.

    A Dataset (a simulation, a study's results) is ``"dataset"``: ask its
    variables for theirs. A sparse or lazy array is that whatever its dims; an
    in-memory array with a leading ``sample`` dim is a ``"stack"``.
    """
    module = sys.modules.get("xarray")
    if module is not None and isinstance(obj, module.Dataset):
        return DATASET
    if is_sparse(obj):
        return SPARSE
    if is_lazy(obj):
        return LAZY
    dims = getattr(obj, "dims", ())
    return STACK if tuple(dims)[:1] == ("sample",) else DENSE


def dense_bytes(obj: Any) -> int:
    """Bytes of ``obj``'s values as a dense float64 array (whatever its layout holds)."""
    return 8 * math.prod(int(n) for n in obj.shape)


def dense_values(obj: Any, what: str) -> np.ndarray:
    """``obj``'s values as a dense numpy array, for ``what`` (a method's name, for messages).

    The one densification of a sparse result: refused with
    :class:`~spdgraph.errors.TooLargeError` before any allocation when
    :data:`DENSE_COPIES` dense copies would not fit in the available memory.
    A lazy array is computed; a dense one is returned as it is.

    Examples
    --------
    >>> import sparse
    >>> dense_values(sparse.eye(3), "inverse()").tolist()[0]
    [1.0, 0.0, 0.0]
    """
    data = _data(obj)
    if not is_sparse(data):
        return np.asarray(data)
    need = DENSE_COPIES * dense_bytes(data)
    available = _machine.available_memory()
    if available is not None and need > available:
        shape = " x ".join(f"{n:,}" for n in data.shape)  # type: ignore[attr-defined]
        raise TooLargeError(
            f"{what} needs the dense values of this sparse result ({shape}: "
            f"{dense_bytes(data) / 2**30:,.1f} GiB, twice that while it is built), beyond the "
            f"{available / 2**30:,.1f} GiB available. Keep it sparse: the accessor's draw(), "
            "check(), partial_correlation() (of a precision), graph() and plot() work on the "
            "stored entries, and spdgraph.save writes it to netCDF or Zarr as triplets."
        )
    return np.asarray(data.todense())  # type: ignore[attr-defined]
