"""Write a simulation to netCDF, Zarr or a folder of CSV files, atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import xarray as xr

from spdgraph.errors import FileError, MissingDependencyError

__all__ = ["save_simulation"]


def _require(module: str, extra: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f'writing this format needs {module}: pip install "spdgraph[{extra}]" '
            "(or write a CSV folder)."
        )


def _csv_folder(ds: xr.Dataset, folder: Path) -> None:
    import pandas as pd

    from spdgraph.io import save_csv

    for name in ("precision", "covariance", "partial_correlation", "data"):
        da = ds[name]
        stacked = any(d in da.dims for d in ("sample", "group"))
        save_csv(da, folder / (name if stacked else f"{name}.csv"))
    adjacency = ds["adjacency"]
    if "group" in adjacency.dims:
        for k in range(adjacency.sizes["group"]):
            a = adjacency.isel(group=k)
            table = pd.DataFrame(a.values.astype(int), columns=[str(x) for x in a["node"].values])
            table.to_csv(folder / f"adjacency_group_{k}.csv", index=False)
    else:
        labels = [str(x) for x in adjacency["node"].values]
        pd.DataFrame(adjacency.values.astype(int), columns=labels).to_csv(
            folder / "adjacency.csv", index=False
        )
    attrs = pd.Series({k: str(v) for k, v in ds.attrs.items()}, name="value")
    attrs.to_csv(folder / "attributes.csv", index_label="attribute")


def save_simulation(
    ds: xr.Dataset, path: str | os.PathLike[str], *, overwrite: bool = False
) -> Path:
    """Save what :func:`spdgraph.simulate` returned: ``.nc``, ``.zarr`` or a CSV folder.

    A path ending in ``.nc`` is a netCDF file and ``.zarr`` a Zarr store
    (read back with :func:`xarray.open_dataset`); any other path is a folder
    of CSV files: ``precision.csv``, ``covariance.csv``,
    ``partial_correlation.csv``, ``data.csv`` (a sub-folder of
    ``sample_<k>.csv`` files each for a stack), ``adjacency.csv`` (0/1) and
    ``attributes.csv`` (the provenance). Nothing is left half-written: the
    output appears complete or not at all.

    Parameters
    ----------
    ds
        A simulation.
    path
        Destination.
    overwrite
        Replace an existing output.

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
    target = Path(path)
    if target.exists() and not overwrite:
        raise FileError(
            f"{str(target)!r} exists; pass overwrite=True (--overwrite) to replace it."
        )
    if not target.parent.is_dir():
        raise FileError(f"the folder {str(target.parent)!r} does not exist; create it first.")
    suffix = target.suffix.lower()
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        if suffix == ".nc":
            _require("netCDF4", "netcdf")
            ds.to_netcdf(tmp / "out.nc", engine="netcdf4")
            staged = tmp / "out.nc"
        elif suffix == ".zarr":
            _require("zarr", "zarr")
            ds.to_zarr(tmp / "out.zarr")
            staged = tmp / "out.zarr"
        else:
            staged = tmp / "out"
            staged.mkdir()
            _csv_folder(ds, staged)
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        os.replace(staged, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
