"""Where a file may go: paths checked before any work, write failures named.

:func:`as_path` turns what the user passed into a path (a :class:`FileError` for
an int, a NUL byte, an empty string); :func:`check_target` refuses a destination
before any work (missing or read-only folder, a name too long for the file system
once the temporary's suffix is added, an existing file of another format);
:func:`write_error` names the path and the cause (no space left, read-only file
system, permission denied, name too long) of a write that failed.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from spdgraph._machine import as_path
from spdgraph.errors import FileError
from spdgraph.io._atomic import temporary_name
from spdgraph.plugins.formats import FileFormat

__all__ = ["as_path", "check_target", "write_error"]


#: What to do about the usual causes of a failed write, by errno.
ADVICE = {
    errno.ENOSPC: "no space left on the device; free some space or write elsewhere",
    errno.EDQUOT: "the disk quota is exceeded; free some space or write elsewhere",
    errno.EROFS: "the file system is read-only; write elsewhere",
    errno.EACCES: "permission denied; write to a folder you may write to",
    errno.EPERM: "operation not permitted; write to a folder you may write to",
    errno.ENAMETOOLONG: "the file name is too long for the file system; choose a shorter one",
    errno.EFBIG: "the file is too large for the file system; write elsewhere",
    errno.EIO: "an input/output error of the device",
}


def _cause(exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    if code in ADVICE:
        return ADVICE[code]
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, RuntimeError):
        return (
            f"the storage library failed ({exc}); a full disk or a read-only file system is "
            "the usual cause"
        )
    return f"{type(exc).__name__}: {exc}"


def write_error(path: Path, exc: BaseException) -> FileError | None:
    """The :class:`FileError` for a failed write: the path and the cause; None if not a file error.

    ``OSError`` (disk full, read-only, permission, name too long...) and the storage
    libraries' own ``RuntimeError`` (netCDF4's "NetCDF: HDF error" on a full disk)
    become a FileError; any other error (a failing computation of a lazy array) is
    left as it is.
    """
    if isinstance(exc, RuntimeError) and not any(
        word in str(exc) for word in ("NetCDF", "HDF", "Errno", "errno")
    ):
        return None
    return FileError(
        f"cannot write {os.fspath(path)!r}: {_cause(exc)}. Nothing was written (an existing "
        "file of that name is untouched, no temporary is left)."
    )


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _check_folder(path: Path) -> None:
    parent = path.parent
    if not parent.is_dir():
        raise FileError(
            f"cannot write {os.fspath(path)!r}: folder {os.fspath(parent)!r} does not exist."
        )
    longest = max(len(os.fsencode(path.name)), len(os.fsencode(temporary_name(path).name)))
    if longest > _name_max(parent):
        raise FileError(
            f"cannot write {os.fspath(path)!r}: {ADVICE[errno.ENAMETOOLONG]} (spdgraph writes "
            f"a temporary named .<name>.<pid>-<32 hex>.tmp first: at most {_name_max(parent)} "
            "bytes in all)."
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        code = errno.EROFS if _read_only(parent) else errno.EACCES
        raise FileError(f"cannot write {os.fspath(path)!r}: {ADVICE[code]}.")


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def check_target(path: Path, fmt: FileFormat | None, overwrite: bool) -> None:
    """Refuse, before any work, a destination ``save`` cannot or must not write.

    ``fmt`` None: a plain file (a table, a cell, a figure) that replaces only a file.
    """
    try:
        _check_folder(path)
        exists = path.exists() or path.is_symlink()
    except OSError as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(f"cannot write {os.fspath(path)!r}: {_cause(exc)}.") from exc
    if not exists:
        return
    if not overwrite:
        raise FileError(f"{os.fspath(path)!r} exists; pass overwrite=True to replace it.")
    if fmt is not None and fmt.recognises(path):
        return
    if (fmt is None or not fmt.folder) and path.is_dir():
        raise FileError(f"{os.fspath(path)!r} is a directory; it will not be replaced by a file.")
    if fmt is not None and fmt.folder:
        raise FileError(
            f"{os.fspath(path)!r} exists and is not a {fmt.title} store; it will not be replaced."
        )
