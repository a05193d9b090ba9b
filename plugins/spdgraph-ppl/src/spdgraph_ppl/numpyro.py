"""The G-Wishart prior for NumPyro: ``GWishart``, its constraint and transform, ``ggm_model``.

>>> import jax, networkx as nx
>>> d = GWishart(nx.path_graph(3), b=3.0)
>>> k = d.sample(jax.random.PRNGKey(0))
>>> k.shape, float(k[0, 2])
((3, 3), 0.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.distributions import constraints
from numpyro.distributions.transforms import Transform, biject_to

from spdgraph_ppl._data import data_matrix
from spdgraph_ppl._exact import prior_draws, scale_or_identity
from spdgraph_ppl._graph import GraphStructure, graph_structure
from spdgraph_ppl.density import log_normalizer_generic
from spdgraph_ppl.sbc import SBCModel, gwishart_sbc_model

__all__ = [
    "GWishart",
    "GraphCholeskyTransform",
    "GraphPrecisionConstraint",
    "ggm_model",
    "nuts_fitter",
    "sbc_model",
]


class GraphPrecisionConstraint(constraints.Constraint):
    """SPD matrices with exact zeros on a graph's non-edges (event dim 2).

    Parameters
    ----------
    graph
        The graph (anything :func:`spdgraph_ppl.graph_structure` accepts).
    """

    event_dim = 2

    def __init__(self, graph: object) -> None:
        self.structure = graph_structure(graph)

    def __call__(self, x: jax.Array) -> jax.Array:
        """Symmetric, zero on the non-edges, positive definite."""
        pattern = jnp.asarray(self.structure.pattern)
        symmetric = jnp.all(x == jnp.swapaxes(x, -1, -2), axis=(-2, -1))
        zeros = jnp.all(x * (1 - pattern) == 0, axis=(-2, -1))
        chol = jnp.linalg.cholesky(x)
        positive = jnp.all(jnp.isfinite(chol), axis=(-2, -1))
        return symmetric & zeros & positive

    def feasible_like(self, prototype: jax.Array) -> jax.Array:
        """The identity, broadcast like ``prototype``."""
        return jnp.broadcast_to(jnp.eye(self.structure.p, dtype=prototype.dtype), prototype.shape)

    def tree_flatten(self) -> tuple[tuple[()], tuple[tuple[()], dict[str, Any]]]:
        """The graph is static."""
        return (), ((), {"structure": self.structure})

    def eq(self, other: object, static: bool = False) -> bool:
        """Equal when the graphs are."""
        return isinstance(other, GraphPrecisionConstraint) and other.structure == self.structure


def _backward(u: jax.Array, structure: GraphStructure) -> jax.Array:
    """One vector of free coordinates -> K (see :mod:`spdgraph_ppl.transform`)."""
    s = structure.transform_structure
    p = s.p
    diag = jnp.exp(u[:p])
    idx = np.arange(p)
    rows, cols = s.edges
    phi = jnp.zeros((p, p), dtype=u.dtype).at[idx, idx].set(diag)
    if s.n_edges:
        phi = phi.at[rows, cols].set(u[p:])
    for i in s.completed_rows:
        c = phi[:i, i] @ phi[:i]
        phi = phi.at[i].set(jnp.where(s.upper_nonedges[i], -c / diag[i], phi[i]))
    k = phi.T @ phi
    if structure.permuted:
        k = k[structure.inverse_order][:, structure.inverse_order]
    return (k + k.T) * 0.5 * jnp.asarray(structure.pattern, dtype=u.dtype)


class GraphCholeskyTransform(Transform):
    """Bijection ``R^(p + |E|) -> `` :class:`GraphPrecisionConstraint` (``biject_to`` of it).

    ``u = (log Phi_ii, Phi_ij on edges i < j)`` maps to ``K = Phi^T Phi`` with
    the non-edge entries of Phi completed row by row (exact zeros of K on the
    non-edges); ``log_abs_det_jacobian`` is ``p log 2 + sum_i (nu_i + 2) u_i``
    (derivation in :mod:`spdgraph_ppl.transform`).
    """

    domain = constraints.real_vector

    def __init__(self, graph: object) -> None:
        self.structure = graph_structure(graph)

    @property
    def codomain(self) -> GraphPrecisionConstraint:
        """The graph-constrained SPD matrices."""
        return GraphPrecisionConstraint(self.structure)

    def __call__(self, x: jax.Array) -> jax.Array:
        """Free coordinates (last axis) -> K."""
        s = self.structure
        return jnp.vectorize(lambda u: _backward(u, s), signature="(m)->(p,p)")(x)

    def _inverse(self, y: jax.Array) -> jax.Array:
        s = self.structure
        if s.permuted:
            y = y[..., s.transform_order, :][..., :, s.transform_order]
        s = s.transform_structure
        phi = jnp.swapaxes(jnp.linalg.cholesky(y), -1, -2)
        rows, cols = s.edges
        idx = np.arange(s.p)
        return jnp.concatenate([jnp.log(phi[..., idx, idx]), phi[..., rows, cols]], axis=-1)

    def log_abs_det_jacobian(
        self, x: jax.Array, y: jax.Array, intermediates: Any = None
    ) -> jax.Array:
        """``p log 2 + sum_i (nu_i + 2) x_i``."""
        s = self.structure
        nu2 = jnp.asarray(s.transform_structure.nu + 2, dtype=x.dtype)
        return s.p * np.log(2.0) + jnp.sum(nu2 * x[..., : s.p], axis=-1)

    def forward_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """``(..., m) -> (..., p, p)``."""
        return (*shape[:-1], self.structure.p, self.structure.p)

    def inverse_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """``(..., p, p) -> (..., m)``."""
        return (*shape[:-2], self.structure.n_free)

    def tree_flatten(self) -> tuple[tuple[()], tuple[tuple[()], dict[str, Any]]]:
        """The graph is static."""
        return (), ((), {"structure": self.structure})

    def eq(self, other: object, static: bool = False) -> bool:
        """Equal when the graphs are."""
        return isinstance(other, GraphCholeskyTransform) and other.structure == self.structure


@biject_to.register(GraphPrecisionConstraint)
def _biject_graph_precision(constraint: GraphPrecisionConstraint) -> GraphCholeskyTransform:
    return GraphCholeskyTransform(constraint.structure)


def _jnp_logdet(a: jax.Array) -> jax.Array:
    return 2.0 * jnp.sum(jnp.log(jnp.diagonal(jnp.linalg.cholesky(a), axis1=-2, axis2=-1)), -1)


class GWishart(dist.Distribution):
    r"""G-Wishart law ``W_G(b, D)`` of a precision matrix with exact zeros on a graph's non-edges.

    Density proportional to :math:`|K|^{(b-2)/2} \exp(-\mathrm{tr}(DK)/2)`
    (``spdgraph-gwishart``'s parametrization), normalized on decomposable
    graphs when ``normalized`` (see :attr:`is_normalized`).

    Parameters
    ----------
    graph
        The graph; its node order is the order of the matrix's rows. Static.
    b
        Degrees of freedom, > 2.
    D
        Scale: None (identity), a number c (c I) or ``(p, p)`` SPD.
    normalized
        Include ``log I_G(b, D)`` (decomposable graphs only).
    batch_shape
        Independent matrices with the same law (one per group), e.g. ``(3,)``.
    validate_args
        NumPyro's argument validation.

    Notes
    -----
    ``sample`` calls ``spdgraph.sample(..., "gwishart")`` on the host through
    :func:`jax.pure_callback` (exact on every graph: the default
    ``algorithm="auto"``). NUTS uses :class:`GraphCholeskyTransform`,
    registered with ``biject_to``. One precision per group: ``GWishart(...,
    batch_shape=(k,))``, ``.expand((k,))`` or a ``numpyro.plate``; the log
    density and the transform are batched.
    """

    arg_constraints = {  # noqa: RUF012 - numpyro's convention
        "b": constraints.greater_than(2.0),
        "D": constraints.positive_definite,
    }
    pytree_data_fields = ("b", "D")
    pytree_aux_fields = ("structure", "normalized")

    def __init__(
        self,
        graph: object,
        b: Any = 3.0,
        D: Any = None,
        *,
        normalized: bool = True,
        batch_shape: tuple[int, ...] = (),
        validate_args: bool | None = None,
    ) -> None:
        self.structure = graph_structure(graph)
        self.normalized = bool(normalized)
        p = self.structure.p
        if D is None or isinstance(D, int | float):
            D = scale_or_identity(D, p)
        self.b = jnp.asarray(b, dtype=jnp.result_type(float))
        self.D = jnp.asarray(D, dtype=jnp.result_type(float))
        super().__init__(
            batch_shape=tuple(int(n) for n in batch_shape),
            event_shape=(p, p),
            validate_args=validate_args,
        )

    @property
    def support(self) -> GraphPrecisionConstraint:
        """The graph-constrained SPD matrices."""
        return GraphPrecisionConstraint(self.structure)

    @property
    def is_normalized(self) -> bool:
        """Whether :meth:`log_prob` includes the normalizing constant."""
        return self.normalized and self.structure.decomposable

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        """Exact draws from spdgraph, through a host callback."""
        s = self.structure
        shape = (*sample_shape, *self.batch_shape, s.p, s.p)
        n = int(np.prod(shape[:-2], dtype=np.int64))
        dtype = self.D.dtype
        if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
            key = jax.random.key_data(key)

        def host(key_data: np.ndarray, b: np.ndarray, D: np.ndarray) -> np.ndarray:
            seed = np.random.SeedSequence(np.asarray(key_data).astype(np.uint32).ravel().tolist())
            if n == 0:
                return np.zeros(shape, dtype=dtype)
            draws = prior_draws(s, float(b), np.asarray(D, dtype=np.float64), size=n, seed=seed)
            return draws.reshape(shape).astype(dtype)

        return jax.pure_callback(
            host, jax.ShapeDtypeStruct(shape, dtype), key, self.b, self.D, vmap_method="sequential"
        )

    def log_prob(self, value: jax.Array) -> jax.Array:
        """Log density; ``-inf`` outside the support."""
        s = self.structure
        chol = jnp.linalg.cholesky(value)
        logdet = 2.0 * jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
        out = (self.b - 2.0) / 2.0 * logdet - jnp.sum(self.D * value, axis=(-2, -1)) / 2.0
        if self.is_normalized:
            out = out - log_normalizer_generic(
                self.b, self.D, s, _jnp_logdet, jax.scipy.special.gammaln
            )
        pattern = jnp.asarray(s.pattern, dtype=value.dtype)
        ok = jnp.all(value * (1 - pattern) == 0, axis=(-2, -1)) & jnp.isfinite(logdet)
        return jnp.where(ok, out, -jnp.inf)

    @property
    def mean(self) -> jax.Array:
        """Known in closed form for the complete graph only."""
        raise NotImplementedError("the G-Wishart mean has no closed form for a general graph.")


def ggm_model(
    data: object,
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    normalized: bool = True,
) -> Callable[..., None]:
    """A Gaussian graphical model as a NumPyro model function.

    ``K ~ W_G(b, D)`` (site ``"K"``) and rows of X i.i.d. ``N(0, K^-1)``
    (site ``"X"``, observed).

    Parameters
    ----------
    data
        ``(n, p)`` array (columns in the graph's node order) or a DataArray
        with dims ``(obs, node)`` as ``da.spd.draw`` returns. None gives a
        model without data (prior only; pass ``n_obs=`` to simulate X).
    graph
        The graph.
    b, D, normalized
        As for :class:`GWishart`.

    Returns
    -------
    callable
        ``model(X=data, n_obs=None)``: pass another ``X`` of the same shape
        to refit without recompiling (``MCMC(..., jit_model_args=True)``),
        or ``X=None, n_obs=n`` to simulate data (``Predictive``).
        ``model.graph`` is the :class:`~spdgraph_ppl.GraphStructure`,
        ``model.dims`` the ArviZ dims of its sites and ``model.coords`` their
        coordinates (the graph's labels).

    Examples
    --------
    >>> import networkx as nx
    >>> from numpyro.infer import Predictive
    >>> model = ggm_model(None, nx.path_graph(3))
    >>> out = Predictive(model, num_samples=2)(jax.random.PRNGKey(0), X=None, n_obs=4)
    >>> out["K"].shape, out["X"].shape
    ((2, 3, 3), (2, 4, 3))
    """
    s = graph_structure(graph)
    d = scale_or_identity(D, s.p)
    if data is None:
        x, obs = None, np.arange(0)
    else:
        x, obs = data_matrix(data, s)

    def model(X: Any = x, n_obs: int | None = None) -> None:
        k = numpyro.sample("K", GWishart(s, b, d, normalized=normalized))
        n = X.shape[0] if X is not None else int(n_obs or 0)
        with numpyro.plate("obs", n, dim=-1):
            # unvalidated: a numerically indefinite start is redrawn by NUTS, not a ValueError
            numpyro.sample(
                "X",
                dist.MultivariateNormal(jnp.zeros(s.p), precision_matrix=k, validate_args=False),
                obs=X,
            )

    model.graph = s  # type: ignore[attr-defined]
    model.dims = {"K": ["node", "node_2"], "X": ["obs", "node"]}  # type: ignore[attr-defined]
    model.coords = {  # type: ignore[attr-defined]
        "node": list(s.labels),
        "node_2": list(s.labels),
        "obs": list(obs),
    }
    return model


def nuts_fitter(
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    n_obs: int,
    draws: int = 1000,
    tune: int = 1000,
    normalized: bool = True,
) -> Callable[[jax.Array, jax.Array], jax.Array]:
    """A compiled NUTS fit of :func:`ggm_model`: ``fit(key, X) -> K draws (draws, p, p)``.

    One chain, ``tune`` adaptation steps then ``draws`` draws, started from
    uniform(-0.5, 0.5) unconstrained coordinates. Built on NumPyro's functional
    HMC interface and jitted once for data of shape ``(n_obs, p)``, so
    repeated fits (simulation-based calibration, benchmarks) do not pay
    :class:`numpyro.infer.MCMC`'s per-run set-up; ``jax.vmap`` runs several
    fits at once.
    """
    from jax import lax
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    s = graph_structure(graph)
    d = scale_or_identity(D, s.p)
    model = ggm_model(np.zeros((n_obs, s.p)), s, b, d, normalized=normalized)
    x0 = jnp.zeros((n_obs, s.p))
    _, potential_fn_gen, postprocess_fn, _ = initialize_model(
        jax.random.PRNGKey(0), model, dynamic_args=True, model_args=(x0,)
    )
    init_kernel, sample_kernel = hmc(potential_fn_gen=potential_fn_gen, algo="NUTS")

    @jax.jit
    def fit(key: jax.Array, X: jax.Array) -> jax.Array:
        k0, k1 = jax.random.split(key)
        # radius 0.5 (NumPyro's default: 2): well-conditioned starts on every graph
        z0 = {"K": jax.random.uniform(k0, (s.n_free,), minval=-0.5, maxval=0.5)}
        state = init_kernel(z0, num_warmup=tune, model_args=(X,), rng_key=k1)

        def step(state: Any, _: None) -> tuple[Any, Any]:
            state = sample_kernel(state, model_args=(X,))
            return state, state.z

        state, _ = lax.scan(step, state, None, length=tune)
        _, zs = lax.scan(step, state, None, length=draws)
        return jax.vmap(postprocess_fn(X))(zs)["K"]

    return fit


def sbc_model(
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    n_obs: int = 10,
    draws: int = 200,
    tune: int = 300,
    thin: int = 2,
) -> SBCModel:
    """An :class:`~spdgraph_ppl.sbc.SBCModel` of :func:`ggm_model` fitted by NumPyro's NUTS.

    Exact prior draws; ranks on the free entries of K (``K_free``, dim
    ``entry``); one chain of ``draws`` after ``tune`` warm-up steps, thinned by
    ``thin``; compiled once (:func:`nuts_fitter`).
    """
    s = graph_structure(graph)
    d = scale_or_identity(D, s.p)
    run = nuts_fitter(s, b, d, n_obs=n_obs, draws=draws, tune=tune)

    def posterior(data: np.ndarray, seed: int) -> np.ndarray:
        return np.asarray(run(jax.random.PRNGKey(seed), jnp.asarray(data)))

    return gwishart_sbc_model(s, b, d, n_obs, posterior, thin)
