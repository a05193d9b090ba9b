"""The one table of :func:`spdgraph.sample`'s parameters, and their checks.

Each :class:`Parameter` says once what a ``sample()`` argument is: its name,
default, constraint (:class:`Boolean`, :class:`Interval`, :class:`StrOptions`
or :class:`Custom`, as scikit-learn's ``validate_params`` declares them), what
``None`` means when it is allowed, and a one-line doc. Everything reads it:

* ``spdgraph.sample`` (``sampling/_request.py``'s ``build_request``, the one place
  a call's arguments are checked, whatever the layout: dense, stacked, lazy or
  sparse) through :func:`check_sample_arguments`;
* the command line: ``spdgraph sample`` and ``spdgraph simulate`` build their
  ``--name`` arguments from it (``cli/_options.py``), so ``--max-redraws -1`` is
  refused with the message ``sample(max_redraws=-1)`` gets;
* a study's TOML: :func:`check_sample_arguments` checks the ``sample`` table of
  a study before any work.

The same bad value gets the same message from every door:
``"<name> must be <constraint> (<doc>), got <value>."``. Adding a ``sample()``
option is one row here, the code that uses it (reading
``request.arguments[name]``) and its test (docs/architecture.md, "Add a
``sample()`` option"). This module imports only the ground floor, so that
``spdgraph --help`` builds its arguments without the sampling code.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spdgraph.errors import InvalidOptionError, TooLargeError, UnknownOptionError, written
from spdgraph.vocabulary import MAX_COUNT, canonical_kind

__all__ = [
    "SAMPLE_PARAMETERS",
    "Boolean",
    "Custom",
    "Interval",
    "Parameter",
    "StrOptions",
    "check_sample_arguments",
    "sample_defaults",
]


def _is_bool(value: object) -> bool:
    """A Python or NumPy boolean (``np.True_``), without importing NumPy."""
    return isinstance(value, bool) or (
        type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    )


class Refused(ValueError):
    """A value outside its constraint (the parameter's message is made from it)."""


@dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (NumPy booleans too)."""

    def describe(self) -> str:
        return "True or False"

    def check(self, value: object) -> bool:
        if not _is_bool(value):
            raise Refused
        return bool(value)


@dataclass(frozen=True)
class Interval:
    """A number of ``type`` (``int`` or ``float``) between ``low`` and ``high``.

    ``closed`` says which ends belong (``"both"``, ``"left"``, ``"right"``,
    ``"neither"``). ``memory=True``: a count of things held in memory, so an
    integer beyond 2**53 is a :class:`TooLargeError` (else refused as any value
    outside the interval).
    """

    type: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    memory: bool = False

    def describe(self) -> str:
        what = "an integer" if self.type is int else "a number"
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            if self.type is int and low_in and high_in:
                return f"{what} from {self.low:,} to {self.high:,}"
            left, right = "[" if low_in else "(", "]" if high_in else ")"
            return f"{what} in {left}{self.low}, {self.high}{right}"
        if self.low is not None:
            return f"{what} {'>=' if low_in else '>'} {self.low}"
        if self.high is not None:
            return f"{what} {'<=' if high_in else '<'} {self.high}"
        return what

    def check(self, value: object) -> int | float:
        if _is_bool(value) or not isinstance(value, numbers.Real):
            raise Refused
        number: int | float
        if self.type is int:
            if not isinstance(value, numbers.Integral):
                raise Refused
            number = int(value)
            if number > MAX_COUNT and not self.memory:  # decided on the integer
                raise Refused
        else:
            try:
                number = float(value)
            except (OverflowError, ValueError):
                raise Refused from None
            if number != number or number in (float("inf"), float("-inf")):
                raise Refused
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and (number < self.low or (number == self.low and not low_in)):
            raise Refused
        if self.high is not None and (number > self.high or (number == self.high and not high_in)):
            raise Refused
        return number


@dataclass(frozen=True)
class StrOptions:
    """One of ``choices``; ``aliases`` maps other spellings onto a choice."""

    choices: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        names = ", ".join(map(repr, self.choices))
        alias = ", ".join(f"{a!r} for {c!r}" for a, c in self.aliases.items())
        return f"one of {names}" + (f" (alias {alias})" if alias else "")

    def check(self, value: object) -> str:
        if isinstance(value, str) and value in self.choices:
            return value
        if isinstance(value, str) and value in self.aliases:
            return self.aliases[value]
        raise Refused


@dataclass(frozen=True)
class Custom:
    """A value only a function can check: ``check`` returns it canonical or raises a
    spdgraph error with its own message. ``check=None``: the code that uses the
    value checks it (a seed, an explicit factor, an entry distribution need NumPy
    or SciPy, which this table does not import)."""

    description: str
    check: Callable[[object], Any] | None = None

    def describe(self) -> str:
        return self.description


Constraint = Boolean | Interval | StrOptions | Custom


@dataclass(frozen=True)
class Parameter:
    """One ``sample()`` parameter: ``name``, ``default``, ``constraint``, ``doc``.

    ``none`` is what ``None`` means when it is allowed (``None``: it is not);
    ``cli=False`` leaves the command line's argument to its command (a file for
    ``factor``, a seed, the command's own progress switch); ``to_generator=True``
    hands the checked value to the generator as a keyword argument (with the
    method's options, ``SampleRequest.generator_arguments``).
    """

    name: str
    default: object
    constraint: Constraint
    doc: str
    none: str | None = None
    cli: bool = True
    to_generator: bool = False

    def describe(self) -> str:
        """What the value may be, as the messages and ``--help`` say it."""
        head = f"None ({self.none}) or " if self.none is not None else ""
        return head + self.constraint.describe()

    def message(self, value: object) -> str:
        """The refusal of ``value``, the same from every door (API, CLI, study)."""
        return f"{self.name} must be {self.describe()} ({self.doc}), got {written(value)}."

    def check(self, value: object) -> Any:
        """``value`` checked and canonical, or an InvalidOptionError (:meth:`message`)."""
        if value is None and self.none is not None:
            return None
        if isinstance(self.constraint, Custom):
            return value if self.constraint.check is None else self.constraint.check(value)
        try:
            checked = self.constraint.check(value)
        except Refused:
            raise InvalidOptionError(self.message(value)) from None
        if isinstance(self.constraint, Interval) and self.constraint.memory:
            if (
                isinstance(checked, int) and checked > MAX_COUNT
            ):  # decided on the integer: 10**400 never overflows
                raise TooLargeError(
                    f"{self.name} = {written(value)} is beyond any machine's memory (at most "
                    f"2**53); use a smaller {self.name}."
                )
        return checked


def _parameters(*rows: Parameter) -> dict[str, Parameter]:
    return {row.name: row for row in rows}


#: ``sample()``'s parameters in the order they are checked (every layout alike).
SAMPLE_PARAMETERS: dict[str, Parameter] = _parameters(
    Parameter("sparse", False, Boolean(), "a sparse result, never a dense p x p array"),
    Parameter(
        "certificate", "any", StrOptions(("any", "deterministic")),
        "'deterministic' refuses the randomized proof of positive definiteness that "
        "sparse=True may fall back on",
    ),
    Parameter("portable", False, Boolean(), "identical bits on every machine"),
    Parameter(
        "progress", None, Boolean(), "a progress bar on stderr", none="automatic", cli=False
    ),
    Parameter(
        "kind", "covariance",
        Custom("'covariance' or 'precision' (alias 'concentration')", canonical_kind),
        "which matrix has the graph's zeros",
    ),
    Parameter(
        "size", None, Interval(int, 0, memory=True), "matrices in a stack", none="one matrix"
    ),
    Parameter(
        "uncertified", "redraw", StrOptions(("redraw", "raise")),
        "what a matrix failing its certificate gets: drawn again from its own stream, "
        "or an error",
    ),
    Parameter(
        "max_redraws", 20, Interval(int, 0, 10**6),
        "redraws of one matrix before the graph is declared uncertifiable",
    ),
    Parameter("normalize", True, Boolean(), "rescale to unit diagonal"),
    Parameter(
        "chunks", None, Interval(int, 1), "matrices per dask chunk", none="an in-memory result"
    ),
    Parameter(
        "min_eigenvalue", None, Interval(float, 0, closed="neither"),
        "target smallest eigenvalue of every matrix", none="no target",
    ),
    Parameter(
        "condition_number", None, Interval(float, 1, closed="neither"),
        "target condition number of every matrix", none="no target",
    ),
    Parameter(
        "negative_share", None, Interval(float, 0, 1),
        "probability that a random entry is made negative", none="the signs as drawn",
    ),
    Parameter(
        "entries", "normal",
        Custom("'normal', 'uniform', a frozen scipy.stats distribution or a callable "
               "(rng, shape) -> array"),
        "distribution of the random entries", cli=False,
    ),
    Parameter(
        "complete", False, Boolean(),
        "take a dense weighted array as the complete graph it encodes",
    ),
    Parameter(
        "seed", None,
        Custom("an int >= 0, a numpy Generator or SeedSequence"),
        "the root of every random stream", none="fresh entropy", cli=False,
    ),
    Parameter(
        "factor", None, Custom("a (p, p) or (size, p, p) real array"),
        "explicit initial factor(s), no random draw", none="random draws", cli=False,
    ),
)  # fmt: skip


def sample_defaults() -> dict[str, object]:
    """Every ``sample()`` parameter of the table and its default."""
    return {name: row.default for name, row in SAMPLE_PARAMETERS.items()}


def check_sample_arguments(arguments: Mapping[str, object]) -> dict[str, Any]:
    """``sample()``'s arguments checked against :data:`SAMPLE_PARAMETERS`, defaults added.

    The one check of ``spdgraph.sample``'s own arguments (its ``build_request``
    calls it first, for every layout), of the command line's and of a study's
    ``sample`` table. Values the table leaves to the code that uses them
    (``seed``, ``factor``, ``entries``) are passed on unchanged; method options
    are not ``sample()`` parameters (split them off first: ``name in
    SAMPLE_PARAMETERS``).

    Raises
    ------
    UnknownOptionError
        A name the table does not know.
    InvalidOptionError, TooLargeError
        A value outside its constraint: ``"<name> must be ... (<doc>), got <value>."``.

    Examples
    --------
    >>> from spdgraph.parameters import check_sample_arguments
    >>> checked = check_sample_arguments({"size": 3, "kind": "Concentration"})
    >>> checked["size"], checked["kind"], checked["normalize"]
    (3, 'precision', True)
    >>> check_sample_arguments({"max_redraws": -1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: max_redraws must be an integer from 0 to 1,000,000 ...
    """
    unknown = sorted(set(arguments) - set(SAMPLE_PARAMETERS))
    if unknown:
        raise UnknownOptionError(
            f"{unknown[0]!r} is not a parameter of spdgraph.sample; its parameters are "
            f"{', '.join(SAMPLE_PARAMETERS)} (a method's options go to the method)."
        )
    return {
        name: row.check(arguments[name]) if name in arguments else row.default
        for name, row in SAMPLE_PARAMETERS.items()
    }
