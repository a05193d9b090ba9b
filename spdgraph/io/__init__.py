"""Files: spdgraph arrays to and from netCDF, Zarr and CSV; graphs from files.

Public: ``spdgraph.save`` / ``spdgraph.open`` (``_files``: atomic writes),
:func:`save_csv` (``_tables``: tidy tables, read back by :func:`read_graph`),
:func:`read_graph` (``_graph_files``: edge lists, CSV, GraphML, GML, ``.npy``, ``.npz``).
Interface for the rest of the package: ``write_array`` (``save`` with a hook that
computes a dask write, for progress bars and clients), ``read_array`` (``open``,
optionally leaving the values on disk), ``file_format``, ``check_writable`` (refuse an
output path before any work), ``write_table`` (one tidy CSV table), ``count_graph_file``
(a graph file's node count from its header, for the memory guard).
"""

from spdgraph.io._files import (
    check_writable,
    file_format,
    netcdf_engine,
    open,
    read_array,
    save,
    write_array,
)
from spdgraph.io._graph_files import count_graph_file, read_graph
from spdgraph.io._tables import read_tables, save_csv, write_table

__all__ = [
    "check_writable",
    "count_graph_file",
    "file_format",
    "netcdf_engine",
    "open",
    "read_array",
    "read_graph",
    "read_tables",
    "save",
    "save_csv",
    "write_array",
    "write_table",
]
