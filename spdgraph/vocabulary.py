"""One vocabulary per argument: the spellings every entry point accepts, checked in one place.

:func:`spdgraph.sample`, :func:`spdgraph.simulate`, a study's TOML
(:func:`spdgraph.study.load_study`) and every ``spdgraph`` command read a
matrix kind, a graph family name, a count or a probability through the
functions here, so they accept the same spellings and refuse the same ones
with the same message:

- :func:`canonical_kind`: ``"covariance"`` or ``"precision"``, alias
  ``"concentration"``, in any case (:func:`known_kind` the same lookup, None
  for an unknown kind, also over :data:`MATRIX_KIND_ALIASES`);
- :func:`canonical_family`: a name of :data:`spdgraph.graphs.FAMILIES` or an
  alias from R huge / BDgraph (``"random"``, ``"AR(1)"``, ``"smallworld"``,
  ``"scale-free"``...), matched with case, ``-``, ``_``, spaces and parentheses
  ignored (:data:`FAMILY_SPELLINGS` is the one table of names and aliases);
- :func:`check_count`: an integer (not a bool, not a float) in a range;
- :func:`check_probability`: a real number in [0, 1];
- :func:`check_positive`: a finite real number > 0;
- :func:`check_choice`: one of a few names (a criterion, a mode);
- :func:`import_path`: ``"package.module:name"``, the spelling of a learner, a
  metric or any object a study names by its import path.

Generator method names have one resolver too,
:func:`spdgraph.plugins.find_generator` (case-insensitive), which every entry
point calls. This module is on the ground floor: it imports nothing of
spdgraph but :mod:`spdgraph.errors`.
"""

from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Mapping
from typing import Any

from spdgraph.errors import InvalidOptionError, TooLargeError, written

__all__ = [
    "FAMILY_ALIASES",
    "FAMILY_NAMES",
    "FAMILY_SPELLINGS",
    "KINDS",
    "KIND_ALIASES",
    "MATRIX_KIND_ALIASES",
    "MAX_COUNT",
    "canonical_family",
    "canonical_kind",
    "check_choice",
    "check_count",
    "check_positive",
    "check_probability",
    "family_key",
    "import_path",
    "known_kind",
]

#: The two kinds of matrix spdgraph samples.
KINDS: tuple[str, ...] = ("covariance", "precision")

#: Every accepted spelling of a kind (lower case) -> the kind.
KIND_ALIASES: Mapping[str, str] = {
    "covariance": "covariance",
    "precision": "precision",
    "concentration": "precision",
}

#: Every kind an spdgraph matrix can carry (``attrs["kind"]``), with aliases.
MATRIX_KIND_ALIASES: Mapping[str, str] = {
    **KIND_ALIASES,
    "correlation": "correlation",
    "partial_correlation": "partial_correlation",
}

#: Each graph family of :data:`spdgraph.graphs.FAMILIES` (the builders' table; a test keeps
#: the two equal) -> its other names, R huge's and BDgraph's spellings.
FAMILY_SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "ar1": ("AR(1)",),
    "ar2": ("AR(2)",),
    "band": (),
    "circle": (),
    "cluster": (),
    "erdos_renyi": ("random",),
    "hub": (),
    "lattice": (),
    "scale_free": ("scale-free",),
    "small_world": ("smallworld",),
    "star": (),
}

#: The graph families' names.
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILY_SPELLINGS)

#: Other names of a family (R huge's and BDgraph's spellings) -> the family.
FAMILY_ALIASES: Mapping[str, str] = {
    alias: name for name, aliases in FAMILY_SPELLINGS.items() for alias in aliases
}

#: Largest count (nodes, groups, band width, repeats...) any entry point takes:
#: beyond it no machine holds the result, and floats stop counting exactly (2**53).
MAX_COUNT = 2**53


def family_key(name: str) -> str:
    """``name`` with case, ``-``, ``_``, spaces and parentheses ignored (how names match)."""
    return "".join(c for c in name.lower() if c.isalnum())


_FAMILY_LOOKUP: dict[str, str] = {
    **{family_key(k): v for k, v in FAMILY_ALIASES.items()},
    **{family_key(k): k for k in FAMILY_NAMES},
}


def known_kind(value: object, aliases: Mapping[str, str] = KIND_ALIASES) -> str | None:
    """The kind ``value`` names (any case) in ``aliases``, or None when it names none.

    Examples
    --------
    >>> from spdgraph.vocabulary import MATRIX_KIND_ALIASES, known_kind
    >>> known_kind("Concentration"), known_kind("banana"), known_kind(3)
    ('precision', None, None)
    >>> known_kind("correlation"), known_kind("correlation", MATRIX_KIND_ALIASES)
    (None, 'correlation')
    """
    return aliases.get(value.lower()) if isinstance(value, str) else None


