"""File formats: one :class:`FileFormat` per format, from one hook (``spdgraph.FileFormat``).

A :class:`FileFormat` teaches spdgraph one file format: how to write an array
(and, optionally, a simulation's Dataset) to a path and read it back, how to
recognise a file of it, and what it holds (arrays, Datasets, sparse
variables): the core asks the record, never a format's name. Plugins return
them from the ``spdgraph_file_formats`` hook; the built-in netCDF, Zarr and
CSV formats (``spdgraph.io._netcdf``, ``_zarr``, ``_csv``) are registered
exactly as third-party ones. The record stands here, below :mod:`spdgraph.io`
and beside the generators' and the graph backends'; its table
(:func:`spdgraph.io.file_formats`) is built by the plugins' one table builder
and kept in their one cache, and :mod:`spdgraph.io` finds a
format in it (by suffix, name or content) and does every write through its one
atomic writer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spdgraph.errors import PluginError

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

__all__ = ["FileFormat", "check_format"]


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
    save_dataset
        Optional ``save_dataset(ds, path)`` writing a whole
        :class:`xarray.Dataset` (what :func:`spdgraph.simulate` returns, a
        study's results table) completely to ``path``, a fresh temporary name
        as for ``save``. Without it the format holds single arrays only, and
        ``simulate`` and a study refuse it by name.
    set_attrs
        Optional ``set_attrs(path, name, attrs)`` adding string ``attrs`` to
        the variable ``name`` (the array's name, or xarray's
        ``__xarray_dataarray_variable__``) of the file ``path`` that
        ``save_delayed`` wrote (still the temporary). The core uses it to
        store the digests of a lazily written array's values, computed from
        the written file block by block; without it such an array is stored
        with digests of its labels and attrs only. ``name`` None: the file's
        own attrs (a Dataset's digests).
    holds_sparse
        Whether ``save``, ``save_dataset`` and the opens keep a PyData
        ``sparse`` array (``sample(..., sparse=True)``, a ``simulate(...,
        sparse=True)`` Dataset) sparse, e.g. as coordinate triplets (netCDF and
        Zarr do). Without it a sparse array or Dataset is refused by name
        before anything is written, never densified on the way.
    keeps_digests
        Whether the attrs a Dataset is saved with come back as written, so the
        digests spdgraph stamps on a simulation are kept and verified on open
        (default). CSV folders keep their attrs as text: ``False``.
    variables
        Optional ``variables(path)``: the names of the variables (and
        coordinates) stored at ``path``, from its header or listing only,
        cheaply and without raising (as xarray's ``guess_can_open``). Tells a
        simulation from a single array: ``spdgraph.open``, ``info``, ``draw``
        and ``score`` then read it with ``open_dataset``.
    open_dataset
        Optional ``open_dataset(path, chunks)``: the whole Dataset
        ``save_dataset`` wrote (as xarray's ``BackendEntrypoint.open_dataset``);
        ``chunks`` is None (load it and close the file) or a dict of dim sizes
        (leave it on disk as dask arrays; dims the Dataset lacks are ignored).
        Sparse variables come back as their triplets; the core rebuilds and
        verifies them.
    save_layout
        Optional ``save_layout(obj, path)`` (a DataArray or a Dataset): write
        what ``save``/``save_dataset`` would, except the values of its
        dask-backed variables, which the core then writes block by block with
        ``write_region`` (the file's chunks are the dask chunks). With
        ``write_region`` and ``read_region`` it makes the format write
        dask-backed arrays block by block, each worker its own region, with a
        digest per block, and resumable (``spdgraph.save(..., resume=True)``).
    write_region
        Optional ``write_region(path, name, region, block)``: write the numpy
        ``block`` at ``region`` (a tuple of slices, one dask block) of the
        variable ``name`` of the store ``save_layout`` made; called on the
        workers, concurrently for different blocks.
    read_region
        Optional ``read_region(path, name, region)``: the values at ``region``
        of the variable ``name`` as a numpy array (a resumed save checks the
        blocks already written against their digests with it).

    Examples
    --------
    >>> import spdgraph
    >>> sorted(spdgraph.io.file_formats())
    ['csv', 'netcdf', 'zarr']
    >>> spdgraph.io.file_formats()["netcdf"].suffixes
    ('.nc', '.nc4')
    >>> [(f.name, f.holds_datasets, f.holds_sparse) for f in spdgraph.io.file_formats().values()]
    [('netcdf', True, True), ('zarr', True, True), ('csv', True, False)]
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
    save_dataset: Callable[[xr.Dataset, Path], Any] | None = None
    set_attrs: Callable[[Path, str | None, Mapping[str, str]], None] | None = None
    holds_sparse: bool = False
    keeps_digests: bool = True
    variables: Callable[[Path], Collection[str]] | None = None
    open_dataset: Callable[[Path, Mapping[str, int] | None], xr.Dataset] | None = None
    save_layout: Callable[[Any, Path], Any] | None = None
    write_region: Callable[[Path, str, tuple[slice, ...], Any], None] | None = None
    read_region: Callable[[Path, str, tuple[slice, ...]], Any] | None = None

    @property
    def writes_blocks(self) -> bool:
        """Whether dask-backed values are written block by block (and can be resumed)."""
        return None not in (self.save_layout, self.write_region, self.read_region)

    @property
    def title(self) -> str:
        """``description`` or ``name``."""
        return self.description or self.name

    @property
    def holds_datasets(self) -> bool:
        """Whether a whole Dataset is written (``save_dataset``) and read back."""
        return self.save_dataset is not None

    def stored_variables(self, path: Path) -> frozenset[str]:
        """``variables(path)`` as a set; empty when the format cannot tell or it fails."""
        if self.variables is None:
            return frozenset()
        try:
            return frozenset(map(str, self.variables(path)))
        except Exception:  # a listing must not take the open down: the reader then says
            return frozenset()


def check_format(
    fmt: object, plugin: str, table: Mapping[str, tuple[FileFormat, str]]
) -> FileFormat:
    """``fmt`` as the file-format table keeps it, or a PluginError naming ``plugin``.

    The check :func:`spdgraph.io.file_formats` gives the plugins' table builder:
    a :class:`FileFormat` with a name and suffixes, neither taken by another plugin.
    """
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
