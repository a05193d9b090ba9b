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


@pytest.mark.parametrize("name", ["cycle5", "er7", "empty3"])
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
