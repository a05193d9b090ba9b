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
from typing import Any

import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError, written
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

_HDF5 = b"\x89HDF\r\n\x1a\n"


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


def _is_netcdf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return head.startswith(b"CDF") or head == _HDF5


def simulation_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a netCDF file, Zarr store or CSV folder holding a simulation.

    Cheap: it reads the file's variable names (netCDF, Zarr) or lists the
    folder, never the values.
    """
    try:
        return _simulation_file(Path(path))
    except (OSError, ValueError, RuntimeError):  # a bad name or a damaged file: not a
        return False  # simulation; the array reader then says what is wrong


def _holds_simulation(names: set[str]) -> bool:
    """A simulation's variable names; a sparse one (``precision_index``: its triplets) may
    omit the dense covariance (``simulate(..., sparse=True)`` above the memory guard)."""
    needed = set(SIMULATION_VARIABLES)
    if "precision_index" in names:
        needed.discard("covariance")
    return needed <= names


def _simulation_file(target: Path) -> bool:
    if target.is_dir():
        names = {p.name for p in target.iterdir()}
        if "attributes.csv" in names and {"precision", "precision.csv"} & names:
            return True
        if not ({"zarr.json", ".zgroup"} & names):
            return False
        return _holds_simulation(names)
    if not target.is_file() or not _is_netcdf(target):
        return False
    try:
        import netCDF4
    except ImportError:  # the netCDF reader itself will say what to install
        return False
    try:
        with netCDF4.Dataset(target) as nc:
            return _holds_simulation(set(nc.variables))
    except (OSError, RuntimeError):  # damaged: the array reader reports it
        return False


def _read_csv_folder(folder: Path) -> xr.Dataset:
    import numpy as np
    import pandas as pd

    from spdgraph.io._tables import read_tables

    def table(name: str) -> xr.DataArray:
        path = folder / name if (folder / name).is_dir() else folder / f"{name}.csv"
        return read_tables(path).drop_vars("adjacency", errors="ignore")

    variables: dict[str, Any] = {}
    for name in SIMULATION_VARIABLES:
        da = table(name)
        if name == "data" and da.dims[-2:] == ("node", "node_2"):  # an obs x p table
            da = da.rename(node="obs", node_2="node")
        variables[name] = da.rename(name)
    labels = variables["precision"]["node"].values
    group_files = sorted(folder.glob("adjacency_group_*.csv"))
    if group_files:
        adjacency = np.stack([pd.read_csv(f).to_numpy() != 0 for f in group_files])
        dims: tuple[str, ...] = ("group", "node", "node_2")
    else:
        adjacency = pd.read_csv(folder / "adjacency.csv").to_numpy() != 0
        dims = ("node", "node_2")
    attrs = pd.read_csv(folder / "attributes.csv", index_col=0)["value"].to_dict()
    graph_kind = str(attrs.get("kind", "precision"))
    for name in SIMULATION_VARIABLES[:3]:  # what the matrices are (CSV keeps no attrs)
        variables[name].attrs = {"kind": name, "graph_kind": graph_kind}
    variables["data"].attrs = {"source_kind": graph_kind}
    ds = xr.Dataset(variables, attrs={str(k): v for k, v in attrs.items()})
    ds = ds.assign_coords(node=labels, node_2=labels, adjacency=(dims, adjacency))
    return ds


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
        A netCDF file, Zarr store or CSV folder ``spdgraph simulate -o`` wrote.
    chunks
        None (default) loads every variable (and checks it against its
        digest). An int (rows per chunk along ``sample``, ``obs`` and
        ``group``) or a dict of dim sizes opens a netCDF file or Zarr store
        lazily (needs dask): each block is checked against its digest as it
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
    if not simulation_file(target):
        raise FileError(
            f"{os.fspath(path)!r} is not a simulation (spdgraph simulate -o writes one: "
            f"variables {list(SIMULATION_VARIABLES)} and the graph)."
        )
    from spdgraph.io._digests import DIGESTS, verify_dataset

    if chunks is not None:
        from spdgraph._machine import require_dask

        whole = isinstance(chunks, int) and not isinstance(chunks, bool) and chunks >= 1
        if not whole and not (
            isinstance(chunks, dict)
            and all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in chunks.values()
            )
        ):
            raise InvalidOptionError(
                f"chunks must be a positive integer or a dict of dim -> positive integer, got "
                f"{written(chunks)}; e.g. open_simulation(path, chunks=10)."
            )
        require_dask("open_simulation(..., chunks=...)")
    csv = target.is_dir() and (target / "attributes.csv").exists()
    try:
        ds = _read_csv_folder(target) if csv else _read_stored(target, chunks)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(f"cannot read the simulation {os.fspath(path)!r} ({exc}).") from exc
    if SPARSE_VARIABLES in ds.attrs:  # simulate(..., sparse=True): triplets rebuilt, checked
        ds = decode_dataset(ds, os.fspath(path))
    if verify and not csv:  # a CSV folder keeps no digests (its attrs are text)
        ds = verify_dataset(ds, os.fspath(path), values=chunks is None, required=True)
    ds.attrs.pop(DIGESTS, None)
    return as_simulation(ds)


def _read_stored(target: Path, chunks: int | dict[str, int] | None) -> xr.Dataset:
    """A netCDF file or Zarr store: loaded, or lazily in the chunks asked for."""
    options: dict[str, Any] = {"engine": "zarr" if target.is_dir() else "netcdf4"}
    if target.is_dir():
        options["consolidated"] = False  # spdgraph's stores are unconsolidated
    if chunks is None:
        with xr.open_dataset(target, **options) as opened:
            return opened.load()
    ds = xr.open_dataset(target, chunks={}, **options)
    wanted: dict[str, int] = (
        dict(chunks)
        if isinstance(chunks, dict)
        else {"sample": int(chunks), "obs": int(chunks), "group": int(chunks)}
    )
    return ds.chunk({d: n for d, n in wanted.items() if d in ds.dims})
