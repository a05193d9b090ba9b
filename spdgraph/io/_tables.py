"""CSV output: one matrix (or one data set) per CSV file, a folder of them for a stack.

The layout is what R's ``read.csv`` and benchpress expect: a header row with
the node labels, comma separated, no row names, numbers with 17 significant
digits (they read back bit for bit), missing values as ``NA``. A stack (a
leading ``sample`` dim) becomes a folder with ``sample_<k>.csv`` per matrix or
data set and, for matrices, ``adjacency.csv`` (the graph as a labelled 0/1
matrix). Files are written through spdgraph.io's one door (``_writer``: a
temporary renamed into place). The
CSV file format (the ``FileFormat`` object and its hook) is ``_csv``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from spdgraph.errors import FileError, InvalidOptionError
from spdgraph.io._writer import guarded_write, write_atomically

__all__ = ["read_tables", "save_csv", "write_csv", "write_table"]

_OURS = re.compile(r"^(sample_.+\.csv|adjacency(_.+)?\.csv|group_[^/]+)$")


def _labels(da: xr.DataArray) -> list[str]:
    if "node" in da.coords:
        return [str(x) for x in da["node"].values]
    return [str(i) for i in range(da.sizes["node"])]


def write_table(values: np.ndarray, labels: list[str], path: Path) -> None:
    """One table (a header row of ``labels``, a row per row of ``values``) to ``path``,
    through the one door to disk (a temporary renamed into place)."""
    write_atomically(path, lambda tmp: _write_rows(values, labels, tmp))


def _write_rows(values: np.ndarray, labels: list[str], path: Path) -> None:
    """The table's text to ``path`` as it is: a file inside a temporary the door made."""
    text_rows = [",".join(_quote(x) for x in labels)]
    if values.dtype == bool:
        text_rows += [",".join("1" if v else "0" for v in row) for row in values]
    else:
        text_rows += [
            ",".join("NA" if np.isnan(v) else repr(float(v)) for v in row) for row in values
        ]
    path.write_text("\n".join(text_rows) + "\n", encoding="utf-8")


def _quote(label: str) -> str:
    if any(ch in label for ch in ',"\n'):
        return '"' + label.replace('"', '""') + '"'
    return label


def _check_layout(da: xr.DataArray) -> bool:
    """True for a stack; refuse arrays that are neither a matrix nor data."""
    if (
        not isinstance(da, xr.DataArray)
        or "node" not in da.dims
        or da.dims[-1]
        not in (
            "node",
            "node_2",
        )
    ):
        raise InvalidOptionError(
            "save_csv needs an array spdgraph returned: a matrix (node, node_2), data "
            f"(obs, node), or a stack of either with a leading 'sample' dim; got {da!r:.80}."
        )
    if da.ndim == 3 and da.dims[0] == "sample":
        return True
    if da.ndim == 2:
        return False
    raise InvalidOptionError(f"save_csv cannot write dims {da.dims} as CSV tables.")


def save_csv(da: xr.DataArray, path: str | os.PathLike[str]) -> str:
    """Save a matrix or data set as a CSV file, or a stack as a folder of CSV files.

    Parameters
    ----------
    da
        What :func:`spdgraph.sample` or ``da.spd.draw`` returned (or
        :func:`spdgraph.open` read).
    path
        A ``.csv`` file for one matrix or data set; a folder (created; an
        existing folder must be empty or hold only files this function writes)
        for a stack or a ``group`` dim.

    Returns
    -------
    str
        The path written.

    Raises
    ------
    InvalidOptionError
        An array of another layout.
    FileError
        A missing parent folder, a stack to a ``.csv`` path, or a folder
        holding other files.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx, spdgraph
    >>> from spdgraph.io import save_csv
    >>> cov = spdgraph.sample(nx.path_graph(["a", "b", "c"]), seed=0)
    >>> folder = tempfile.mkdtemp()
    >>> path = save_csv(cov, os.path.join(folder, "cov.csv"))
    >>> from pathlib import Path
    >>> Path(path).read_text().splitlines()[0]
    'a,b,c'
    >>> stack = spdgraph.sample(nx.path_graph(3), size=2, seed=0)
    >>> sorted(os.listdir(save_csv(stack, os.path.join(folder, "stack"))))
    ['adjacency.csv', 'sample_0.csv', 'sample_1.csv']
    """
    target = Path(path)
    if not target.parent.is_dir():
        raise FileError(f"the folder {str(target.parent)!r} does not exist; create it first.")
    if isinstance(da, xr.DataArray) and da.ndim >= 3 and da.dims[0] == "group":
        return _save_folder(da, target, _write_groups)
    stacked = _check_layout(da)
    labels = _labels(da)
    values = np.asarray(da.values)
    if not stacked:
        if target.suffix.lower() != ".csv":
            raise FileError(f"a single table goes to a .csv file, got {os.fspath(path)!r}.")
        write_table(values, labels, target)
        return os.fspath(path)
    return _save_folder(da, target, _write_stack)


