"""Numba's on-disk cache: whether a kernel is in it, and running without one.

* :func:`on_disk`: whether a ``@njit(cache=True)`` kernel is in the cache (for the
  core's one-line note before a first compilation);
* :func:`install_cache_fallback`: where Numba can write no cache at all (a
  read-only install whose ``NUMBA_CACHE_DIR`` is unwritable, as for a service
  user), ``@njit(cache=True)`` raises Numba's "no locator available" at
  decoration, i.e. on import of a kernel module. spdgraph instead compiles
  such kernels uncached (each new process compiles again) and says so with
  one :class:`CompilationCacheWarning` per process. Installed when Numba is
  first imported (:func:`install_when_numba_loads`, called by
  :mod:`spdgraph._kernels`), so importing spdgraph does not import Numba.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import warnings
from typing import Any

__all__ = [
    "CompilationCacheWarning",
    "install_cache_fallback",
    "install_when_numba_loads",
    "on_disk",
]

_STATE = {"warned": False}


class CompilationCacheWarning(UserWarning):
    """Numba cannot write its cache here: spdgraph's kernels compile uncached."""


def on_disk(kernel: Any) -> bool | None:
    """Whether the ``@njit(cache=True)`` ``kernel`` has an index in Numba's disk cache.

    None when unknown (a newer Numba may name its internals otherwise, or the
    kernel runs uncached: :func:`install_cache_fallback`).
    """
    try:
        return bool(os.path.exists(kernel._cache._cache_file._index_path))
    except Exception:
        return None


def _warn_once(exc: BaseException) -> None:
    if _STATE["warned"]:
        return
    _STATE["warned"] = True
    where = os.environ.get("NUMBA_CACHE_DIR")
    place = f"NUMBA_CACHE_DIR={where!r}" if where else "NUMBA_CACHE_DIR (unset)"
    warnings.warn(
        f"Numba can write no compilation cache here ({place}, the packages' __pycache__ "
        f"and the user-wide cache are not writable: {exc}). spdgraph's kernels compile "
        "uncached in this process: every new process compiles again (seconds per "
        "generator). Set NUMBA_CACHE_DIR to a writable directory to cache them.",
        CompilationCacheWarning,
        stacklevel=2,
    )


def install_cache_fallback() -> None:
    """Make ``@njit(cache=True)`` fall back to no cache (one warning) instead of raising.

    Only Numba's own failure to find a cache location is caught ("no locator
    available"); any other error still raises. Idempotent.
    """
    from numba.core import caching, dispatcher

    current = dispatcher.Dispatcher.enable_caching
    if getattr(current, "_spdgraph_fallback", False):
        return

    def enable_caching(self: Any) -> None:
        try:
            current(self)
        except RuntimeError as exc:
            if "no locator available" not in str(exc):
                raise
            self._cache = caching.NullCache()
            _warn_once(exc)

    enable_caching._spdgraph_fallback = True  # type: ignore[attr-defined]
    dispatcher.Dispatcher.enable_caching = enable_caching


class _NumbaImportHook(importlib.abc.MetaPathFinder):
    """One-shot: when ``numba`` is imported, install the fallback right after it loads."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "numba":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            install_cache_fallback()

        loader.exec_module = exec_module
        return spec


def install_when_numba_loads() -> None:
    """:func:`install_cache_fallback` now if Numba is loaded, else when it is imported."""
    if "numba" in sys.modules:
        install_cache_fallback()
        return
    if not any(isinstance(f, _NumbaImportHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _NumbaImportHook())
