"""A study's description: read from TOML (or a dict), checked before any work.

The schema (``docs/study.md``)::

    name = "small"        # optional (default: the file's stem)
    seed = 2026           # the study seed (required)
    repeats = 2           # simulations per cell (default 1)
    kind = "precision"    # the truth's kind (default precision)

    [grid]                # axes: one cell per combination
    family = ["hub", "random"]   # family names of spdgraph.simulate
    p = [20, 40]
    n = [50, 100, 200]
    method = ["po"]              # generators (default ["po"])
    data = ["gaussian"]          # data types (default ["gaussian"])
    # any other axis is a keyword of spdgraph.simulate (missing, v, prob...)

    [families.hub]        # options of a family, in every cell of that family
    g = 2
    [methods.huge]        # options of a generator
    v = 0.3

    [[learners]]          # built-in (name), estimator ("module:Class"), function,
    name = "glasso"       # r = "R code" or command = ["exe", "{data}", "{out}"]
    [[learners]]
    name = "sk-glasso"
    estimator = "sklearn.covariance:GraphicalLassoCV"
    options = { cv = 3 }

    [scores]
    metrics = ["tpr", "tdr", "f1"]   # default: spdgraph.validation.METRICS and "seconds";
                                     # or "module:function" (a metric of your own)
    curves = true                    # ROC/PR areas where a learner gives edge scores
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spdgraph.errors import InvalidOptionError, written
from spdgraph.vocabulary import canonical_family, canonical_kind, check_count, import_path

__all__ = ["Study", "import_object", "load_study"]

_TOP = {
    "name", "seed", "repeats", "kind", "grid", "families", "methods", "learners", "scores",
    "timeout",
}  # fmt: skip
_LEARNER_KEYS = {
    "name", "estimator", "function", "r", "command", "packages", "timeout", "options", "rule",
    "cutoff",
}  # fmt: skip
_KINDS = ("estimator", "function", "r", "command")
_DEFAULT_AXES = {"method": ["po"], "data": ["gaussian"]}
#: The fit-time metric: wall seconds of each fit alone (BLAS on one thread).
FIT_TIME = "seconds"


def import_object(spec: str) -> Any:
    """``"package.module:attribute"`` -> the object (a learner class or function)."""
    return import_path(spec)


def _check_learner(entry: object, k: int) -> dict[str, Any]:
    from spdgraph.validation import BUILTIN_LEARNERS

    if not isinstance(entry, Mapping) or "name" not in entry:
        raise InvalidOptionError(f"learner {k} needs a name (a table with name = ...).")
    unknown = set(entry) - _LEARNER_KEYS
    if unknown:
        raise InvalidOptionError(
            f"learner {entry['name']!r}: unknown keys {sorted(unknown)}; "
            f"allowed: {sorted(_LEARNER_KEYS)}."
        )
    given = [k for k in _KINDS if k in entry]
    if len(given) > 1:
        raise InvalidOptionError(
            f"learner {entry['name']!r}: give one of estimator, function, r or command."
        )
    if not given and entry["name"] not in BUILTIN_LEARNERS:
        raise InvalidOptionError(
            f"learner {entry['name']!r} is not built in ({', '.join(BUILTIN_LEARNERS)}); "
            "give estimator = 'module:Class', function = 'module:function', r = 'R code' "
            "or command = [...]."
        )
    _check_external(entry, given[0] if given else "")
    for key in given:
        if key in ("r", "command"):
            continue
        spec = entry[key]
        if isinstance(spec, str):
            import_object(spec)  # fails now, not in a worker
        elif not callable(spec):
            raise InvalidOptionError(f"learner {entry['name']!r}: {key} must be 'module:name'.")
    return dict(entry)


def _check_external(entry: Mapping[str, Any], kind: str) -> None:
    """r, command, packages and timeout: the right types, placeholders and names."""
    import re

    name = entry["name"]
    if kind == "r" and (not isinstance(entry["r"], str) or not entry["r"].strip()):
        raise InvalidOptionError(f"learner {name!r}: r must be R code (a non-empty string).")
    if kind == "command":
        command = entry["command"]
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(part, str) for part in command)
        ):
            raise InvalidOptionError(
                f"learner {name!r}: command must be a list of strings, e.g. "
                '["julia", "mine.jl", "{data}", "{out}"].'
            )
        for token in ("{data}", "{out}"):
            if not any(token in part for part in command):
                raise InvalidOptionError(
                    f"learner {name!r}: command must contain {token} (where the data are "
                    "written and where the p x p result is read)."
                )
    if "packages" in entry:
        packages = entry["packages"]
        if kind != "r":
            raise InvalidOptionError(f"learner {name!r}: packages belong to R learners (r = ...).")
        if not isinstance(packages, list) or not all(
            isinstance(p, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9.]*", p) for p in packages
        ):
            raise InvalidOptionError(
                f"learner {name!r}: packages must be a list of R package names, e.g. "
                f'["huge"]; got {written(packages)}.'
            )
    if entry.get("rule", "nonzero") not in ("nonzero", "lfdr", "threshold"):
        raise InvalidOptionError(
            f"learner {name!r}: rule must be 'nonzero', 'lfdr' or 'threshold', got "
            f"{written(entry['rule'])}."
        )
    if "timeout" in entry:
        timeout = entry["timeout"]
        if kind not in ("r", "command"):
            raise InvalidOptionError(
                f"learner {name!r}: timeout applies to R and command learners only."
            )
        from spdgraph.study._guard import check_learner_timeout

        check_learner_timeout(timeout, f"learner {name!r}: timeout")


@dataclass(frozen=True)
class Study:
    """A checked study: what :func:`spdgraph.study.run` runs (see ``docs/study.md``)."""

    name: str
    seed: int
    grid: dict[str, list[Any]]
    learners: list[dict[str, Any]]
    repeats: int = 1
    kind: str = "precision"
    families: dict[str, dict[str, Any]] = field(default_factory=dict)
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)
    metrics: list[str] = field(default_factory=list)
    curves: bool = True
    #: Seconds an R or command learner's fit may take when it sets no timeout (None: no limit).
    #: Not in :meth:`config`: a limit changes no stored result.
    timeout: float | None = None

    def cells(self) -> list[dict[str, Any]]:
        """Every cell: one dict of grid coordinates per combination, in grid order."""
        axes = list(self.grid)
        return [dict(zip(axes, values, strict=True)) for values in itertools.product(
            *self.grid.values()
        )]  # fmt: skip

    def config(self) -> dict[str, Any]:
        """What a cell's result depends on besides its coordinates (JSON-ready)."""
        learners = [
            {k: (v if isinstance(v, str | int | float | dict | list) else repr(v))
             for k, v in e.items()}
            for e in self.learners
        ]  # fmt: skip
        return {
            "seed": self.seed,
            "repeats": self.repeats,
            "kind": self.kind,
            "families": self.families,
            "methods": self.methods,
            "learners": learners,
            "metrics": self.metrics,
            "curves": self.curves,
        }

    def r_packages(self) -> list[str] | None:
        """The R packages the R learners name (None: the study has no R learner)."""
        if not any("r" in e for e in self.learners):
            return None
        return sorted({p for e in self.learners for p in e.get("packages", [])})

    def fingerprint(self) -> str:
        """A hash of :meth:`config`: stored cells with another fingerprint are recomputed."""
        blob = json.dumps(self.config(), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _grid(grid: object) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping) or not grid:
        raise InvalidOptionError("the study needs a [grid] table with at least family, p and n.")
    out = {k: (list(v) if isinstance(v, list | tuple) else [v]) for k, v in grid.items()}
    if "graph" in out and "family" not in out:
        out["family"] = out.pop("graph")
    for axis in ("family", "p", "n"):
        if axis not in out:
            raise InvalidOptionError(f"the [grid] table needs the axis {axis!r}.")
    for axis, values in out.items():
        if not values:
            raise InvalidOptionError(f"grid axis {axis!r} is empty.")
        if len(set(map(repr, values))) != len(values):
            raise InvalidOptionError(f"grid axis {axis!r} repeats a value: {values}.")
    for key, default in _DEFAULT_AXES.items():
        out.setdefault(key, list(default))
    return out


