"""Rescaling to unit diagonal in compiled loops: NumPy's bits, no temporaries.

``D^{-1/2} M D^{-1/2}`` is computed entry by entry as ``m_ij * (d_i * d_j)`` with
``d_i = 1 / sqrt(m_ii)``: the same IEEE operations, in the same order, as the
NumPy expression ``m * (d[:, None] * d[None, :])`` (no fastmath), so the bits
are those of :func:`spdgraph._kernels.numerics.unit_diagonal`'s NumPy path,
without its scale-matrix temporaries (a stack of small matrices spent most of
its normalization allocating and reading them). ``[i, j]`` and ``[j, i]`` use the
same product: the result is exactly symmetric when ``m`` is.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def _rescale(src, dst, plus_zero):
    """``dst[k] = D_k^{-1/2} src[k] D_k^{-1/2}`` with an exactly unit diagonal (may alias).

    With ``plus_zero`` each entry also gets ``+ 0.0`` (``-0.0`` becomes ``+0.0``,
    every other value is unchanged).
    """
    n, p = src.shape[0], src.shape[1]
    d = np.empty(p)
    for k in range(n):
        for i in range(p):
            d[i] = 1.0 / np.sqrt(src[k, i, i])
        for i in range(p):
            di = d[i]
            if plus_zero:
                for j in range(p):
                    dst[k, i, j] = src[k, i, j] * (di * d[j]) + 0.0
            else:
                for j in range(p):
                    dst[k, i, j] = src[k, i, j] * (di * d[j])
        for i in range(p):
            dst[k, i, i] = 1.0


def unit_diagonal_stack(
    src: np.ndarray, dst: np.ndarray, *, plus_zero: bool = False, threads: int = 1
) -> bool:
    """Rescale a float64 ``(n, p, p)`` stack into ``dst`` (may be ``src``); False if not compiled.

    Returns False (and does nothing) unless both are C-contiguous float64 arrays
    of the same 3-d shape: the caller then takes the NumPy path. ``plus_zero``
    turns ``-0.0`` into ``+0.0`` in the same pass; ``threads`` split the
    stack's matrices (each matrix's bits do not depend on it).
    """
    if not (
        src.ndim == 3
        and src.shape == dst.shape
        and src.dtype == np.float64
        and dst.dtype == np.float64
        and src.flags.c_contiguous
        and dst.flags.c_contiguous
    ):
        return False
    n = src.shape[0]
    pieces = max(1, min(threads, n // 8))
    if pieces == 1:
        _rescale(src, dst, plus_zero)
        return True
    from concurrent.futures import ThreadPoolExecutor

    cuts = np.linspace(0, n, pieces + 1).astype(int).tolist()
    with ThreadPoolExecutor(max_workers=pieces) as pool:
        done = [
            pool.submit(_rescale, src[a:b], dst[a:b], plus_zero)
            for a, b in itertools.pairwise(cuts)
        ]
        for future in done:
            future.result()
    return True
