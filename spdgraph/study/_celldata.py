"""Every cell's data at hand: the truth and the exact data each repeat gave the learners.

:func:`cell_data` simulates a stored cell's repeats again from the study's
seed and the cell's coordinates, and checks each against the digest the
study stored when its learners saw it: what it returns are the same bits.
:func:`r_script` writes, for an R learner, a ready ``.R`` script that
reproduces one of its fits (its packages, its snippet, ``set.seed`` with the
learner's seed, the data read bit for bit from a binary file beside it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, SpdgraphError, written
from spdgraph.study._cell import LEARNER_DOMAIN, cell_key, cell_seed, data_digest, simulate_cell
from spdgraph.study._config import Study
from spdgraph.study._store import CellStore, atomic_write

__all__ = ["cell_data", "find_cell", "r_script"]


def find_cell(study: Study, cell: str | Mapping[str, Any]) -> dict[str, Any]:
    """The one cell of ``study`` a cell key or a mapping of grid coordinates names.

    A mapping may give some axes only (values compared as written, so that
    ``{"n": "60"}`` from a command line finds ``n = 60``) when they name one cell.
    """
    cells = study.cells()
    if isinstance(cell, str):
        key = cell.removesuffix(".json")
        found = [c for c in cells if cell_key(c) == key]
        if not found:  # "family=hub,n=60" as a command line gives it
            pairs = [part.partition("=") for part in cell.split(",") if part.strip()]
            if pairs and all(sep for _, sep, _ in pairs):
                return find_cell(study, {k.strip(): v.strip() for k, _, v in pairs})
    elif isinstance(cell, Mapping):
        unknown = sorted(set(cell) - set(study.grid))
        if unknown:
            raise InvalidOptionError(
                f"the study's grid has no axis {', '.join(map(repr, unknown))}; its axes: "
                f"{', '.join(study.grid)}."
            )
        found = [c for c in cells if all(str(c[k]) == str(v) for k, v in cell.items())]
    else:
        raise InvalidOptionError(
            f"cell must be a cell key or a mapping of grid coordinates, not {written(cell)}."
        )
    if len(found) != 1:
        raise InvalidOptionError(
            f"{written(cell)} names {len(found)} cells of the study; give a cell key (a file "
            "name under cells/) or enough coordinates (axis=value,...) to name one: "
            f"{', '.join(cell_key(c) for c in (found or cells)[:5])}"
            f"{' ...' if len(found or cells) > 5 else ''}."
        )
    return found[0]


def cell_data(
    out: str | os.PathLike[str], cell: str | Mapping[str, Any], study: Any = None
) -> Any:
    """The truth and the exact data each repeat of a stored cell gave the learners.

    Parameters
    ----------
    out
        The study's folder (what :func:`spdgraph.study.run` wrote).
    cell
        The cell: its key (a file name under ``cells/``, ``.json`` optional),
        ``"axis=value,..."``, or a mapping of grid coordinates naming one cell.
    study
        The study (TOML file, dict or :class:`~spdgraph.study.Study`); default:
        rebuilt from ``out/study.json`` (as :func:`spdgraph.study.report` does:
        needs every learner given by name or text, not a Python object).

    Returns
    -------
    xarray.Dataset
        What :func:`spdgraph.simulate` returned for each repeat, stacked
        along ``repeat`` (``data``, ``adjacency``, ``precision``, ...), each
        repeat checked against the digest the study stored when its learners
        saw it. Attrs: ``study``, ``cell``, ``coords`` (JSON), ``learner_seeds``
        (the integer each repeat's R learners got in ``set.seed`` and command
        learners in ``{seed}``).

    Raises
    ------
    InvalidOptionError
        Not a study folder, a cell not in the study or not stored yet.
    SpdgraphError
        A repeat's data differ from the ones the study stored (another
        spdgraph version, say): nothing is returned.

    Examples
    --------
    >>> import tempfile, spdgraph.study
    >>> spec = {"seed": 1, "repeats": 2, "grid": {"family": ["hub"], "p": [6], "n": [20]},
    ...         "learners": [{"name": "shrink"}], "scores": {"metrics": ["tpr"]}}
    >>> out = tempfile.mkdtemp()
    >>> _ = spdgraph.study.run(spec, out, workers=1, plots=False)
    >>> ds = spdgraph.study.cell_data(out, {"n": 20})
    >>> ds["data"].dims, ds.sizes["repeat"]
    (('repeat', 'obs', 'node'), 2)
    """
    import xarray as xr

    from spdgraph.seeds import sub_root
    from spdgraph.study._config import load_study
    from spdgraph.study._rbridge import seed_int
    from spdgraph.study._rebuild import stored_study

    folder = Path(out)
    study = stored_study(folder) if study is None else load_study(study)
    coords = find_cell(study, cell)
    payload = CellStore(folder, study.fingerprint()).load(coords)
    stored = {d.get("repeat"): d.get("digest") for d in (payload or {}).get("data", [])}
    if payload is None or not stored:
        raise InvalidOptionError(
            f"cell {cell_key(coords)} is not stored in {str(folder / 'cells')!r} (or was "
            "stored before spdgraph kept data digests): run the study first."
        )
    root = cell_seed(study.seed, coords)
    sims = []
    for r in range(study.repeats):
        sim = simulate_cell(study, coords, sub_root(root, r))
        if stored.get(r) != data_digest(sim):
            raise SpdgraphError(
                f"repeat {r} of cell {cell_key(coords)} simulates to other data than the "
                "study's learners saw (another spdgraph or library version?): its digest "
                f"{data_digest(sim)[:12]} differs from the stored {str(stored.get(r))[:12]}."
            )
        sims.append(sim)
    ds = xr.concat(
        sims, dim="repeat", coords="all", compat="equals", combine_attrs="drop_conflicts"
    )
    ds.attrs.update(
        study=study.name,
        cell=cell_key(coords),
        coords=json.dumps(coords, default=str),
        learner_seeds=[seed_int(sub_root(root, r, LEARNER_DOMAIN)) for r in range(len(sims))],
    )
    return ds


def r_script(
    out: str | os.PathLike[str],
    cell: str | Mapping[str, Any],
    learner: str,
    path: str | os.PathLike[str],
    *,
    repeat: int = 0,
    study: Any = None,
) -> Path:
    """Write a ready ``.R`` script reproducing R learner ``learner``'s fit on a cell's repeat.

    The data (:func:`cell_data`, verified) go beside the script as
    ``<stem>.bin`` (float64, little-endian, column-major: R reads the very
    bits the learner was given); the script loads the learner's packages,
    defines its snippet as the study did, calls ``set.seed`` with the
    learner's seed of that cell and repeat, runs the snippet on ``x`` (column
    names the node labels), writes the ``p x p`` result to
    ``<stem>-result.bin`` (or the path given as its first argument) the same
    way and prints it. Run it with ``Rscript PATH``: the result is the one
    the study scored, bit for bit.

    Parameters
    ----------
    out, cell
        As in :func:`cell_data`.
    learner
        The name of one of the study's R learners (``r = ...``).
    path
        The script to write (``.R``); existing files are replaced.
    repeat
        Which repeat of the cell (default 0).
    study
        As in :func:`cell_data`.

    Returns
    -------
    Path
        ``path``.
    """
    from spdgraph.study._config import load_study
    from spdgraph.study._rebuild import stored_study

    study = stored_study(Path(out)) if study is None else load_study(study)
    _r_entry(study, learner)  # refused before any work
    ds = cell_data(out, cell, study)
    path = Path(path)
    entry = _r_entry(study, learner)
    count = ds.sizes["repeat"]
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 0 <= repeat < count:
        raise InvalidOptionError(f"repeat must be in 0..{ds.sizes['repeat'] - 1}, got {repeat}.")
    x = np.asarray(ds["data"].isel(repeat=repeat).values, dtype="<f8")
    labels = [str(v) for v in np.asarray(ds["data"][ds["data"].dims[-1]].values)]
    data = path.with_suffix(".bin")
    result = path.with_name(path.stem + "-result.bin")
    atomic_write(data, lambda tmp: Path(tmp).write_bytes(np.asfortranarray(x).tobytes("F")))
    seed = int(ds.attrs["learner_seeds"][repeat])
    text = _R_TEMPLATE.format(
        learner=learner, cell=ds.attrs["cell"], repeat=repeat,
        packages=", ".join(json.dumps(p) for p in entry.get("packages", [])),
        code=entry["r"], n=x.shape[0], p=x.shape[1], data=json.dumps(data.name),
        result=json.dumps(result.name), labels=", ".join(json.dumps(v) for v in labels),
        seed=seed,
    )  # fmt: skip
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path


def _r_entry(study: Study, learner: object) -> dict[str, Any]:
    entry = next((e for e in study.learners if e["name"] == learner), None)
    if entry is None or "r" not in entry:
        names = [e["name"] for e in study.learners if "r" in e]
        raise InvalidOptionError(
            f"{learner!r} is not an R learner of this study; its R learners: {names or 'none'}."
        )
    return entry


_R_TEMPLATE = """\
# R learner {learner!r}, cell {cell}, repeat {repeat}: its fit, as the study ran it.
# Written by spdgraph (spdgraph study data DIR --cell ... --r-script ...). Run: Rscript <this file>
here <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1])
setwd(dirname(normalizePath(here)))  # the data file is beside the script
for (p in c({packages})) suppressPackageStartupMessages(library(p, character.only = TRUE))
snippet <- function(x) {{
{code}
}}
con <- file({data}, "rb")  # the data the learner saw, bit for bit (float64, column-major)
x <- matrix(readBin(con, "double", {n} * {p}, size = 8L, endian = "little"), {n}, {p})
close(con)
colnames(x) <- c({labels})
set.seed({seed})  # the learner's seed in this cell and repeat
v <- snippet(x)
if (!is.null(dim(v)) && length(dim(v)) == 2L) v <- as.matrix(v)
storage.mode(v) <- "double"
out <- commandArgs(trailingOnly = TRUE)
con <- file(if (length(out)) out[1] else {result}, "wb")
writeBin(as.vector(v), con, size = 8L, endian = "little")
close(con)
print(v)
"""