def study_from_dict(spec: Mapping[str, Any], default_name: str = "study") -> Study:
    """A :class:`Study` from a parsed TOML document (or an equivalent dict)."""
    from spdgraph.plugins import find_generator
    from spdgraph.validation import METRICS, resolve_metric

    unknown = set(spec) - _TOP
    if unknown:
        raise InvalidOptionError(f"unknown study keys {sorted(unknown)}; allowed: {sorted(_TOP)}.")
    if "seed" not in spec:
        raise InvalidOptionError("the study needs a seed (seed = 2026 at the top).")
    seed = check_count(spec["seed"], "seed", low=0)
    grid = _grid(spec.get("grid"))
    for family in grid["family"]:  # the spellings simulate and the CLI accept
        canonical_family(family)
    for p in grid["p"]:
        check_count(p, "p")
    for n in grid["n"]:
        check_count(n, "n", low=0)
    for method in grid["method"]:  # the one resolver sample and simulate use
        find_generator(method)
    learners = spec.get("learners", [])
    if not isinstance(learners, list) or not learners:
        raise InvalidOptionError("the study needs at least one [[learners]] entry.")
    checked = [_check_learner(e, k) for k, e in enumerate(learners)]
    names = [e["name"] for e in checked]
    if len(set(names)) != len(names):
        raise InvalidOptionError(f"learner names must be distinct, got {names}.")
    scores = dict(spec.get("scores", {}))
    known = [*METRICS, FIT_TIME]  # seconds: each fit's wall time (not reproducible bits)
    metrics = list(scores.get("metrics", known))
    # built-in, "seconds" or "module:function"
    names = [m if m == FIT_TIME else resolve_metric(m).name for m in metrics]
    if len(set(names)) != len(names):
        raise InvalidOptionError(f"metric names must be distinct, got {names}.")
    kind = canonical_kind(spec.get("kind", "precision"))
    return Study(
        name=str(spec.get("name", default_name)),
        seed=seed,
        grid=grid,
        learners=checked,
        repeats=check_count(spec.get("repeats", 1), "repeats"),
        kind=kind,
        families={str(k): dict(v) for k, v in spec.get("families", {}).items()},
        methods={str(k): dict(v) for k, v in spec.get("methods", {}).items()},
        metrics=metrics,
        curves=bool(scores.get("curves", True)),
        timeout=_study_timeout(spec),
    )


