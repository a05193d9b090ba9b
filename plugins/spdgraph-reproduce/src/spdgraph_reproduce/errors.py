"""Errors of the studies (they extend spdgraph's hierarchy)."""

from __future__ import annotations

from spdgraph.errors import SpdgraphError

__all__ = ["CellError"]


class CellError(SpdgraphError, RuntimeError):
    """One or more cells of a study (``spdgraph reproduce``) raised.

    The other cells were computed and saved; the message names the first
    failing cell and its error (also chained as ``__cause__``). Rerunning
    resumes from the saved cells.
    """
