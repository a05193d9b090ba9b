"""Learner kinds: how a study's ``[[learners]]`` entry is checked and fitted (``LearnerKind``).

A :class:`LearnerKind` teaches a study one way of giving a structure
learner: a Python function, a scikit-learn style estimator, a learner built
into spdgraph, an R snippet, a command line, or a third party's (a Julia
bridge, say). Plugins return them from the ``spdgraph_learner_kinds`` hook;
the built-in kinds (``spdgraph.study._kinds``) are registered exactly as
third-party ones. The record stands here, beside the generators' and the file
formats', so that the hook can name it; its table (:func:`spdgraph.study.learner_kinds`) is
built by the plugins' one table builder and kept in their one cache, and
:mod:`spdgraph.study` finds a learner's kind in it by the entry's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spdgraph.errors import PluginError

__all__ = ["BUILTIN_KEY", "LearnerKind", "check_learner_kind"]

#: ``name -> (kind, plugin name)``, as :func:`spdgraph.plugins.plugin_table` builds it.
PluginTable = dict[str, tuple["LearnerKind", str]]

#: The key of the kind chosen when an entry has no other kind's key: ``name``
#: alone names a learner built into spdgraph.
BUILTIN_KEY = "name"

#: ``fit(entry, x, labels, seed) -> (estimate, seconds)``.
Fit = Callable[[Mapping[str, Any], Any, list[str], Any], tuple[Any, float]]


def _no_check(entry: Mapping[str, Any]) -> None:
    return None


def _nonzero(entry: Mapping[str, Any]) -> str:
    return "nonzero"


@dataclass(frozen=True)
class LearnerKind:
    """One way of giving a study's learner: its TOML key, its check, its fit.

    Return instances from the ``spdgraph_learner_kinds`` hook. The study
    does everything around ``fit``: it picks the kind by the entry's keys,
    calls ``check`` when the study is loaded (before any cell runs), gives
    ``fit`` the cell's data and the learner's seed, captures the warnings the
    fit raises, turns an exception into that learner's failed entries (the
    other learners go on), recognises a 0/1 result as a selection, and scores.

    Parameters
    ----------
    name
        Short unique name of the kind (``"r"``, ``"julia"``).
    key
        The entry key that selects this kind and holds the learner's code
        (``r = "..."``, ``julia = "..."``). The built-in kind's key is
        :data:`BUILTIN_KEY` (``name``): it is chosen when no other kind's key
        is in the entry.
    fit
        ``fit(entry, x, labels, seed) -> (estimate, seconds)``: ``entry`` the
        learner's checked TOML table, ``x`` the ``(n, p)`` float data,
        ``labels`` the ``p`` variable names, ``seed`` the learner's
        :class:`numpy.random.SeedSequence` (same cell, same seed). Returns a
        ``(p, p)`` estimate (a selection, edge scores, a precision) or
        ``(k, p, p)`` precision draws, and the fit's own wall seconds. Raise
        on failure: the message (one line) is what the study shows.
    check
        ``check(entry)`` raises :class:`spdgraph.errors.InvalidOptionError`
        for an entry this kind cannot fit (called at load time).
    keys
        The other entry keys this kind accepts (R's ``packages``); every
        entry also accepts ``name``, ``options``, ``rule``, ``cutoff``,
        ``output`` and ``timeout``.
    persistent
        The kind keeps one process per worker (started by the first fit,
        reused by the next ones, ended with the worker), as R's bridge does;
        ``fit`` then reports the time the fit took in that process.
    default_rule
        ``default_rule(entry)``: how edges are selected from the estimate when
        the entry gives no ``rule`` (``"nonzero"``, ``"lfdr"``, ``"threshold"``).
    """

    name: str
    key: str
    fit: Fit
    check: Callable[[Mapping[str, Any]], None] = _no_check
    keys: tuple[str, ...] = ()
    persistent: bool = False
    default_rule: Callable[[Mapping[str, Any]], str] = _nonzero


def check_learner_kind(kind: object, plugin: str, table: PluginTable) -> LearnerKind:
    """``kind`` when it is a :class:`LearnerKind` whose name and key are new, else a PluginError
    naming the plugin (the check of :func:`spdgraph.study.learner_kinds`' table)."""
    if not isinstance(kind, LearnerKind):
        raise PluginError(
            f"plugin {plugin!r} returned {kind!r} from spdgraph_learner_kinds, which is not a "
            "spdgraph.plugins.learners.LearnerKind; return a list of LearnerKind objects."
        )
    if not (isinstance(kind.name, str) and kind.name and isinstance(kind.key, str) and kind.key):
        raise PluginError(f"plugin {plugin!r} returned a learner kind without a name or key.")
    taken = {k.key: (k.name, who) for k, who in table.values()}
    if kind.name in table or kind.key in taken:
        other = table[kind.name][1] if kind.name in table else taken[kind.key][1]
        raise PluginError(
            f"learner kind {kind.name!r} (key {kind.key!r}) is registered twice: by plugin "
            f"{other!r} and by plugin {plugin!r}; rename the kind or its key in your plugin."
        )
    return kind
