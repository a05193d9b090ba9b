"""Memory guard: refuse a request that cannot fit before any large allocation."""

from __future__ import annotations

import os

from spdgraph.errors import TooLargeError

__all__ = ["available_memory", "check_memory"]

#: Bytes of float64 work space the core and the built-in generators need per
#: matrix entry (factor, product, output, validation copy).
WORK_ARRAYS_PER_MATRIX = 4


def available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(n: int, p: int, arrays_per_matrix: int = WORK_ARRAYS_PER_MATRIX) -> None:
    """Raise :class:`TooLargeError` if ``n`` p x p matrices will not fit in memory."""
    need = n * p * p * 8 * arrays_per_matrix
    available = available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{n} matrices of {p} x {p} need about {need / 2**30:.1f} GiB of working "
            f"memory but only {available / 2**30:.1f} GiB is available; ask for fewer "
            "matrices per call (a smaller size, or chunks with dask) or a smaller graph."
        )
