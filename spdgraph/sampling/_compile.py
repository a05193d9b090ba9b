"""Numba's compilation, said: the one-line note before a first call compiles kernels.

spdgraph's kernels are compiled by Numba on their first use on a machine and
cached on disk (``__pycache__`` next to the package, or ``NUMBA_CACHE_DIR``); a
first call can then take seconds. :func:`note_compilation` prints one line on
stderr, once per process, when the kernels of the method about to run are not in
the cache yet; :func:`warmup` compiles every kernel ahead (in a Docker build, on a
cluster's workers, before timing anything).
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["COMPILED_METHODS", "note_compilation"]

_NOTED = {"done": False}

#: Methods whose first call compiles Numba kernels.
COMPILED_METHODS = frozenset({"po", "port_chol", "uniform"})


def _po_kernels_cached() -> bool | None:
    """Whether the PO row kernel is in Numba's on-disk cache (None when unknown)."""
    try:
        from spdgraph._kernels.po import fast

        kernel: Any = fast.process_rows
        return bool(os.path.exists(kernel._cache._cache_file._index_path))
    except Exception:  # Numba internals: a newer Numba may name them otherwise
        return None


def note_compilation(method: str) -> None:
    """One line on stderr, once per process, before the kernels of ``method`` compile."""
    if _NOTED["done"] or method not in COMPILED_METHODS:
        return
    _NOTED["done"] = True
    if _po_kernels_cached() is False:
        print(
            "spdgraph: compiling the numerical kernels for this machine (once; about 5-20 s, "
            "then cached). `spdgraph warmup` compiles them all ahead of time.",
            file=sys.stderr,
        )
