"""The option the generators with a PO step share (``po``, ``port_chol``).

A helper module, not a plugin: what two built-in plugins share lives outside
both of them (tests/test_architecture.py).
"""

from __future__ import annotations

from spdgraph._kernels.po.batch import DEFAULT_RESIDUAL_TOLERANCE, RESIDUAL_TOLERANCE_DOC
from spdgraph.plugins.options import OptionSpec

__all__ = ["RESIDUAL_TOLERANCE_OPTION"]

#: The declared ``residual_tolerance`` option.
RESIDUAL_TOLERANCE_OPTION = OptionSpec(
    DEFAULT_RESIDUAL_TOLERANCE,
    float,
    low=0.0,
    low_inclusive=False,
    high=1.0,
    doc=RESIDUAL_TOLERANCE_DOC,
)
