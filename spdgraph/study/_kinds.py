"""The built-in learner kinds, registered exactly as a third party registers one.

A study's ``[[learners]]`` entry gives its learner by one key: ``function =
"module:function"``, ``estimator = "module:Class"``, ``r = "R code"``,
``command = [...]``, or ``name`` alone for a learner built into spdgraph.
Each is a :class:`~spdgraph.plugins.learners.LearnerKind` offered by this
module's ``spdgraph_learner_kinds`` hook (the module is in
``DEFAULT_PLUGINS``); :func:`learner_kinds` is the table and :func:`kind_of`
finds an entry's kind in it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, written
from spdgraph.plugins import cached_table
from spdgraph.plugins.hookspecs import offering
from spdgraph.plugins.learners import BUILTIN_KEY, LearnerKind, check_learner_kind
from spdgraph.vocabulary import import_path

__all__ = ["kind_of", "learner_kinds"]


def learner_kinds() -> dict[str, LearnerKind]:
    """Every registered learner kind, keyed by its TOML key (registration order).

    Cached until a plugin is registered or unregistered (the one cache of
    :func:`spdgraph.plugins.cached_table`). A plugin whose hook raises, returns
    something else than :class:`~spdgraph.plugins.learners.LearnerKind`
    objects or reuses a name or key is skipped with one warning naming it.

    Examples
    --------
    >>> from spdgraph.study import learner_kinds
    >>> sorted(learner_kinds())
    ['command', 'estimator', 'function', 'name', 'r']
    """
    table = cached_table("spdgraph_learner_kinds", LearnerKind, check_learner_kind)
    return {kind.key: kind for kind, _ in table.values()}


def kind_of(entry: Mapping[str, Any]) -> LearnerKind:
    """The kind of a ``[[learners]]`` entry: the one kind key it holds, else the built-in."""
    kinds = learner_kinds()
    given = [key for key in kinds if key != BUILTIN_KEY and key in entry]
    if len(given) > 1:
        raise InvalidOptionError(
            f"learner {entry['name']!r}: give one of {', '.join(given)}, not several."
        )
    if given:
        return kinds[given[0]]
    if BUILTIN_KEY not in kinds:  # pragma: no cover - the built-in plugin is always there
        raise InvalidOptionError(f"learner {entry['name']!r} names no learner kind.")
    return kinds[BUILTIN_KEY]


def _imported(entry: Mapping[str, Any], key: str) -> Any:
    spec = entry[key]
    return import_path(spec) if isinstance(spec, str) else spec


def _check_importable(key: str) -> Any:
    def check(entry: Mapping[str, Any]) -> None:
        spec = entry[key]
        if isinstance(spec, str):
            import_path(spec)  # fails now, not in a worker
        elif not callable(spec):
            raise InvalidOptionError(f"learner {entry['name']!r}: {key} must be 'module:name'.")

    return check


def _takes_seed(function: Any) -> bool:
    """Whether a function learner has a ``seed`` parameter (it then gets the learner seed)."""
    import inspect

    try:
        return "seed" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


def _fit_function(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: Any
) -> tuple[Any, float]:
    function = _imported(entry, "function")
    options = dict(entry.get("options", {}))
    if "seed" not in options and _takes_seed(function):
        options["seed"] = seed  # the cell's learner stream: same cell, same draws
    start = time.perf_counter()
    estimate = function(x, **options)
    seconds = time.perf_counter() - start
    return _result(entry, estimate), seconds


def _result(entry: Mapping[str, Any], value: Any) -> Any:
    """A Python learner's result: a scipy.sparse one as it is; a dense one refused on its
    shape when it cannot fit in a cell (:func:`spdgraph.study._output.refuse_dense`)."""
    from spdgraph.study._output import is_scipy_sparse, refuse_dense

    if is_scipy_sparse(value):
        return value
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        refuse_dense(f"learner {entry['name']!r}", shape)
    return np.asarray(value)


def _fit_estimator(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: Any
) -> tuple[Any, float]:
    from spdgraph.study._output import is_scipy_sparse, sparse_pcor, sparse_result
    from spdgraph.validation import precision_to_pcor

    start = time.perf_counter()
    est = _imported(entry, "estimator")(**dict(entry.get("options", {})))
    fitted = est.fit(x)
    fitted = est if fitted is None else fitted
    seconds = time.perf_counter() - start
    for attr in ("adjacency_", "partial_correlation_", "pcor_"):
        if hasattr(fitted, attr):
            return _result(entry, getattr(fitted, attr)), seconds
    prec = _result(entry, fitted.precision_)
    if is_scipy_sparse(prec):
        name = f"learner {entry['name']!r}"
        return sparse_pcor(sparse_result(prec, x.shape[1], name), name), seconds
    prec = np.asarray(prec, dtype=float)
    pcor = precision_to_pcor(prec)
    pcor[prec == 0] = 0.0
    return pcor, seconds


def _check_builtin(entry: Mapping[str, Any]) -> None:
    from spdgraph.validation import BUILTIN_LEARNERS

    if entry["name"] not in BUILTIN_LEARNERS:
        raise InvalidOptionError(
            f"learner {entry['name']!r} is not built in ({', '.join(BUILTIN_LEARNERS)}); "
            "give estimator = 'module:Class', function = 'module:function', r = 'R code', "
            "command = [...] or the key of a learner kind a plugin registers."
        )


def _fit_builtin(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: Any
) -> tuple[Any, float]:
    from spdgraph.validation import fit_learners

    name = entry["name"]
    cv = int(entry.get("options", {}).get("cv", 5))
    start = time.perf_counter()
    if name == "mb":  # its sparse selection: no p x p array at any size
        return _mb_selection(x, seed, cv), time.perf_counter() - start
    estimate = fit_learners(x, [name], seed=seed, cv=cv)
    return estimate[name], time.perf_counter() - start


def _mb_selection(x: np.ndarray, seed: Any, cv: int) -> Any:
    """The built-in ``"mb"`` as ``fit_learners(x, ["mb"], seed=seed)`` fits it (its stream
    past the folds it draws first), its selection kept sparse (a ``csr_array``)."""
    from spdgraph.validation import kfold, neighbourhood_selection

    rng = np.random.default_rng(seed)
    kfold(x.shape[0], cv, rng)  # fit_learners draws the folds from the stream first
    return neighbourhood_selection(x, seed=rng, blas_threads=None).selected


def _builtin_rule(entry: Mapping[str, Any]) -> str:
    from spdgraph.validation import SELECTION_RULES

    return SELECTION_RULES[entry["name"]]


def _check_r(entry: Mapping[str, Any]) -> None:
    name = entry["name"]
    if not isinstance(entry["r"], str) or not entry["r"].strip():
        raise InvalidOptionError(f"learner {name!r}: r must be R code (a non-empty string).")
    packages = entry.get("packages", [])
    if not isinstance(packages, list) or not all(
        isinstance(p, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9.]*", p) for p in packages
    ):
        raise InvalidOptionError(
            f"learner {name!r}: packages must be a list of R package names, e.g. "
            f'["huge"]; got {written(packages)}.'
        )


def _fit_r(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: Any
) -> tuple[Any, float]:
    from spdgraph.study._rbridge import fit_r

    return fit_r(entry, x, labels, seed)


def _check_command(entry: Mapping[str, Any]) -> None:
    name, command = entry["name"], entry["command"]
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


def _fit_command(
    entry: Mapping[str, Any], x: np.ndarray, labels: list[str], seed: Any
) -> tuple[Any, float]:
    from spdgraph.study._command import fit_command

    return fit_command(entry, x, labels, seed)


#: ``function = "module:function"``: called as ``function(x, **options)``.
FUNCTION = LearnerKind("function", "function", _fit_function, _check_importable("function"))
#: ``estimator = "module:Class"``: ``Class(**options).fit(x)``, read from its attributes.
ESTIMATOR = LearnerKind("estimator", "estimator", _fit_estimator, _check_importable("estimator"))
#: ``name`` alone: a learner of :data:`spdgraph.validation.BUILTIN_LEARNERS`.
BUILTIN = LearnerKind(
    "builtin", BUILTIN_KEY, _fit_builtin, _check_builtin, default_rule=_builtin_rule
)
#: ``r = "R code"``: one persistent R process per worker (:mod:`spdgraph.study._rbridge`).
R = LearnerKind("r", "r", _fit_r, _check_r, keys=("packages",), persistent=True)
#: ``command = [...]``: any program, one process per fit (:mod:`spdgraph.study._command`).
COMMAND = LearnerKind("command", "command", _fit_command, _check_command)

spdgraph_learner_kinds = offering(FUNCTION, ESTIMATOR, BUILTIN, R, COMMAND)
