"""Numba's compilation, said: the one-line note before a first call compiles kernels.

spdgraph's kernels are compiled by Numba on their first use on a machine and
cached on disk (``__pycache__`` next to the package, or ``NUMBA_CACHE_DIR``); a
first call can then take seconds. :func:`note_compilation` prints one line on
stderr, once per process, when the generator about to run declares compiled
kernels (``GeneratorSpec.compiles``) that are not in the cache yet
(``GeneratorSpec.kernels_cached``); :func:`spdgraph.warmup` compiles them ahead (in
a Docker build, on a cluster's workers, before timing anything).
"""

from __future__ import annotations

import sys

from spdgraph.plugins.types import GeneratorSpec

__all__ = ["mark_noted", "note_compilation"]

_NOTED = {"done": False}


def mark_noted() -> None:
    """Nothing left to announce in this process (:func:`spdgraph.warmup` compiled it all)."""
    _NOTED["done"] = True


def note_compilation(gen: GeneratorSpec) -> None:
    """One line on stderr, once per process, before the kernels of ``gen`` compile."""
    if _NOTED["done"] or not gen.compiles:
        return
    _NOTED["done"] = True
    cached = None
    if gen.kernels_cached is not None:
        try:
            cached = gen.kernels_cached()
        except Exception:  # a plugin's probe of Numba internals: never fatal
            cached = None
    if cached is False:
        print(
            "spdgraph: compiling the numerical kernels for this machine (once; about 5-20 s, "
            "then cached). `spdgraph warmup` compiles them all ahead of time.",
            file=sys.stderr,
        )
