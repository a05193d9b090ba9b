"""One precision per group: batched GWishart in PyMC and NumPyro (issue 36).

The batched log density, transform and log-Jacobian equal the per-matrix
results (NumPy reference of :mod:`spdgraph_ppl.transform`); forward draws of
a batch are exact (the default sampler); a small PyMC model with three group
precisions samples with NUTS.
"""

import networkx as nx
import numpy as np
import pytest
from ppl_helpers import graphs
from spdgraph_ppl import free_to_precision, graph_structure, gwishart_logp, log_jacobian

GROUPS = 3


def _batch(name, seed):
    s = graph_structure(graphs()[name])
    u = np.random.default_rng(seed).normal(scale=0.5, size=(GROUPS, s.n_free))
    return s, u, np.stack([free_to_precision(v, s) for v in u])


@pytest.mark.parametrize("name", [pytest.param("cycle5", marks=pytest.mark.slow), "er7", "empty3"])
def test_pymc_transform_and_logp_batched_equal_per_matrix(name):
    pt = pytest.importorskip("pytensor.tensor")
    pm = pytest.importorskip("pymc")
    from spdgraph_ppl.pymc import GraphCholeskyTransform, GWishart

    s, u, ks = _batch(name, 1)
    tr = GraphCholeskyTransform(s)
    uu = pt.matrix("u")
    kk = pt.tensor3("k")
    np.testing.assert_allclose(tr.backward(uu).eval({uu: u}), ks, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tr.forward(kk).eval({kk: ks}), u, rtol=1e-10, atol=1e-10)
    jac = tr.log_jac_det(uu).eval({uu: u})
    np.testing.assert_allclose(jac, [log_jacobian(v, s) for v in u], rtol=1e-12)
    d = np.diag([1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 0.7][: s.p])
    lp = pm.logp(GWishart.dist(graph=s, b=3.5, D=d, size=GROUPS), ks).eval()
    np.testing.assert_allclose(lp, [gwishart_logp(k, 3.5, d, s)[0] for k in ks], rtol=1e-10)


@pytest.mark.integration
def test_pymc_model_with_three_group_precisions_samples():
    """dims=("group", "node", "node_2"): coords, exact forward draws, and NUTS runs
    (a short chain: this checks that the batched model samples, not its accuracy)."""
    pm = pytest.importorskip("pymc")
    from spdgraph_ppl.pymc import GWishart

    g = nx.cycle_graph(["a", "b", "c", "d"])  # not decomposable
    s = graph_structure(g)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GROUPS, 12, 4))
    with pm.Model(coords={"group": ["g1", "g2", "g3"]}) as model:
        k = GWishart("K", graph=g, b=3.0, dims=("group", "node", "node_2"))
        for i in range(GROUPS):  # each group's data under its own precision
            pm.MvNormal(f"X{i}", mu=np.zeros(4), tau=k[i], observed=x[i])
    assert model.named_vars_to_dims["K"] == ("group", "node", "node_2")
    assert model.coords["node"] == ("a", "b", "c", "d")
    draws = pm.draw(k, random_seed=1)
    assert draws.shape == (GROUPS, 4, 4)
    assert np.all(draws[:, ~s.adjacency & ~np.eye(4, dtype=bool)] == 0)
    with model:
        trace = pm.sample(
            draws=30, tune=30, chains=1, progressbar=False, random_seed=2,
            compute_convergence_checks=False,
        )  # fmt: skip
    post = trace.posterior["K"]
    assert post.dims == ("chain", "draw", "group", "node", "node_2")
    assert np.all(post.values[..., ~s.adjacency & ~np.eye(4, dtype=bool)] == 0)
    assert np.all(np.linalg.eigvalsh(post.values) > 0)


@pytest.mark.parametrize("name", ["cycle5", "er7"])
def test_numpyro_batched_log_prob_transform_and_sample(name):
    jax = pytest.importorskip("jax")
    pytest.importorskip("numpyro")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from spdgraph_ppl.numpyro import GraphCholeskyTransform, GWishart

    s, u, ks = _batch(name, 2)
    dist = GWishart(s, 4.0, batch_shape=(GROUPS,))
    assert dist.batch_shape == (GROUPS,) and dist.event_shape == (s.p, s.p)
    lp = np.asarray(dist.log_prob(jnp.asarray(ks)))
    np.testing.assert_allclose(lp, [gwishart_logp(k, 4.0, None, s)[0] for k in ks], rtol=1e-10)
    tr = GraphCholeskyTransform(s)
    np.testing.assert_allclose(np.asarray(tr(jnp.asarray(u))), ks, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        np.asarray(tr.log_abs_det_jacobian(jnp.asarray(u), None)),
        [log_jacobian(v, s) for v in u],
        rtol=1e-12,
    )
    draws = np.asarray(dist.sample(jax.random.PRNGKey(0), (2,)))
    assert draws.shape == (2, GROUPS, s.p, s.p)
    assert np.all(draws[..., ~s.adjacency & ~np.eye(s.p, dtype=bool)] == 0)
    expanded = GWishart(s, 4.0).expand((GROUPS,))
    assert np.asarray(expanded.sample(jax.random.PRNGKey(1))).shape == (GROUPS, s.p, s.p)


