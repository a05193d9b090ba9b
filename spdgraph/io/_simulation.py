"""A simulation as an input: read what :func:`spdgraph.simulate` and ``spdgraph simulate`` write.

:func:`spdgraph.open`, ``spdgraph info``, ``draw`` and ``score`` and
:func:`spdgraph.validation.score` take a simulation (the Dataset, or the
netCDF file, Zarr store or CSV folder :func:`save_simulation` wrote) where
they take a matrix or data: the truth is the matrix whose zeros are the graph
(``attrs["kind"]``, ``precision`` by default) and the data are ``data``.
"""

from __future__ import annotations

import os
from pathlib import Path

import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError, written
from spdgraph.io._format import FileFormat, file_formats
from spdgraph.io._sparse import is_sparse
from spdgraph.io._sparse_datasets import SPARSE_VARIABLES, decode_dataset

__all__ = [
    "is_simulation",
    "open_simulation",
    "simulation_data",
    "simulation_file",
    "simulation_inputs",
    "simulation_truth",
]

#: The variables every simulation holds (besides the ``adjacency`` coordinate).
SIMULATION_VARIABLES = ("precision", "covariance", "partial_correlation", "data")


def is_simulation(obj: object) -> bool:
    """Whether ``obj`` is a Dataset as :func:`spdgraph.simulate` returns it (a sparse one
    may omit the dense covariance)."""
    if not isinstance(obj, xr.Dataset):
        return False
    names = set(map(str, obj.variables))
    if "precision" in obj.variables and is_sparse(obj.variables["precision"].data):
        names.add("precision_index")  # as in its file: the triplets stand for the values
    return _holds_simulation(names)


def as_simulation(ds: xr.Dataset) -> xr.Dataset:
    """The graph as a coordinate (files written before it was one hold it as a variable)."""
    if "adjacency" in ds.data_vars:
        ds = ds.set_coords("adjacency")
    if "adjacency" in ds.coords:
        ds["adjacency"] = ds["adjacency"].astype(bool)
    return ds


def simulation_truth(ds: xr.Dataset) -> xr.DataArray:
    """The matrix whose zeros are the graph (``attrs["kind"]``), carrying ``adjacency``."""
    kind = str(ds.attrs.get("kind", "precision"))
    return as_simulation(ds)[kind if kind in ("precision", "covariance") else "precision"]


def simulation_data(ds: xr.Dataset) -> xr.DataArray:
    """The drawn data of a simulation (``data``: ``obs`` x ``node``, leading dims kept)."""
    return ds["data"]


def simulation_inputs(data: object, truth: object) -> tuple[object, object]:
    """``(data, truth)`` with a simulation in either place replaced by its part.

    A simulation as the data gives its ``data``; as the truth, its true matrix.
    """
    if is_simulation(data):
        data = simulation_data(data)  # type: ignore[arg-type]
    if is_simulation(truth):
        truth = simulation_truth(truth)  # type: ignore[arg-type]
    return data, truth


