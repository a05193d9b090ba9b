"""The ``da.spd`` accessor: what to do with a sampled matrix (importing this registers it).

Internal modules: ``_accessor`` (the ``SpdAccessor`` class), ``_layout`` (reads the
layout of an spdgraph array), ``_draw`` and ``_marginal_draws`` (data from a matrix,
Gaussian or through a copula), ``_units`` (data in units of rows, eager or dask blocks),
``_diagnostics`` (:func:`spdgraph.diagnostics`).
Interface for the rest of the package: ``SpdAccessor``, ``diagnostics``, ``draw_need``,
``check_draw_memory`` and ``check_draw_chunks`` (the draw's memory model, guard and
blocks, for the paths that draw); the
marginal laws are public in :mod:`spdgraph.marginals`.
"""

from spdgraph.accessor._accessor import SpdAccessor
from spdgraph.accessor._diagnostics import diagnostics
from spdgraph.accessor._draw import check_draw_chunks, check_draw_memory, draw_need

__all__ = ["SpdAccessor", "check_draw_chunks", "check_draw_memory", "diagnostics", "draw_need"]
