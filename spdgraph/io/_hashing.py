"""SHA-256 digests of values, whole and block by block, and the block checks of an open.

The one hashing of spdgraph's files: :func:`_digest` of any values (a
canonical encoding: shape, kind, little-endian bytes; a sparse array's
canonical triplets), :func:`block_digest` of one block (its first
:data:`BLOCK_HEX` hex digits). A variable's block digests are one record,
``{"rows": r, "sha": [...]}`` (blocks of ``r`` rows along the first dim, whole
along the others: an array saved from memory) or ``{"chunks": [[...], ...],
"sha": [...]}`` (any grid: the dask blocks of an array saved lazily, each
written and digested on its worker), ``sha`` in C order of the grid;
:func:`digest_grid` reads both. :func:`verified_blocks` checks each block as a
lazy open reads it, :func:`check_blocks_now` all of them in memory.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from spdgraph.errors import FileError
from spdgraph.io._sparse import canonical, is_sparse

__all__ = [
    "BLOCK_HEX",
    "Grid",
    "block_digest",
    "changed",
    "check_blocks_now",
    "digest_grid",
    "grid_regions",
    "verified_blocks",
]


def _update(sha: Any, values: Any) -> None:
    """Feed a canonical encoding of ``values`` to ``sha`` (no copy of a float64 stack)."""
    if is_sparse(values):  # its canonical triplets: shape, coordinates, values
        coo = canonical(values)
        sha.update(b"sparse" + repr(tuple(coo.shape)).encode())
        if coo.fill_value != 0:  # how the unstored entries read (0 keeps older digests)
            sha.update(b"fill" + repr(float(coo.fill_value)).encode())
        _update(sha, coo.coords)
        _update(sha, coo.data)
        return
    array = np.asarray(values)
    sha.update(repr(tuple(array.shape)).encode())
    if array.dtype.kind in "OUST":
        sha.update(b"s")
        for item in array.ravel().tolist():
            data = str(item).encode("utf-8", "surrogatepass")
            sha.update(len(data).to_bytes(8, "little") + data)
        return
    kinds: dict[str, tuple[str, np.dtype[Any]]] = {
        "b": ("b", np.dtype(np.uint8)),
        "i": ("i", np.dtype("<i8")),
        "u": ("i", np.dtype("<i8")),
    }
    tag, dtype = kinds.get(array.dtype.kind, ("f", np.dtype("<f8")))
    if array.dtype.kind not in "biuf":
        sha.update(b"?" + repr(array.tolist()).encode())
        return
    sha.update(tag.encode())
    contiguous = np.ascontiguousarray(array, dtype=dtype)  # no copy when it already is
    sha.update(contiguous if contiguous.size else b"")


def _digest(values: Any) -> str:
    sha = hashlib.sha256()
    _update(sha, values)
    return sha.hexdigest()


#: Hex digits kept of each block's SHA-256 (64 bits: a changed block is caught).
BLOCK_HEX = 16


def block_digest(block: Any) -> str:
    """The digest of one block (its first :data:`BLOCK_HEX` hex digits)."""
    return _digest(block)[:BLOCK_HEX]


def digest_grid(
    blocks: Any, shape: tuple[int, ...], path: str, what: str
) -> tuple[tuple[tuple[int, ...], ...], list[str]]:
    """The block grid (dask's ``chunks``) and the digests of a block digests record.

    ``{"rows": r}`` is ``r`` rows along the first dim, whole along the others;
    ``{"chunks": ...}`` the grid itself. A damaged record, or one whose grid does
    not cover ``shape`` or whose digest count is not the grid's, is a FileError.
    """
    try:
        sha = [str(x) for x in blocks["sha"]]
        if "chunks" in blocks:
            grid = tuple(tuple(int(n) for n in sizes) for sizes in blocks["chunks"])
        else:
            rows = int(blocks["rows"])
            if rows < 1 or not shape:
                raise changed(path, what + " (its shape)")
            first = tuple(min(rows, shape[0] - i) for i in range(0, shape[0], rows))
            grid = (first or (0,), *((n,) for n in shape[1:]))
    except (KeyError, TypeError, ValueError) as exc:
        raise FileError(f"{path!r}: the block digests of {what} are damaged.") from exc
    covers = len(grid) == len(shape) and all(
        sum(sizes) == n and min(sizes, default=1) >= 0
        for sizes, n in zip(grid, shape, strict=True)
    )
    if not covers or len(sha) != math.prod(len(sizes) for sizes in grid):
        raise changed(path, what + " (its shape)")
    return grid, sha


#: A block grid: the block sizes along each dim (dask's ``chunks``).
Grid = tuple[tuple[int, ...], ...]


def grid_regions(grid: Grid) -> list[tuple[tuple[int, ...], tuple[slice, ...]]]:
    """Every block of ``grid`` in C order: its index and its region (one slice per dim)."""
    starts = [np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist() for sizes in grid]
    return [
        (index, tuple(slice(starts[d][i], starts[d][i + 1]) for d, i in enumerate(index)))
        for index in np.ndindex(*(len(sizes) for sizes in grid))
    ]


def _where(region: tuple[slice, ...], grid: tuple[tuple[int, ...], ...]) -> str:
    rows = f"rows {region[0].start} to {region[0].stop - 1}"
    if all(len(sizes) == 1 for sizes in grid[1:]):
        return rows
    rest = ", ".join(f"{r.start} to {r.stop - 1}" for r in region[1:])
    return f"{rows} (block at {rest} of the other dims)"


def changed(path: str, what: str) -> FileError:
    return FileError(
        f"cannot read {path!r}: {what} changed since it was saved (its digest does "
        "not match); the file is corrupted or was edited. Write it again."
    )


def verified_blocks(data: Any, blocks: Any, path: str, what: str) -> Any:
    """A dask array equal to ``data`` whose every block is checked against ``blocks`` as read.

    ``data`` is rechunked to the digest grid (:func:`digest_grid`), each block
    compared with its digest when computed, then rechunked back to the chunks
    asked for: an edited value or two swapped chunks raise :class:`FileError`
    naming the file, the variable and the block at the first compute that reads
    them.
    """
    import dask.array

    grid, sha = digest_grid(blocks, tuple(data.shape), path, what)
    wanted = data.chunks
    counts = tuple(len(sizes) for sizes in grid)
    regions = dict(grid_regions(grid))

    def check(block: np.ndarray, block_info: Any = None) -> np.ndarray:
        if block_info is not None and None in block_info:
            index = tuple(block_info[None]["chunk-location"])
            if block_digest(block) != sha[int(np.ravel_multi_index(index, counts))]:
                raise changed(path, f"{what}, {_where(regions[index], grid)}")
        return block

    checked = dask.array.map_blocks(check, data.rechunk(grid), dtype=data.dtype)
    return checked.rechunk(wanted)


def check_blocks_now(values: Any, blocks: Any, path: str, what: str) -> None:
    """Check in-memory ``values`` against their block digests (an eager open of a lazy save)."""
    array = np.asarray(values)
    if array.ndim == 0:
        raise changed(path, what + " (its shape)")
    grid, sha = digest_grid(blocks, array.shape, path, what)
    for number, (_, region) in enumerate(grid_regions(grid)):
        if block_digest(array[region]) != sha[number]:
            raise changed(path, f"{what}, {_where(region, grid)}")
