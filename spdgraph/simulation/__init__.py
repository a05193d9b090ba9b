"""Simulation in one call: :func:`spdgraph.simulate` (as huge.generator and bdgraph.sim).

``simulate(graph, n, p=..., method=..., data=..., seed=...)`` makes the graph
(a family name of huge or BDgraph, or any graph), samples the matrix with an
exact zero pattern, inverts it, and draws data, returning one
:class:`xarray.Dataset`. :func:`save_simulation` writes it to netCDF, Zarr or
a folder of CSV files (what ``spdgraph simulate`` does).
"""

from spdgraph.io import open_simulation
from spdgraph.simulation._core import STREAMS, simulate, stream_seed
from spdgraph.simulation._data import DATA_TYPES
from spdgraph.simulation._families import FAMILY_NAMES, canonical_family
from spdgraph.simulation._files import check_simulation_target, save_simulation

__all__ = [
    "DATA_TYPES",
    "FAMILY_NAMES",
    "STREAMS",
    "canonical_family",
    "check_simulation_target",
    "open_simulation",
    "save_simulation",
    "simulate",
    "stream_seed",
]
