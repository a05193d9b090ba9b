"""Seeds and random streams: the one stream tree of spdgraph.

Every random number spdgraph draws comes from one tree of
:class:`numpy.random.SeedSequence` s under the root of a call
(:func:`seed_sequence`); a node of the tree is the root's spawn key extended by
a path, so nodes never share random numbers and none depends on how many
others are drawn::

    root               the call's seed (attrs "seed", "seed_spawn_key")
    ├── k              matrix k of sample()      matrix_stream(root, k)
    │   └── REDRAW, r  its r-th redraw           redraw_stream(root, k, r)
    ├── GROUP, g       group g of sample([...])  group_root(root, g)
    ├── DRAW, k        data of matrix k, draw()  domain_stream(root, DRAW, k)
    │   └── UNIT, u    its rows of draw unit u   unit_stream(root, DRAW, k, u)
    └── MISSING, k     its missing-value mask    domain_stream(root, MISSING, k)
        └── UNIT, u    the mask of draw unit u   unit_stream(root, MISSING, k, u)

Matrix ``k`` of a call is drawn from the ``k``-th child of the root (what
``root.spawn`` gives), so it does not depend on the stack size, the chunking or
the scheduler; a graph family draws from the root itself (:func:`root_stream`).
The data of a matrix are drawn in units of a fixed number of rows, each from
its own stream (:func:`unit_stream`), so the rows do not depend on how the
data are cut into blocks (``da.spd.draw(n, chunks=...)``) either.
A group's root is a root like any other: its matrices, data and redraws hang
under it. The domains are ASCII tags, so a spawn key reads as where it comes from.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np

from spdgraph.errors import InvalidOptionError, written

__all__ = [
    "DRAW",
    "GROUP",
    "MISSING",
    "REDRAW",
    "SEED_ATTRS",
    "UNIT",
    "MatrixStreams",
    "SeedLike",
    "child_generator",
    "domain_stream",
    "group_root",
    "matrix_stream",
    "redraw_stream",
    "root_stream",
    "seed_attrs",
    "seed_sequence",
    "sub_root",
    "unit_stream",
    "without_seed_attrs",
]

SeedLike = int | np.random.Generator | np.random.SeedSequence | None

#: Domain of the per-group roots of ``sample([g_1, ..., g_K])`` (ASCII "grup").
GROUP = 0x67727570
#: Domain of the data streams of ``da.spd.draw`` (ASCII "draw").
DRAW = 0x64726177
#: Domain of the missing-value masks of ``da.spd.draw(missing=...)`` (ASCII "miss").
MISSING = 0x6D697373
#: Tag of a draw unit's stream under a data or mask stream (ASCII "unit").
UNIT = 0x756E6974
#: Domain of the redraws of a matrix that failed its certificate (ASCII "rdrw").
REDRAW = 0x72647277

#: The provenance attrs that replay a root (:func:`seed_attrs`).
SEED_ATTRS = ("seed", "seed_spawn_key")

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


def sub_root(root: np.random.SeedSequence, *path: int) -> np.random.SeedSequence:
    """The node of the tree at ``path`` under ``root`` (its spawn key extended by ``path``).

    Examples
    --------
    >>> sub_root(np.random.SeedSequence(7), GROUP, 2).spawn_key == (GROUP, 2)
    True
    """
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, *path), pool_size=root.pool_size
    )


def _stream(node: np.random.SeedSequence) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(node))


def root_stream(root: np.random.SeedSequence) -> np.random.Generator:
    """The generator of the root itself (what a graph family draws from)."""
    return _stream(root)


def matrix_stream(root: np.random.SeedSequence, k: int) -> np.random.Generator:
    """Generator of matrix ``k``: the k-th child of ``root`` (as ``root.spawn`` gives).

    Examples
    --------
    >>> a = matrix_stream(np.random.SeedSequence(5), 1).random()
    >>> b = np.random.default_rng(np.random.SeedSequence(5).spawn(2)[1]).random()
    >>> a == b
    True
    """
    return _stream(sub_root(root, k))


class MatrixStreams(Sequence[np.random.Generator]):
    """The generators of matrices ``start .. stop - 1`` under ``root``, made on first use.

    ``streams[j]`` is ``matrix_stream(root, start + j)`` (the same object on every
    access, so that a generator advanced by one use continues at the next); a
    slice is the streams of those matrices. A batch kernel that draws a known
    law (PO's Bartlett coordinates) reads :meth:`pcg64_states` instead and
    computes the same streams in bulk, without making a Generator per matrix
    (:mod:`spdgraph._kernels.streams`: the same bits).

    Examples
    --------
    >>> streams = MatrixStreams(np.random.SeedSequence(5), 2, 4)
    >>> len(streams), streams[1].random() == matrix_stream(np.random.SeedSequence(5), 3).random()
    (2, True)
    """

    def __init__(self, root: np.random.SeedSequence, start: int, stop: int) -> None:
        self.root, self.start, self.stop = root, start, max(start, stop)
        self._made: dict[int, np.random.Generator] = {}

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, j: int) -> np.random.Generator: ...
    @overload
    def __getitem__(self, j: slice) -> MatrixStreams: ...
    def __getitem__(self, j: int | slice) -> np.random.Generator | MatrixStreams:
        if isinstance(j, slice):
            lo, hi, step = j.indices(len(self))
            if step != 1:
                raise ValueError("MatrixStreams slices take every matrix (step 1).")
            return MatrixStreams(self.root, self.start + lo, self.start + max(lo, hi))
        k = int(j) + len(self) if int(j) < 0 else int(j)
        if not 0 <= k < len(self):
            raise IndexError(f"matrix {j} of {len(self)} streams")
        if k not in self._made:
            self._made[k] = matrix_stream(self.root, self.start + k)
        return self._made[k]

    def __iter__(self) -> Iterator[np.random.Generator]:
        return (self[j] for j in range(len(self)))

    def pcg64_states(self) -> np.ndarray:
        """The PCG64 states of these streams, ``(n, 4)`` uint64 (before any draw).

        Row ``j`` is the state ``self[j].bit_generator`` starts from
        (:func:`spdgraph._kernels.streams.pcg64_states`): only for streams not drawn
        from yet through this object.
        """
        if self._made:
            raise RuntimeError("pcg64_states() of streams already drawn from: use them instead.")
        from spdgraph._kernels.streams import pcg64_states  # imports numba: keep it lazy

        return pcg64_states(self.root, np.arange(self.start, self.stop, dtype=np.uint64))


#: The name of :func:`matrix_stream` before the stream tree.
child_generator = matrix_stream


def redraw_stream(root: np.random.SeedSequence, k: int, r: int) -> np.random.Generator:
    """Generator of the ``r``-th redraw (``r >= 1``) of matrix ``k``, under matrix k's node.

    It depends on ``k`` and ``r`` only, so a redrawn matrix too does not depend
    on the stack size, the chunking or the scheduler.
    """
    return _stream(sub_root(root, k, REDRAW, r))


def group_root(root: np.random.SeedSequence, g: int) -> np.random.SeedSequence:
    """The root of group ``g`` of a call on several related graphs."""
    return sub_root(root, GROUP, g)


def domain_stream(root: np.random.SeedSequence, domain: int, k: int) -> np.random.Generator:
    """Generator ``k`` of a domain (:data:`DRAW`, :data:`MISSING`) under ``root``."""
    return _stream(sub_root(root, domain, k))


def unit_stream(
    root: np.random.SeedSequence, domain: int, k: int, unit: int
) -> np.random.Generator:
    """Generator of draw unit ``unit`` of stream ``k`` of a domain (:data:`DRAW`,
    :data:`MISSING`): the rows of one unit of matrix ``k``'s data, whatever the blocks.

    Examples
    --------
    >>> a = unit_stream(np.random.SeedSequence(5), DRAW, 0, 3).random()
    >>> b = unit_stream(np.random.SeedSequence(5), DRAW, 0, 3).random()
    >>> a == b, a == unit_stream(np.random.SeedSequence(5), DRAW, 0, 4).random()
    (True, False)
    """
    return _stream(sub_root(root, domain, k, UNIT, unit))


def seed_attrs(root: np.random.SeedSequence) -> dict[str, str]:
    """Provenance attrs that replay ``root``: ``seed`` and, if any, ``seed_spawn_key``.

    Examples
    --------
    >>> seed_attrs(sub_root(np.random.SeedSequence(3), GROUP, 1))
    {'seed': '3', 'seed_spawn_key': '1735554416,1'}
    """
    attrs = {"seed": str(root.entropy)}
    if root.spawn_key:
        attrs["seed_spawn_key"] = ",".join(str(x) for x in root.spawn_key)
    return attrs


def without_seed_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """``attrs`` without the seed attrs (before a combined result records its own root)."""
    return {k: v for k, v in attrs.items() if k not in SEED_ATTRS}