def simulation_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file or folder of a registered format holding a simulation.

    Cheap: each format that lists its variables (``FileFormat.variables``: a
    header, a folder) is asked, the values never read.
    """
    return simulation_format(Path(path)) is not None


def simulation_format(target: Path) -> FileFormat | None:
    """The registered format whose ``variables`` say ``target`` holds a simulation."""
    try:
        if not (target.exists() or target.is_symlink()):
            return None
    except OSError:  # a name too long, a loop of links: the array reader says so
        return None
    for fmt in file_formats().values():
        if fmt.open_dataset is not None and _holds_simulation(set(fmt.stored_variables(target))):
            return fmt
    return None


def _holds_simulation(names: set[str]) -> bool:
    """A simulation's variable names; a sparse one (``precision_index``: its triplets) may
    omit the dense covariance (``simulate(..., sparse=True)`` above the memory guard)."""
    needed = set(SIMULATION_VARIABLES)
    if "precision_index" in names:
        needed.discard("covariance")
    return needed <= names


def open_simulation(
    path: str | os.PathLike[str],
    *,
    chunks: int | dict[str, int] | None = None,
    verify: bool = True,
) -> xr.Dataset:
    """A simulation saved by :func:`save_simulation`, as ``simulate`` returned it, verified.

    Parameters
    ----------
    path
        A file, store or folder ``spdgraph simulate -o`` wrote, in any registered
        format that opens Datasets (``FileFormat.open_dataset``: netCDF, Zarr,
        CSV folders, a plugin's).
    chunks
        None (default) loads every variable (and checks it against its
        digest). An int (rows per chunk along ``sample``, ``obs`` and
        ``group``) or a dict of dim sizes opens it lazily where the format
        can (netCDF, Zarr; needs dask): each block is checked against its digest as it
        is read.
    verify
        Check the digests a netCDF file or Zarr store carries (default): an
        edited value, label, graph or attribute, or swapped chunks, raise
        :class:`FileError`, and so does a simulation spdgraph wrote whose
        digests were removed. ``verify=False`` opens it unchecked. (A CSV
        folder keeps no digests.)

    Returns
    -------
    xarray.Dataset
        ``precision``, ``covariance``, ``partial_correlation`` and ``data``,
        with ``adjacency`` as a coordinate (each matrix variable carries the
        graph, so ``ds["precision"].spd.graph()`` works). A CSV folder keeps
        no matrix provenance: its attrs are the simulation's, as text.

    Raises
    ------
    FileError
        Not a simulation, unreadable, changed since it was saved, or its
        digests removed (unless ``verify=False``).

    Examples
    --------
    >>> import os, tempfile, spdgraph
    >>> from spdgraph.simulation import open_simulation, save_simulation  # also in spdgraph.io
    >>> sim = spdgraph.simulate("hub", n=20, p=10, seed=1)
    >>> path = save_simulation(sim, os.path.join(tempfile.mkdtemp(), "sim.nc"))
    >>> back = open_simulation(path)
    >>> back["precision"].spd.graph().number_of_edges() == sim.attrs["n_edges"]
    True
    """
    target = Path(path)
    fmt = simulation_format(target)
    if fmt is None or fmt.open_dataset is None:
        raise FileError(
            f"{os.fspath(path)!r} is not a simulation (spdgraph simulate -o writes one: "
            f"variables {list(SIMULATION_VARIABLES)} and the graph)."
        )
    from spdgraph.io._digests import DIGESTS, verify_dataset

    wanted = _chunks(chunks)
    fmt.requires()
    try:
        ds = fmt.open_dataset(target, wanted)
    except (OSError, ValueError, KeyError, RuntimeError, AttributeError) as exc:
        if isinstance(exc, FileError):
            raise  # netCDF4 reports a damaged attribute header as an AttributeError
        raise FileError(f"cannot read the simulation {os.fspath(path)!r} ({exc}).") from exc
    if SPARSE_VARIABLES in ds.attrs:  # simulate(..., sparse=True): triplets rebuilt, checked
        ds = decode_dataset(ds, os.fspath(path))
    if verify and fmt.keeps_digests:  # a CSV folder keeps its attrs as text: no digests
        ds = verify_dataset(ds, os.fspath(path), values=wanted is None, required=True)
    ds.attrs.pop(DIGESTS, None)
    return as_simulation(ds)


def _chunks(chunks: int | dict[str, int] | None) -> dict[str, int] | None:
    """``open_simulation``'s ``chunks`` as dim sizes (an int: rows along ``sample``,
    ``obs`` and ``group``), checked; dask required."""
    if chunks is None:
        return None
    from spdgraph._machine import require_dask

    whole = isinstance(chunks, int) and not isinstance(chunks, bool) and chunks >= 1
    if not whole and not (
        isinstance(chunks, dict)
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in chunks.values())
    ):
        raise InvalidOptionError(
            f"chunks must be a positive integer or a dict of dim -> positive integer, got "
            f"{written(chunks)}; e.g. open_simulation(path, chunks=10)."
        )
    require_dask("open_simulation(..., chunks=...)")
    if isinstance(chunks, dict):
        return dict(chunks)
    return {"sample": int(chunks), "obs": int(chunks), "group": int(chunks)}
