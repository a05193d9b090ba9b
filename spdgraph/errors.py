"""Exception hierarchy of spdgraph.

Every error spdgraph raises on purpose derives from :class:`SpdgraphError`, and
also from the builtin exception a Python user would expect (``ValueError`` for a
bad value, ``TypeError`` for an object of the wrong kind), so both
``except spdgraph.SpdgraphError`` and ``except ValueError`` work.

Messages name the problem and say what to do about it.
"""

from __future__ import annotations

import sys

__all__ = [
    "FactorError",
    "FileError",
    "GeneratorOutputError",
    "GraphError",
    "GraphTypeError",
    "InaccurateInverseWarning",
    "InvalidOptionError",
    "MatrixError",
    "MissingDependencyError",
    "NumericalError",
    "PluginError",
    "PluginWarning",
    "SchedulerError",
    "SpdgraphError",
    "StudyLockedError",
    "TooLargeError",
    "UncertifiedMatrixError",
    "UnknownMethodError",
    "UnknownOptionError",
]


class SpdgraphError(Exception):
    """Base class of every error raised by spdgraph."""


class GraphError(SpdgraphError, ValueError):
    """The graph is of a supported type but its content is invalid.

    Examples: a directed graph, parallel edges, a non-symmetric adjacency
    array, NaN in an adjacency array, a graph with no nodes.
    """


class GraphTypeError(SpdgraphError, TypeError):
    """No registered adapter recognises the graph object."""


class UnknownMethodError(SpdgraphError, ValueError):
    """The requested generator method is not registered."""


class UnknownOptionError(SpdgraphError, TypeError):
    """A keyword option is not accepted by the chosen method."""


class InvalidOptionError(SpdgraphError, ValueError):
    """An argument has an invalid value (size, seed, kind, entries, ...)."""


class FactorError(InvalidOptionError):
    """The explicit ``factor`` has the wrong shape, non-finite values or is rank deficient."""


class MatrixError(SpdgraphError, ValueError):
    """An array is not the SPD graph matrix an operation needs.

    Raised by ``da.spd.check()`` and the other ``da.spd`` methods: wrong dims,
    labels that differ between ``node`` and ``node_2``, no ``adjacency``
    coordinate, an unknown kind, inexact symmetry, a non-zero entry on a
    non-edge, or a matrix that is not positive definite. The message names the
    matrix and the entry.
    """


class FileError(SpdgraphError, OSError):
    """A file cannot be read or written as spdgraph data.

    Examples: a missing file, an unsupported suffix, a file that is not
    netCDF/Zarr, GraphML or another format spdgraph reads, or an output folder
    that does not exist. Nothing is left half-written when this is raised.
    """


class MissingDependencyError(SpdgraphError, ImportError):
    """An optional dependency needed for this feature is not installed.

    The message names the ``pip install "spdgraph[extra]"`` command to run.
    """


class TooLargeError(SpdgraphError, MemoryError):
    """The request would need more memory than this machine has."""


class PluginError(SpdgraphError, RuntimeError):
    """A plugin is misbehaving (duplicate names, invalid registrations)."""


class PluginWarning(UserWarning):
    """A plugin failed and is skipped; spdgraph and the other plugins keep working."""


class GeneratorOutputError(PluginError):
    """A generator returned a matrix that is not a valid SPD graph matrix.

    The message names the generator and the plugin that registered it.
    """


class StudyLockedError(SpdgraphError, RuntimeError):
    """Another ``spdgraph study run`` uses the study's folder (it holds the folder's lock).

    The message names the folder and the holder's pid; ``run(..., wait=True)``
    (``--wait``) waits for it instead.
    """


class SchedulerError(SpdgraphError, ConnectionError):
    """A study's dask scheduler could not be reached, or did not answer, in time.

    ``run(..., scheduler_timeout=...)`` (``--scheduler-timeout``) sets how long to wait.
    """


class InaccurateInverseWarning(UserWarning):
    """An inverse computed by ``da.spd`` has a residual ``max |M X v - v|`` above 1e-6.

    The matrix is nearly singular: its inverse (and what is computed from it,
    such as partial correlations of a covariance) has lost accuracy.
    """


class NumericalError(SpdgraphError, ArithmeticError):
    """A computation lost the accuracy spdgraph guarantees.

    Raised, for example, when partial orthogonalization leaves a residual on a
    non-edge that is larger than rounding level instead of silently zeroing it.
    """


class UncertifiedMatrixError(GeneratorOutputError, NumericalError):
    """A generated matrix failed the positive-definiteness certificate.

    Cholesky failed, a diagonal entry is not positive and normal, or the scaled
    condition number is above the bound spdgraph certifies: a property of the
    drawn matrix, not a bug of the generator, so ``sample(uncertified="redraw")``
    (the default) draws that matrix again from its own redraw stream. Out of
    redraws, ``sample`` raises it with the last failure's text (and fix); it is
    also a :class:`NumericalError`, so code that caught the numerical failure
    before catches it still.
    """


def written(value: object) -> str:
    """``repr`` of a value as a person writes it in a message: numpy scalars as Python numbers.

    Examples
    --------
    >>> import numpy as np
    >>> written(np.float64(1.5)), written(np.int64(3)), written("abc")
    ('1.5', '3', "'abc'")
    >>> written(10**5000)                  # never the 5,000 digits (nor Python's digit limit)
    'an integer of 5001 digits'
    """
    numpy = sys.modules.get("numpy")  # when numpy is not imported, no value is its scalar
    if numpy is not None and isinstance(value, numpy.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {_decimal_digits(abs(value))} digits"
    try:
        return repr(value)
    except Exception:  # a hostile __repr__, an int of too many digits inside a container
        return f"a {type(value).__name__}"


def _decimal_digits(n: int) -> int:
    """Number of decimal digits of ``n >= 0`` without converting it to text."""
    import math

    estimate = max(1, int(n.bit_length() * math.log10(2)))  # digits - 1 or digits
    return estimate + 1 if n >= 10**estimate else estimate
