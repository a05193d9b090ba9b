"""Data beyond the Gaussian: a Gaussian copula with given marginals, discretization, MCAR.

The latent data are the Gaussian draws ``draw`` makes anyway (same streams,
same bits); each node's column is standardized by its population standard
deviation and mapped through the node's marginal: ``x_j = F_j^{-1}(Phi(z_j))``
for a scipy.stats distribution (continuous: a nonparanormal/Gaussian-copula
variable; discrete: Poisson, negative binomial, Bernoulli counts) or a cut of
the latent scale for :class:`Ordinal` (binary and ordinal data, as in
bdgraph.sim). Every map is non-decreasing, so the graph of the latent Gaussian
is the conditional independence graph of the latent variables, not of the
observed ones. Missing values (NaN) are placed completely at random from their
own stream.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from spdgraph.errors import InvalidOptionError
from spdgraph.vocabulary import check_count

__all__ = [
    "NodeMarginal",
    "Ordinal",
    "apply_missing",
    "check_missing",
    "marginal_attrs",
    "resolve",
    "transform",
]

#: String shortcuts accepted as a marginal: the latent Gaussian as drawn, the latent
#: Gaussian scaled to unit variance, and the latent Gaussian cut at 0.
SHORTCUTS = ("gaussian", "standardized", "binary")


#: Most categories of an :class:`Ordinal` marginal (its cut points are held in memory).
MAX_CATEGORIES = 10_000
#: Longest text accepted as a marginal (``"t(df=5)"``, ``--marginals``, ``data=``).
MAX_SPEC_CHARS = 1_000


def _check_length(values: object, name: str) -> None:
    try:
        length = len(values)  # type: ignore[arg-type]
    except TypeError:
        return  # a scalar: checked below
    if length >= MAX_CATEGORIES:
        raise InvalidOptionError(
            f"{name} lists {length:,} values; an ordinal marginal has at most "
            f"{MAX_CATEGORIES:,} categories."
        )


@dataclass(frozen=True)
class Ordinal:
    """Ordinal (or binary) data: the standardized latent value cut into categories.

    A node with cut points ``c_1 < ... < c_{k-1}`` takes the value ``m`` (an
    integer in ``0 .. k-1``) when ``c_m <= z < c_{m+1}``, ``z`` its latent
    standard normal value. Give the cut points, or a number of categories
    (equally probable categories: ``c_m = Phi^{-1}(m / k)``), or the category
    probabilities.

    Parameters
    ----------
    cuts
        Strictly increasing finite cut points on the standard normal scale.
    n_categories
        Number of equally probable categories (>= 2), instead of ``cuts``.
    probabilities
        Category probabilities (positive, summing to 1), instead of ``cuts``.

    Examples
    --------
    >>> from spdgraph.marginals import Ordinal
    >>> Ordinal(n_categories=4).cuts
    (-0.6744897501960817, 0.0, 0.6744897501960817)
    >>> Ordinal(probabilities=[0.5, 0.5]).describe()
    'ordinal(cuts=[0])'
    """

    cuts: tuple[float, ...] = ()
    n_categories: int | None = None
    probabilities: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        given = sum(
            x is not None and x != () for x in (self.cuts, self.n_categories, self.probabilities)
        )
        if given != 1:
            raise InvalidOptionError(
                "Ordinal needs exactly one of cuts=[...], n_categories=k or probabilities=[...]."
            )
        if self.n_categories is not None:
            k = check_count(self.n_categories, "n_categories", low=2)
            if k > MAX_CATEGORIES:
                raise InvalidOptionError(
                    f"n_categories={k:,} is more than the {MAX_CATEGORIES:,} categories an "
                    "ordinal marginal may have; use a continuous marginal (e.g. 'gaussian' "
                    "or a scipy.stats distribution) for so many levels."
                )
            cuts = special.ndtri(np.arange(1, k) / k)
        elif self.probabilities is not None:
            _check_length(self.probabilities, "probabilities")
            probs = np.asarray(self.probabilities, dtype=float)
            if probs.ndim != 1 or probs.size < 2 or (probs <= 0).any():
                raise InvalidOptionError(
                    "probabilities must list at least two positive category probabilities."
                )
            if abs(probs.sum() - 1.0) > 1e-9:
                raise InvalidOptionError(f"probabilities must sum to 1, got {probs.sum()}.")
            cuts = special.ndtri(np.cumsum(probs)[:-1])
        else:
            _check_length(self.cuts, "cuts")
            cuts = np.asarray(self.cuts, dtype=float)
        cuts = np.atleast_1d(np.asarray(cuts, dtype=float))
        if cuts.ndim != 1 or not np.isfinite(cuts).all() or (np.diff(cuts) <= 0).any():
            raise InvalidOptionError(
                f"cut points must be finite and strictly increasing, got {cuts.tolist()}."
            )
        object.__setattr__(self, "cuts", tuple(float(c) for c in cuts))
        object.__setattr__(self, "n_categories", None)
        object.__setattr__(self, "probabilities", None)

    def transform(self, z: np.ndarray) -> np.ndarray:
        """Category (as float) of standardized latent values ``z``."""
        return np.searchsorted(np.asarray(self.cuts), z, side="right").astype(np.float64)

    def describe(self) -> str:
        """A short text for the ``marginals`` attribute."""
        return "ordinal(cuts=[" + ", ".join(f"{c:.6g}" for c in self.cuts) + "])"

    @property
    def data_type(self) -> str:
        """``"binary"`` for one cut point, else ``"ordinal"``."""
        return "binary" if len(self.cuts) == 1 else "ordinal"


@dataclass(frozen=True)
class NodeMarginal:
    """One node's marginal, resolved: a scipy.stats distribution, an Ordinal, or Gaussian."""

    spec: Any  # None (the latent Gaussian itself), "standardized", an Ordinal or a scipy dist
    text: str
    data_type: str

    def transform(self, latent: np.ndarray, sd: float) -> np.ndarray:
        """Observed values of one node from its latent Gaussian column (std ``sd``)."""
        if self.spec is None:
            return latent
        z = latent / sd
        if isinstance(self.spec, str):  # "standardized": unit variance, like every copula
            return z
        if isinstance(self.spec, Ordinal):
            return self.spec.transform(z)
        # upper tail through isf, so that large z do not round to u = 1 (ppf(1) = inf)
        out = np.empty_like(z)
        low = z <= 0
        out[low] = self.spec.ppf(special.ndtr(z[low]))
        out[~low] = self.spec.isf(special.ndtr(-z[~low]))
        return out.astype(np.float64)


