"""A built-in file format's record and hook, from its module's functions.

The built-in formats (``_netcdf``, ``_zarr``, ``_csv``) are plugins: each module
defines the functions of a :class:`~spdgraph.plugins.formats.FileFormat` under
the names of its fields and ends with
``FORMAT, spdgraph_file_formats = offered_format(name, globals(), ...)``, as the
built-in graph backends end with ``offered_backend``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from spdgraph.plugins.formats import FileFormat
from spdgraph.plugins.hookspecs import offering

__all__ = ["offered_format"]

#: The function fields of :class:`FileFormat` a format module defines under their names.
FUNCTION_FIELDS = (
    "save",
    "open",
    "recognises",
    "save_delayed",
    "requires",
    "header",
    "save_dataset",
    "set_attrs",
    "variables",
    "open_dataset",
    "save_layout",
    "write_region",
    "read_region",
)


def offered_format(
    name: str, namespace: Mapping[str, Any], **record: Any
) -> tuple[FileFormat, Callable[[], list[FileFormat]]]:
    """``(record, hook)`` of a built-in format module, from its ``globals()``.

    The module's functions named as the :class:`FileFormat` function fields
    (:data:`FUNCTION_FIELDS`, those it defines) and ``record`` (the suffixes,
    the description, the capabilities, a function defined under another name)
    make the record; the hook offers it
    (:func:`spdgraph.plugins.hookspecs.offering`).

    Examples
    --------
    >>> from pathlib import Path
    >>> def save(da, path): ...
    >>> def open(path): ...
    >>> fmt, hook = offered_format("toy", {"save": save, "open": open}, suffixes=(".toy",))
    >>> fmt.open is open, hook() == [fmt]
    (True, True)
    """
    functions = {key: namespace[key] for key in FUNCTION_FIELDS if key in namespace}
    fmt = FileFormat(name=name, **{**functions, **record})
    return fmt, offering(fmt)
