"""The G-Wishart log density and its normalizing constant (pure NumPy).

``W_G(b, D)`` (BDgraph's parametrization, as in ``spdgraph-gwishart``) has
density ``|K|^((b-2)/2) exp(-tr(D K)/2) / I_G(b, D)`` on the SPD matrices with
zeros on the non-edges of G, with respect to Lebesgue measure on the free
entries ``(K_ii, K_ij for edges i < j)``.

For the complete graph on m nodes it is the Wishart law with ``b + m - 1``
degrees of freedom and scale ``D^-1``:

    log I(b, D) = (df m / 2) log 2 - (df / 2) log|D| + log Gamma_m(df / 2),

``df = b + m - 1``. For a decomposable graph the constant factorizes over the
cliques C and separators S of a junction tree (Roverato 2000; Atay-Kayis and
Massam 2005): ``I_G(b, D) = prod_C I(b, D_CC) / prod_S I(b, D_SS)``. For other
graphs no closed form exists; the density is then returned unnormalized (the
constant does not depend on K, so a posterior over K on a fixed graph is
unaffected).

The constant is written once for any array namespace (NumPy, PyTensor, JAX)
through :func:`log_normalizer_generic`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special

from spdgraph_ppl._graph import GraphStructure, graph_structure

__all__ = ["gwishart_logp", "log_normalizer", "log_normalizer_generic", "wishart_log_normalizer"]

_LOG2 = float(np.log(2.0))
_LOGPI = float(np.log(np.pi))


def wishart_log_normalizer(
    b: Any, D_block: Any, m: int, logdet: Callable[[Any], Any], gammaln: Callable[[Any], Any]
) -> Any:
    """``log I(b, D)`` of the complete graph on m nodes (Wishart, df = b + m - 1).

    ``logdet`` and ``gammaln`` are the namespace's log-determinant of an SPD
    matrix and log-gamma function.
    """
    df = b + (m - 1)
    out = df * (m * _LOG2 / 2) - (df / 2) * logdet(D_block) + m * (m - 1) / 4 * _LOGPI
    for j in range(m):
        out = out + gammaln((df - j) / 2)
    return out


def log_normalizer_generic(
    b: Any,
    D: Any,
    graph: GraphStructure,
    logdet: Callable[[Any], Any],
    gammaln: Callable[[Any], Any],
) -> Any:
    """``log I_G(b, D)`` of a decomposable graph, in any array namespace.

    ``D`` (``(..., p, p)``) must support ``D[..., idx, :][..., idx]`` indexing
    with an integer array; ``logdet`` acts on the last two axes.

    Raises
    ------
    spdgraph.InvalidOptionError
        The graph is not decomposable.
    """
    cliques, separators = graph.cliques_and_separators
    out = 0.0
    for sign, blocks in ((1.0, cliques), (-1.0, separators)):
        for c in blocks:
            block = D[..., c, :][..., c]  # batched D: the blocks of each batch member
            out = out + sign * wishart_log_normalizer(b, block, int(c.size), logdet, gammaln)
    return out


def _np_logdet(a: np.ndarray) -> float:
    return float(2.0 * np.sum(np.log(np.diag(np.linalg.cholesky(a)))))


def log_normalizer(b: float, D: np.ndarray | None, graph: object) -> float | None:
    """``log I_G(b, D)``, or None when the graph is not decomposable.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.empty_graph(2)  # independent Gamma(b/2, rate D_jj/2) diagonal entries
    >>> bool(np.isclose(log_normalizer(3.0, None, g),
    ...                 2 * (1.5 * np.log(2) + scipy.special.gammaln(1.5))))
    True
    """
    s = graph_structure(graph)
    if not s.decomposable:
        return None
    d = np.eye(s.p) if D is None else np.asarray(D, dtype=np.float64)
    return float(log_normalizer_generic(float(b), d, s, _np_logdet, scipy.special.gammaln))


def gwishart_logp(
    K: np.ndarray, b: float, D: np.ndarray | None, graph: object, *, normalized: bool = True
) -> tuple[float, bool]:
    """The G-Wishart log density of K, and whether it is normalized.

    Parameters
    ----------
    K
        ``(p, p)`` SPD matrix with zeros on the non-edges (checked).
    b
        Degrees of freedom, > 2.
    D
        The scale (SPD ``(p, p)``); None is the identity.
    graph
        The graph.
    normalized
        Subtract ``log I_G(b, D)`` when the graph is decomposable.

    Returns
    -------
    tuple of (float, bool)
        The log density, and True when it includes the normalizing constant
        (False for a non-decomposable graph or ``normalized=False``).

    Examples
    --------
    >>> import networkx as nx, scipy.stats
    >>> k = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> value, is_normalized = gwishart_logp(k, 3.0, None, nx.complete_graph(2))
    >>> bool(np.isclose(value, scipy.stats.wishart(df=4.0, scale=np.eye(2)).logpdf(k)))
    True
    """
    s = graph_structure(graph)
    k = np.asarray(K, dtype=np.float64)
    if k.shape != (s.p, s.p):
        raise ValueError(f"K must be {s.p} x {s.p} for this graph, got shape {k.shape}.")
    if np.any(k[s.pattern == 0] != 0):
        return -np.inf, normalized and s.decomposable
    d = np.eye(s.p) if D is None else np.asarray(D, dtype=np.float64)
    try:
        logdet = _np_logdet(k)
    except np.linalg.LinAlgError:
        return -np.inf, normalized and s.decomposable
    value = (b - 2) / 2 * logdet - np.sum(d * k) / 2
    constant = log_normalizer(b, d, s) if normalized else None
    if constant is not None:
        return float(value - constant), True
    return float(value), False