def canonical_kind(value: object, name: str = "kind") -> str:
    """The kind ``value`` names: ``"covariance"`` or ``"precision"`` (:func:`known_kind`).

    Raises
    ------
    InvalidOptionError
        ``value`` is not a string naming a kind.

    Examples
    --------
    >>> from spdgraph.vocabulary import canonical_kind
    >>> canonical_kind("Concentration"), canonical_kind("COVARIANCE")
    ('precision', 'covariance')
    """
    kind = known_kind(value)
    if kind is not None:
        return kind
    raise InvalidOptionError(
        f"{name} must be 'covariance' or 'precision' (alias 'concentration'; any case), "
        f"got {written(value)}."
    )


def canonical_family(value: object) -> str:
    """The :data:`spdgraph.graphs.FAMILIES` name of a family name or alias.

    Raises
    ------
    InvalidOptionError
        ``value`` names no family; the message lists the families and aliases.

    Examples
    --------
    >>> from spdgraph.vocabulary import canonical_family
    >>> canonical_family("AR(1)"), canonical_family("Small-World"), canonical_family("random")
    ('ar1', 'small_world', 'erdos_renyi')
    """
    if isinstance(value, str) and family_key(value) in _FAMILY_LOOKUP:
        return _FAMILY_LOOKUP[family_key(value)]
    aliases = ", ".join(f"{k!r} ({v})" for k, v in FAMILY_ALIASES.items())
    raise InvalidOptionError(
        f"unknown graph family {written(value)}; known families: {', '.join(FAMILY_NAMES)}; "
        f"aliases: {aliases} (case, '-', '_' and parentheses are ignored), or pass a graph."
    )


def check_count(value: object, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``, else an InvalidOptionError saying so.

    A bool, a float (even ``5.0``) or a string is refused. A count beyond
    :data:`MAX_COUNT` is a :class:`~spdgraph.errors.TooLargeError`, decided on
    the integer before any float arithmetic, so that ``10**400`` is refused at
    once and never overflows.

    Examples
    --------
    >>> from spdgraph.vocabulary import check_count
    >>> check_count(5, "p")
    5
    >>> check_count(0, "repeats")
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: repeats must be an integer >= 1, got 0.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = int(value)
        if n >= low and (high is None or n <= high):
            if n > MAX_COUNT:
                raise TooLargeError(
                    f"{name} = {written(n)} is beyond what any machine can build (at most "
                    f"2**53 = {MAX_COUNT:,}, and memory allows far fewer); use a smaller {name}."
                )
            return n
    upper = "" if high is None else f" and <= {written(high)}"
    raise InvalidOptionError(f"{name} must be an integer >= {low}{upper}, got {written(value)}.")


def _real(value: object) -> float:
    """``value`` as a float; nan for a bool, a string or a number no float holds (10**400)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            return float(value)
        except (OverflowError, ValueError):
            pass
    return math.nan


def check_probability(value: object, name: str) -> float:
    """``value`` as a float in [0, 1], else an InvalidOptionError saying so.

    Examples
    --------
    >>> from spdgraph.vocabulary import check_probability
    >>> check_probability(0.25, "d"), check_probability(1, "d")  # a float, always
    (0.25, 1.0)
    """
    q = _real(value)
    if 0.0 <= q <= 1.0:
        return q
    raise InvalidOptionError(f"{name} must be a probability in [0, 1], got {written(value)}.")


def check_positive(value: object, name: str) -> float:
    """``value`` as a float, finite and > 0, else an InvalidOptionError saying so.

    Examples
    --------
    >>> from spdgraph.vocabulary import check_positive
    >>> check_positive(3, "df")
    3.0
    >>> check_positive(float("inf"), "df")
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: df must be a positive finite number, got inf.
    """
    x = _real(value)
    if 0.0 < x < math.inf:
        return x
    raise InvalidOptionError(f"{name} must be a positive finite number, got {written(value)}.")


def check_choice(value: object, name: str, choices: tuple[str, ...] | list[str]) -> str:
    """``value`` when it is one of ``choices``, else an InvalidOptionError listing them.

    Examples
    --------
    >>> from spdgraph.vocabulary import check_choice
    >>> check_choice("cv", "criterion", ("stars", "cv", "ebic"))
    'cv'
    >>> check_choice("aic", "rule", ("cv", "ebic"))
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: rule must be one of ['cv', 'ebic'], got 'aic'.
    """
    if isinstance(value, str) and value in choices:
        return value
    raise InvalidOptionError(f"{name} must be one of {list(choices)}, got {written(value)}.")


def import_path(spec: str, what: str = "") -> Any:
    """The object ``"package.module:name"`` names (``name`` may be dotted: ``Class.method``).

    ``what`` names the kind of object in the messages (``"metric"``, ...). A
    spec without both a module and a name, a module that does not import and a
    missing attribute are :class:`~spdgraph.errors.InvalidOptionError`.

    Examples
    --------
    >>> from spdgraph.vocabulary import import_path
    >>> import_path("math:sqrt")(9.0)
    3.0
    """
    named = f"{what} " if what else ""
    module, sep, attr = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not (sep and module and attr):
        raise InvalidOptionError(f"expected 'package.module:name', got {written(spec)}.")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise InvalidOptionError(
            f"cannot import {named}{spec!r} ({exc}); is the module installed / on PYTHONPATH?"
        ) from None
    return obj
