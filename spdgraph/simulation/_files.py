"""Write a simulation through the one door to disk: any registered format that holds Datasets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import xarray as xr

from spdgraph.errors import FileError

if TYPE_CHECKING:
    from spdgraph.io import FileFormat

__all__ = ["check_simulation_target", "save_simulation", "stamp_simulation"]


def _format_of(path: str | os.PathLike[str], format: str | None) -> str:
    """``format``, else the registered format of ``path``'s suffix, else ``"csv"`` (a folder)."""
    from spdgraph.io import format_for_writing

    if format not in (None, "auto"):
        return str(format)
    try:
        return format_for_writing(path).name
    except FileError:  # no registered suffix: a folder of CSV files
        return "csv"


def save_simulation(
    ds: xr.Dataset,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    format: str | None = None,
    resume: bool = False,
) -> Path:
    """Save what :func:`spdgraph.simulate` returned, in any registered format holding Datasets.

    The format is ``format`` (a registered name) or the one of ``path``'s
    suffix: ``.nc`` a netCDF file, ``.zarr`` a Zarr store (read back with
    :func:`xarray.open_dataset`), a suffix a plugin registered (a
    :class:`~spdgraph.FileFormat` with ``save_dataset``) that plugin's
    format; any other path is a folder of CSV files: ``precision.csv``,
    ``covariance.csv``, ``partial_correlation.csv``, ``data.csv`` (a
    sub-folder of ``sample_<k>.csv`` files each for a stack),
    ``adjacency.csv`` (0/1) and ``attributes.csv`` (the provenance). The
    write goes through :func:`spdgraph.io.save_dataset`, the door every
    spdgraph file goes through: nothing is left half-written, the output
    appears complete or not at all. Data drawn with ``chunks=`` (a dask array
    of row blocks, ``simulate(..., sparse=True, chunks=N)``) are written to a
    Zarr store block by block, each block digested; a save interrupted there
    (killed, Ctrl-C, a failed block) keeps its blocks, and the same save with
    ``resume=True`` writes only the missing ones.

    Parameters
    ----------
    ds
        A simulation.
    path
        Destination.
    overwrite
        Replace an existing output.
    format
        The name of a registered format (``"csv"``, ``"netcdf"``, ``"zarr"``,
        a plugin's); None or ``"auto"``: from the suffix.
    resume
        Finish an interrupted block-wise save of the same simulation (same
        seed and chunks) to ``path``: the blocks already written and verified
        are kept, not recomputed (:func:`spdgraph.save`). Only for a format
        written block by block (Zarr); refused for another, before any work.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile, spdgraph
    >>> from spdgraph.simulation import save_simulation
    >>> sim = spdgraph.simulate("band", n=5, p=4, seed=0)
    >>> folder = save_simulation(sim, os.path.join(tempfile.mkdtemp(), "sim"))
    >>> sorted(os.listdir(folder))[:3]
    ['adjacency.csv', 'attributes.csv', 'covariance.csv']
    """
    from spdgraph.io import as_path, save_dataset

    target = as_path(path)  # a FileError for what is no path (an int, a NUL byte)
    name = _format_of(target, format)
    stamped = ds if name == "csv" else stamp_simulation(ds)
    return save_dataset(stamped, target, overwrite=overwrite, format=name, resume=resume)


def check_simulation_target(
    path: str | os.PathLike[str], overwrite: bool = False, format: str | None = None
) -> FileFormat:
    """Refuse, before any work, a destination :func:`save_simulation` cannot or must not write.

    What is no path (an int), a missing or read-only folder, a name too long
    for the file system, an existing output without ``overwrite``, a format
    that holds no Dataset: a :class:`FileError` naming the path and the cause.
    Returns the format the simulation is written in.
    """
    from spdgraph.io import as_path, check_dataset_format, check_writable

    target = as_path(path)
    name = _format_of(target, format)
    fmt = check_dataset_format(target, name)
    check_writable(target, overwrite=overwrite, format=name)
    return fmt


def stamp_simulation(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` with its digests (:func:`spdgraph.io.dataset_with_digests`).

    Every variable's values (whole, and in blocks along the first dim for a
    lazy open), every coordinate and the attrs: :func:`open_simulation` checks
    them. Labels that files cannot hold exactly (NUL characters, lone
    surrogates, integers beyond 64 bits) are refused here, before anything is
    written.
    """
    from spdgraph.io import dataset_with_digests

    return dataset_with_digests(ds)
