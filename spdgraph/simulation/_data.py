"""The ``data`` argument of :func:`spdgraph.simulate`: BDgraph's data types and any marginal.

``data`` is a name (BDgraph's ``type`` or a marginal written as on the
command line, ``"t(df=5)"``, ``"poisson(3)"``, ``"ordinal(n_categories=3)"``)
or anything ``da.spd.draw(marginals=...)`` takes (a frozen scipy.stats
distribution, an :class:`~spdgraph.marginals.Ordinal`, one spec per node, a
mapping node -> spec). Every non-Gaussian type is a Gaussian copula on the
latent Gaussian whose precision is the truth.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from spdgraph.errors import InvalidOptionError, written
from spdgraph.marginals import parse_marginal
from spdgraph.vocabulary import check_positive

__all__ = ["DATA_TYPES", "data_marginals", "describe_data"]

#: BDgraph ``type`` names (and huge's nonparanormal) and what they draw.
DATA_TYPES: dict[str, str] = {
    "gaussian": "multivariate normal (huge.generator, bdgraph.sim type = 'Gaussian')",
    "non-gaussian": "Gaussian copula with exponential marginals (bdgraph.sim 'non-Gaussian')",
    "nonparanormal": "Gaussian copula with lognormal marginals (huge.npn's model)",
    "binary": "the latent Gaussian cut at 0 (bdgraph.sim 'binary')",
    "categorical": "ordinal with `cut` equally probable categories (bdgraph.sim 'categorical')",
    "ordinal": "as 'categorical'",
    "count": "Poisson counts with mean `mean_count` (bdgraph.sim's counts are discrete Weibull)",
    "t": "Gaussian copula with Student t marginals, `df` degrees of freedom",
    "mixed": (
        "columns cycle through Gaussian (standardized to unit variance), exponential, "
        "Poisson, ordinal, binary"
    ),
}

_DATA_OPTIONS = {"cut": 4, "df": 3.0, "mean_count": 3.0}


def _categories(cut: object) -> int:
    """The ``cut`` option: a whole number of categories, 2 .. MAX_CATEGORIES."""
    from spdgraph.marginals import MAX_CATEGORIES

    whole = isinstance(cut, numbers.Integral) or (
        isinstance(cut, float) and math.isfinite(cut) and cut.is_integer()
    )
    if isinstance(cut, bool) or not whole or not 2 <= int(cut) <= MAX_CATEGORIES:  # type: ignore[call-overload]
        raise InvalidOptionError(
            f"cut (the number of categories) must be a whole number from 2 to "
            f"{MAX_CATEGORIES:,}, got {written(cut)}; e.g. cut=4."
        )
    return int(cut)  # type: ignore[call-overload]


def _named(name: str, p: int, options: dict[str, Any]) -> object:
    from scipy import stats

    from spdgraph.marginals import Ordinal

    cut, df, mean = options["cut"], options["df"], options["mean_count"]
    if name in ("categorical", "ordinal", "mixed"):
        cut = _categories(cut)
    if name in ("t", "mixed", "count"):
        df, mean = check_positive(df, "df"), check_positive(mean, "mean_count")
    if name == "gaussian":
        return None
    if name == "non-gaussian":
        return stats.expon()
    if name == "nonparanormal":
        return stats.lognorm(1.0)
    if name == "binary":
        return "binary"
    if name in ("categorical", "ordinal"):
        return Ordinal(n_categories=int(cut))
    if name == "count":
        return stats.poisson(mean)
    if name == "t":
        return stats.t(df=df)
    # the Gaussian columns standardized, like every other marginal (and bdgraph.sim's)
    cycle = ["standardized", stats.expon(), stats.poisson(mean), Ordinal(n_categories=int(cut))]
    cycle.append("binary")
    return [cycle[j % len(cycle)] for j in range(p)]  # mixed


def data_marginals(data: object, p: int, options: dict[str, Any]) -> tuple[object, dict]:
    """``(marginals for draw, the data options used)``; pops the data options it knows."""
    used = {k: options.pop(k, v) for k, v in _DATA_OPTIONS.items()}
    if isinstance(data, str):
        name = data.strip().lower().replace("_", "-")
        if name in DATA_TYPES:
            return _named(name, p, used), used
        return parse_marginal(data, also=f", or a data type of {sorted(DATA_TYPES)}"), used
    if data is None:
        return None, used
    if isinstance(data, Mapping | Sequence) or hasattr(data, "ppf") or hasattr(data, "cuts"):
        return data, used
    raise InvalidOptionError(
        f"data must be a data type name {sorted(DATA_TYPES)}, a marginal spec or "
        f"what da.spd.draw(marginals=...) takes, got {written(data)}."
    )


def describe_data(data: object) -> str:
    """A short serializable description of ``data`` for the provenance attrs."""
    if data is None or isinstance(data, str):
        return str(data or "gaussian")
    dist = getattr(data, "dist", None)
    if dist is not None:
        return f"{dist.name}{tuple(getattr(data, 'args', ()))}"
    return type(data).__name__