def _study_timeout(spec: Mapping[str, Any]) -> float | None:
    """The study-wide default ``timeout`` (top level), checked; None when not given."""
    from spdgraph.study._guard import check_learner_timeout

    return None if "timeout" not in spec else check_learner_timeout(spec["timeout"], "timeout")


def load_study(source: str | os.PathLike[str] | Mapping[str, Any] | Study) -> Study:
    """A checked :class:`Study` from a TOML file, a dict or a Study.

    Examples
    --------
    >>> from spdgraph.study import load_study
    >>> study = load_study({"seed": 1, "grid": {"family": ["hub"], "p": [10], "n": [20, 40]},
    ...                     "learners": [{"name": "shrink"}]})
    >>> [(c["family"], c["n"]) for c in study.cells()]
    [('hub', 20), ('hub', 40)]
    """
    import tomllib

    if isinstance(source, Study):
        return source
    from spdgraph.study._guard import check_spec, read_study_file

    if isinstance(source, Mapping):
        check_spec(source)
        return study_from_dict(source)
    if isinstance(source, bool) or not isinstance(source, str | os.PathLike):
        raise InvalidOptionError(
            "the study must be a TOML file's path, a dict or a Study, "
            f"not {type(source).__name__}."
        )
    path = Path(source)
    if not path.is_file():
        raise InvalidOptionError(f"study file {str(path)!r} does not exist.")
    text = read_study_file(path)
    try:
        spec = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidOptionError(f"{str(path)!r} is not valid TOML: {exc}.") from None
    except RecursionError:
        raise InvalidOptionError(
            f"{str(path)!r} nests too deep to read; a study needs at most a few levels."
        ) from None
    check_spec(spec)
    return study_from_dict(spec, default_name=path.stem)