def _write_stack(da: xr.DataArray, folder: Path) -> None:
    labels = _labels(da)
    values = np.asarray(da.values)
    raw = da["sample"].values if "sample" in da.coords else range(da.sizes["sample"])
    samples = _file_parts(raw)
    for k, name in enumerate(samples):
        _write_rows(values[k], labels, folder / f"sample_{name}.csv")
    if da.dims[-1] == "node_2" and "adjacency" in da.coords:
        adjacency = np.asarray(da["adjacency"].values, dtype=bool)
        _write_rows(adjacency, labels, folder / "adjacency.csv")


#: A file-name part made from a label: letters, digits, ``-``, ``_``, ``.``, ``+``.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
_RESERVED = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{i}" for i in range(10)),
    *(f"LPT{i}" for i in range(10)),
}


def file_part(label: object, position: int) -> str:
    """A safe file-name part for a label (a group, a sample): never a path out of the folder.

    A label made of letters, digits and ``-_.+`` (at most 64, not only dots, not a
    reserved device name) is kept; any other (``..``, ``/``, absolute paths, NUL,
    very long or reserved names) becomes its position.

    >>> file_part("a", 0), file_part("a/../../x", 1), file_part("..", 2), file_part(3, 3)
    ('a', '1', '2', '3')
    """
    text = str(label.item() if isinstance(label, np.generic) else label)
    safe = (
        _SAFE_NAME.fullmatch(text) is not None
        and text.strip(".") != ""
        and text.split(".")[0].upper() not in _RESERVED
    )
    return text if safe else str(position)


def _file_parts(labels: Any) -> list[str]:
    """Safe, distinct file-name parts for a coordinate's labels (positions if they clash)."""
    parts = [file_part(name, k) for k, name in enumerate(labels)]
    return parts if len(set(parts)) == len(parts) else [str(k) for k in range(len(parts))]


def _write_groups(da: xr.DataArray, folder: Path) -> None:
    raw = da["group"].values if "group" in da.coords else range(da.sizes["group"])
    groups = _file_parts(raw)
    for k, name in enumerate(groups):
        part = da.isel(group=k)
        if part.ndim == 2:
            save_csv(part, folder / f"group_{name}.csv")
            if part.dims[-1] == "node_2" and "adjacency" in part.coords:
                adjacency = np.asarray(part["adjacency"].values, dtype=bool)
                _write_rows(adjacency, _labels(part), folder / f"adjacency_{name}.csv")
        else:
            save_csv(part, folder / f"group_{name}")


def _save_folder(da: xr.DataArray, target: Path, write: Any) -> str:
    """Write a folder of CSV files under a temporary name, then rename it into place."""
    if target.suffix.lower() == ".csv":
        raise FileError(
            f"a stack of tables goes to a folder, not to the file {os.fspath(target)!r}; "
            "pass a folder name (without .csv)."
        )
    if target.exists():
        if not target.is_dir() or any(not _OURS.match(f.name) for f in target.iterdir()):
            raise FileError(
                f"{os.fspath(target)!r} exists and holds other files; choose a new folder name."
            )

    def fill(tmp: Path, abandoned: Any) -> None:
        tmp.mkdir()
        write(da, tmp)

    guarded_write(target, fill)  # the one door: temporary, rename, named errors
    return os.fspath(target)


