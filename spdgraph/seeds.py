"""Seeds and random streams: one root per call, one child stream per matrix.

Matrix ``k`` of a call is drawn from the ``k``-th child of the call's root
:class:`numpy.random.SeedSequence`, so it does not depend on the stack size,
the chunking or the scheduler.
"""

from __future__ import annotations

import numbers

import numpy as np

from spdgraph.errors import InvalidOptionError, written

__all__ = ["SeedLike", "child_generator", "seed_attrs", "seed_sequence"]

SeedLike = int | np.random.Generator | np.random.SeedSequence | None

#: Largest seed (in bits) accepted: 4096 bits (1,234 digits) is far more entropy than
#: any stream uses, and its decimal text (the ``seed`` attribute) stays printable.
MAX_SEED_BITS = 4096


def _check_entropy(entropy: object) -> None:
    values = entropy if isinstance(entropy, (list, tuple, np.ndarray)) else [entropy]
    for value in values:
        if isinstance(value, numbers.Integral) and int(value).bit_length() > MAX_SEED_BITS:
            raise InvalidOptionError(
                f"seed must have at most {MAX_SEED_BITS} bits (1,234 digits), got an integer "
                f"of {int(value).bit_length():,} bits; use a shorter seed."
            )


def seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """Root :class:`numpy.random.SeedSequence` of a call, never mutating the input.

    An int or a SeedSequence always gives the same root; a Generator gives a
    root drawn from it (advancing it); None gives fresh OS entropy, recorded in
    the output's ``seed`` attribute so the call can be repeated.
    """
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        _check_entropy(seed.entropy)
        return np.random.SeedSequence(
            seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size
        )
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4, dtype=np.uint64).tolist())
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise InvalidOptionError(f"seed must be non-negative, got {written(seed)}.")
        _check_entropy(seed)
        return np.random.SeedSequence(int(seed))
    raise InvalidOptionError(
        f"seed must be None, a non-negative int, a numpy.random.Generator or a "
        f"numpy.random.SeedSequence, got {type(seed).__name__}."
    )


def child_generator(root: np.random.SeedSequence, k: int) -> np.random.Generator:
    """Generator of matrix ``k``: the k-th child of ``root`` (as ``root.spawn`` gives)."""
    child = np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, k), pool_size=root.pool_size
    )
    return np.random.Generator(np.random.PCG64(child))


def seed_attrs(root: np.random.SeedSequence) -> dict[str, str]:
    """Provenance attrs that replay ``root``: ``seed`` and, if any, ``seed_spawn_key``."""
    attrs = {"seed": str(root.entropy)}
    if root.spawn_key:
        attrs["seed_spawn_key"] = ",".join(str(x) for x in root.spawn_key)
    return attrs