def _describe_scipy(dist: Any) -> str:
    name = dist.dist.name
    parts = [f"{a:.6g}" if isinstance(a, float) else repr(a) for a in dist.args]
    parts += [
        f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v!r}"
        for k, v in sorted(dist.kwds.items())
    ]
    return f"{name}({', '.join(parts)})"


def _check_parameters(dist: Any, text: str, where: str) -> None:
    """Refuse a frozen distribution whose parameters scipy rejects (it would give NaN)."""
    try:
        with np.errstate(all="ignore"):
            quartiles = np.asarray(dist.ppf([0.25, 0.5, 0.75]), dtype=np.float64)
    except Exception as exc:  # scipy raised on the parameters themselves
        raise InvalidOptionError(
            f"marginal {where} is {text}, whose parameters scipy.stats refuses ({exc})."
        ) from None
    if not np.all(np.isfinite(quartiles)):
        raise InvalidOptionError(
            f"marginal {where} is {text}, whose parameters are invalid for "
            f"scipy.stats.{dist.dist.name} (it would draw NaN: check the signs and ranges of "
            "its parameters, e.g. df > 0, scale > 0, Poisson mu >= 0, Beta a, b > 0)."
        )


def _one(spec: object, where: str) -> NodeMarginal:
    if spec is None or (isinstance(spec, str) and spec.lower() in ("gaussian", "normal")):
        return NodeMarginal(None, "gaussian", "gaussian")
    if isinstance(spec, str) and spec.lower() == "standardized":
        return NodeMarginal("standardized", "gaussian(standardized)", "gaussian")
    if isinstance(spec, str) and spec.lower() == "binary":
        ordinal = Ordinal(cuts=(0.0,))
        return NodeMarginal(ordinal, ordinal.describe(), "binary")
    if isinstance(spec, Ordinal):
        return NodeMarginal(spec, spec.describe(), spec.data_type)
    dist = getattr(spec, "dist", None)
    if dist is not None and hasattr(spec, "ppf") and hasattr(spec, "isf"):
        from scipy import stats

        if isinstance(dist, stats.rv_discrete):
            data_type = "binary" if dist.name == "bernoulli" else "count"
        else:
            data_type = "continuous"
        text = _describe_scipy(spec)
        _check_parameters(spec, text, where)
        return NodeMarginal(spec, text, data_type)
    raise InvalidOptionError(
        f"marginal {where} is {spec!r}; use 'gaussian', 'standardized', 'binary', a frozen "
        "scipy.stats "
        "distribution (e.g. scipy.stats.t(df=5), scipy.stats.poisson(3)) or "
        "spdgraph.marginals.Ordinal(...)."
    )


