"""Peak memory of the sparse path per stored entry (issue 56 item 5), and its bits.

The peaks are measured with :mod:`tracemalloc` at p = 2 * 10**5 (mean degree 5:
about 1.2 million stored entries; seconds): the traced peak above what was held
before the call, less the per-node terms (:data:`BYTES_PER_NODE` per node: labels,
diagonals, weights, row sums, margins), divided by the stored entries of the
result, must be at most :data:`BYTES_PER_ENTRY` (32).

What tracemalloc covers: every NumPy array, including those the compiled kernels
fill (the sparse path allocates its results in NumPy and passes them in), and
Python objects. What it does not see: work arrays allocated inside numba-compiled
code (per node, not per entry, on this path), CHOLMOD's factor (cvxopt, C memory)
and LAPACK/ARPACK workspaces; ``benchmarks/bench_large.py`` reports the resident
set (RSS) per stored entry, which sees everything.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse

import spdgraph
from spdgraph.sampling._memory import BYTES_PER_ENTRY, BYTES_PER_NODE

pytest.importorskip("sparse")

P = 200_000
DEGREE = 5.0


def _peak(run: Callable[[], Any]) -> tuple[Any, int]:
    """``run()``'s result and its traced peak above what was held before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak - before


def _per_entry(peak: int, entries: int, p: int, excluded: int = 0) -> float:
    return (peak - excluded - BYTES_PER_NODE * p) / entries


@pytest.fixture(scope="module")
def graph() -> Any:
    return spdgraph.graphs.erdos_renyi(P, DEGREE / P, seed=3, backend="scipy")


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    """The kernels compiled (and cached) before any peak is measured."""
    small = spdgraph.graphs.erdos_renyi(60, 0.1, seed=1, backend="scipy")
    spdgraph.sample(small, "dd", kind="precision", sparse=True, seed=1)
    spdgraph.sample(small, "huge", kind="precision", sparse=True, seed=1, unit_variance=False)
    spdgraph.simulate("band", p=60, n=3, method="dd", sparse=True, seed=1)


def test_graph_build_peak_per_stored_entry() -> None:
    out, peak = _peak(lambda: spdgraph.graphs.erdos_renyi(P, DEGREE / P, seed=3, backend="scipy"))
    figure = _per_entry(peak, out.nnz, P)
    assert figure <= BYTES_PER_ENTRY, f"graph build: {figure:.1f} bytes per stored entry"


def test_dd_sparse_peak_per_stored_entry(graph: Any) -> None:
    out, peak = _peak(lambda: spdgraph.sample(graph, "dd", kind="precision", sparse=True, seed=1))
    figure = _per_entry(peak, out.data.nnz, P)
    assert figure <= BYTES_PER_ENTRY, f"dd sparse: {figure:.1f} bytes per stored entry"
    assert out.data.coords.dtype == np.int32  # p and the entries fit: int32 indices


def test_huge_sparse_peak_per_stored_entry() -> None:
    # huge's eigenvalue search holds a few dozen vectors of p (LOBPCG, Lanczos):
    # per node, counted with the core's per-node terms; a smaller p keeps it fast
    p = 50_000
    graph = spdgraph.graphs.erdos_renyi(p, DEGREE / p, seed=3, backend="scipy")
    out, peak = _peak(
        lambda: spdgraph.sample(
            graph, "huge", kind="precision", sparse=True, seed=1, unit_variance=False
        )
    )
    figure = (peak - HUGE_BYTES_PER_NODE * p) / out.data.nnz
    assert figure <= BYTES_PER_ENTRY, f"huge sparse: {figure:.1f} bytes per stored entry"


#: huge's eigenvalue search (LOBPCG's blocks and their products): about 16 vectors
#: of p at once (measured: 50 bytes per stored entry in all at p = 50,000, degree 5).
HUGE_BYTES_PER_NODE = BYTES_PER_NODE + 8 * 16


