"""``spdgraph info``: summarise a saved file, with diagnostics.

Per-matrix diagnostics (link strength, smallest eigenvalue, condition number,
largest non-edge entry) are summarised as min / median / max over the stack,
and the check is spdgraph's one check of "SPD, exactly symmetric, exactly this
zero pattern" (:func:`spdgraph.checks.find_violation`). The file's format is
recognised by its content (netCDF/HDF5 magic bytes, a Zarr store's metadata, CSV
tables, or any registered format's ``recognises``), through the format table of
:mod:`spdgraph.io`.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from spdgraph.cli._options import _add_verify_option, _verify
from spdgraph.errors import FileError

if TYPE_CHECKING:
    import numpy as np

    from spdgraph.checks import Violation

#: Matrices read from the file at a time.
BLOCK = 256

#: Attribute arrays longer than this are summarised, not printed whole.
LONG_ATTR = 6

_PROBLEMS = {
    "nonfinite": "non-finite entries",
    "asymmetric": "matrices not exactly symmetric",
    "nonzero": "non-zero entries on non-edges",
    "not_pd": "matrices that are not positive definite",
}


#: Text attrs longer than this (e.g. one marginal per node) are cut in the header.
LONG_TEXT = 120


def _format_labels(labels: Sequence[Any], limit: int = 6) -> str:
    shown = [str(x) for x in labels[:limit]]
    if len(labels) > limit:
        shown[-1:] = ["...", str(labels[-1])]
    return ", ".join(shown)


def _spread(values: np.ndarray) -> str:
    """``v`` for one value, else ``min a, median b, max c``."""
    import numpy as np

    from spdgraph.checks import plain

    if values.size == 1:
        return f"{plain(values[0]):.4g}"
    return f"min {np.min(values):.4g}, median {np.median(values):.4g}, max {np.max(values):.4g}"


def _format_attr(value: object) -> object:
    """Long numeric per-matrix attrs as their count and spread, the rest as they are."""
    import numpy as np

    if isinstance(value, list | tuple | np.ndarray) and len(value) > LONG_ATTR:
        array = np.asarray(value)
        if array.ndim == 1 and array.dtype.kind in "iuf":
            return f"{array.size} values: {_spread(array.astype(np.float64))}"
    if isinstance(value, str) and len(value) > LONG_TEXT:
        return f"{value[: LONG_TEXT - 20]} ... ({len(value)} characters)"
    return value


def _cmd_info(args: argparse.Namespace) -> int:
    from spdgraph import io

    path = io.as_path(args.input)
    if not (path.exists() or path.is_symlink()):
        raise FileError(f"cannot open {args.input!r}: no such file or directory.")
    if io.simulation_file(path):
        return _simulation_info(path, args)
    fmt = io.format_for_reading(path)
    da = io.read_array(path, load=False, format=fmt.name, verify=_verify(args))
    try:
        status = _print_info(da, args, fmt)
        if args.plot is not None:
            save_picture(da, args.plot)
        return status
    finally:
        da.close()


def _simulation_info(path: Any, args: argparse.Namespace) -> int:
    """A file ``spdgraph simulate`` wrote: its variables and attrs, then the true matrix."""
    from types import SimpleNamespace

    from spdgraph.io import open_simulation, simulation_truth

    ds = open_simulation(path)
    width = max([len(str(k)) + 2 for k in ds.attrs] + [12])
    print(f"{'file:':<{width}}{args.input} (spdgraph simulation)")
    for name in ds.data_vars:
        dims = ", ".join(f"{d}: {ds.sizes[d]}" for d in ds[name].dims)
        print(f"{'variable:':<{width}}{name} ({dims})")
    for key, value in ds.attrs.items():
        print(f"{key + ':':<{width}}{_format_attr(value)}")
    truth = simulation_truth(ds)
    print(f"\nthe true matrix ({truth.name}: its zeros are the graph)")
    status = _print_info(truth, args, SimpleNamespace(title="spdgraph simulation"))
    if args.plot is not None:
        save_picture(truth, args.plot)
    return status


def save_picture(da: Any, path: str) -> None:
    """``da.spd.plot()`` (the first matrices) saved to ``path``; says where on stdout."""
    import matplotlib.pyplot as plt

    first = da.isel(sample=slice(0, 4)) if "sample" in da.dims else da
    from spdgraph.io import save_figure

    fig = first.load().spd.plot()
    try:
        save_figure(fig, path, dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)
    print(f"picture: {path}")


def _block_stats(values: np.ndarray, adjacency: np.ndarray) -> dict[str, np.ndarray]:
    """Per-matrix R, smallest eigenvalue, condition number and max |non-edge| of a stack."""
    import numpy as np

    from spdgraph.checks import link_strength, nonedge_mask

    eig = np.linalg.eigvalsh(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(eig[:, 0] > 0, eig[:, -1] / eig[:, 0], np.inf)
    nonedge = nonedge_mask(adjacency)
    return {
        "R": np.asarray(link_strength(values, adjacency)),
        "min_eig": eig[:, 0],
        "cond": cond,
        "nonedge": (
            np.abs(values[:, nonedge]).max(axis=1) if nonedge.any() else np.zeros(len(values))
        ),
    }


def _print_header(da: Any, args: argparse.Namespace, fmt: Any) -> Any:
    first = ("kind", "method", "plugin", "method_options", "seed", "normalize", "entries")
    keys = [k for k in first if k in da.attrs] + [k for k in da.attrs if k not in first]
    width = max([len(str(k)) + 2 for k in keys] + [12])

    def line(key: str, value: object) -> None:
        print(f"{key + ':':<{width}}{value}")

    line("file", f"{args.input} ({fmt.title})")
    line("name", da.name)
    line("dims", ", ".join(f"{d}: {n}" for d, n in da.sizes.items()))
    if "node" in da.coords:
        labels = da["node"].values.tolist()
        line("labels", f"{_format_labels(labels)} ({len(labels)} nodes, {da['node'].dtype})")
    for key in keys:
        line(key, _format_attr(da.attrs[key]))
    return line


def _print_info(da: Any, args: argparse.Namespace, fmt: Any) -> int:
    import numpy as np

    line = _print_header(da, args, fmt)
    matrix_dims = da.dims in (("node", "node_2"), ("sample", "node", "node_2"))
    if not matrix_dims or "adjacency" not in da.coords:
        return 0
    from spdgraph.layout import SPARSE, layout_of

    if layout_of(da) == SPARSE:  # on the stored entries: never p x p
        return _print_sparse_info(da, line)
    adjacency = np.asarray(da["adjacency"].values, dtype=bool)
    p = adjacency.shape[0]
    edges = int(np.triu(adjacency, 1).sum())
    density = edges / (p * (p - 1) / 2) if p > 1 else 0.0
    line("graph", f"{edges} edges, density {density:.3g}")
    stacked = da.dims[0] == "sample"
    n = da.sizes["sample"] if stacked else 1
    if n == 0:
        print("diagnostics: none (no matrices)")
        return 0
    structural = int(da.attrs.get("structural_zeros", 1)) == 1
    kind = str(da.attrs.get("kind", da.name))
    check_pd = kind != "partial_correlation"
    from spdgraph.checks import find_violation

    parts: list[dict[str, np.ndarray]] = []
    violation: Violation | None = None
    for start in range(0, n, BLOCK):
        values = np.asarray(
            da.isel(sample=slice(start, start + BLOCK)).values if stacked else da.values[None],
            dtype=np.float64,
        )
        parts.append(_block_stats(values, adjacency))
        if violation is None:
            found = find_violation(values, adjacency, structural=structural, check_pd=check_pd)
            if found is not None:
                violation = dataclasses.replace(found, k=found.k + start)
    d = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    spread = "" if n == 1 else " (min / median / max per matrix)"
    print(f"diagnostics over {n} matri{'x' if n == 1 else 'ces'}{spread}:")
    print(f"  link strength R = max_(i<j edge) |m_ij|/m_ii: {_spread(d['R'])}")
    print(f"  smallest eigenvalue: {_spread(d['min_eig'])}")
    print(f"  condition number:    {_spread(d['cond'])}")
    note = "must be 0" if structural else "zeros not structural"
    print(f"  max |non-edge|:      {_spread(d['nonedge'])} ({note})")
    if violation is not None:
        labels = da["node"].values.tolist() if "node" in da.coords else None
        problem = _PROBLEMS.get(violation.problem, violation.problem)
        print(f"  check: FAILED ({problem}; first: {violation.describe(labels)})")
        return 1
    print(
        "  check: ok (exactly symmetric"
        + (", exact zeros" if structural else "")
        + (", positive definite)" if check_pd else ")")
    )
    return 0


def _print_sparse_info(da: Any, line: Any) -> int:
    """The graph, the link strength and the check of a sparse result, on its stored entries
    (eigenvalues and condition numbers of a p x p matrix are out of reach at its sizes)."""
    import numpy as np
    import scipy.sparse

    from spdgraph.errors import MatrixError

    graph = da.spd.graph("scipy")
    p, edges = graph.shape[0], graph.nnz // 2
    density = edges / (p * (p - 1) / 2) if p > 1 else 0.0
    line("graph", f"{edges} edges, density {density:.3g} (sparse: stored entries only)")
    stacked = da.dims[0] == "sample"
    matrices = [da.data[k] for k in range(da.sizes["sample"])] if stacked else [da.data]
    if not matrices:
        print("diagnostics: none (no matrices)")
        return 0
    strengths = []
    for matrix in matrices:
        coo = scipy.sparse.coo_array(matrix.to_scipy_sparse())
        off = coo.row != coo.col
        diagonal = coo.tocsr().diagonal()
        ratios = np.abs(coo.data[off]) / np.abs(diagonal[coo.row[off]])
        strengths.append(float(ratios.max(initial=0.0)))
    n = len(matrices)
    print(f"diagnostics over {n} sparse matri{'x' if n == 1 else 'ces'}:")
    print(f"  link strength R = max_(i<j edge) |m_ij|/m_ii: {_spread(np.array(strengths))}")
    try:
        da.spd.check()
    except MatrixError as exc:
        print(f"  check: FAILED ({exc})")
        return 1
    print("  check: ok (exactly symmetric, exact zeros, positive definite: proven sparse)")
    return 0


def _add_info_parser(sub: Any) -> None:
    info = sub.add_parser(
        "info",
        help="summarise a saved file, with diagnostics",
        description=(
            "Print a saved file's dims, labels and provenance, then min / median / max over "
            "its matrices of the link strength R, the smallest eigenvalue, the condition "
            "number and the largest non-edge entry, and check that every matrix is exactly "
            "symmetric, has exact zeros on the non-edges and is positive definite (exit "
            "status 1 when one is not)."
        ),
    )
    info.add_argument(
        "input",
        metavar="FILE",
        help="a file spdgraph wrote: netCDF, Zarr store, CSV table or folder, or a plugin's "
        "format (recognised by its content)",
    )
    info.add_argument(
        "--plot",
        metavar="OUT.png",
        help="also save a heatmap of the partial correlations (the first 4 matrices) "
        "to OUT.png (.png, .pdf or .svg; needs matplotlib)",
    )
    _add_verify_option(info)
    info.set_defaults(func=_cmd_info)
