"""Compiled loops of the randomized positive-definiteness certificate of a sparse matrix.

The certificate (:func:`spdgraph.sampling.prove_positive_definite`, its last
resort) runs the power method on ``B = sigma I - M`` from a Gaussian start and
bounds ``rho(B)`` from the growth of the iterates, every rounding accounted.
These kernels do its arithmetic: one shifted product per step, scaled by a
power of two (exact), and the norms. They know nothing of the proof; see
:mod:`spdgraph.sampling._randomized_certify` for it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def shifted_product(indptr, indices, data, sigma, x, out):  # pragma: no cover - compiled
    """``out[c] = sigma * x[c] - M x[c]`` for each row ``c`` of an ``(m, p)`` block.

    Returns each vector's ``max |.|``. Each entry is
    ``fl(sigma x_i - fl(sum_j m_ij x_j))``, the sum left to right over the row's
    stored entries: ``k_i`` products and one subtraction, so its error is at
    most ``gamma_{k_i + 2} (|sigma| |x_i| + sum_j |m_ij| |x_j|)`` (Higham,
    section 3.1). One vector at a time: a product with one vector streams the
    matrix once at the speed of scipy's, a block of vectors interleaved was
    slower (measured at p = 10**6, random column indices).
    """
    m, p = x.shape
    largest = np.zeros(m)
    for c in range(m):
        vector = x[c]
        result = out[c]
        top = 0.0
        for i in range(p):
            total = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                total += data[k] * vector[indices[k]]
            entry = sigma * vector[i] - total
            result[i] = entry
            if abs(entry) > top:
                top = abs(entry)
        largest[c] = top
    return largest


@njit(cache=True, nogil=True, error_model="numpy")
def scale_and_norm(y, exponents, out):  # pragma: no cover - compiled
    """``out[c] = y[c] * 2**-exponents[c]`` (exact) and each vector's ``fl(||.||_2)``."""
    m, p = y.shape
    norms = np.empty(m)
    for c in range(m):
        factor = math.ldexp(1.0, -exponents[c])
        total = 0.0
        for i in range(p):
            value = y[c, i] * factor
            out[c, i] = value
            total += value * value
        norms[c] = np.sqrt(total)
    return norms
