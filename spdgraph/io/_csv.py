"""The built-in CSV file format: tables and folders of tables (a plugin, as any format).

``save`` writes one matrix or data set as a table and a stack as a folder of
tables (``_tables``); ``save_dataset`` writes a whole Dataset (what
:func:`spdgraph.simulate` returns) as a folder: one table per variable
(``<name>.csv``, or a folder ``<name>/`` of ``sample_<k>.csv`` for a stack), a
boolean variable (the graph) as a 0/1 table, the variables without a ``node``
dim (a table's columns) together as ``table.csv``, ``attributes.csv`` for the
provenance. ``recognises`` tells a table or a folder of tables by its content.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import xarray as xr

from spdgraph.io._offered import offered_format
from spdgraph.io._tables import read_tables, save_csv, write_csv

__all__ = ["CSV", "open_dataset", "recognises", "save_dataset", "spdgraph_file_formats"]

#: The variables of a simulation folder, each a table (or a folder of tables).
MATRICES = ("precision", "covariance", "partial_correlation", "data")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text.strip() == "NA"
    return True


def _looks_like_table(path: Path) -> bool:
    """A text file whose first line is a header and whose next line is as many numbers."""
    import csv

    with path.open("rb") as handle:
        head = handle.read(65536)
    if b"\0" in head:
        return False
    try:
        lines = head.decode("utf-8").splitlines()[:2]
    except UnicodeDecodeError:
        return False
    if len(lines) < 2:
        return False
    header, first = list(csv.reader(lines))
    return len(header) == len(first) > 0 and all(_is_number(x) for x in first)


def recognises(path: Path) -> bool:
    """A CSV table, or a folder of ``sample_<k>.csv`` tables (what :func:`save_csv` writes)."""
    if path.is_file():
        return _looks_like_table(path)
    if not path.is_dir():
        return False
    tables = sorted(path.glob("sample_*.csv"))
    return bool(tables) and _looks_like_table(tables[0])


def _zero_one(da: xr.DataArray, path: Path) -> None:
    import pandas as pd

    labels = [str(x) for x in da[da.dims[-1]].values]
    pd.DataFrame(da.values.astype(int), columns=labels).to_csv(path, index=False)


def save_dataset(ds: xr.Dataset, folder: Path) -> None:
    """A Dataset as a folder of tables: one per variable, a 0/1 table per graph."""
    import pandas as pd

    folder.mkdir()
    tabular = [name for name, da in ds.data_vars.items() if "node" not in da.dims]
    if tabular:  # columns of a table (a study's results): one table.csv
        ds[tabular].to_dataframe().to_csv(folder / "table.csv")
    # the graph may be a boolean coordinate (a simulation's adjacency): written as a variable
    graphs = {n: c for n, c in ds.coords.items() if c.dtype == bool and n not in ds.dims}
    for name, da in [*ds.data_vars.items(), *graphs.items()]:
        if name in tabular:
            continue
        if da.dtype == bool and "group" in da.dims:
            for k in range(da.sizes["group"]):
                _zero_one(da.isel(group=k), folder / f"{name}_group_{k}.csv")
        elif da.dtype == bool:
            _zero_one(da, folder / f"{name}.csv")
        else:
            stacked = any(d in da.dims for d in ("sample", "group"))
            save_csv(da, folder / (str(name) if stacked else f"{name}.csv"))
    attrs = pd.Series({k: str(v) for k, v in ds.attrs.items()}, name="value")
    attrs.to_csv(folder / "attributes.csv", index_label="attribute")


def open_dataset(folder: Path, chunks: Mapping[str, int] | None = None) -> xr.Dataset:
    """The Dataset of a folder ``save_dataset`` wrote (a simulation), read whole
    (``chunks`` is ignored: a table is read at once). CSV keeps no matrix
    provenance: the matrices' ``kind`` come from their names, the attrs as text."""
    import numpy as np
    import pandas as pd

    def table(name: str) -> xr.DataArray:
        path = folder / name if (folder / name).is_dir() else folder / f"{name}.csv"
        return read_tables(path).drop_vars("adjacency", errors="ignore")

    arrays: dict[str, Any] = {}
    for name in MATRICES:
        da = table(name)
        if name == "data" and da.dims[-2:] == ("node", "node_2"):  # an obs x p table
            da = da.rename(node="obs", node_2="node")
        arrays[name] = da.rename(name)
    labels = arrays["precision"]["node"].values
    group_files = sorted(folder.glob("adjacency_group_*.csv"))
    if group_files:
        adjacency = np.stack([pd.read_csv(f).to_numpy() != 0 for f in group_files])
        dims: tuple[str, ...] = ("group", "node", "node_2")
    else:
        adjacency = pd.read_csv(folder / "adjacency.csv").to_numpy() != 0
        dims = ("node", "node_2")
    attrs = pd.read_csv(folder / "attributes.csv", index_col=0)["value"].to_dict()
    graph_kind = str(attrs.get("kind", "precision"))
    for name in MATRICES[:3]:  # what the matrices are (CSV keeps no attrs)
        arrays[name].attrs = {"kind": name, "graph_kind": graph_kind}
    arrays["data"].attrs = {"source_kind": graph_kind}
    ds = xr.Dataset(arrays, attrs={str(k): v for k, v in attrs.items()})
    ds = ds.assign_coords(node=labels, node_2=labels, adjacency=(dims, adjacency))
    return ds


def variables(folder: Path) -> list[str]:
    """The tables of a folder ``save_dataset`` wrote (``attributes.csv`` marks one)."""
    if not (folder.is_dir() and (folder / "attributes.csv").is_file()):
        return []
    return [p.stem if p.suffix == ".csv" else p.name for p in folder.iterdir()]


CSV, spdgraph_file_formats = offered_format(
    "csv",
    globals(),
    save=write_csv,
    open=read_tables,
    suffixes=(".csv",),
    description="CSV tables",
    folder=True,
    keeps_digests=False,
)
