"""Deprecated: the paper's studies now live in the spdgraph-reproduce distribution.

``spdgraph.experiments`` (and its submodules ``studies``, ``plots``, ``cli``)
re-export :mod:`spdgraph_reproduce` with a :class:`DeprecationWarning`; import
``spdgraph_reproduce`` instead. Without spdgraph-reproduce installed, importing
this module raises :class:`spdgraph.MissingDependencyError` naming the pip
command.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any

from spdgraph.errors import MissingDependencyError

#: The pip command that installs the studies.
INSTALL_HINT = "python -m pip install ./plugins/spdgraph-reproduce (from spdgraph's source tree)"


def _load() -> Any:
    try:
        return importlib.import_module("spdgraph_reproduce")
    except ImportError as exc:
        if exc.name not in ("spdgraph_reproduce", None):
            raise
        raise MissingDependencyError(
            "the paper's studies moved to the spdgraph-reproduce distribution, which is not "
            f"installed; install it with {INSTALL_HINT}."
        ) from None


_reproduce = _load()
warnings.warn(
    "spdgraph.experiments is deprecated: the studies moved to the spdgraph-reproduce "
    "distribution; import spdgraph_reproduce instead.",
    DeprecationWarning,
    stacklevel=2,
)
for _name in ("studies", "plots", "cli", "_runner"):
    sys.modules[f"{__name__}.{_name}"] = importlib.import_module(f"spdgraph_reproduce.{_name}")

__all__ = list(_reproduce.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_reproduce, name)


def __dir__() -> list[str]:
    return sorted(__all__)