def read_tables(path: str | os.PathLike[str]) -> xr.DataArray:
    """Matrices written by :func:`save_csv` back as a DataArray (``spdgraph info`` on CSV).

    A ``.csv`` file is one matrix; a folder holds ``sample_<k>.csv`` tables (a
    stack) and ``adjacency.csv``. Labels come from the header row; the graph from
    ``adjacency.csv`` (else from the non-zero pattern). CSV keeps no provenance:
    ``attrs`` only say where the values came from.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx, spdgraph
    >>> from spdgraph.io import read_tables, save_csv
    >>> stack = spdgraph.sample(nx.path_graph(["a", "b", "c"]), size=2, seed=0)
    >>> back = read_tables(save_csv(stack, os.path.join(tempfile.mkdtemp(), "stack")))
    >>> back.dims, bool((back.values == stack.values).all())
    (('sample', 'node', 'node_2'), True)
    """
    import pandas as pd

    target = Path(path)
    if not target.exists():
        raise FileError(f"cannot read {os.fspath(path)!r}: no such file or directory.")
    files = (
        [target]
        if target.is_file()
        else sorted(
            target.glob("sample_*.csv"), key=lambda f: _label_order(f.stem[len("sample_") :])
        )
    )
    if not files and target.is_dir() and any(target.glob("group_*")):
        return _read_groups(target)
    if not files:
        raise FileError(
            f"{os.fspath(path)!r} holds no sample_<k>.csv tables; it is not a folder "
            "spdgraph's --format csv wrote."
        )
    try:
        frames = [pd.read_csv(f, header=0, na_values=["NA"]) for f in files]
        labels = [_parse_label(c) for c in frames[0].columns]
        values = np.stack([frame.to_numpy(dtype=np.float64) for frame in frames])
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise FileError(
            f"cannot read the CSV tables of {os.fspath(path)!r} ({exc}); they must be "
            "numeric tables of one shape with a header row, as spdgraph writes them."
        ) from exc
    if values.shape[1] != len(labels) or len(set(labels)) != len(labels):
        return _data_tables(values, labels, target, files)
    adjacency_file = target / "adjacency.csv" if target.is_dir() else None
    if adjacency_file is not None and adjacency_file.exists():
        adjacency = pd.read_csv(adjacency_file, header=0).to_numpy() != 0
    else:
        adjacency = np.any(values != 0, axis=0)
    np.fill_diagonal(adjacency, False)
    coords = {"node": labels, "node_2": labels, "adjacency": (("node", "node_2"), adjacency)}
    attrs = {"kind": "covariance", "source": f"CSV tables {os.fspath(path)!r} (no provenance)"}
    if target.is_file():
        return xr.DataArray(values[0], dims=("node", "node_2"), coords=coords, attrs=attrs)
    samples = [_sample_key(f.stem[len("sample_") :]) for f in files]
    coords["sample"] = samples
    return xr.DataArray(values, dims=("sample", "node", "node_2"), coords=coords, attrs=attrs)


def _read_groups(folder: Path) -> xr.DataArray:
    """A folder of ``group_<g>`` tables or sub-folders (related graphs) along ``group``."""
    parts = sorted(
        folder.glob("group_*"), key=lambda f: _label_order(f.name[6:].removesuffix(".csv"))
    )
    arrays = []
    for part in parts:
        da = read_tables(part)
        name = part.name[len("group_") :].removesuffix(".csv")
        graph = folder / f"adjacency_{name}.csv"
        if graph.exists() and "adjacency" in da.coords:
            import pandas as pd

            adjacency = pd.read_csv(graph, header=0).to_numpy() != 0
            da = da.assign_coords(adjacency=(("node", "node_2"), adjacency))
        arrays.append(da.expand_dims(group=[_sample_key(name)]))
    return xr.concat(arrays, dim="group", join="outer", coords="different", compat="equals")


def _data_tables(values: np.ndarray, labels: list[Any], target: Path, files: list[Path]) -> Any:
    """Tables that are not square matrices: data sets (``obs`` x ``node``)."""
    if len(set(labels)) != len(labels):
        raise FileError(f"{os.fspath(files[0])!r} has repeated column labels.")
    attrs = {"source": f"CSV tables {os.fspath(target)!r} (no provenance)"}
    coords: dict[str, Any] = {"node": labels}
    if target.is_file():
        return xr.DataArray(values[0], dims=("obs", "node"), coords=coords, attrs=attrs)
    coords["sample"] = [_sample_key(f.stem[len("sample_") :]) for f in files]
    return xr.DataArray(values, dims=("sample", "obs", "node"), coords=coords, attrs=attrs)


def _sample_key(text: str) -> Any:
    """A file-name label read back: an integer only where it is that integer's own spelling
    (``"7"``, ``"-3"``), so that ``"007"``, ``"+4"`` and ``"00"`` stay the labels they were
    and two file names never read back as one label."""
    return _integer_or_text(text)


def _integer_or_text(text: str) -> Any:
    if re.fullmatch(r"-?\d+", text):
        value = int(text)
        if str(value) == text:
            return value
    return text


def _label_order(text: str) -> tuple[int, int, str]:
    """A total order of file-name labels: integers by value first, then the others by text.

    Labels of mixed types (``1`` next to ``"a"``, where an unsafe label was
    written as its position) cannot be compared with ``<``.
    """
    key = _sample_key(text)
    return (0, key, "") if isinstance(key, int) else (1, 0, key)


def _parse_label(text: object) -> Any:
    return _integer_or_text(str(text))


def write_csv(da: xr.DataArray, path: Path) -> None:
    """``save`` of the CSV format: one table to the file ``path``, a stack to the folder."""
    if da.ndim >= 3 and da.dims[0] == "group":
        path.mkdir()
        _write_groups(da, path)
    elif _check_layout(da):
        path.mkdir()
        _write_stack(da, path)
    else:
        _write_rows(np.asarray(da.values), _labels(da), path)  # the core's temporary
