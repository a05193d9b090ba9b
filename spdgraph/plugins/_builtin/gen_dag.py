"""Built-in generator plugin: linear Gaussian SEMs on a DAG (``method="dag"``).

gmat 0.2.2's ``chol_iid`` (after Kalisch and Bühlmann 2007): ``X = B X + e``
with one random weight per edge of the DAG and independent noises, giving the
precision ``(I - B)^T D^-1 (I - B)`` (zeros: the moral graph) or the
covariance ``(I - B)^-1 D (I - B)^-T`` (zeros: the pairs without a common
ancestor). The kernels are in :mod:`spdgraph._kernels.sem`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph._kernels.blas import one_blas_thread
from spdgraph._kernels.numerics import MAX_SCALED_CONDITION, find_violation
from spdgraph._kernels.sem import sem_covariance, sem_precision, topological_order
from spdgraph.errors import InvalidOptionError, NumericalError
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.options import OptionSpec
from spdgraph.plugins.types import DAG, EntrySampler, GeneratorSpec, WarmupStep


def generate_dag_batch(
    adjacency: np.ndarray,
    *,
    rngs: Sequence[np.random.Generator],
    entries: EntrySampler,
    dag: np.ndarray,
    kind: str,
    variance_low: float = 0.1,
    variance_high: float = 1.0,
    portable: bool = False,
) -> np.ndarray:
    """SEM matrices on ``dag``, matrix ``k`` from ``rngs[k]``.

    Per matrix: one draw of ``entries`` per edge ``i -> j`` (row-major order
    of ``dag``) as the weight ``B[j, i]``, then ``p`` noise variances
    ``U(variance_low, variance_high)`` (gmat: ``U(0.1, 1)``). Returns the
    precision when ``kind="precision"``, else the covariance; entries outside
    ``adjacency`` (the pattern of that kind) are exact ``+0.0``. ``portable``:
    products and inverses in fixed-order loops (the same bits on every CPU).
    """
    if variance_high < variance_low:
        raise InvalidOptionError(
            f"variance_high={variance_high:g} is below variance_low={variance_low:g}; "
            "the noise variances are drawn from U(variance_low, variance_high)."
        )
    dag = np.asarray(dag, dtype=bool)
    p = dag.shape[0]
    n_edges = int(np.count_nonzero(dag))
    order = topological_order(dag)
    assert order is not None  # the core checked acyclicity
    outside = ~adjacency
    np.fill_diagonal(outside, False)
    out = np.empty((len(rngs), p, p))
    for k, rng in enumerate(rngs):
        weights = entries(rng, (n_edges,))
        variances = np.asarray(rng.uniform(variance_low, variance_high, p))
        if kind == "precision":
            m = sem_precision(dag, weights, variances, portable)
        else:
            m = sem_covariance(dag, weights, variances, order, portable)
        m[outside] = 0.0  # exact zeros already; this turns -0.0 into +0.0
        _check_definite(m, kind, k, n_edges, p)
        out[k] = m
    return out


def _check_definite(m: np.ndarray, kind: str, k: int, n_edges: int, p: int) -> None:
    """A NumericalError with a fix when rounding broke positive definiteness.

    ``I - B`` is unit triangular in a topological order, and random dense
    triangular matrices are exponentially ill-conditioned: products of
    weights along the many paths of a dense DAG overwhelm double precision.
    Decided by the core's bound on the scaled condition number
    (:data:`~spdgraph._kernels.numerics.MAX_SCALED_CONDITION`): the same verdict on every
    machine, not whether a Cholesky factorization happens to fail in the last bits.
    """
    with one_blas_thread():
        violation = find_violation(
            m, np.ones((p, p), dtype=bool), structural=False, condition_bound=MAX_SCALED_CONDITION
        )
    if violation is not None:
        why = (
            "Cholesky failed"
            if violation.problem == "not_pd"
            else f"scaled condition number about {violation.value:.3g}, above the "
            f"{MAX_SCALED_CONDITION:g} spdgraph certifies"
        )
        raise NumericalError(
            f"the {kind} of the structural equation model (matrix {k}) is numerically "
            f"singular ({why}): with {n_edges} edges on {p} nodes, products of the edge weights "
            "along the DAG's many paths make (I - B) too ill-conditioned for double "
            "precision. Use a sparser DAG or smaller weights, e.g. "
            "entries=lambda rng, shape: rng.uniform(-0.5, 0.5, shape)."
        ) from None


def generate_dag(
    adjacency: np.ndarray,
    *,
    rng: np.random.Generator,
    entries: EntrySampler,
    dag: np.ndarray,
    kind: str,
    **options: Any,
) -> np.ndarray:
    """One SEM matrix (see :func:`generate_dag_batch`)."""
    return generate_dag_batch(
        adjacency, rngs=[rng], entries=entries, dag=dag, kind=kind, **options
    )[0]


def _warmup_dag(sample: Any) -> object:
    """The warmup step of ``dag``: the DAG 0 -> 1 -> 2, 0 -> 3."""
    directed = np.zeros((4, 4), dtype=bool)
    directed[[0, 1, 0], [1, 2, 3]] = True
    return sample(DAG(directed), "dag", seed=1)


#: The ``dag`` generator's record.
DAG_GENERATOR = GeneratorSpec(
    name="dag",
    function=generate_dag,
    description=(
        "linear Gaussian SEM on a DAG (gmat chol_iid): precision Markov to the "
        "moral graph, covariance to the common-ancestor pairs"
    ),
    options={
        "variance_low": OptionSpec(
            0.1, float, low=0.0, low_inclusive=False, doc="noise variances U(low, high)"
        ),
        "variance_high": OptionSpec(
            1.0, float, low=0.0, low_inclusive=False, doc="noise variances U(low, high)"
        ),
    },
    batch_function=generate_dag_batch,
    # B, (I - B)^-1, the product, its symmetrization, the check's factor copy
    # (fitted to the peak resident memory measured in a fresh process, p = 2000
    # and 3000, 1 and 4 matrices: benchmarks/bench_memory_guard.py)
    work_per_matrix=0.5,
    work_per_call=4.55,
    accepts_dag=True,
    portable=True,
    seconds=lambda p, edges: 0.1 * (p / 1000.0) ** 3,
    warmup=(WarmupStep("dag", _warmup_dag),),
)


@hookimpl
def spdgraph_register_generators() -> list[GeneratorSpec]:
    """Register ``dag``."""
    return [DAG_GENERATOR]
