"""Which file format a path is: the :class:`FileFormat` table asked by suffix, name or content.

Every format spdgraph reads and writes (netCDF, Zarr, CSV tables, and any
third-party one) is a :class:`FileFormat` returned by a plugin's
``spdgraph_file_formats`` hook; the built-in ones are plugins registered
exactly as third-party ones are (``spdgraph.io._netcdf``, ``_zarr``,
``_csv``); the table itself and :class:`FileFormat` live in
:mod:`spdgraph.plugins.formats`, in the plugins' one cache. :func:`spdgraph.save`,
:func:`spdgraph.open`, the command line and ``spdgraph info`` find a format
through this table only:
:func:`format_for_writing` by the destination's suffix (or a format's name),
:func:`format_for_reading` by the content (magic bytes, a store's metadata
files, a folder's tables) and else by the suffix.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from spdgraph.errors import FileError
from spdgraph.plugins import cached_table
from spdgraph.plugins.formats import FileFormat, check_format

__all__ = [
    "FileFormat",
    "describe_formats",
    "file_formats",
    "format_for_reading",
    "format_for_writing",
]


def file_formats() -> dict[str, FileFormat]:
    """Every registered file format by name (built-in first, then plugins').

    Built through the ``spdgraph_file_formats`` hook by the plugins' one table
    builder and kept in their one cache (:func:`spdgraph.plugins.cached_table`)
    until a plugin is registered or unregistered.
    """
    table = cached_table("spdgraph_file_formats", FileFormat, check_format)
    return {name: fmt for name, (fmt, _) in table.items()}


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
