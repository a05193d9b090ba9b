"""File formats: one :class:`FileFormat` object per format, found through one hook.

Every format spdgraph reads and writes (netCDF, Zarr, CSV tables, and any
third-party one) is a :class:`FileFormat` returned by a plugin's
``spdgraph_file_formats`` hook; the built-in ones are plugins registered
exactly as third-party ones are (``spdgraph.io._netcdf``, ``_zarr``,
``_tables``). :func:`spdgraph.save`, :func:`spdgraph.open`, the command line
and ``spdgraph info`` find a format through this table only:
:func:`format_for_writing` by the destination's suffix (or a format's name),
:func:`format_for_reading` by the content (magic bytes, a store's metadata
files, a folder's tables) and else by the suffix.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xarray as xr

from spdgraph.errors import FileError, PluginError

if TYPE_CHECKING:  # pragma: no cover
    from spdgraph.plugins._manager import PluginTable

__all__ = ["FileFormat", "file_formats", "format_for_reading", "format_for_writing"]


def _never(path: Path) -> bool:
    return False


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class FileFormat:
    """A file format spdgraph arrays can be saved to and opened from.

    Return instances from the ``spdgraph_file_formats`` hook. The core does
    everything around the two functions (checks the destination, refuses
    labels and attrs that cannot be stored, writes under a temporary name and
    renames into place only once ``save`` has returned, removes the temporary
    on any error or interrupt, verifies the digests spdgraph stores in the
    attrs on open, refuses a file too large for memory before loading it).

    Parameters
    ----------
    name
        Short unique name (``"netcdf"``); ``--format NAME`` on the command line
        and ``spdgraph.save(..., format=NAME)``.
    suffixes
        Lower-case suffixes that select the format when saving (``(".nc",)``).
    save
        ``save(da, path)`` writes the DataArray completely to ``path``, a fresh
        temporary name the core chose (do not rely on its suffix); raise on any
        failure. ``da`` holds only storable labels and attrs (strings, numbers,
        1-D lists of them).
    open
        ``open(path)`` returns the DataArray stored at ``path`` (it may leave
        the values on disk, lazily indexed; the core loads or chunks them).
        Raise :class:`spdgraph.FileError` (or any ``OSError``/``ValueError``,
        which the core reports as one) when it cannot be read.
    recognises
        ``recognises(path)`` tells by content (magic bytes, metadata files),
        cheaply and without raising, whether ``path`` is a file of this format.
        Default: never (then only the suffix selects the format for reading).
    folder
        Whether the format writes a folder (Zarr, CSV stacks): an existing
        folder is replaced only when ``recognises`` says it is of this format.
    description
        Human name shown by ``spdgraph info`` (default: ``name``).
    save_delayed
        Optional ``save_delayed(da, path)`` returning a dask delayed write, for
        dask-backed arrays (computed chunk by chunk, with the command line's
        progress bar). Without it a lazy array is computed, then saved.
    requires
        Optional ``requires()`` raising :class:`spdgraph.MissingDependencyError`
        (naming the ``pip install``) when a library the format needs is
        missing; called before any work.
    header
        Optional ``header(path)`` reading only the file's header: ``{variable:
        (shape, itemsize)}``. The core's memory guard then refuses a file whose
        header claims more than memory holds before ``open`` reads anything
        (``open`` may already load index coordinates).

    Examples
    --------
    >>> import spdgraph
    >>> sorted(spdgraph.io.file_formats())
    ['csv', 'netcdf', 'zarr']
    >>> spdgraph.io.file_formats()["netcdf"].suffixes
    ('.nc', '.nc4')
    """

    name: str
    suffixes: tuple[str, ...]
    save: Callable[[xr.DataArray, Path], Any]
    open: Callable[[Path], xr.DataArray]
    recognises: Callable[[Path], bool] = _never
    folder: bool = False
    description: str = ""
    save_delayed: Callable[[xr.DataArray, Path], Any] | None = None
    requires: Callable[[], None] = _nothing
    header: Callable[[Path], Mapping[str, tuple[tuple[int, ...], int]]] | None = None

    @property
    def title(self) -> str:
        """``description`` or ``name``."""
        return self.description or self.name


#: (manager id, generation) -> format table
_cache: dict[tuple[int, int], PluginTable[FileFormat]] = {}


def _check(fmt: object, plugin: str, table: PluginTable[FileFormat]) -> FileFormat:
    if not isinstance(fmt, FileFormat):
        raise PluginError(
            f"plugin {plugin!r} returned {fmt!r} from spdgraph_file_formats, which is not a "
            "spdgraph.FileFormat."
        )
    if not fmt.name or not isinstance(fmt.suffixes, tuple | list):
        raise PluginError(f"plugin {plugin!r} returned a FileFormat without name or suffixes.")
    for other, owner in table.values():
        clash = set(fmt.suffixes) & set(other.suffixes)
        if other.name == fmt.name or clash:
            what = (
                f"name {fmt.name!r}" if other.name == fmt.name else f"suffix {sorted(clash)[0]!r}"
            )
            raise PluginError(
                f"file format {what} is registered twice: by plugin {owner!r} and by plugin "
                f"{plugin!r}; uninstall or disable one of them."
            )
    return fmt


def file_formats() -> dict[str, FileFormat]:
    """Every registered file format by name (built-in first, then plugins').

    Built through the ``spdgraph_file_formats`` hook and cached until a plugin
    is registered or unregistered.
    """
    from spdgraph.plugins import get_plugin_manager, plugin_table

    pm = get_plugin_manager()
    key = (id(pm), pm.generation)
    if key not in _cache:
        _cache.clear()
        _cache[key] = plugin_table(pm, "spdgraph_file_formats", FileFormat, _check)
    return {name: fmt for name, (fmt, _) in _cache[key].items()}


def describe_formats() -> str:
    """``netcdf (.nc, .nc4), zarr (.zarr), ...``: every registered format, for messages."""
    return ", ".join(
        f"{fmt.name} ({', '.join(fmt.suffixes)})" if fmt.suffixes else fmt.name
        for fmt in file_formats().values()
    )


def _by_name(name: str) -> FileFormat:
    table = file_formats()
    if name not in table:
        raise FileError(f"unknown file format {name!r}; registered formats: {describe_formats()}.")
    return table[name]


def _by_suffix(path: str | os.PathLike[str]) -> FileFormat | None:
    """The first registered format whose suffixes hold ``path``'s (lower-cased), else None."""
    suffix = Path(path).suffix.lower()
    for fmt in file_formats().values():
        if suffix and suffix in fmt.suffixes:
            return fmt
    return None


def format_for_writing(path: str | os.PathLike[str], format: str | None = None) -> FileFormat:
    """The format ``save`` writes ``path`` in: ``format`` by name, else from the suffix."""
    if format is not None:
        return _by_name(format)
    found = _by_suffix(path)
    if found is not None:
        return found
    suffix = Path(path).suffix.lower()
    raise FileError(
        f"cannot tell the file format of {os.fspath(path)!r} from its suffix "
        f"{suffix or '(none)'!r}; use one of the registered formats: {describe_formats()} "
        "(or pass format=NAME; --format NAME on the command line)."
    )


def _recognised_by(path: Path, formats: Sequence[FileFormat]) -> FileFormat | None:
    for fmt in formats:
        try:
            if fmt.recognises(path):
                return fmt
        except Exception:  # a recogniser must not take the open down
            continue
    return None


def format_for_reading(path: str | os.PathLike[str], format: str | None = None) -> FileFormat:
    """The format of the existing ``path``: by content first, else by suffix.

    Raises :class:`FileError` naming every registered format when none
    recognises the file.
    """
    if format is not None:
        return _by_name(format)
    target = Path(path)
    found = _recognised_by(target, list(file_formats().values()))
    if found is not None:
        return found
    found = _by_suffix(target)
    if found is not None:
        return found
    raise FileError(
        f"{os.fspath(path)!r} is not a file spdgraph can open: no registered format "
        f"recognises its content or suffix; the formats are {describe_formats()} (write one "
        "with spdgraph sample -o FILE; a graph file goes to spdgraph sample GRAPH instead)."
    )
