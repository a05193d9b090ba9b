"""Making and checking one block of matrices: the generator called, every matrix checked.

Whoever wrote the generator, every matrix it returns is checked (shape, dtype,
finiteness, exact symmetry, exact zeros, positive definiteness) and a failure names
the plugin; :func:`made_block` is one attempt at a block (generated, checked,
normalized), :mod:`spdgraph.sampling._engine` what is done with it (redraws,
spectrum control).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from spdgraph._kernels.numerics import (
    MAX_SCALED_CONDITION,
    Violation,
    find_violation,
    unit_diagonal,
)
from spdgraph._kernels.proofs import PROOF_CONSTRUCTION
from spdgraph.errors import (
    GeneratorOutputError,
    PluginError,
    SpdgraphError,
    UncertifiedMatrixError,
)
from spdgraph.plugins.types import GeneratorSpec, GraphData

if TYPE_CHECKING:
    from spdgraph.sampling._record import SampleRequest

__all__ = ["CERTIFICATE", "made_block", "validate_matrix"]


def validate_matrix(
    m: object,
    adjacency: np.ndarray,
    k: int,
    gen: GeneratorSpec,
    plugin: str,
    *,
    check_pd: bool = True,
    proven: np.ndarray | None = None,
) -> np.ndarray:
    """Check matrix ``k`` a generator returned; raise GeneratorOutputError naming the plugin.

    With ``check_pd`` the matrix must also be numerically positive definite:
    Cholesky succeeds with its rounding accounted
    (:func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`) and its scaled
    condition number is at most
    :data:`~spdgraph._kernels.numerics.MAX_SCALED_CONDITION` (the same verdict on every
    machine for every matrix clearly on one side of that bound); ``proven`` (``(2, 1)``)
    then receives the proof's lower bound of its smallest eigenvalue and the proof's code
    (:func:`~spdgraph._kernels.numerics.find_violation`).
    """
    who = f"generator {gen.name!r} (plugin {plugin!r})"
    p = adjacency.shape[0]
    if not isinstance(m, np.ndarray):
        raise GeneratorOutputError(f"{who} returned {type(m).__name__}, not a numpy array.")
    if m.shape != (p, p):
        raise GeneratorOutputError(
            f"{who} returned shape {m.shape} for matrix {k}, expected ({p}, {p})."
        )
    if m.dtype != np.float64:
        raise GeneratorOutputError(f"{who} returned dtype {m.dtype}, expected float64.")
    violation = find_violation(
        m, adjacency, check_pd=check_pd, condition_bound=MAX_SCALED_CONDITION, proven=proven
    )
    if violation is None and not check_pd:
        # positive, normal-sized diagonal entries: the unit-diagonal scaling needs them
        diag = np.diagonal(m)
        small = np.flatnonzero(~(diag >= np.finfo(np.float64).tiny))
        if small.size:
            i = int(small[0])
            violation = Violation("small_diagonal", 0, i, i, float(diag[i]))
    if violation is None:
        return m
    described = replace(violation, k=k).describe()
    error = UncertifiedMatrixError if violation.problem in CERTIFICATE else GeneratorOutputError
    raise error(f"{who}: {described}{_ADVICE.get(violation.problem, '')}")


#: The problems of a drawn matrix (not of the generator): its certificate failed.
CERTIFICATE = frozenset({"not_pd", "not_proven", "small_diagonal", "ill_conditioned"})


#: A generator's proven condition bound ``c`` (``GeneratorSpec.proves_pd``) stands for the
#: core's factorization when ``c * CERTIFICATE_SLACK <= MAX_SCALED_CONDITION`` and the
#: matrix's diagonal lies in :data:`PROVEN_DIAGONALS`. The slack covers the core's own
#: roundings after the proof: the rescaling to unit diagonal (each entry within
#: ``gamma_3`` of ``d_i a_ij d_j``, so ``||F||_1 <= gamma_3 c`` relative to the inverse:
#: at most ``3.4e-4`` for ``c <= 1e12``, Neumann series) and scalings that differ from the
#: generator's by ``1 + O(p eps)`` (a factor ``1 + O(p eps)`` on the condition number);
#: together below ``1.0004`` for ``p <= 1e8``. In that range of diagonals no product of
#: the rescaling overflows or loses precision (``d_i d_j`` stays within ``1e+-100``).
CERTIFICATE_SLACK = 1.001
#: The diagonal entries a proven matrix may have (see :data:`CERTIFICATE_SLACK`).
PROVEN_DIAGONALS = (1e-100, 1e100)


def proven_matrices(block: np.ndarray, bounds: np.ndarray | None) -> np.ndarray | None:
    """Which matrices of a generator's block its ``condition_bounds`` prove positive definite.

    None without bounds; else a boolean ``(n,)`` array (see :data:`CERTIFICATE_SLACK`).

    >>> block = np.stack([np.eye(2), 2.0 * np.eye(2)])
    >>> proven_matrices(block, np.array([1.0, np.inf])).tolist()
    [True, False]
    """
    if bounds is None:
        return None
    low, high = PROVEN_DIAGONALS
    diagonals = np.diagonal(block, axis1=-2, axis2=-1)
    in_range = np.all((diagonals >= low) & (diagonals <= high), axis=-1)
    return np.asarray(bounds * CERTIFICATE_SLACK <= MAX_SCALED_CONDITION) & in_range


def construction_lower_bounds(block: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The proven lower bound of each matrix's smallest eigenvalue that its generator's
    proven scaled condition bound ``c`` gives (:func:`proven_matrices`).

    ``H = S M S`` (``S = diag(1 / sqrt(m_ii))``) has a unit diagonal, so
    ``||H||_1 >= 1`` and ``lambda_min(H) = 1 / ||H^-1||_2 >= 1 / ||H^-1||_1 >=
    1 / c``; ``lambda_min(M) >= min_i m_ii lambda_min(H)``. ``c`` is taken times
    :data:`CERTIFICATE_SLACK` (it then also bounds the core's rescaling of ``M``),
    and the quotient rounded down.

    >>> construction_lower_bounds(np.stack([2.0 * np.eye(2)]), np.array([1.0])) < 2.0
    array([ True])
    """
    smallest = np.diagonal(block, axis1=-2, axis2=-1).min(axis=-1)
    return smallest / (bounds * CERTIFICATE_SLACK) * (1.0 - 8 * np.finfo(np.float64).eps)


#: What to do about each kind of invalid output, after the violation's description.
_ADVICE = {
    "asymmetric": " Symmetrize with (M + M.T) / 2.",
    "ill_conditioned": (" Use a sparser graph or options that give a better-conditioned matrix."),
}


def _check_block(
    block: np.ndarray,
    adjacency: np.ndarray,
    gen: GeneratorSpec,
    plugin: str,
    *,
    check_pd: bool,
    failures: dict[int, Exception] | None = None,
    rescaled: bool = False,
    proven: np.ndarray | None = None,
    certificates: np.ndarray | None = None,
    condition_bounds: np.ndarray | None = None,
) -> None:
    """Check every matrix of a block, a few at a time; name the first bad one.

    With ``failures``, a matrix that fails only its certificate is recorded there
    (and replaced by the identity until it is redrawn) instead of raising.
    ``rescaled`` says that the block is the core's unit-diagonal rescaling of a
    block that passed the pattern checks: it is then exactly symmetric, 0 on
    the non-edges and 1 on the diagonal by construction, and the fast path
    goes straight to the factorization (which fails on any non-finite entry);
    a block it does not certify still gets every detailed check. ``proven``
    (:func:`proven_matrices`) marks matrices whose generator proved them
    positive definite with a small enough condition number: only their
    pattern and diagonals are checked (nothing after the core's rescaling), and
    their bound comes from the generator's ``condition_bounds``
    (:func:`construction_lower_bounds`). With ``check_pd``, ``certificates``
    (``(2, n)``) receives each matrix's proven lower bound of its smallest
    eigenvalue and the proof's code (``PROOF_NAMES``)."""
    n, p = block.shape[0], adjacency.shape[0]
    # checked a few matrices at a time (one call per group: small matrices are
    # dominated by per-call overhead), groups of small matrices on the batch's
    # threads (the checks release the GIL); a failing group is re-checked matrix by matrix for
    # the message naming the first bad one
    step = max(1, (1 << 18) // max(p * p, 1))  # ~2 MB: the check passes stay in cache
    starts = range(0, n, step)

    certificates = np.empty((2, n)) if certificates is None else certificates

    def passes(k0: int) -> bool:
        group = block[k0 : k0 + step]
        if group.dtype != np.float64:
            return False
        from spdgraph._kernels.certify import certifies  # numba: lazy

        pd = check_pd and not (proven is not None and bool(proven[k0 : k0 + step].all()))
        cert = certificates[:, k0 : k0 + step]
        if check_pd and not pd:  # proved by the generator: its bound
            assert condition_bounds is not None
            cert[0] = construction_lower_bounds(group, condition_bounds[k0 : k0 + step])
            cert[1] = PROOF_CONSTRUCTION
            if rescaled:
                return True  # the rescaling keeps the pattern
        if certifies(  # the fast path: every matrix passes; else the detailed checks
            group, adjacency, diagonals=True, check_pd=pd, condition_bound=MAX_SCALED_CONDITION,
            pattern_known=rescaled and pd, proven=cert if pd else None,
        ):  # fmt: skip
            return True
        if pd:
            found = find_violation(
                group, adjacency, check_pd=True, condition_bound=MAX_SCALED_CONDITION,
                proven=cert,
            )  # fmt: skip
        else:
            found = find_violation(group, adjacency, check_pd=False)
        return found is None and (pd or _diagonals_ok(group))

    # small matrices on the batch's threads; from one matrix per group on, one at a
    # time (each check holds a Cholesky copy: the memory guard counts one)
    workers = min(len(starts), _check_threads()) if step > 1 else 1
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            verdicts = list(pool.map(passes, starts))
    else:
        verdicts = [passes(k0) for k0 in starts]
    for k0, ok in zip(starts, verdicts, strict=True):
        if not ok:
            for k in range(k0, min(n, k0 + step)):
                _validate_into(block, k, block[k], adjacency, gen, plugin, check_pd, failures,
                               certificates[:, k : k + 1])  # fmt: skip


def _validate_into(
    block: np.ndarray,
    k: int,
    m: object,
    adjacency: np.ndarray,
    gen: GeneratorSpec,
    plugin: str,
    check_pd: bool,
    failures: dict[int, Exception] | None,
    proven: np.ndarray | None = None,
) -> None:
    """``block[k] = validate_matrix(m)``; a certificate failure recorded in ``failures``
    (its ``proven`` entry NaN)."""
    try:
        block[k] = validate_matrix(m, adjacency, k, gen, plugin, check_pd=check_pd, proven=proven)
    except UncertifiedMatrixError as exc:
        if failures is None:
            raise
        if proven is not None:
            proven[:] = np.nan
        failures[k] = exc
        block[k] = np.eye(block.shape[-1])  # a placeholder until the matrix is redrawn


def _check_threads() -> int:
    """Threads for the output checks: Numba's thread count, as for the batches."""
    import numba  # a dependency; imported on first use so that import spdgraph stays light

    return int(numba.get_num_threads())


def _rescaled_in_place(block: np.ndarray) -> bool:
    """``unit_diagonal(block + 0.0)`` in place in one compiled pass on the batch's threads
    (the same bits); False (nothing done) for a block it does not take."""
    from spdgraph._kernels.scaling import unit_diagonal_stack  # numba: lazy

    return unit_diagonal_stack(block, block, plus_zero=True, threads=_check_threads())


def _diagonals_ok(group: np.ndarray) -> bool:
    return bool(np.all(np.diagonal(group, axis1=-2, axis2=-1) >= np.finfo(np.float64).tiny))


def _call(gen: GeneratorSpec, plugin: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a generator; an error that is not spdgraph's becomes a PluginError naming it."""
    try:
        return function(*args, **kwargs)
    except (SpdgraphError, MemoryError):
        raise
    except Exception as exc:
        raise PluginError(
            f"generator {gen.name!r} of plugin {plugin!r} raised {type(exc).__name__}: {exc}"
            " (a bug in the plugin; the original error is chained below)."
        ) from exc


def _call_batch(
    graph: GraphData,
    gen: GeneratorSpec,
    plugin: str,
    n: int,
    factor_kw: dict[str, Any],
    checks: dict[str, Any],
    **kwargs: Any,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The generator's block, checked (``checks``: :func:`_check_block`'s ``check_pd``,
    ``failures``, ``certificates``), which matrices it proved (:func:`proven_matrices`)
    and its condition bounds."""
    adjacency = graph.adjacency
    p = adjacency.shape[0]
    assert gen.batch_function is not None
    bounds = np.full(n, np.inf) if gen.proves_pd else None
    if bounds is not None:
        kwargs["condition_bounds"] = bounds
    out = _call(gen, plugin, gen.batch_function, adjacency.copy(), **factor_kw, **kwargs)
    if not isinstance(out, np.ndarray) or out.shape != (n, p, p):
        raise GeneratorOutputError(
            f"generator {gen.name!r} (plugin {plugin!r}) batch function returned "
            f"{getattr(out, 'shape', type(out).__name__)}, expected ({n}, {p}, {p})."
        )
    proven = proven_matrices(out, bounds)
    _check_block(out, adjacency, gen, plugin, proven=proven, condition_bounds=bounds, **checks)
    return out, proven, bounds


def made_block(
    request: SampleRequest,
    rngs: Sequence[np.random.Generator] | None,
    factors: np.ndarray | None,
    failures: dict[int, Exception] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The block generated, checked and normalized, before any spectrum control, and
    what proved each matrix positive definite: ``(2, n)``, each matrix's proven lower
    bound of its smallest eigenvalue and the proof's code
    (:data:`~spdgraph._kernels.proofs.PROOF_NAMES`); NaN where nothing was proven on
    the block's final form (a matrix in ``failures``; a spectrum target, whose
    control proves its own output).

    A matrix failing its certificate raises, or with ``failures`` is recorded there
    (its place holds the identity)."""
    graph, gen, plugin, entries = request.dense_graph, request.gen, request.plugin, request.entries
    options: Mapping[str, Any] = request.generator_arguments()
    normalize = request.normalize
    adjacency = graph.adjacency
    p = adjacency.shape[0]
    n = len(factors) if factors is not None else len(rngs or ())
    controlled = request.min_eigenvalue is not None or request.condition_number is not None
    # the generator's own output is proved PD before a spectrum control changes it;
    # otherwise once, on the final (normalized) form
    pd_now = controlled or not normalize
    certificates = np.full((2, n), np.nan)
    checks: dict[str, Any] = {
        "check_pd": pd_now,
        "failures": failures,
        "certificates": certificates,
    }
    proven = bounds = None
    if gen.batch_function is not None:
        factor_kw = {"factors": factors} if gen.accepts_factor else {}
        block, proven, bounds = _call_batch(
            graph, gen, plugin, n, factor_kw, checks, rngs=rngs, entries=entries, **options
        )
    else:
        block = np.empty((n, p, p), dtype=np.float64)
        for k in range(n):
            kw: dict[str, Any] = {}
            if gen.accepts_factor:
                kw["factor"] = None if factors is None else factors[k].copy()
            rng = None if rngs is None else rngs[k]
            m = _call(
                gen,
                plugin,
                gen.function,
                adjacency.copy(),
                rng=rng,
                entries=entries,
                **kw,
                **options,
            )
            _validate_into(block, k, m, adjacency, gen, plugin, False, failures)
        if pd_now:
            _check_block(block, adjacency, gen, plugin, **checks)
    # -0.0 (equal to 0, so it passed the checks) -> +0.0: x + 0.0 is x for every
    # other x, in place and in one pass (the rescaling's own pass when it runs)
    if not (normalize and n and _rescaled_in_place(block)):
        np.add(block, 0.0, out=block)
        if normalize and n:
            block = unit_diagonal(block, out=block)  # the engine owns the block
    if normalize and n and not controlled:
        _check_block(
            block, adjacency, gen, plugin, check_pd=True, failures=failures, rescaled=True,
            proven=proven, certificates=certificates, condition_bounds=bounds,
        )  # fmt: skip
    if controlled:
        certificates[:] = np.nan
    for k in failures or ():
        certificates[:, k] = np.nan
    return block, certificates
