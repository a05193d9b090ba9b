"""Built-in generator plugin: partial orthogonalization (``method="po"``)."""

from __future__ import annotations

import numpy as np

from spdgraph._kernels import po_numpy
from spdgraph._types import EntrySampler, Generator
from spdgraph.errors import InvalidOptionError, NumericalError
from spdgraph.hookspecs import hookimpl

#: Default largest accepted relative residual ``|m_ij|/sqrt(m_ii m_jj)`` on non-edges.
DEFAULT_RESIDUAL_TOLERANCE = 1e-8


def generate_po(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator | None,
    entries: EntrySampler,
    factor: np.ndarray | None = None,
    residual_tolerance: float = DEFAULT_RESIDUAL_TOLERANCE,
) -> np.ndarray:
    """One PO matrix: ``Q Q^T`` after partial orthogonalization of the rows of Q.

    ``Q`` is ``factor`` when given, else a ``(p, p)`` draw of ``entries``.
    Non-edge entries of the product are checked to be at rounding level
    (relative to the diagonal) and then set to exactly 0.
    """
    p = adjacency.shape[0]
    if factor is not None:
        q = factor
    elif rng is not None:
        q = entries(rng, (p, p))
    else:
        raise InvalidOptionError("po needs a random generator (rng) when no factor is given.")
    processed = po_numpy.partial_orthogonalize(adjacency, q)
    m = po_numpy.gram_matrix(processed)
    return zero_nonedges_checked(m, adjacency, residual_tolerance)


def zero_nonedges_checked(m: np.ndarray, adjacency: np.ndarray, tolerance: float) -> np.ndarray:
    """Set non-edges to exactly 0 after checking their residual is below ``tolerance``."""
    residual = po_numpy.max_nonedge_residual(m, adjacency)
    if residual > tolerance:
        raise NumericalError(
            f"partial orthogonalization left a relative residual of {residual:.3g} on a "
            f"non-edge, above residual_tolerance={tolerance:g}; the factor is too "
            "ill-conditioned. Use another seed or factor, or raise residual_tolerance "
            "if you accept the loss of accuracy."
        )
    nonedge = ~adjacency
    np.fill_diagonal(nonedge, False)
    m[nonedge] = 0.0
    return m


@hookimpl
def spdgraph_register_generators() -> list[Generator]:
    """Register ``po``."""
    return [
        Generator(
            name="po",
            function=generate_po,
            description=(
                "partial orthogonalization (Córdoba et al. 2018): strong links at any "
                "size and density"
            ),
            options={"residual_tolerance": DEFAULT_RESIDUAL_TOLERANCE},
            accepts_factor=True,
        )
    ]
