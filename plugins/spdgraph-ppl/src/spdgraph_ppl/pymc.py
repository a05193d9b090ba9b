"""The G-Wishart prior for PyMC: ``GWishart``, its transform, and ``ggm_model``.

>>> import networkx as nx, pymc as pm
>>> g = nx.path_graph(["a", "b", "c"])
>>> k = pm.draw(GWishart.dist(graph=g, b=3.0), random_seed=1)
>>> k.shape, float(k[0, 2])
((3, 3), 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.distributions.continuous import Continuous
from pymc.distributions.shape_utils import rv_size_is_none
from pymc.distributions.transforms import _default_transform
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.variable import TensorVariable

from spdgraph_ppl._data import data_matrix
from spdgraph_ppl._exact import prior_draws, scale_or_identity
from spdgraph_ppl._graph import GraphStructure, graph_structure
from spdgraph_ppl._pytensor_transform import GraphCholeskyTransform, backward, forward
from spdgraph_ppl.density import log_normalizer_generic
from spdgraph_ppl.sbc import SBCModel, gwishart_sbc_model

__all__ = [
    "GWishart",
    "GWishartRV",
    "GraphCholeskyTransform",
    "OneBlasThreadModel",
    "backward",
    "forward",
    "ggm_model",
    "sbc_model",
]


# ----------------------------------------------------------------------- the distribution


def _static(var: Variable, what: str) -> np.ndarray:
    if isinstance(var, Constant):
        return np.asarray(var.data)
    try:
        return np.asarray(var.eval())
    except Exception as exc:  # a symbolic input: the structure must be fixed
        raise NotImplementedError(
            f"GWishart needs a fixed {what}; it cannot be a model variable."
        ) from exc


def _structure_of(adjacency: Variable) -> GraphStructure:
    a = _static(adjacency, "graph").astype(bool)
    if a.ndim > 2:  # broadcast over a batch (one precision per group): one graph
        stack = a.reshape(-1, *a.shape[-2:])
        if not (stack == stack[:1]).all():
            raise NotImplementedError("GWishart needs the same graph for every batch member.")
        a = stack[0]
    return GraphStructure(a, tuple(range(a.shape[0])))


class GWishartRV(RandomVariable):
    """Exact forward draws of ``W_G(b, D)`` through ``spdgraph.sample(..., "gwishart")``.

    Inputs: ``b``, ``D``, the boolean adjacency and a 0/1 ``normalized`` flag
    (constants). The draws use spdgraph's default ``algorithm="auto"``: exact on
    every graph (block Gibbs, with a warning, where exact acceptance is tiny).
    """

    name = "gwishart"
    signature = "(),(p,p),(p,p),()->(p,p)"
    dtype = "floatX"
    _print_name = ("GWishart", "\\operatorname{GWishart}")

    @classmethod
    def rng_fn(
        cls,
        rng: np.random.Generator,
        b: np.ndarray,
        D: np.ndarray,
        adjacency: np.ndarray,
        normalized: np.ndarray,
        size: Sequence[int] | None,
    ) -> np.ndarray:
        """Draw with spdgraph; batch parameters are broadcast against ``size``."""
        a = np.asarray(adjacency).astype(bool)
        p = a.shape[-1]
        b = np.asarray(b, dtype=np.float64)
        D = np.asarray(D, dtype=np.float64)
        batch = tuple(size) if size is not None else np.broadcast_shapes(b.shape, D.shape[:-2])
        b_all = np.broadcast_to(b, batch)
        d_all = np.broadcast_to(D, (*batch, p, p))
        a_all = np.broadcast_to(a, (*batch, p, p))
        out = np.empty((*batch, p, p))
        if b.ndim == 0 and D.ndim == 2 and a.ndim == 2:
            n = int(np.prod(batch, dtype=np.int64))
            out[...] = prior_draws(a, float(b), D, size=n, seed=rng).reshape(out.shape)
            return out
        for index in np.ndindex(*batch):
            out[index] = prior_draws(
                a_all[index], float(b_all[index]), d_all[index], size=1, seed=rng
            )[0]
        return out


gwishart = GWishartRV()


class GWishart(Continuous):
    r"""G-Wishart law ``W_G(b, D)`` of a precision matrix with exact zeros on a graph's non-edges.

    Density proportional to :math:`|K|^{(b-2)/2} \exp(-\mathrm{tr}(DK)/2)` on
    the SPD matrices with ``K_ij = 0`` for the non-edges of G (the
    ``spdgraph-gwishart`` parametrization; complete graph: Wishart with
    ``b + p - 1`` degrees of freedom and scale ``D^-1``).

    Parameters
    ----------
    graph
        The graph (networkx, igraph, adjacency array, ...); its node order is
        the order of the matrix's rows. Fixed (not a model variable).
    b
        Degrees of freedom, > 2.
    D
        Scale: None (identity), a number c (c I) or a ``(p, p)`` SPD array.
    normalized
        Include the normalizing constant (decomposable graphs only; for other
        graphs the log density is unnormalized, which does not change a
        posterior on a fixed graph). :attr:`GraphStructure.decomposable` tells which.

    Notes
    -----
    In a model the value is unconstrained by :class:`GraphCholeskyTransform`
    (``p + |E|`` coordinates per matrix). Without ``dims``, the variable gets
    dims ``("node", "node_2")`` whose coordinates are the graph's labels
    (added to the model's coords). Batches: one precision per group with
    ``dims=("group", "node", "node_2")``, ``size=k`` (dims
    ``("K_dim_0", "node", "node_2")`` for a variable ``"K"``, coordinates
    ``0..k-1``) or ``shape=(k, p, p)``; the log density and the transform are
    batched. Forward draws (``pm.draw``,
    ``pm.sample_prior_predictive``) are exact on every graph (spdgraph's
    default ``algorithm="auto"``).

    Examples
    --------
    >>> import networkx as nx
    >>> with pm.Model() as model:
    ...     k = GWishart("K", graph=nx.cycle_graph(4), b=3.0)
    >>> model.named_vars_to_dims["K"], model.coords["node"]
    (('node', 'node_2'), (0, 1, 2, 3))
    """

    rv_op = gwishart

    def __new__(cls, name: str, graph: object, *args: Any, **kwargs: Any) -> Any:
        s = graph_structure(graph)
        if kwargs.get("dims") is None and kwargs.get("shape") is None:
            size = kwargs.get("size")
            batch: tuple[str, ...] = ()
            if size is not None:  # one precision per group: a batch dim before the nodes
                sizes = (size,) if isinstance(size, int | np.integer) else tuple(size)
                batch = tuple(f"{name}_dim_{i}" for i in range(len(sizes)))
                model = pm.modelcontext(None)
                for dim, n in zip(batch, sizes, strict=True):
                    if dim not in model.coords:
                        model.add_coord(dim, list(range(int(n))))
                del kwargs["size"]
            kwargs["dims"] = (*batch, "node", "node_2")
        dims = kwargs.get("dims")
        if dims is not None:
            dims = (dims,) if isinstance(dims, str) else tuple(dims)
            model = pm.modelcontext(None)
            for dim in ("node", "node_2"):
                if dim not in dims[-2:]:
                    continue
                if dim not in model.coords:
                    model.add_coord(dim, list(s.labels))
                elif list(model.coords[dim]) != list(s.labels):
                    raise ValueError(
                        f"the model's {dim!r} coordinate {list(model.coords[dim])} is not the "
                        f"graph's node labels {list(s.labels)}; pass dims= explicitly."
                    )
        return super().__new__(cls, name, s, *args, **kwargs)

    @classmethod
    def dist(
        cls,
        graph: object,
        b: Any = 3.0,
        D: Any = None,
        *,
        normalized: bool = True,
        **kwargs: Any,
    ) -> Any:
        """The unregistered distribution (see the class docstring for the parameters)."""
        s = graph_structure(graph)
        d: Any
        if isinstance(D, Variable):
            d = D
        else:
            d = scale_or_identity(D, s.p)
        if not isinstance(b, Variable) and not float(b) > 2.0:
            raise ValueError(f"GWishart needs b > 2, got {b!r}.")
        return super().dist(
            [
                pt.as_tensor_variable(b, dtype="floatX"),
                pt.as_tensor_variable(d, dtype="floatX"),
                pt.constant(s.adjacency.astype(np.int8)),
                pt.constant(np.int8(bool(normalized))),
            ],
            **kwargs,
        )

    @staticmethod
    def support_point(
        rv: TensorVariable,
        size: TensorVariable,
        b: TensorVariable,
        D: TensorVariable,
        adjacency: TensorVariable,
        norm: TensorVariable,
    ) -> TensorVariable:
        """A point inside the support: ``diag(b / D_ii)`` (per batch member)."""
        diag = pt.shape_padright(b) / pt.diagonal(D, axis1=-2, axis2=-1)
        point = pt.shape_padaxis(diag, -2) * pt.eye(D.shape[-1])
        if not rv_size_is_none(size):
            batch = [size[i] for i in range(int(size.type.shape[0]))]
            point = pt.broadcast_to(point, (*batch, point.shape[-2], point.shape[-1]))
        return point

    @staticmethod
    def logp(
        value: TensorVariable,
        b: TensorVariable,
        D: TensorVariable,
        adjacency: TensorVariable,
        normalized: TensorVariable,
    ) -> TensorVariable:
        """Log density (normalized on decomposable graphs when ``normalized``)."""
        s = _structure_of(adjacency)
        norm = bool(_static(normalized, "normalized flag").ravel()[0])
        chol = pt.linalg.cholesky(value, on_error="nan")
        logdet = 2.0 * pt.sum(pt.log(pt.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
        out = (b - 2.0) / 2.0 * logdet - pt.sum(D * value, axis=(-2, -1)) / 2.0
        if norm and s.decomposable:
            out = out - log_normalizer_generic(
                b,
                D,
                s,
                lambda a: (
                    2.0
                    * pt.sum(
                        pt.log(pt.diagonal(pt.linalg.cholesky(a), axis1=-2, axis2=-1)), axis=-1
                    )
                ),
                pt.gammaln,
            )
        off = pt.sum(pt.abs(value * (1.0 - s.pattern)), axis=(-2, -1))
        asym = pt.sum(pt.abs(value - value.swapaxes(-1, -2)), axis=(-2, -1))
        ok = pt.eq(off, 0) & pt.eq(asym, 0) & ~pt.isnan(logdet) & ~pt.isinf(logdet)
        return pt.switch(ok, out, -np.inf)


@_default_transform.register(GWishartRV)
def _gwishart_transform(op: GWishartRV, rv: TensorVariable) -> GraphCholeskyTransform:
    adjacency = op.dist_params(rv.owner)[2]
    return GraphCholeskyTransform(_structure_of(adjacency))


# ----------------------------------------------------------------------- the GGM


class OneBlasThreadModel(pm.Model):
    """A :class:`pymc.Model` that holds BLAS to one thread while it is the active context.

    PyMC's NUTS runs in Python over small compiled functions whose matrix
    products go through NumPy's BLAS; OpenBLAS's default threads cost far more
    than they give on p x p matrices (measured: docs/ppl.md's PyMC example took
    436 s with the default threads, 44 s with one, on a 2-core machine shared
    with other processes). So ``with ggm_model(...): pm.sample(...)`` samples
    with one BLAS thread, and the previous limits come back on exit
    (``threadpoolctl``). Nested ``with`` blocks are fine.
    """

    def __enter__(self) -> OneBlasThreadModel:
        from threadpoolctl import threadpool_limits

        out = super().__enter__()
        stack = self.__dict__.setdefault("_spdgraph_blas_limits", [])
        stack.append(threadpool_limits(limits=1, user_api="blas"))
        return out

    def __exit__(self, *exc: object) -> None:
        try:
            super().__exit__(*exc)
        finally:
            stack = self.__dict__.get("_spdgraph_blas_limits", [])
            if stack:
                stack.pop().restore_original_limits()


def ggm_model(
    data: object,
    graph: object,
    b: float = 3.0,
    D: object = None,
    *,
    normalized: bool = True,
) -> pm.Model:
    """A Gaussian graphical model: ``K ~ W_G(b, D)``, rows of X i.i.d. ``N(0, K^-1)``.

    Parameters
    ----------
    data
        ``(n, p)`` array (columns in the graph's node order) or a DataArray
        with dims ``(obs, node)`` such as ``da.spd.draw`` returns.
    graph
        The graph.
    b, D, normalized
        As for :class:`GWishart`.

    Returns
    -------
    OneBlasThreadModel
        A :class:`pymc.Model` that holds BLAS to one thread inside its
        ``with`` block (where ``pm.sample`` runs: the fast setting for these
        small matrices). Variables ``K`` (dims ``node``, ``node_2``) and the observed ``X``
        (dims ``obs``, ``node``); ``X`` is a ``pm.Data`` container ``X_data``,
        so ``pm.set_data({"X_data": new})`` refits new data of the same shape.

    Examples
    --------
    >>> import networkx as nx
    >>> m = ggm_model(np.zeros((5, 3)), nx.path_graph(3))
    >>> sorted(m.named_vars)
    ['K', 'X', 'X_data']
    """
    s = graph_structure(graph)
    x, obs = data_matrix(data, s)
    coords = {"node": list(s.labels), "node_2": list(s.labels), "obs": list(obs)}
    with OneBlasThreadModel(coords=coords) as model:
        x_data = pm.Data("X_data", x, dims=("obs", "node"))
        k = GWishart("K", graph=s, b=b, D=D, normalized=normalized, dims=("node", "node_2"))
        pm.MvNormal("X", mu=np.zeros(s.p), tau=k, observed=x_data, dims=("obs", "node"))
    return model


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
    """An :class:`~spdgraph_ppl.sbc.SBCModel` of :func:`ggm_model` fitted by PyMC's NUTS.

    The prior draw is exact (``spdgraph-gwishart``); the ranks are taken on
    the free entries of K (variable ``K_free``, dim ``entry``, see
    :func:`spdgraph_ppl.free_entries`); each fit is one chain of ``draws``
    after ``tune``, thinned by ``thin``. The model and its NUTS step are
    built once and refitted through ``pm.set_data`` (each fit still costs a
    PyMC sampling run's set-up, about a second).
    """
    s = graph_structure(graph)
    d = scale_or_identity(D, s.p)
    model = ggm_model(np.zeros((n_obs, s.p)), s, b, d)

    with model:
        step = pm.NUTS()  # compiled once; its adaptation restarts with every pm.sample

    def posterior(data: np.ndarray, seed: int) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        # tiny matrices: BLAS threads only cost (badly so when cores are shared)
        with model, threadpool_limits(limits=1, user_api="blas"):
            pm.set_data({"X_data": data})
            trace = pm.sample(
                draws=draws,
                tune=tune,
                chains=1,
                step=step,
                random_seed=seed,
                progressbar=False,
                compute_convergence_checks=False,
                return_inferencedata=False,
            )
        return np.asarray(trace.get_values("K"))

    return gwishart_sbc_model(s, b, d, n_obs, posterior, thin)
