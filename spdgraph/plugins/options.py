"""Declared method options: what a generator accepts, checked by the core before any work.

A generator lists its options in :attr:`spdgraph.Generator.options`, each name
mapped either to an :class:`OptionSpec` (type, range, choices, a check of
its own, a one-line doc) or, as before, to a plain default. The core turns
both into specs (:func:`option_specs`; a plain default's type is inferred
from it) and checks every option a user passes (:func:`check_options`) in
:func:`spdgraph.sampling._request.build_request`, before the graph is adapted, for
built-in and third-party generators alike. A failing check raises
:class:`~spdgraph.errors.InvalidOptionError` naming the option, the method,
the plugin, what is accepted and the value given (as a plain number).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, PluginError, UnknownOptionError, written

__all__ = ["OptionSpec", "check_options", "option_specs"]

#: The option types the core checks itself; any other class is checked with isinstance.
_TYPE_WORDS: dict[type, str] = {
    float: "a number",
    int: "an integer",
    bool: "True or False",
    str: "a string",
}


@dataclass(frozen=True)
class OptionSpec:
    """The declaration of one method option: default, type, range and doc.

    Parameters
    ----------
    default
        The value used when the user does not pass the option (recorded in
        ``attrs["method_options"]``: keep it JSON-serializable). It must pass
        the spec's own checks (checked when the generator registers).
    type
        ``float`` (any real number, not a bool, converted to ``float``),
        ``int`` (an integer, not a bool), ``bool``, ``str``, another class
        (checked with ``isinstance``), or ``None`` (any value).
    low, high
        Bounds of a number; ``None`` for none. Inclusive unless
        ``low_inclusive`` / ``high_inclusive`` are False.
    finite
        For ``type=float``: reject NaN and infinities (default True).
    choices
        The accepted values (e.g. strings), or ``None`` for any.
    allow_none
        Whether ``None`` is accepted (default: when the default is None).
    check
        Optional ``check(value) -> str | None`` run after the checks above:
        a message saying what is wrong, or None when the value is fine.
    doc
        One line describing the option (shown by the plugin guide and errors).

    Examples
    --------
    >>> import spdgraph
    >>> spec = spdgraph.OptionSpec(1.0, float, low=0.0, low_inclusive=False, doc="a scale")
    >>> spec.describe()
    'a number > 0'
    """

    default: Any
    type: type | None = None
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    finite: bool = True
    choices: tuple[Any, ...] | None = None
    allow_none: bool | None = None
    check: Callable[[Any], str | None] | None = None
    doc: str = ""

    def describe(self) -> str:
        """What the option accepts, in words."""
        if self.choices is not None:
            words = "one of " + ", ".join(written(c) for c in self.choices)
        elif self.type is None:
            words = "any value"
        else:
            words = _TYPE_WORDS.get(self.type, f"a {self.type.__name__}")
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>=' if self.low_inclusive else '>'} {self.low:g}")
        if self.high is not None:
            bounds.append(f"{'<=' if self.high_inclusive else '<'} {self.high:g}")
        if bounds:
            words += " " + " and ".join(bounds)
        if self._none_ok():
            words += " (or None)"
        return words

    def _none_ok(self) -> bool:
        return self.default is None if self.allow_none is None else self.allow_none

    def problem(self, value: object) -> tuple[str | None, Any]:
        """``(why, value)``: why ``value`` is refused (None if accepted), and its checked form."""
        if value is None:
            return (None if self._none_ok() else "it may not be None"), value
        if self.choices is not None and not any(_same(value, c) for c in self.choices):
            return "it is not one of the choices", value
        value, wrong_type = _coerce(value, self.type)
        if wrong_type:
            return "it has the wrong type", value
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            bad = self._range_problem(float(value))
            if bad:
                return bad, value
        if self.check is not None:
            return self.check(value), value
        return None, value

    def _range_problem(self, x: float) -> str | None:
        if self.type is float and self.finite and not math.isfinite(x):
            return "it is not finite"
        if self.low is not None and (x < self.low or (x == self.low and not self.low_inclusive)):
            return "it is out of range"
        if self.high is not None and (
            x > self.high or (x == self.high and not self.high_inclusive)
        ):
            return "it is out of range"
        return None


def _same(value: object, choice: object) -> bool:
    try:
        return bool(value == choice) and type(value) is type(choice)
    except (TypeError, ValueError):  # e.g. an array compared with a string
        return False


def _coerce(value: Any, kind: type | None) -> tuple[Any, bool]:
    """``(value in its checked form, whether its type is wrong)``."""
    if kind is None:
        return value, False
    if kind is float:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
        return (float(value) if ok else value), not ok
    if kind is int:
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)
        return (int(value) if ok else value), not ok
    if kind is bool:
        ok = isinstance(value, bool | np.bool_)
        return (bool(value) if ok else value), not ok
    return value, not isinstance(value, kind)


def _inferred(default: object) -> OptionSpec:
    """The spec of a plain default: its type when it is a bool, int, float or str."""
    if isinstance(default, bool):
        return OptionSpec(default, bool)
    if isinstance(default, numbers.Integral):
        return OptionSpec(default, int)
    if isinstance(default, numbers.Real):
        return OptionSpec(default, float, finite=False)
    if isinstance(default, str):
        return OptionSpec(default, str)
    return OptionSpec(default, None, allow_none=True)


def option_specs(options: Mapping[str, Any]) -> dict[str, OptionSpec]:
    """The spec of every option of a generator (plain defaults get an inferred spec).

    Examples
    --------
    >>> specs = option_specs({"alpha": 0.5, "mode": "fast"})
    >>> specs["alpha"].describe(), specs["mode"].describe()
    ('a number', 'a string')
    """
    return {
        name: spec if isinstance(spec, OptionSpec) else _inferred(spec)
        for name, spec in options.items()
    }


def check_declarations(options: Mapping[str, Any], method: str, plugin: str) -> None:
    """At registration: option names are identifiers and declared defaults pass their spec."""
    for name, spec in option_specs(options).items():
        if not isinstance(name, str) or not name.isidentifier():
            raise PluginError(
                f"plugin {plugin!r} declared option {name!r} for method {method!r}; option "
                "names must be Python identifiers (they are keyword arguments)."
            )
        why, _ = spec.problem(spec.default)
        if why is not None:
            raise PluginError(
                f"plugin {plugin!r} declared option {name!r} of method {method!r} with "
                f"default {written(spec.default)}, but {why} (accepted: {spec.describe()}); "
                "fix the declaration."
            )


def _elsewhere(names: list[str], method: str, others: Callable[[], Mapping[str, Any]]) -> str:
    """Which other registered generators declare these options, as a sentence, or ``""``.

    An option of another method (huge's ``v`` without ``method="huge"``)
    usually means a forgotten ``method=``: the message names the method.
    ``others()`` is the generator table (``name -> (GeneratorSpec, plugin)``).
    """
    try:
        table = others()
    except Exception:  # the message must not fail: a broken plugin table says nothing here
        return ""
    hints = []
    for name in names:
        owners = sorted(
            other
            for other, entry in table.items()
            if other != method and name in (getattr(entry[0], "options", None) or {})
        )
        if owners:
            which = " or ".join(f"method={o!r}" for o in owners)
            hints.append(f" {name!r} is an option of {which}: pass {which.split(' or ')[0]}.")
    return "".join(hints)


def check_options(
    options: Mapping[str, Any],
    declared: Mapping[str, Any],
    method: str,
    plugin: str,
    others: Callable[[], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Check the user's options against the declarations; return all options, defaults filled.

    Raises :class:`UnknownOptionError` for a name the method does not accept
    and :class:`InvalidOptionError` for a value its spec refuses; with
    ``others`` (a callable returning the generator table) the first error also
    names the other methods that declare the unknown option.

    Examples
    --------
    >>> from spdgraph.plugins.options import OptionSpec, check_options
    >>> declared = {"tol": OptionSpec(1e-8, float, low=0.0, low_inclusive=False)}
    >>> check_options({}, declared, "m", "p")
    {'tol': 1e-08}
    >>> check_options({"tol": "abc"}, declared, "m", "p")
    Traceback (most recent call last):
    ...
    spdgraph.errors.InvalidOptionError: option tol of method 'm' (plugin 'p') must be a number > 0; got 'abc' (it has the wrong type).
    """  # noqa: E501
    specs = option_specs(declared)
    unknown = sorted(set(options) - set(specs))
    if unknown:
        accepted = ", ".join(sorted(specs)) or "none"
        raise UnknownOptionError(
            f"method {method!r} (plugin {plugin!r}) does not accept option(s) "
            f"{', '.join(map(repr, unknown))}; its options are: {accepted}."
            f"{_elsewhere(unknown, method, others) if others is not None else ''}"
        )
    merged = {name: spec.default for name, spec in specs.items()}  # = GeneratorSpec.defaults
    for name, value in options.items():
        spec = specs[name]
        why, checked = spec.problem(value)
        if why is not None:
            doc = f" ({spec.doc})" if spec.doc else ""
            raise InvalidOptionError(
                f"option {name}{doc} of method {method!r} (plugin {plugin!r}) must be "
                f"{spec.describe()}; got {written(value)} ({why})."
            )
        merged[name] = checked
    return merged
