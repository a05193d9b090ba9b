"""Slow, obviously-correct reference implementations kept for the tests.

Written for clarity, never for speed: plain Python loops over vectors,
following the paper's Algorithm 3 (modified Gram–Schmidt) literally, with a
second Gram–Schmidt pass for accuracy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _subtract_projections(v: np.ndarray, basis: list[np.ndarray]) -> np.ndarray:
    for _ in range(2):  # classic "twice is enough" re-orthogonalization
        for b in basis:
            v = v - (v @ b) / (b @ b) * b
    return v


def po_reference(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Raw PO matrix Q Q^T (exact zeros set on non-edges) for the given factor."""
    q = [np.array(row, dtype=float) for row in factor]
    p = len(q)
    for i in range(p):
        # orthogonal basis of span{q_j : j < i, j not adjacent to i}, rows as processed so far
        basis: list[np.ndarray] = []
        for j in range(i):
            if not adjacency[i, j]:
                t = _subtract_projections(q[j].copy(), basis)
                basis.append(t)
        q[i] = _subtract_projections(q[i], basis)
    m = np.array([[qi @ qj for qj in q] for qi in q])
    for i in range(p):
        for j in range(p):
            if i != j and not adjacency[i, j]:
                m[i, j] = 0.0
    return m


def dd_reference(adjacency: np.ndarray, edge_values, perturbation) -> np.ndarray:
    """gmat diagdom rule: edges in upper-triangle row-major order; m_ii = sum|m_ij| + 2|eps_i|."""
    p = adjacency.shape[0]
    m = np.zeros((p, p))
    it = iter(edge_values)
    for i in range(p):
        for j in range(i + 1, p):
            if adjacency[i, j]:
                m[i, j] = m[j, i] = next(it)
    for i in range(p):
        m[i, i] = sum(abs(m[i, j]) for j in range(p) if j != i) + 2 * abs(perturbation[i])
    return m


def cov2cor(m: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diag(m))
    return m / np.outer(d, d)


def normalized_error(a: np.ndarray, b: np.ndarray) -> float:
    """max |a_ij - b_ij| / sqrt(b_ii b_jj): error on the correlation scale."""
    d = np.sqrt(np.abs(np.diag(b)))
    return float(np.max(np.abs(a - b) / np.outer(d, d)))


def random_adjacency(p: int, d: float, rng: np.random.Generator) -> np.ndarray:
    """Symmetric boolean adjacency with a False diagonal, each edge with probability d."""
    upper = np.triu(rng.random((p, p)) < d, 1)
    return upper | upper.T


def random_adjacencies(min_p: int, max_p: int):
    """A hypothesis strategy: :func:`random_adjacency` with ``p`` in ``[min_p, max_p]``,
    any density and seed (shrinks toward small, empty graphs)."""
    from hypothesis import strategies as st

    return st.builds(
        lambda p, d, s: random_adjacency(p, d, np.random.default_rng(s)),
        st.integers(min_p, max_p),
        st.floats(0.0, 1.0),
        st.integers(0, 2**32 - 1),
    )


def lasso_reference(
    z: np.ndarray, y: np.ndarray, alpha: float, gap_tol: float = 1e-13
) -> np.ndarray:
    """Lasso ``min (1/(2n)) ||y - z w||^2 + alpha ||w||_1`` by plain cyclic
    coordinate descent on the residual, run until the duality gap is below
    ``gap_tol * y'y`` (no Gram tricks, no warm start, no path)."""
    n, q = z.shape
    lam = alpha * n
    w = np.zeros(q)
    r = y.astype(float).copy()
    for _ in range(200_000):
        for j in range(q):
            zj = z[:, j]
            norm2 = zj @ zj
            if norm2 == 0.0:
                continue
            rho = zj @ r + norm2 * w[j]
            new = np.sign(rho) * max(abs(rho) - lam, 0.0) / norm2
            r += (w[j] - new) * zj
            w[j] = new
        # duality gap of the unscaled problem 0.5||y - zw||^2 + lam ||w||_1
        corr = np.max(np.abs(z.T @ r)) if q else 0.0
        scale = min(1.0, lam / corr) if corr > 0 else 1.0
        nu = scale * r
        primal = 0.5 * r @ r + lam * np.abs(w).sum()
        dual = 0.5 * y @ y - 0.5 * (y - nu) @ (y - nu)
        if primal - dual < gap_tol * (y @ y):
            return w
    raise RuntimeError("reference lasso did not converge")


