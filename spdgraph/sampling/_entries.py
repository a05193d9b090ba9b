"""Entry samplers: what ``sample(entries=..., negative_share=...)`` draws from.

A sampler is a callable ``(rng, shape) -> float64 array`` (:class:`spdgraph.EntrySampler`);
this module turns the user's choice (a name, a frozen :mod:`scipy.stats`
distribution, a callable) into a checked sampler and a provenance label.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, SpdgraphError, written
from spdgraph.plugins.types import EntrySampler, standard_normal_entries

__all__ = ["resolve_entries"]


def resolve_entries(entries: object, negative_share: object = None) -> tuple[EntrySampler, str]:
    """Turn the ``entries`` argument into a validated sampler and a description.

    ``"normal"`` draws N(0, 1), ``"uniform"`` draws U(0, 1) (the paper's
    choice); a callable ``(rng, shape) -> array`` is wrapped so that its output
    is checked for shape and finiteness; a frozen :mod:`scipy.stats`
    distribution (e.g. ``scipy.stats.norm(0, 2)``) is drawn with
    ``dist.rvs(size=shape, random_state=rng)`` and described as
    ``"scipy.stats:norm(0, 2)"``.

    With ``negative_share=s`` (a float in [0, 1]) the sampler first draws the
    values as above, then, from the same generator, one U(0, 1) number ``u``
    per value (same shape, C order), and returns ``-|v|`` where ``u < s`` and
    ``|v|`` elsewhere: each entry is negative with probability ``s``, its
    magnitude distributed as ``|v|``.

    Examples
    --------
    >>> import numpy as np
    >>> from spdgraph.sampling._entries import resolve_entries
    >>> sampler, label = resolve_entries("normal", negative_share=0.0)
    >>> label, bool((sampler(np.random.default_rng(0), (3, 3)) >= 0).all())
    ('normal', True)
    """
    base, label = _resolve_base_entries(entries)
    if negative_share is None:
        return base, label
    share = _check_negative_share(negative_share)

    def signed(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        magnitude = np.abs(base(rng, shape))
        u = rng.random(magnitude.shape)
        return np.where(u < share, -magnitude, magnitude)

    return signed, label


def _check_negative_share(negative_share: object) -> float:
    if (
        isinstance(negative_share, bool)
        or not isinstance(negative_share, numbers.Real)
        or not 0.0 <= float(negative_share) <= 1.0
    ):
        raise InvalidOptionError(
            "negative_share must be None (signs as drawn) or a number in [0, 1] (the "
            f"probability that each entry is negative), got {written(negative_share)}."
        )
    return float(negative_share)


def _frozen_label(dist: Any) -> str:
    name = getattr(getattr(dist, "dist", None), "name", type(dist).__name__)
    parts = [repr(a) for a in getattr(dist, "args", ())]
    parts += [f"{k}={v!r}" for k, v in sorted(getattr(dist, "kwds", {}).items())]
    return f"scipy.stats:{name}({', '.join(parts)})"


def _resolve_base_entries(entries: object) -> tuple[EntrySampler, str]:
    if isinstance(entries, str):
        name = entries.lower()
        if name == "normal":
            return standard_normal_entries, "normal"
        if name == "uniform":
            return (lambda rng, shape: rng.random(shape)), "uniform"
        raise InvalidOptionError(
            f"unknown entries distribution {entries!r}; use 'normal', 'uniform', a frozen "
            "scipy.stats distribution or a callable (rng, shape) -> ndarray."
        )
    if hasattr(entries, "rvs") and hasattr(entries, "freeze") and not hasattr(entries, "dist"):
        name = getattr(entries, "name", "dist")
        raise InvalidOptionError(
            f"entries is the scipy.stats distribution {name!r} itself, not a frozen one; "
            f"freeze it with its parameters, e.g. scipy.stats.{name}() or "
            f"scipy.stats.{name}(loc=0, scale=2)."
        )
    if hasattr(entries, "rvs") and hasattr(entries, "dist") and not isinstance(entries, type):
        # a frozen scipy.stats distribution (duck-typed: scipy.stats is not imported here)
        frozen: Any = entries
        label = _frozen_label(frozen)

        def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
            return frozen.rvs(size=shape, random_state=rng)

        return _checked(draw, label), label
    if callable(entries):
        name = getattr(entries, "__qualname__", None) or type(entries).__name__
        return _checked(entries, name), f"callable:{name}"
    raise InvalidOptionError(
        "entries must be 'normal', 'uniform', a frozen scipy.stats distribution (e.g. "
        "scipy.stats.norm(0, 2)) or a callable (rng, shape) -> ndarray, "
        f"got {type(entries).__name__}."
    )


def _checked(draw: Callable[..., Any], label: str) -> EntrySampler:
    def sampler(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        try:
            raw = draw(rng, shape)
        except SpdgraphError:
            raise
        except Exception as exc:  # the user's callable or distribution: an option's fault
            raise InvalidOptionError(
                f"the entries {label} raised {type(exc).__name__}: {exc}; it must return an "
                "array of real numbers of the shape asked."
            ) from exc
        array = np.asarray(raw)
        if array.dtype.kind not in "biuf":  # strings, complex, objects: never converted silently
            raise InvalidOptionError(
                f"the entries {label} returned values of dtype {array.dtype}; it must return "
                "real numbers (a float array)."
            )
        values = array.astype(np.float64, copy=False)
        if values.shape != tuple(shape):
            raise InvalidOptionError(
                f"the entries {label} returned shape {values.shape} when asked "
                f"for {tuple(shape)}; it must return an array of exactly that shape."
            )
        if not np.all(np.isfinite(values)):
            raise InvalidOptionError(
                f"the entries {label} returned non-finite values; it must return finite numbers."
            )
        return values

    return sampler
