"""Files: spdgraph arrays to and from every registered file format; graphs from files.

Public: ``spdgraph.save`` / ``spdgraph.open`` (``_files``: atomic writes, the
format found through the format table), :class:`FileFormat` and
:func:`file_formats` (``_format``: one object per format, from the
``spdgraph_file_formats`` hook; the built-in netCDF, Zarr and CSV formats are
the plugin modules ``_netcdf``, ``_zarr`` and ``_csv``), :func:`save_csv`
(tidy tables, read back by :func:`read_tables`), :func:`read_graph`
(edge lists, CSV, GraphML, GML, ``.npy``, ``.npz``: handed on from
:mod:`spdgraph.plugins.graph_files`, which stands below the path backend).

Interface for the rest of the package and the command line: ``write_array``
(``save`` with a hook that computes a dask write, for progress bars and
clients), ``read_array`` (``open``, optionally leaving the values on disk),
``format_for_reading`` / ``format_for_writing`` (which format a path is),
``check_writable`` (refuse an output path before any work), ``count_graph_file`` (a
graph file's node count from its header, for the memory guard), ``write_table``
(one tidy CSV table), ``netcdf_engine``, and the one door to disk (``_writer``):
``write_atomically`` (any file or folder through ``write(tmp)``, with the checks
``save`` makes), ``save_dataset`` (a Dataset in a registered format that holds
one: simulations, a study's results; ``check_dataset_format`` refuses one that
does not, before any work; ``check_sparse_format`` refuses a sparse array or Dataset
for a format that would densify it), ``atomic_path`` (the same door as a
context manager), ``save_figure`` (a matplotlib figure through the door),
``writes_abandoned`` / ``exit_now`` (an interrupted write still ending);
``dataset_with_digests`` / ``verify_dataset`` (a Dataset's digests, stamped
before a save and checked on open, eagerly or block by block; :data:`DIGESTS`
names the attribute).
"""

from spdgraph.io._atomic import exit_now, writes_abandoned
from spdgraph.io._digests import DIGESTS, dataset_with_digests, verify_dataset
from spdgraph.io._files import as_path, open, read_array, save, write_array
from spdgraph.io._format import FileFormat as FileFormat  # public as spdgraph.FileFormat
from spdgraph.io._format import (
    describe_formats,
    file_formats,
    format_for_reading,
    format_for_writing,
)
from spdgraph.io._netcdf import netcdf_engine
from spdgraph.io._save_memory import save_need
from spdgraph.io._simulation import (
    is_simulation,
    open_simulation,
    simulation_file,
    simulation_inputs,
    simulation_truth,
)
from spdgraph.io._tables import read_tables, save_csv, write_table
from spdgraph.io._writer import (
    atomic_path,
    check_dataset_format,
    check_sparse_format,
    check_writable,
    save_dataset,
    save_figure,
    write_atomically,
)
from spdgraph.plugins.graph_files import count_graph_file, read_graph

# FileFormat is documented under spdgraph (spdgraph.FileFormat), not twice
__all__ = [
    "DIGESTS",
    "as_path",
    "atomic_path",
    "check_dataset_format",
    "check_sparse_format",
    "check_writable",
    "count_graph_file",
    "dataset_with_digests",
    "describe_formats",
    "exit_now",
    "file_formats",
    "format_for_reading",
    "format_for_writing",
    "is_simulation",
    "netcdf_engine",
    "open",
    "open_simulation",
    "read_array",
    "read_graph",
    "read_tables",
    "save",
    "save_csv",
    "save_dataset",
    "save_figure",
    "save_need",
    "simulation_file",
    "simulation_inputs",
    "simulation_truth",
    "verify_dataset",
    "write_array",
    "write_atomically",
    "write_table",
    "writes_abandoned",
]
