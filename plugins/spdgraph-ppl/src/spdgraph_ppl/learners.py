"""The plugin's samplers as study learners: data in, posterior precision draws out.

Each learner is a function ``learner(x, *, draws=..., b=..., D=..., seed=None)``
of the ``(n, p)`` data that returns ``draws`` posterior draws of the precision
matrix, an array ``(draws, p, p)``. A study runs it from its TOML::

    [[learners]]
    name = "wishart-exact"
    function = "spdgraph_ppl.learners:exact_posterior"
    options = {draws = 200, b = 3.0}

and scores the draws with :func:`spdgraph.validation.posterior_scores`
(Brier score, Stein's loss, credible-interval coverage) and, through their
edge scores, with ROC/PR areas and the selection ``rule = "threshold"``.
The study passes its learner seed (one per cell and repeat) as ``seed``:
the same cell gives the same draws on any worker.

The learners do not see the true graph: the model is the Gaussian graphical
model on the complete graph, ``K ~ W(b, D)`` (the G-Wishart law of the
complete graph, in BDgraph's parametrization: density proportional to
``|K|^((b-2)/2) exp(-tr(D K)/2)``) and rows of X i.i.d. ``N(0, K^-1)``. No
posterior draw has an exact zero, so a draw-based edge "probability" is not a
posterior probability of inclusion: ``posterior_scores`` scores each pair by
the probability of direction of its partial correlation, ``|2 P(rho > 0) -
1|`` (0 when the posterior puts equal mass on both signs, 1 when every draw
has the same sign). About half of the non-edges score above 0.5 by chance,
so a study's default cutoff for such draws is 0.95: a pair is selected when
the central 95% credible interval of its partial correlation excludes zero.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

import networkx as nx
import numpy as np

import spdgraph
from spdgraph.seeds import SeedLike

__all__ = ["exact_posterior", "nuts_posterior"]


def _checked_data(x: object) -> np.ndarray:
    data = np.asarray(x, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] < 1 or data.shape[1] < 2:
        raise spdgraph.InvalidOptionError(
            f"a learner needs data of shape (n, p) with n >= 1 and p >= 2, got {data.shape}."
        )
    if not np.isfinite(data).all():
        raise spdgraph.InvalidOptionError(
            "the data hold NaN or infinite values: impute or drop them before fitting."
        )
    return data


def _checked_draws(draws: object) -> int:
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 2:
        raise spdgraph.InvalidOptionError(
            f"draws must be an integer >= 2 (the posterior scores need a spread), got {draws!r}."
        )
    return int(draws)


def _checked_b(b: object) -> float:
    if not isinstance(b, (int, float, np.number)) or not float(b) > 2:
        raise spdgraph.InvalidOptionError(
            f"b (the prior's degrees of freedom) must be a number > 2, got {b!r}."
        )
    return float(b)


def exact_posterior(
    x: object,
    *,
    draws: int = 200,
    b: float = 3.0,
    D: object = None,
    seed: SeedLike = None,
) -> np.ndarray:
    """Exact draws of the conjugate Wishart posterior of the precision matrix.

    The model is the complete graph's G-Wishart prior ``K ~ W(b, D)`` and
    rows of ``x`` i.i.d. ``N(0, K^-1)`` (the data are not centred: the model
    has mean zero, as spdgraph's simulated data do). The posterior is
    ``W(b + n, D + x^T x)``, drawn exactly by
    :func:`spdgraph_ppl.exact_posterior` (the chordal sampler of
    ``spdgraph-gwishart``); its mean is ``(b + n + p - 1) (D + x^T x)^-1``.

    Parameters
    ----------
    x
        The ``(n, p)`` data.
    draws
        Number of posterior draws (>= 2).
    b, D
        The prior: degrees of freedom (> 2) and scale (None: the identity; a
        number c: c times the identity; or a ``(p, p)`` SPD matrix).
    seed
        Anything :func:`spdgraph.sample` accepts as a seed; a study passes
        its learner seed. The same seed gives the same bits.

    Returns
    -------
    numpy.ndarray
        ``(draws, p, p)`` precision draws, in the columns' order.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).standard_normal((50, 4))
    >>> k = exact_posterior(x, draws=3, seed=1)
    >>> k.shape, bool(np.all(k == np.swapaxes(k, 1, 2)))
    ((3, 4, 4), True)
    >>> bool(np.array_equal(k, exact_posterior(x, draws=3, seed=1)))
    True
    """
    from spdgraph_ppl._exact import exact_posterior as conjugate_posterior

    data = _checked_data(x)
    size, b = _checked_draws(draws), _checked_b(b)
    graph = nx.complete_graph(data.shape[1])
    out = conjugate_posterior(data, graph, b, D, size=size, seed=seed)
    return np.asarray(out.values, dtype=np.float64)


def _one_jax_thread() -> None:
    """XLA on one thread (a study already holds BLAS to one): only before JAX starts."""
    if "jax" not in sys.modules:
        os.environ.setdefault(
            "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        )


@functools.lru_cache(maxsize=8)
def _compiled_fit(p: int, n: int, b: float, d_key: bytes, draws: int, tune: int) -> Any:
    """One jitted NUTS fit per data shape and prior: refits in a study do not recompile."""
    from spdgraph_ppl.numpyro import nuts_fitter

    d = np.frombuffer(d_key, dtype=np.float64).reshape(p, p)
    return nuts_fitter(nx.complete_graph(p), b, d, n_obs=n, draws=draws, tune=tune)


def nuts_posterior(
    x: object,
    *,
    draws: int = 200,
    tune: int = 200,
    b: float = 3.0,
    D: object = None,
    seed: SeedLike = None,
) -> np.ndarray:
    """NumPyro NUTS draws of the precision matrix's posterior on the complete graph.

    The same model as :func:`exact_posterior` (so the exact learner is its
    reference), fitted with one NUTS chain of :func:`spdgraph_ppl.numpyro.nuts_fitter`:
    ``tune`` adaptation steps, then ``draws`` draws. The fit is compiled once
    per data shape and prior and reused (the first fit pays JAX's
    compilation, seconds). XLA is asked for one thread when JAX is not yet
    imported (``XLA_FLAGS``, unless already set). Needs the ``[numpyro]``
    extra.

    Parameters
    ----------
    x
        The ``(n, p)`` data.
    draws, tune
        Number of draws (>= 2) and of adaptation steps (>= 1).
    b, D
        The prior, as for :func:`exact_posterior`.
    seed
        Anything :func:`numpy.random.default_rng` accepts; a study passes its
        learner seed. It gives the JAX key, so the same seed gives the same
        draws on one machine (XLA does not promise the same bits across
        machines or versions).

    Returns
    -------
    numpy.ndarray
        ``(draws, p, p)`` precision draws, in the columns' order.

    Raises
    ------
    spdgraph.MissingDependencyError
        NumPyro or JAX is not installed.
    """
    data = _checked_data(x)
    size, b = _checked_draws(draws), _checked_b(b)
    if isinstance(tune, bool) or not isinstance(tune, (int, np.integer)) or tune < 1:
        raise spdgraph.InvalidOptionError(f"tune must be an integer >= 1, got {tune!r}.")
    _one_jax_thread()
    try:
        import jax

        import spdgraph_ppl.numpyro  # noqa: F401
    except ImportError as exc:
        raise spdgraph.MissingDependencyError(
            "nuts_posterior needs NumPyro and JAX: pip install 'spdgraph-ppl[numpyro]'."
        ) from exc
    from spdgraph_ppl._exact import scale_or_identity

    n, p = data.shape
    d = np.ascontiguousarray(scale_or_identity(D, p), dtype=np.float64)
    fit = _compiled_fit(p, n, b, d.tobytes(), size, int(tune))
    key_int = int(np.random.default_rng(seed).integers(0, 2**31))
    with jax.default_device(jax.devices("cpu")[0]):
        out = fit(jax.random.PRNGKey(key_int), jax.numpy.asarray(data))
    k = np.asarray(out, dtype=np.float64)
    return (k + np.swapaxes(k, 1, 2)) / 2  # exact symmetry of float32/64 round-off
