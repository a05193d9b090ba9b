"""The one door to disk: every file spdgraph writes goes through :func:`write_atomically`.

Arrays (``spdgraph.save``, the command line's ``-o``), a simulation's Dataset
(``spdgraph.simulate(..., path)``, ``spdgraph simulate -o``), a study's cells,
tables and results, graph files (``spdgraph graph``) and plugins' outputs are all
written here, so each gets the same checks before any work (:func:`check_writable`:
the format from the :class:`~spdgraph.FileFormat` table, the folder, the name's
length, the ``overwrite`` refusal), the same protocol (a hidden temporary beside
the destination, renamed into place only once complete; an error, Ctrl-C or
SIGTERM leaves nothing behind and an existing file untouched) and the same
messages (:func:`~spdgraph.io._paths.write_error`: the path and the cause).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spdgraph.errors import FileError, SpdgraphError
from spdgraph.io._atomic import (
    WRITING,
    remove,
    replace,
    run_guarded,
    settle,
    sweep_stale,
    temporary_name,
)
from spdgraph.io._format import FileFormat, describe_formats, file_formats, format_for_writing
from spdgraph.io._paths import as_path, check_target, write_error

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

__all__ = [
    "atomic_path",
    "check_dataset_format",
    "check_sparse_format",
    "check_writable",
    "guarded_write",
    "save_dataset",
    "save_figure",
    "write_atomically",
]


def check_writable(
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    format: str | None = None,
) -> FileFormat:
    """Check, before any heavy work, that ``save`` can write ``path``; return its format.

    The format is ``format`` (a registered name) or the one whose suffix ``path``
    has. Raises :class:`FileError` (unknown suffix, missing folder, a destination
    that must not be replaced) or :class:`MissingDependencyError`.
    """
    target = as_path(path)
    fmt = format_for_writing(target, format)
    check_target(target, fmt, overwrite)
    fmt.requires()
    return fmt


def guarded_write(
    target: Path,
    write: Callable[[Path, threading.Event], Any],
    *,
    keep: Callable[[], bool] | None = None,
    resume: bool = False,
) -> Path:
    """Run ``write(tmp, abandoned)`` on a fresh temporary, then rename it onto ``target``.

    The protocol after the checks: temporaries of dead processes swept, the
    write run so that an interrupt is handled at once (``abandoned`` is set
    for a long write to stop), the temporary removed on any failure, an
    ``OSError`` (full disk, read-only file system...) named with the path.
    A block-wise save passes ``keep``: while it says so, a failure keeps the
    temporary (resumable, named in the error) instead; ``resume`` keeps the
    interrupted temporaries of ``target`` for it to take over (else they are
    swept: the save starts over).
    """
    sweep_stale(target.parent, replacing=None if resume else target.name)
    tmp = temporary_name(target)

    def discard() -> None:
        if keep is not None and keep():
            return
        for _ in range(5):  # writes of a folder format still in flight may recreate it
            settle(tmp)
            remove(tmp)
            if not (tmp.exists() or tmp.is_symlink()):
                break

    WRITING.add(tmp)
    try:
        run_guarded(lambda abandoned: write(tmp, abandoned), tmp, keep)
        replace(tmp, target)
    except (SpdgraphError, KeyboardInterrupt) as exc:
        discard()
        _note(exc, tmp, keep)
        raise
    except (OSError, RuntimeError) as exc:
        discard()
        error = write_error(target, exc)
        if error is None:
            _note(exc, tmp, keep)
            raise
        _note(error, tmp, keep)
        raise error from exc
    except BaseException as exc:
        discard()
        _note(exc, tmp, keep)
        raise
    finally:
        WRITING.discard(tmp)
    return target


def _note(exc: BaseException, tmp: Path, keep: Callable[[], bool] | None) -> None:
    """Add to ``exc`` a note naming the kept temporary of an interrupted block-wise save."""
    if keep is not None and keep() and tmp.exists():
        exc.add_note(
            f"spdgraph kept the blocks written so far in {os.fspath(tmp)!r}: run the same "
            "save again with resume=True (--resume) to write only the missing ones, or "
            "without it to start over."
        )


def write_atomically(
    path: str | os.PathLike[str],
    write: Callable[[Path], Any],
    *,
    overwrite: bool = True,
) -> Path:
    """Write one file (or folder) through ``write(tmp)``: all of it or nothing.

    The door for what is no array: a study's cells and tables, a graph file,
    a plugin's figures. ``write`` fills the temporary path it is given (a
    file, or a folder it creates); only when it returns is the result renamed
    onto ``path``. The destination is checked first (its folder exists and
    may be written, the name fits; an existing ``path`` is refused unless
    ``overwrite``).

    Examples
    --------
    >>> import os, tempfile
    >>> from spdgraph.io import write_atomically
    >>> target = os.path.join(tempfile.mkdtemp(), "table.csv")
    >>> _ = write_atomically(target, lambda tmp: tmp.write_text("a,b\\n1,2\\n"))
    >>> open(target).read().splitlines()
    ['a,b', '1,2']
    """
    target = as_path(path)
    check_target(target, None, overwrite)
    return guarded_write(target, lambda tmp, abandoned: write(tmp))


def save_figure(
    fig: Any, path: str | os.PathLike[str], *, overwrite: bool = True, **options: Any
) -> Path:
    """Save a matplotlib figure through the door: the destination checked, written whole.

    The format is the suffix of ``path`` (``.png``, ``.pdf``, ``.svg``...), given
    to ``fig.savefig`` explicitly since the temporary's name is not the
    destination's; ``options`` go to ``savefig`` (``dpi``, ``bbox_inches``).

    Examples
    --------
    >>> import os, tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from spdgraph.io import save_figure
    >>> fig, ax = plt.subplots()
    >>> target = save_figure(fig, os.path.join(tempfile.mkdtemp(), "fig.png"))
    >>> target.read_bytes()[:4]
    b'\x89PNG'
    >>> plt.close(fig)
    """
    target = as_path(path)
    kind = target.suffix.lower().lstrip(".") or None
    if kind is None:
        raise FileError(
            f"cannot tell the picture format of {os.fspath(path)!r}: name it .png, .pdf or .svg."
        )

    def write(tmp: Path) -> None:
        with tmp.open("wb") as out:
            fig.savefig(out, format=kind, **options)

    return write_atomically(target, write, overwrite=overwrite)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """The door as a context manager: yield a temporary sibling, renamed onto ``path`` at the end.

    The destination is checked first as :func:`write_atomically` checks it;
    the block writes the file (or folder) at the yielded path; when it ends
    without error the result replaces ``path`` in one step, otherwise it is
    removed and ``path`` is left as it was. (:func:`write_atomically` also
    handles Ctrl-C at once during a long write: prefer it.)

    Examples
    --------
    >>> import os, tempfile
    >>> from spdgraph.io import atomic_path
    >>> target = os.path.join(tempfile.mkdtemp(), "table.csv")
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("a,b\\n1,2\\n")
    >>> open(target).read().splitlines()
    ['a,b', '1,2']
    """
    target = as_path(path)
    check_target(target, None, True)
    sweep_stale(target.parent)
    tmp = temporary_name(target)
    try:
        yield tmp
        replace(tmp, target)
    except OSError as exc:
        error = write_error(target, exc)
        if error is None:
            raise
        raise error from exc
    finally:
        if tmp.exists() or tmp.is_symlink():
            remove(tmp)


def save_dataset(
    ds: xr.Dataset,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    format: str | None = None,
    resume: bool = False,
) -> Path:
    """Save a whole Dataset in a registered format that holds Datasets, atomically.

    The door of :func:`spdgraph.simulate` and of a study's results: the format
    is ``format`` (a registered name) or the one of ``path``'s suffix, and must
    have ``save_dataset`` (netCDF, Zarr and CSV folders have it; a format
    registered at run time may). Raises :class:`FileError` naming the formats
    that can hold a Dataset otherwise. Dask-backed variables (``data`` drawn
    with ``chunks=``) are written block by block by the workers in a format
    that writes blocks (Zarr), each block digested, and ``resume=True``
    finishes an interrupted save of the same content (see :func:`spdgraph.save`).
    """
    from spdgraph.io._blocks import (
        block_plan,
        check_resumable,
        digest_written,
        largest_block,
        write_blocks,
    )
    from spdgraph.io._save_memory import check_save_memory

    target = as_path(path)
    fmt = check_dataset_format(target, format)
    check_resumable(fmt, resume)
    _check_sparse_format(ds, fmt)
    check_target(target, fmt, overwrite)
    fmt.requires()
    if (block := largest_block(ds)) is not None:
        check_save_memory(ds.nbytes, fmt.name, target, block=block)
    writer = fmt.save_dataset
    assert writer is not None  # checked
    plan = block_plan(fmt, ds)
    if plan is None:

        def write_whole(tmp: Path, abandoned: threading.Event) -> None:
            writer(ds, tmp)
            if block is not None and not abandoned.is_set():  # lazy values: digests read back
                digest_written(fmt, tmp, ds)

        return guarded_write(target, write_whole, resume=resume)

    def write(tmp: Path, abandoned: threading.Event) -> None:
        write_blocks(plan, target, tmp, abandoned, resume=resume)

    return guarded_write(target, write, keep=plan.keep, resume=resume)


def _check_sparse_format(ds: xr.Dataset, fmt: FileFormat) -> None:
    """Sparse variables only in a format that holds them (``FileFormat.holds_sparse``)."""
    from spdgraph.io._sparse_datasets import has_sparse_variables

    if has_sparse_variables(ds):
        check_sparse_format(fmt, "this Dataset holds sparse variables")


def check_sparse_format(fmt: FileFormat, what: str) -> FileFormat:
    """``fmt`` when it holds sparse arrays, else a FileError saying ``what`` and naming the
    formats that do; before any work, so nothing is densified or half-written."""
    if not fmt.holds_sparse:
        formats = file_formats().values()
        names = [f"{f.name} ({', '.join(f.suffixes)})" for f in formats if f.holds_sparse]
        raise FileError(
            f"{what}, which the {fmt.title} format cannot store without densifying; save it "
            f"in a format that keeps it sparse: {', '.join(names) or 'none is registered'}."
        )
    return fmt


def check_dataset_format(path: str | os.PathLike[str], format: str | None = None) -> FileFormat:
    """The registered format a Dataset is written to at ``path``, refused unless it holds one.

    ``format`` (a name) or the format of ``path``'s suffix; a
    :class:`FileError` naming the formats that hold Datasets when it holds
    single arrays only. Cheap: call it before the work whose result it writes.
    """
    fmt = format_for_writing(path, format)
    if fmt.save_dataset is None:
        raise FileError(
            f"the {fmt.title} format holds single arrays, not a Dataset such as "
            f"{os.fspath(path)!r} would be; use a format that holds Datasets: "
            f"{dataset_formats()}."
        )
    return fmt


def dataset_formats() -> str:
    """The registered formats that hold a Dataset, for messages."""
    names = [
        f"{f.name} ({', '.join(f.suffixes)})" for f in file_formats().values() if f.save_dataset
    ]
    return ", ".join(names) or f"none of {describe_formats()}"
