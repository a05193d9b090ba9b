"""``spdgraph study report DIR``: a study's tables, plots and report.html from its stored cells."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["report", "stored_study"]


def report(out: str | Path, study: Any = None, *, plots: bool | None = None) -> Path:
    """Rebuild a study's tables, plots and ``report.html`` from its stored cells.

    Parameters
    ----------
    out
        The study's folder (what ``spdgraph study run`` wrote).
    study
        The study (TOML file, dict or :class:`Study`); default: rebuilt from
        ``out/study.json`` (needs every learner to be given by name or text,
        not a Python object).
    plots
        As in :func:`spdgraph.study.run`.

    Returns
    -------
    Path
        ``out/report.html``.

    Examples
    --------
    >>> import tempfile, spdgraph.study
    >>> spec = {"seed": 1, "grid": {"family": ["hub"], "p": [8], "n": [40]},
    ...         "learners": [{"name": "shrink"}], "scores": {"metrics": ["tpr"]}}
    >>> out = tempfile.mkdtemp()
    >>> _ = spdgraph.study.run(spec, out, workers=1, plots=False)
    >>> spdgraph.study.report(out, plots=False).name
    'report.html'
    """
    from spdgraph.errors import InvalidOptionError
    from spdgraph.study._config import load_study
    from spdgraph.study._entry import stored_results
    from spdgraph.study._results import write_results
    from spdgraph.study._store import CellStore

    folder = Path(out)
    checked = stored_study(folder) if study is None else load_study(study)
    store = CellStore(folder, checked.fingerprint())
    cells = checked.cells()
    payloads, learners_failed = stored_results(checked, store, cells)
    if not payloads:
        raise InvalidOptionError(
            f"no stored cell of this study in {str(folder / 'cells')!r}: run the study first."
        )
    try:
        failures = json.loads((folder / "failures.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        failures = []
    stored_cells = {store.path(c).stem for c in cells if store.load(c) is not None}
    failures = [f for f in failures if "learner" not in f and f["cell"] not in stored_cells]
    write_results(checked, folder, payloads, plots=plots, failures=failures + learners_failed)
    return folder / "report.html"


def stored_study(folder: Path) -> Any:
    """The :class:`~spdgraph.study.Study` a study folder's ``study.json`` describes."""
    from spdgraph.errors import InvalidOptionError
    from spdgraph.study._config import study_from_dict

    try:
        stored = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidOptionError(
            f"{str(folder)!r} is not a study folder (no readable study.json: {exc}); "
            "pass the folder spdgraph study run wrote."
        ) from None
    spec = {k: stored[k] for k in ("name", "seed", "repeats", "kind", "grid", "families",
                                    "methods", "learners", "sparse") if k in stored}  # fmt: skip
    spec["scores"] = {"metrics": stored.get("metrics"), "curves": stored.get("curves", True)}
    try:
        return study_from_dict(spec)
    except InvalidOptionError as exc:
        raise InvalidOptionError(
            f"cannot rebuild the study from {str(folder / 'study.json')!r} ({exc}); pass "
            "the study (its TOML file: spdgraph study report DIR --study STUDY.toml)."
        ) from None
