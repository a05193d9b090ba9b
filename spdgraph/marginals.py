"""Marginals for :meth:`da.spd.draw <spdgraph.accessor.SpdAccessor.draw>`: beyond Gaussian data.

``draw(n, marginals=...)`` accepts, per node or for all nodes, ``"gaussian"``
(the latent values), ``"standardized"`` (the latent values at unit variance),
``"binary"``, a frozen :mod:`scipy.stats` distribution (Gaussian copula with
that marginal; discrete distributions give counts) or an :class:`Ordinal`.
:func:`parse_marginal` reads a marginal written as text (``"t(df=5)"``), the
one reader of ``spdgraph draw --marginals`` and ``spdgraph.simulate(data=...)``.

>>> import networkx as nx, numpy as np, spdgraph
>>> from spdgraph.marginals import Ordinal
>>> cov = spdgraph.sample(nx.path_graph(4), seed=0)
>>> x = cov.spd.draw(1000, seed=1, marginals=Ordinal(n_categories=3), missing=0.1)
>>> sorted(set(x.values[~np.isnan(x.values)].tolist()))
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import ast
import math

from spdgraph.accessor._marginal_draws import MAX_CATEGORIES, MAX_SPEC_CHARS, SHORTCUTS, Ordinal
from spdgraph.errors import InvalidOptionError

__all__ = ["MARGINAL_NAMES", "MAX_CATEGORIES", "MAX_SPEC_CHARS", "SHORTCUTS", "Ordinal",
           "parse_marginal"]  # fmt: skip

#: Marginals written as a bare name: the draw's shortcuts and ``normal`` (``gaussian``).
MARGINAL_NAMES: tuple[str, ...] = ("gaussian", "normal", "standardized", "binary")


def _unreadable(text: str, why: str, also: str) -> InvalidOptionError:
    return InvalidOptionError(
        f"cannot read the marginal {text[:40]!r} ({why}); a marginal is one of "
        f"{list(MARGINAL_NAMES)} or a call with literal arguments such as 't(df=5)', "
        f"'poisson(3)' or 'ordinal(n_categories=3)'{also}."
    )


def _parse(text: str, also: str) -> ast.Call | str:
    """The text's call (or the name it is), every reading failure refused alike."""
    if len(text) > MAX_SPEC_CHARS:
        raise InvalidOptionError(
            f"the marginal {text[:30]!r}... has {len(text):,} characters; a marginal is written "
            f"in at most {MAX_SPEC_CHARS:,}, such as t(df=5) or ordinal(n_categories=3)."
        )
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise _unreadable(text, exc.msg, also) from None
    except (RecursionError, MemoryError):
        raise _unreadable(text, "it nests too deep", also) from None
    if isinstance(node, ast.Name):
        if node.id in MARGINAL_NAMES:
            return node.id
        raise _unreadable(text, f"{node.id!r} names no marginal", also)
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise _unreadable(text, "neither a name nor a call", also)
    return node


def parse_marginal(text: str, *, also: str = "") -> object:
    """A marginal from its text: a name, ``ordinal(...)`` or a scipy.stats call with literals.

    The one reader of a marginal written as text (``spdgraph draw
    --marginals/--marginal``, :func:`spdgraph.simulate`'s ``data``), with one
    set of checks: at most :data:`MAX_SPEC_CHARS` characters, literal
    arguments only (nothing is evaluated), an ordinal's categories checked
    by :class:`Ordinal`, a distribution that builds and has a quantile
    function. ``also`` ends the message of an unreadable text (what else the
    caller accepts).

    Raises
    ------
    InvalidOptionError
        The text is no marginal; the message says why and what is.

    Examples
    --------
    >>> from spdgraph.marginals import parse_marginal
    >>> parse_marginal("poisson(3)").mean()
    np.float64(3.0)
    >>> parse_marginal("ordinal(n_categories=2)").cuts
    (0.0,)
    >>> parse_marginal("binary")
    'binary'
    """
    from scipy import stats

    node = _parse(text, also)
    if isinstance(node, str):
        return node
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise _unreadable(text, "its arguments are not Python literals", also) from None
    name = node.func.id  # type: ignore[attr-defined]  # _parse keeps calls of a name only
    if name == "ordinal":
        try:
            return Ordinal(*args, **kwargs)
        except TypeError as exc:
            raise InvalidOptionError(
                f"{text!r}: {exc}; ordinal takes cuts=, n_categories= or probabilities=."
            ) from None
    dist = getattr(stats, name, None)
    if not isinstance(dist, stats.rv_continuous | stats.rv_discrete):
        raise _unreadable(text, f"{name!r} is not a scipy.stats distribution", also)
    try:
        frozen = dist(*args, **kwargs)
        median = float(frozen.ppf(0.5))
    except (TypeError, ValueError) as exc:
        raise InvalidOptionError(f"cannot build the marginal {text!r} ({exc}).") from None
    if not math.isfinite(median):  # scipy answers nan for parameters out of range
        raise InvalidOptionError(
            f"cannot build the marginal {text!r} (its quantiles are not finite: a parameter "
            "is out of its range)."
        )
    return frozen