def uniform_correlation_reference(
    adjacency: np.ndarray, n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` uniform correlation matrices with the graph's zeros, by rejection.

    Edge entries i.i.d. U(-1, 1), non-edges 0, unit diagonal; kept when positive
    definite. Obviously correct for any graph, practical for a handful of edges.
    """
    p = adjacency.shape[0]
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    out = []
    while len(out) < n:
        m = np.eye(p)
        values = rng.uniform(-1.0, 1.0, rows.size)
        m[rows, cols] = values
        m[cols, rows] = values
        if np.linalg.eigvalsh(m)[0] > 0.0:
            out.append(m)
    return np.array(out)


def engine_request(graph, gen, plugin="my-plugin", *, n=2, seed=0, normalize=False, **kw):
    """A SampleRequest for the engine (``generate_block``) with an unregistered generator.

    Returns ``(request, rngs)``: the request and one generator per matrix.
    """
    from spdgraph.sampling._adapt import adapt_graph
    from spdgraph.sampling._entries import resolve_entries
    from spdgraph.sampling._record import SampleRequest
    from spdgraph.seeds import child_generator, seed_sequence

    root = seed_sequence(seed)
    request = SampleRequest(
        graph=adapt_graph(graph),
        gen=gen,
        plugin=plugin,
        kind=kw.pop("kind", "covariance"),
        n=n,
        stacked=True,
        normalize=normalize,
        entries=resolve_entries("normal")[0],
        options=kw.pop("options", {}),
        min_eigenvalue=kw.pop("min_eigenvalue", None),
        condition_number=kw.pop("condition_number", None),
        chunks=None,
        root=root,
        factors=None,
    )
    assert not kw, kw
    return request, [child_generator(root, k) for k in range(n)]


#: The tests folder, the repository and the stored reference data.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"


def po_matrix(adjacency: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Raw PO matrix ``Q' Q'^T`` by the library's row kernel (before the residual check
    and zeroing), under one BLAS thread: the first step of the fast path, which the
    tests compare the other kernels with (and with :func:`po_reference`)."""
    from spdgraph._kernels.blas import one_blas_thread
    from spdgraph._kernels.po.fast import gram_matrix, processed_coordinates

    with one_blas_thread():
        return gram_matrix(processed_coordinates(adjacency, factor))


def potrf_lower_t(block: np.ndarray, n: int) -> bool:
    """LAPACK ``dpotrf`` (``uplo="L"``) of ``block[:n, :n]`` from its upper triangle,
    in place, called through ctypes as the compiled dense kernel calls it: ``R^T R``,
    ``R`` upper; False if not numerically positive definite. The tests check the raw
    call against numpy with it."""
    import ctypes

    from spdgraph._kernels import raw_blas

    if n == 0:
        return True
    a, lda = raw_blas._address(block)
    info = ctypes.c_int(0)
    raw_blas._DPOTRF(b"L", raw_blas._int(n), a, raw_blas._int(lda), ctypes.byref(info))
    return info.value == 0


# -- comparisons with R's numbers, on any machine -------------------------------------------
# R and spdgraph are two programs, each built on whatever BLAS and CPU the machine has:
# they agree to rounding, never bit for bit. The tolerances below are bounds derived from
# the condition of the quantity (first-order perturbation theory, Higham 2002), never a
# constant that a BLAS or a CPU could break.
EPS = float(np.finfo(np.float64).eps)


def huge_reference(
    adjacency: np.ndarray, v: float = 0.3, u: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """huge.generator's R code after the graph is built, one line each (NumPy, slow).

    diag(theta) = 0; omega = theta*v
    diag(omega) = abs(min(eigen(omega)$values)) + 0.1 + u
    sigma = cov2cor(solve(omega)); omega = solve(sigma)

    Returns the first ``omega`` (before the rescaling), ``sigma`` and the last ``omega``.
    """
    p = adjacency.shape[0]
    theta = adjacency.astype(float)
    np.fill_diagonal(theta, 0)
    omega = theta * v
    start = omega.copy()
    np.fill_diagonal(start, abs(min(np.linalg.eig(omega)[0].real)) + 0.1 + u)
    sigma = cov2cor(np.linalg.solve(start, np.eye(p)))
    return start, sigma, np.linalg.solve(sigma, np.eye(p))


def huge_rounding_bound(start: np.ndarray, omega: np.ndarray) -> float:
    """How far two programs' huge.generator matrices (its ``omega`` or ``sigma``) may lie
    apart, as ``max |difference| / max |entry|``.

    Each program's ``start`` diagonal carries an eigenvalue (error <= p eps ||start||), its
    inverse a solve (relative error <= p kappa0 eps, kappa0 = cond(start)); the rescaled
    ``sigma`` is inverted again, which amplifies that error by kappa = cond(omega) and adds
    its own p kappa eps. In the max norm (a factor p from the 2-norm), both programs
    erring: ``4 p^2 eps (kappa0 kappa + kappa0 + kappa)``.
    """
    p = omega.shape[0]
    kappa0, kappa = np.linalg.cond(start), np.linalg.cond(omega)
    return float(4 * p**2 * EPS * (kappa0 * kappa + kappa0 + kappa))


def penalty_grid_rtol(x: np.ndarray, size: int) -> float:
    """How far two programs' default penalty grids (huge's ``lambda``) may differ, relative.

    The grid's top is the largest ``|S_ij|`` of the correlation matrix ``S`` of ``x``. Its
    n-term sum of products errs by at most (n + 2) eps sum |z_ki z_kj| / n relative to
    |S_ij| (z the standardized columns; any order of summation, Higham 2002, 3.1), the two
    standard deviations by (n + 4) eps together (sums of squares, square roots); both
    programs err: doubled. The log-spaced steps add a few ulps each (log, the sequence,
    exp).
    """
    n = x.shape[0]
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    s = z.T @ z / n
    off = np.abs(s - np.diag(np.diag(s)))
    i, j = np.unravel_index(np.argmax(off), off.shape)
    spread = np.abs(z[:, i]) @ np.abs(z[:, j]) / n
    return float(2 * (n + 2) * EPS * spread / off[i, j] + 2 * (n + 4) * EPS + 8 * size * EPS)
