"""Validation of the ``b`` and ``D`` options of ``method="gwishart"``."""

from __future__ import annotations

import numbers

import numpy as np

import spdgraph

__all__ = ["scale_matrix"]

#: Largest degrees of freedom: a draw's entries scale like b / D.
MAX_B = 1e12
#: The default ``max_flops``: the largest estimated work of one matrix (about 10-20 s).
MAX_FLOPS = 2e10
#: Entries of D, and its eigenvalues relative to its diagonal, that give finite draws.
_D_RANGE = (1e-100, 1e100)
_D_MIN_SCALED_EIGENVALUE = 1e-12


def _check_number(
    value: object, name: str, *, lower: float, upper: float = np.inf, strict: bool = True
) -> float:
    x = float("nan")
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        x = float(value)
    if not (np.isfinite(x) and (x > lower if strict else x >= lower) and x <= upper):
        rel = ">" if strict else ">="
        top = f" and <= {upper:g}" if np.isfinite(upper) else ""
        raise spdgraph.InvalidOptionError(
            f"gwishart option {name} must be a finite number {rel} {lower:g}{top}, got {value!r}."
        )
    return x


def _check_scale(d: np.ndarray) -> None:
    """A draw's entries scale like b / D: refuse scales whose draws over/underflow."""
    diag = np.diag(d)
    lo, hi = _D_RANGE
    if not np.all((diag >= lo) & (diag <= hi)):
        raise spdgraph.InvalidOptionError(
            f"gwishart option D must have diagonal entries between {lo:g} and {hi:g} (a draw's "
            f"entries scale like b / D); got {float(diag.min()):g} .. {float(diag.max()):g}. "
            "Rescale D and the draws by the same factor."
        )
    s = 1.0 / np.sqrt(diag)
    smallest = float(np.linalg.eigvalsh(d * np.outer(s, s))[0]) if d.shape[0] else 1.0
    if not smallest > _D_MIN_SCALED_EIGENVALUE:
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be positive definite and not numerically singular: "
            f"its smallest eigenvalue after scaling to unit diagonal is {smallest:.3g} "
            f"(at most {_D_MIN_SCALED_EIGENVALUE:g})."
        )


def _holds_complex(value: object) -> bool:
    """Whether a nested sequence (or array-like) holds complex numbers."""
    try:
        return bool(np.iscomplexobj(np.asarray(value)))
    except (TypeError, ValueError):
        return False


def scale_matrix(D: object, p: int) -> np.ndarray:
    """Validate the ``D`` option and return it as a ``(p, p)`` SPD float64 array.

    ``None`` is the identity, a positive number ``c`` is ``c * I``, an array
    must be ``(p, p)``, finite, symmetric (to a relative 1e-12; it is then
    symmetrized) and positive definite, with diagonal entries in
    [1e-100, 1e100] and, scaled to unit diagonal, eigenvalues above 1e-12.
    Complex values (even a Hermitian D, or a zero imaginary part) are refused.
    Anything else is an :class:`spdgraph.InvalidOptionError` naming ``D``.

    Examples
    --------
    >>> scale_matrix(2.0, 2)
    array([[2., 0.],
           [0., 2.]])
    """
    if D is None:
        return np.eye(p)
    if isinstance(D, numbers.Real) and not isinstance(D, bool):
        lo, hi = _D_RANGE
        c = _check_number(D, "D (a scalar means D * I)", lower=lo, upper=hi, strict=False)
        return c * np.eye(p)
    if isinstance(D, numbers.Complex) and not isinstance(D, numbers.Real):
        raise spdgraph.InvalidOptionError(
            f"gwishart option D must be real: got the complex number {D!r}. W_G(b, D) is a "
            "law of real matrices; pass the real part explicitly if that is what you mean."
        )
    values = D.tolist() if isinstance(D, np.ndarray) and D.dtype.kind == "O" else D
    if (isinstance(D, np.ndarray) and D.dtype.kind == "c") or _holds_complex(values):
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be a real p x p symmetric positive definite array; got "
            "complex values. W_G(b, D) is a law of real matrices: a Hermitian "
            "complex D is not supported (pass D.real explicitly if that is what you mean)."
        )
    try:
        d = np.array(D, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be None (identity), a positive number or a p x p "
            "symmetric positive definite array."
        ) from exc
    if d.shape != (p, p):
        raise spdgraph.InvalidOptionError(
            f"gwishart option D must be {p} x {p} for this {p}-node graph, got shape {d.shape}."
        )
    if not np.all(np.isfinite(d)):
        raise spdgraph.InvalidOptionError("gwishart option D holds NaN or inf.")
    if not np.allclose(d, d.T, rtol=1e-12, atol=0.0):
        raise spdgraph.InvalidOptionError("gwishart option D must be symmetric.")
    d = (d + d.T) * 0.5
    try:
        np.linalg.cholesky(d)
    except np.linalg.LinAlgError as exc:
        raise spdgraph.InvalidOptionError(
            "gwishart option D must be positive definite (its Cholesky factorization failed)."
        ) from exc
    _check_scale(d)
    return d
