"""Spectrum control: minimum-eigenvalue and condition-number targets, for every generator.

The core applies :func:`control_spectrum` to every block a generator returns
(after the output checks and the optional unit-diagonal rescaling), so
built-in and plugin generators get the same controls, and
:func:`extreme_eigenvalues` gives the achieved values recorded in the attrs.

Both controls move only the diagonal (a multiple of the identity is added,
then the matrix is rescaled), so the off-diagonal zero pattern and the exact
symmetry are kept.

Raw matrices (``normalize=False``) are shifted by a multiple of the identity
(Cai et al. 2011 for a condition number), then rescaled for a minimum
eigenvalue. Unit-diagonal matrices (``normalize=True``) become
``C = I + t (R - I)`` with ``t > 0`` solved in closed form for the target; the
formulas are in ``docs/controlled.md``.

With ``normalize=True`` the target holds on the final unit-diagonal matrix
in closed form, no root finding is needed, and the result does not depend on
the generator's arbitrary raw scale (only on its correlation matrix). ``t < 1``
shrinks every off-diagonal entry towards 0 by the same factor (an easier
model); ``t > 1`` amplifies them (a harder one). Both targets together are
impossible on the unit-diagonal scale (the shift is the only free parameter).

The achieved values are recomputed with :func:`numpy.linalg.eigvalsh` and
verified to a relative ``1e-8``. An unreachable target (no edges on the
unit-diagonal scale, a multiple of the identity) raises
:class:`~spdgraph.errors.InvalidOptionError`; one too extreme for double
precision is decided by an explicit bound, the same on every machine: the
controlled condition number (``k0``, or ``l_max / eps``) must be at most
:data:`MAX_CONDITION_TARGET` (``1e6``), else ``condition_number`` is refused
before any work and a ``min_eigenvalue`` raises
:class:`~spdgraph.errors.NumericalError`.

Examples
--------
>>> import networkx as nx
>>> import spdgraph
>>> da = spdgraph.sample(nx.path_graph(6), seed=0, condition_number=10.0)
>>> round(da.attrs["condition_number"], 8)
10.0
>>> float(da.sel(node=0, node_2=2))  # the zero pattern is kept
0.0
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph.errors import InvalidOptionError, NumericalError, written

__all__ = [
    "MAX_CONDITION_TARGET",
    "RELATIVE_TOLERANCE",
    "check_targets",
    "control_spectrum",
    "extreme_eigenvalues",
    "spectrum_attrs",
]

#: Relative accuracy the achieved targets are verified to.
RELATIVE_TOLERANCE = 1e-8

#: The largest condition number a controlled matrix may have: beyond it the
#: eigenvalue solvers' rounding (about ``p eps kappa`` relative) comes too close
#: to :data:`RELATIVE_TOLERANCE` for the verification to pass on every machine.
MAX_CONDITION_TARGET = 1e6

#: The minimum-eigenvalue target aims this much (relative) above ``eps`` so
#: that rounding in the final matrix does not leave it just below ``eps``.
_MARGIN = 1e-10

#: Corrections tried when rounding leaves the minimum eigenvalue below ``eps``.
_MAX_CORRECTIONS = 3


def _as_target(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidOptionError(
            f"{name} must be a real number (or None for no control), got {value!r}."
        )
    big = isinstance(value, numbers.Integral) and int(value).bit_length() > 1024
    out = math.inf if big else float(value)  # never an OverflowError (10**400)
    if not math.isfinite(out):
        raise InvalidOptionError(f"{name} must be finite, got {written(value)}.")
    return out


def check_targets(
    min_eigenvalue: object, condition_number: object, normalize: bool
) -> tuple[float | None, float | None]:
    """Validate the spectrum targets of a call (cheap; before any heavy work).

    Parameters
    ----------
    min_eigenvalue, condition_number
        The user's targets, or None.
    normalize
        Whether the final matrix is rescaled to unit diagonal.

    Returns
    -------
    tuple
        ``(eps, k0)`` as floats or None.

    Raises
    ------
    InvalidOptionError
        Not a finite real number, ``eps <= 0``, ``k0 <= 1``, ``eps >= 1`` with
        ``normalize=True`` (a unit-diagonal p x p matrix has trace p, so its
        smallest eigenvalue is at most 1), or both targets with
        ``normalize=True``.

    Examples
    --------
    >>> check_targets(0.1, None, True)
    (0.1, None)
    >>> check_targets(None, 1.0, True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: condition_number must be > 1 ...
    """
    eps = None if min_eigenvalue is None else _as_target(min_eigenvalue, "min_eigenvalue")
    k0 = None if condition_number is None else _as_target(condition_number, "condition_number")
    if eps is not None and eps <= 0:
        raise InvalidOptionError(
            "min_eigenvalue must be > 0 (the matrix must stay positive definite), "
            f"got {written(eps)}."
        )
    if k0 is not None and k0 <= 1:
        raise InvalidOptionError(
            "condition_number must be > 1 (the condition number of an SPD matrix is at "
            f"least 1), got {written(k0)}."
        )
    if k0 is not None and k0 > MAX_CONDITION_TARGET:
        raise InvalidOptionError(
            f"condition_number={written(k0)} is above {MAX_CONDITION_TARGET:g}, the largest "
            "condition number spdgraph can verify to a relative 1e-8 in double precision "
            "on every machine. Ask for a smaller condition_number."
        )
    if normalize and eps is not None and eps >= 1:
        raise InvalidOptionError(
            f"min_eigenvalue={written(eps)} cannot be met with normalize=True: a unit-diagonal "
            "matrix has trace p, so its smallest eigenvalue is at most 1 (and equal to 1 only "
            "for the identity). Use 0 < min_eigenvalue < 1, or normalize=False."
        )
    if normalize and eps is not None and k0 is not None:
        raise InvalidOptionError(
            "min_eigenvalue and condition_number together cannot both be met with "
            "normalize=True: on the unit-diagonal scale the shift is the only free "
            "parameter. Give one of them, or pass normalize=False (then the matrix is "
            "shifted to the condition number and scaled to the minimum eigenvalue)."
        )
    return eps, k0


def extreme_eigenvalues(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest eigenvalue of each matrix of an ``(n, p, p)`` stack.

    One batched :func:`numpy.linalg.eigvalsh` call (eigenvalues only).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = extreme_eigenvalues(np.array([[[2.0, 1.0], [1.0, 2.0]]]))
    >>> lo.tolist(), hi.tolist()
    ([1.0], [3.0])
    """
    if block.shape[0] == 0:
        empty = np.empty(0, dtype=np.float64)
        return empty, empty.copy()
    w = np.linalg.eigvalsh(block)
    return w[:, 0].copy(), w[:, -1].copy()


def spectrum_attrs(lmin: np.ndarray, lmax: np.ndarray, *, stacked: bool) -> dict[str, Any]:
    """The ``min_eigenvalue`` / ``condition_number`` attrs of an output.

    Floats for a single matrix, lists of floats (one per matrix along
    ``sample``) for a stack.

    Examples
    --------
    >>> import numpy as np
    >>> spectrum_attrs(np.array([0.5]), np.array([2.0]), stacked=False)
    {'min_eigenvalue': 0.5, 'condition_number': 4.0}
    """
    kappa = lmax / lmin
    if stacked:
        return {
            "min_eigenvalue": [float(x) for x in lmin],
            "condition_number": [float(x) for x in kappa],
        }
    return {"min_eigenvalue": float(lmin[0]), "condition_number": float(kappa[0])}


def _verify(
    lmin: np.ndarray, lmax: np.ndarray, eps: float | None, k0: float | None, what: str
) -> None:
    if eps is not None:
        # decided on the target, not on rounding: the controlled matrix's condition
        # number l_max / eps must be within the bound
        extreme = ~(lmax <= eps * MAX_CONDITION_TARGET)
        if np.any(extreme):
            k = int(np.flatnonzero(extreme)[0])
            raise NumericalError(
                f"{what}: matrix {k} would have condition number {written(lmax[k] / eps)} "
                f"(largest eigenvalue {written(lmax[k])} over min_eigenvalue={written(eps)}), "
                f"above {MAX_CONDITION_TARGET:g}, beyond which the target cannot be verified "
                "to a relative 1e-8 on every machine. Ask for a larger min_eigenvalue."
            )
    if np.any(lmin <= 0):
        k = int(np.flatnonzero(lmin <= 0)[0])
        raise NumericalError(
            f"{what}: matrix {k} lost positive definiteness (smallest eigenvalue "
            f"{written(lmin[k])}); the target is too extreme for double precision."
        )
    if k0 is not None:
        err = np.abs(lmax / lmin - k0) / k0
        if np.any(err > RELATIVE_TOLERANCE):
            k = int(np.argmax(err))
            raise NumericalError(
                f"{what}: matrix {k} reached condition number {written(lmax[k] / lmin[k])} "
                f"instead of {written(k0)} (relative error {err[k]:.2g} > "
                f"{RELATIVE_TOLERANCE:g}); rounding dominates at this condition number. Ask for "
                "a smaller condition_number."
            )
    if eps is not None:
        bad = (lmin < eps) | (lmin > eps * (1 + RELATIVE_TOLERANCE))
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise NumericalError(
                f"{what}: matrix {k} reached minimum eigenvalue {written(lmin[k])} instead of "
                f"{written(eps)} (to a relative {RELATIVE_TOLERANCE:g}); rounding dominates for a "
                "target this small relative to the largest eigenvalue. Ask for a larger "
                "min_eigenvalue."
            )


def _check_cholesky(block: np.ndarray, what: str) -> None:
    violation = find_violation(
        block,
        np.ones(block.shape[-2:], dtype=bool),
        structural=False,
        condition_bound=MAX_SCALED_CONDITION,
    )
    if violation is not None:
        raise NumericalError(
            f"{what}: a controlled matrix failed the check of exact symmetry and positive "
            "definiteness; the target is too extreme for double precision."
        )


def _shift_diagonal(block: np.ndarray, delta: np.ndarray) -> np.ndarray:
    out = block.copy()
    idx = np.arange(block.shape[-1])
    out[:, idx, idx] += delta[:, None]
    return out


def _control_raw(
    block: np.ndarray, eps: float | None, k0: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lmin, lmax = extreme_eigenvalues(block)
    if k0 is not None:
        flat = lmax <= lmin * (1 + RELATIVE_TOLERANCE)
        if np.any(flat):
            k = int(np.flatnonzero(flat)[0])
            raise InvalidOptionError(
                f"condition_number={written(k0)} cannot be met: matrix {k} is a multiple of the "
                "identity (all eigenvalues equal, e.g. a graph without edges and equal "
                "diagonal), and adding a multiple of the identity keeps its condition "
                "number at 1."
            )
        block = _shift_diagonal(block, (lmax - k0 * lmin) / (k0 - 1))
        if eps is None:
            out_min, out_max = extreme_eigenvalues(block)
            _verify(out_min, out_max, None, k0, "condition_number")
            _check_cholesky(block, "condition_number")
            return block, out_min, out_max
        cur_min, _ = extreme_eigenvalues(block)
        scale = eps * (1 + _MARGIN) / cur_min
        block = block * scale[:, None, None]
        out_min, out_max = extreme_eigenvalues(block)
        for _ in range(_MAX_CORRECTIONS):
            low = out_min < eps
            if not np.any(low):
                break
            block[low] *= (eps * (1 + 2 * _MARGIN) / out_min[low])[:, None, None]
            out_min, out_max = extreme_eigenvalues(block)
        _verify(out_min, out_max, eps, k0, "min_eigenvalue and condition_number")
        _check_cholesky(block, "min_eigenvalue and condition_number")
        return block, out_min, out_max
    assert eps is not None  # the diagonal shift delta raises l_min by delta
    return _raise_min_eigenvalue(
        eps,
        eps * (1 + _MARGIN) - lmin,
        lambda delta: _shift_diagonal(block, delta),
        lambda delta, low, out_min: delta + np.where(low, eps * (1 + 2 * _MARGIN) - out_min, 0.0),
    )


def _raise_min_eigenvalue(
    eps: float,
    start: np.ndarray,
    apply: Callable[[np.ndarray], np.ndarray],
    correct: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``apply(t)`` from ``t = start``, ``t = correct(t, low, l_min)`` while an ``l_min``
    is below ``eps``; the result verified (``eps`` and a Cholesky factorization)."""
    t = start
    out = apply(t)
    out_min, out_max = extreme_eigenvalues(out)
    for _ in range(_MAX_CORRECTIONS):
        low = out_min < eps
        if not np.any(low):
            break
        t = correct(t, low, out_min)
        out = apply(t)
        out_min, out_max = extreme_eigenvalues(out)
    _verify(out_min, out_max, eps, None, "min_eigenvalue")
    _check_cholesky(out, "min_eigenvalue")
    return out, out_min, out_max


def _shrink(block: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``I + t (R - I)``: off-diagonal entries times ``t``, diagonal exactly 1."""
    out = block * t[:, None, None]
    idx = np.arange(block.shape[-1])
    out[:, idx, idx] = 1.0
    return out


def _control_unit_diagonal(
    block: np.ndarray, eps: float | None, k0: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lmin, lmax = extreme_eigenvalues(block)
    p = block.shape[-1]
    # A unit-diagonal matrix with l_min = 1 is the identity: nothing to shift.
    identity = (1.0 - lmin) <= 64 * np.finfo(float).eps * p
    if np.any(identity):
        k = int(np.flatnonzero(identity)[0])
        target = (
            f"min_eigenvalue={written(eps)}"
            if eps is not None
            else f"condition_number={written(k0)}"
        )
        raise InvalidOptionError(
            f"{target} cannot be met with normalize=True: matrix {k} is the identity "
            "(the graph has no edges, or the generator put zeros on all of them), and the "
            "only unit-diagonal matrix on it is the identity (minimum eigenvalue 1, "
            "condition number 1). Use a graph with edges, or normalize=False."
        )
    if k0 is not None:
        t = (k0 - 1) / (lmax - 1 + k0 * (1 - lmin))
        out = _shrink(block, t)
        out_min, out_max = extreme_eigenvalues(out)
        _verify(out_min, out_max, None, k0, "condition_number")
        _check_cholesky(out, "condition_number")
        return out, out_min, out_max
    assert eps is not None
    gap = 1 - lmin
    # l_min(I + t (R - I)) = 1 - t (1 - l_min(R)): a smaller t raises it
    return _raise_min_eigenvalue(
        eps,
        (1 - eps * (1 + _MARGIN)) / gap,
        lambda t: _shrink(block, t),
        lambda t, low, out_min: np.where(low, t - (eps * (1 + 2 * _MARGIN) - out_min) / gap, t),
    )


def control_spectrum(
    block: np.ndarray,
    *,
    normalized: bool,
    min_eigenvalue: float | None = None,
    condition_number: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply the spectrum targets to a validated ``(n, p, p)`` SPD stack.

    Parameters
    ----------
    block
        SPD matrices with the graph's exact zeros; unit-diagonal when
        ``normalized``.
    normalized
        Whether ``block`` is (and must stay) unit-diagonal.
    min_eigenvalue, condition_number
        Targets already checked by :func:`check_targets`; None for no control.

    Returns
    -------
    tuple
        ``(block, lmin, lmax)``: the controlled stack (a new array, or
        ``block`` itself without targets) and its achieved extreme
        eigenvalues, one per matrix.

    Examples
    --------
    >>> import numpy as np
    >>> r = np.array([[[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]])
    >>> c, lo, hi = control_spectrum(r, normalized=True, condition_number=3.0)
    >>> round(float(hi[0] / lo[0]), 10), c[0, 0, 2], c[0, 1, 1]
    (3.0, np.float64(0.0), np.float64(1.0))
    """
    if min_eigenvalue is None and condition_number is None:
        lmin, lmax = extreme_eigenvalues(block)
        return block, lmin, lmax
    if block.shape[0] == 0:
        empty = np.empty(0, dtype=np.float64)
        return block, empty, empty.copy()
    if normalized:
        return _control_unit_diagonal(block, min_eigenvalue, condition_number)
    return _control_raw(block, min_eigenvalue, condition_number)
