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

from pathlib import Path

import xarray as xr

from spdgraph.io._tables import read_tables, save_csv, write_csv
from spdgraph.plugins.formats import FileFormat
from spdgraph.plugins.hookspecs import offering

__all__ = ["CSV", "recognises", "save_dataset", "spdgraph_file_formats"]


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


CSV = FileFormat(
    name="csv",
    suffixes=(".csv",),
    save=write_csv,
    open=read_tables,
    recognises=recognises,
    folder=True,
    description="CSV tables",
    save_dataset=save_dataset,
)


spdgraph_file_formats = offering(CSV)
