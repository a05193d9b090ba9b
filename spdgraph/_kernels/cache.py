"""Whether a Numba kernel is in the on-disk cache (for the core's one-line note)."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["on_disk"]


def on_disk(kernel: Any) -> bool | None:
    """Whether the ``@njit(cache=True)`` ``kernel`` has an index in Numba's disk cache.

    None when unknown (a newer Numba may name its internals otherwise).
    """
    try:
        return bool(os.path.exists(kernel._cache._cache_file._index_path))
    except Exception:
        return None