# ----------------------------------------------------------------------- documented spellings


@pytest.mark.parametrize("spelling", ["dims", "size", "size_tuple", "shape"])
def test_pymc_documented_batch_spellings(spelling):
    """docs/ppl.md: dims=("group", "node", "node_2"), size=k or shape=(k, p, p) in a model:
    k precisions, exact zeros, a finite log density at the initial point, exact draws."""
    pm = pytest.importorskip("pymc")
    from spdgraph_ppl.pymc import GWishart

    g = nx.path_graph(4)
    s = graph_structure(g)
    kwargs = {
        "dims": {"dims": ("group", "node", "node_2")},
        "size": {"size": GROUPS},
        "size_tuple": {"size": (GROUPS,)},
        "shape": {"shape": (GROUPS, 4, 4)},
    }[spelling]
    with pm.Model(coords={"group": ["g1", "g2", "g3"]}) as model:
        k = GWishart("K", graph=g, b=3.0, **kwargs)
    expected_dims = {
        "dims": ("group", "node", "node_2"),
        "size": ("K_dim_0", "node", "node_2"),
        "size_tuple": ("K_dim_0", "node", "node_2"),
        "shape": None,
    }[spelling]
    assert model.named_vars_to_dims.get("K") == expected_dims
    draws = pm.draw(k, random_seed=1)
    assert draws.shape == (GROUPS, 4, 4)
    assert np.all(draws[:, ~s.adjacency & ~np.eye(4, dtype=bool)] == 0)
    assert np.isfinite(model.compile_logp()(model.initial_point()))


@pytest.mark.parametrize("spelling", ["batch_shape", "expand", "plate"])
def test_numpyro_documented_batch_spellings(spelling):
    """docs/ppl.md: GWishart(G, b, batch_shape=(k,)), .expand((k,)) or a numpyro.plate."""
    jax = pytest.importorskip("jax")
    numpyro = pytest.importorskip("numpyro")
    jax.config.update("jax_enable_x64", True)
    from numpyro.infer import Predictive
    from numpyro.infer.util import log_density
    from spdgraph_ppl.numpyro import GWishart

    g = nx.cycle_graph(4)
    s = graph_structure(g)

    def model():
        if spelling == "batch_shape":
            numpyro.sample("K", GWishart(g, 3.0, batch_shape=(GROUPS,)))
        elif spelling == "expand":
            numpyro.sample("K", GWishart(g, 3.0).expand((GROUPS,)))
        else:
            with numpyro.plate("group", GROUPS):
                numpyro.sample("K", GWishart(g, 3.0))

    k = np.asarray(Predictive(model, num_samples=2)(jax.random.PRNGKey(0))["K"])
    assert k.shape == (2, GROUPS, 4, 4)
    assert np.all(k[..., ~s.adjacency & ~np.eye(4, dtype=bool)] == 0)
    value, _ = log_density(model, (), {}, {"K": k[0]})
    expected = sum(gwishart_logp(m, 3.0, None, s)[0] for m in k[0])
    assert float(value) == pytest.approx(expected, rel=1e-10)


def test_pymc_batched_transform_at_extreme_coordinates_warns_nothing():
    """The grouped model's ``RuntimeWarning: invalid value encountered in matmul`` (issue
    47): a wild early-tuning step overflowed exp(u_ii) to inf, and the 0/1 scatter product
    made inf * 0 = NaN. Now the scatter indexes and exp is capped: no warning, no NaN, and
    the log density there is hugely negative (a rejected step)."""
    import warnings

    pt = pytest.importorskip("pytensor.tensor")
    pm = pytest.importorskip("pymc")
    from spdgraph_ppl.pymc import GraphCholeskyTransform, GWishart

    s = graph_structure(nx.cycle_graph(4))
    u = np.zeros((GROUPS, s.n_free))
    u[1, 0] = 800.0  # exp overflows
    u[2, s.p] = 1e3
    uu = pt.matrix("u")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        k = GraphCholeskyTransform(s).backward(uu).eval({uu: u})
        lp = pm.logp(GWishart.dist(graph=s, b=3.0, size=GROUPS), k).eval()
    assert not np.isnan(k).any()
    assert np.isfinite(lp[0]) and lp[1] < -1e100
