"""A study's description: read from TOML (or a dict), checked before any work.

The schema (``docs/study.md``)::

    name = "small"        # optional (default: the file's stem)
    seed = 2026           # the study seed (required)
    repeats = 2           # simulations per cell (default 1)
    kind = "precision"    # the truth's kind (default precision)
    sparse = false        # sparse truths (simulate(..., sparse=True)), p up to 10**6

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

__all__ = ["MAX_SPARSE_NODES", "Study", "check_sparse_study", "import_object", "load_study"]

_TOP = {
    "name",
    "seed",
    "repeats",
    "kind",
    "grid",
    "families",
    "methods",
    "learners",
    "scores",
    "timeout",
    "sparse",
}
#: The keys of every learner entry; a learner kind adds its own key and keys.
_LEARNER_KEYS = {"name", "timeout", "options", "rule", "cutoff", "output"}
#: What a learner's result is (``output =``): "auto" tells by its values (0/1 only: a
#: selection; ``(k, p, p)``: posterior draws; else edge scores).
OUTPUTS = ("auto", "selection", "scores", "precision", "draws")
_DEFAULT_AXES = {"method": ["po"], "data": ["gaussian"]}
#: Top-level keys the study passes to every cell's ``simulate``: never grid axes.
_STUDY_KEYS_NOT_AXES = frozenset({"kind", "seed", "sparse"})
#: The fit-time metric: wall seconds of each fit alone (BLAS on one thread).
FIT_TIME = "seconds"


def import_object(spec: str) -> Any:
    """``"package.module:attribute"`` -> the object (a learner class or function)."""
    return import_path(spec)


def _check_learner(entry: object, k: int) -> dict[str, Any]:
    """A ``[[learners]]`` entry checked by its kind (:func:`spdgraph.study.learner_kinds`)."""
    from spdgraph.study._kinds import kind_of, learner_kinds

    if not isinstance(entry, Mapping) or "name" not in entry:
        raise InvalidOptionError(f"learner {k} needs a name (a table with name = ...).")
    kind = kind_of(entry)
    allowed = {*_LEARNER_KEYS, kind.key, *kind.keys}
    unknown = set(entry) - allowed
    if unknown:
        owners = {key: other.key for other in learner_kinds().values() for key in other.keys}
        owned = sorted(key for key in unknown if key in owners)
        if owned:
            raise InvalidOptionError(
                f"learner {entry['name']!r}: {', '.join(owned)} belong to the learners "
                f"given by {owners[owned[0]]} = ..., not to {kind.name} ones."
            )
        raise InvalidOptionError(
            f"learner {entry['name']!r}: unknown keys {sorted(unknown)}; "
            f"allowed: {sorted(allowed)}."
        )
    if entry.get("output", "auto") not in OUTPUTS:
        raise InvalidOptionError(
            f"learner {entry['name']!r}: output must be one of {', '.join(OUTPUTS)}, got "
            f"{written(entry['output'])}."
        )
    kind.check(entry)
    _check_external(entry, kind)
    return dict(entry)


def _check_external(entry: Mapping[str, Any], kind: Any) -> None:
    """rule and timeout: the right values (timeout for kinds that run a process of their own)."""
    name = entry["name"]
    if entry.get("rule", "nonzero") not in ("nonzero", "lfdr", "threshold"):
        raise InvalidOptionError(
            f"learner {name!r}: rule must be 'nonzero', 'lfdr' or 'threshold', got "
            f"{written(entry['rule'])}."
        )
    if "timeout" in entry:
        timeout = entry["timeout"]
        if kind.key not in ("r", "command"):
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
    #: Sparse truths (``simulate(..., sparse=True)``), data to the learners through files,
    #: scores from the edge sets: p up to 10**6 (docs/study.md, "Sparse studies").
    sparse: bool = False

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
        config = {
            "seed": self.seed,
            "repeats": self.repeats,
            "kind": self.kind,
            "families": self.families,
            "methods": self.methods,
            "learners": learners,
            "metrics": self.metrics,
            "curves": self.curves,
        }
        if self.sparse:  # other truths and data: only then in the fingerprint
            config["sparse"] = True
        return config

    def r_packages(self) -> list[str] | None:
        """The R packages the R learners name (None: the study has no R learner)."""
        if not any("r" in e for e in self.learners):
            return None
        return sorted({p for e in self.learners for p in e.get("packages", [])})

    def fingerprint(self) -> str:
        """A hash of :meth:`config` but the learners and the repeats: stored cells with
        another fingerprint are recomputed whole.

        A learner is covered by its own :meth:`learner_fingerprint` and each
        repeat is stored on its own, so changing one learner recomputes that
        learner only, adding a learner or a repeat computes only what is new.
        """
        rest = {k: v for k, v in self.config().items() if k not in ("learners", "repeats")}
        blob = json.dumps(rest, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def learner_fingerprint(self, name: str) -> str:
        """A hash of one learner's entry (as :meth:`config` writes it): its stored
        (learner, repeat) entries with another fingerprint are recomputed."""
        entry = next(e for e in self.config()["learners"] if e["name"] == name)
        blob = json.dumps(entry, sort_keys=True, default=str).encode()
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
    for axis in _STUDY_KEYS_NOT_AXES.intersection(out):
        raise InvalidOptionError(
            f"{axis!r} cannot be a grid axis: the study sets it for every cell; write "
            f"{axis} = ... at the top of the TOML (run two studies to compare values)."
        )
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
    sparse = spec.get("sparse", False)
    if not isinstance(sparse, bool):
        raise InvalidOptionError(f"sparse must be true or false, got {written(sparse)}.")
    study = Study(
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
        sparse=sparse,
    )
    return check_sparse_study(study)


#: Largest p of a sparse study (a dense study is bounded by memory instead).
MAX_SPARSE_NODES = 10**6


def check_sparse_study(study: Study) -> Study:
    """``study`` when its truths can be built sparse (``sparse = true``); else refused.

    Every method of the grid must declare a sparse construction
    (``GeneratorSpec.sparse_function``), each refused by name otherwise; the
    data must be Gaussian and complete (what ``simulate(..., sparse=True)``
    draws); p at most :data:`MAX_SPARSE_NODES`. Checked before any cell.
    """
    from spdgraph.plugins import find_generator, generators

    if not study.sparse:
        return study
    cannot = [m for m in study.grid["method"] if find_generator(m)[0].sparse_function is None]
    if cannot:
        able = sorted(n for n, (g, _) in generators().items() if g.sparse_function is not None)
        raise InvalidOptionError(
            f"sparse = true: method{'s' if len(cannot) > 1 else ''} "
            f"{', '.join(map(repr, cannot))} cannot build a sparse truth (no sparse "
            f"construction); use {', '.join(map(repr, able)) or 'a method that has one'}, "
            "or sparse = false."
        )
    other = [d for d in study.grid["data"] if d != "gaussian"]
    missing = [v for v in study.grid.get("missing", []) if v]
    if other or missing:
        raise InvalidOptionError(
            "sparse = true draws Gaussian data without missing values: "
            f"{written(other or missing)} need{'s' if len(other or missing) == 1 else ''} "
            "sparse = false."
        )
    for p in study.grid["p"]:
        check_count(p, "p", high=MAX_SPARSE_NODES)
    return study


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