def test_simulate_sparse_peak_per_stored_entry_data_excluded() -> None:
    n = 20
    out, peak = _peak(
        lambda: spdgraph.simulate("band", p=P, n=n, method="dd", sparse=True, seed=1)
    )
    # the data being drawn: the normal draws and the output (n p float64 each); the
    # factor where they are drawn: the int64 triplets (row, column, value) of each of
    # its entries handed to CHOLMOD (the lower triangle, inside the factor's pattern)
    data = 2 * out["data"].data.nbytes
    factor = 24 * int(out["data"].attrs["factor_entries"])
    figure = _per_entry(peak, out["precision"].data.nnz, P, excluded=data + factor)
    assert figure <= BYTES_PER_ENTRY + DRAW_CSR_COPY, (
        f"simulate sparse: {figure:.1f} bytes per stored entry"
    )


#: ``draw()`` reads the truth's ``sparse.COO`` back into a CSR array (an 8-byte value
#: and a 4-byte index per entry, ``accessor/_sparse.py``) held while it draws: the one
#: full-size copy left on this path, outside the sampling and simulation code.
DRAW_CSR_COPY = 12


def _reference_dd(adjacency: np.ndarray, seed: int) -> np.ndarray:
    """``dd``'s unit-diagonal matrix from the dense portable rule (slow and obvious)."""
    from spdgraph.plugins._builtin.gen_dd import generate_dd
    from spdgraph.plugins.types import standard_normal_entries
    from spdgraph.seeds import MatrixStreams, seed_sequence

    rng = MatrixStreams(seed_sequence(seed), 0, 1)[0]
    m = generate_dd(adjacency, rng=rng, entries=standard_normal_entries, portable=True)
    d = 1.0 / np.sqrt(np.diagonal(m).copy())
    out = m * (d[:, None] * d[None, :]) + 0.0
    out[np.diag_indices_from(out)] = 1.0
    return np.where(m != 0, out, 0.0)


@pytest.mark.parametrize("seed", [0, 5])
def test_dd_sparse_same_values_and_order_as_the_dense_rule(seed: int) -> None:
    """The int32, copy-free path keeps the bits: values and entry order (row-major)."""
    graph = spdgraph.graphs.erdos_renyi(120, 0.06, seed=seed, backend="scipy")
    result = spdgraph.sample(graph, "dd", kind="precision", sparse=True, seed=seed)
    dense = _reference_dd(np.asarray(graph.toarray() != 0), seed)
    rows, cols = np.nonzero(dense)  # row-major: the order of the stored entries
    coords = result.data.coords
    assert np.array_equal(coords[0], rows) and np.array_equal(coords[1], cols)
    assert np.array_equal(result.data.data, dense[rows, cols])


def test_coo_from_csr_matches_pydata_conversions() -> None:
    """The one-pass conversion against ``COO.from_scipy_sparse`` and ``sparse.stack``."""
    import sparse

    from spdgraph.sampling._sparse import coo_from_csr

    rng = np.random.default_rng(0)
    made = [
        scipy.sparse.random_array((30, 30), density=0.1, rng=rng, format="csr") for _ in range(3)
    ]
    for m in made:
        m.sort_indices()
    expected = sparse.stack([sparse.COO.from_scipy_sparse(m) for m in made])
    got = coo_from_csr([m.copy() for m in made], stacked=True, shape=(30, 30))
    assert np.array_equal(got.coords, expected.coords)
    assert np.array_equal(got.data, expected.data)
    one = coo_from_csr([made[0].copy()])
    assert np.array_equal(one.coords, sparse.COO.from_scipy_sparse(made[0]).coords)
    assert np.array_equal(one.data, made[0].data)


def test_randomized_start_digest_ignores_the_index_type() -> None:
    """The randomized certificate's start digests the indices as int64 (the seed it
    always had), read in blocks: int32 and int64 indices give the same start."""
    from spdgraph.sampling import _randomized_certify as rc

    m = scipy.sparse.random_array(
        (50, 50), density=0.2, rng=np.random.default_rng(1), format="csr"
    )
    wide = scipy.sparse.csr_array(
        (m.data, m.indices.astype(np.int64), m.indptr.astype(np.int64)), shape=m.shape
    )
    narrow = scipy.sparse.csr_array(
        (m.data, m.indices.astype(np.int32), m.indptr.astype(np.int32)), shape=m.shape
    )
    assert np.array_equal(rc._start(wide), rc._start(narrow))