def resolve(marginals: object, labels: Sequence[Hashable]) -> list[NodeMarginal] | None:
    """One :class:`NodeMarginal` per node, or None for plain Gaussian data.

    ``marginals`` is one spec for every node, a sequence with one spec per
    node (in node order), or a mapping from node label to spec (nodes not
    named stay Gaussian).
    """
    if marginals is None:
        return None
    p = len(labels)
    if isinstance(marginals, Mapping):
        unknown = [key for key in marginals if key not in set(labels)]
        if unknown:
            raise InvalidOptionError(
                f"marginals names {unknown[0]!r}, which is not a node; keys must be node labels."
            )
        return [_one(marginals.get(label), f"of node {label!r}") for label in labels]
    if isinstance(marginals, Sequence) and not isinstance(marginals, str):
        if len(marginals) != p:
            raise InvalidOptionError(
                f"marginals lists {len(marginals)} specs but there are {p} nodes; give one "
                "per node, one for all, or a mapping from node label to spec."
            )
        return [
            _one(spec, f"of node {label!r}") for spec, label in zip(marginals, labels, strict=True)
        ]
    one = _one(marginals, "for all nodes")
    return [one] * p


def check_missing(missing: object) -> float:
    """The missing-value rate as a float in [0, 1)."""
    if isinstance(missing, bool) or not isinstance(missing, numbers.Real):
        raise InvalidOptionError(f"missing must be a rate in [0, 1), got {missing!r}.")
    rate = float(missing)
    if not 0.0 <= rate < 1.0:
        raise InvalidOptionError(f"missing must be a rate in [0, 1), got {rate}.")
    return rate


def transform(latent: np.ndarray, sd: np.ndarray, nodes: list[NodeMarginal]) -> np.ndarray:
    """Observed ``(n_obs, p)`` data from latent Gaussian data with column stds ``sd``."""
    out = np.empty_like(latent)
    for j, node in enumerate(nodes):
        out[:, j] = node.transform(latent[:, j], float(sd[j]))
    return out


def apply_missing(x: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Set each entry to NaN independently with probability ``rate`` (MCAR), in place."""
    x[rng.random(x.shape) < rate] = np.nan
    return x


def marginal_attrs(nodes: list[NodeMarginal] | None, rate: float) -> dict[str, Any]:
    """Provenance attrs: what the data are and what the graph means for them."""
    attrs: dict[str, Any] = {}
    if nodes is not None:
        texts = [node.text for node in nodes]
        types = [node.data_type for node in nodes]
        # one value when every node shares it (readable at any p), else one per node
        attrs["marginals"] = texts[0] if len(set(texts)) == 1 else "; ".join(texts)
        attrs["data_types"] = types[0] if len(set(types)) == 1 else ",".join(types)
        attrs["latent_graph"] = (
            "the graph is the conditional independence graph of the latent Gaussian "
            "(Gaussian copula); the observed variables are monotone transforms of it"
        )
    if rate:
        attrs["missing_rate"] = rate
        attrs["missing"] = "completely at random (MCAR), NaN"
    return attrs
