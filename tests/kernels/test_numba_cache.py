"""An unwritable Numba cache (issue 49): spdgraph compiles uncached with ONE warning.

Numba raises "no locator available" when a ``@njit(cache=True)`` kernel is
defined and no cache directory is writable (``NUMBA_CACHE_DIR`` read-only, a
read-only install, no writable home), as for a service user. The test runs a
fresh interpreter as such a user: as root, under another uid (``setpriv``,
since root writes anywhere); otherwise with a read-only cache directory.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import spdgraph

SCRIPT = """
import warnings
warnings.simplefilter("always")
import networkx as nx
import spdgraph
print("imported", flush=True)
a = spdgraph.sample(nx.cycle_graph(5), "dd", seed=1)
b = spdgraph.sample(nx.path_graph(5), "uniform", seed=1)
assert a.shape == b.shape == (5, 5)
print("sampled", flush=True)
"""


def _unprivileged(tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(readonly), HOME=str(readonly))
    repo = Path(spdgraph.__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(repo), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-c", SCRIPT]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot make the cache unwritable")
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return command, env


#: What SCRIPT imports before spdgraph (and spdgraph's own dependencies).
PROBE = "import numpy, scipy, networkx, xarray, numba, pluggy"


def _skip_unless_it_can_import(command: list[str], env: dict[str, str]) -> None:
    """Skip, with the reason, when the user the command runs as cannot import this
    interpreter's packages (a virtualenv under root's home is unreadable to nobody)."""
    probe = subprocess.run(
        [*command[:-1], PROBE], env=env, capture_output=True, text=True, timeout=300
    )  # fmt: skip
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        pytest.skip(
            f"the unprivileged user cannot import this interpreter's packages ({last}): "
            "run the tests from an environment every user can read"
        )


def test_unwritable_cache_compiles_uncached_with_one_warning(tmp_path):
    command, env = _unprivileged(tmp_path)
    tmp_path.chmod(0o755)
    _skip_unless_it_can_import(command, env)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if "Permission denied" in result.stderr and "python" in result.stderr.lower():
        pytest.skip("the unprivileged user cannot read this checkout")
    assert result.returncode == 0, result.stderr
    assert "imported" in result.stdout and "sampled" in result.stdout
    assert result.stderr.count("CompilationCacheWarning") == 1, result.stderr
    assert "NUMBA_CACHE_DIR" in result.stderr and "no locator" not in result.stdout


def test_other_numba_errors_still_raise(monkeypatch):
    """Only the missing cache location is caught."""
    from numba.core import dispatcher

    from spdgraph._kernels import cache

    def failing(self):
        raise RuntimeError("something else")

    monkeypatch.setattr(dispatcher.Dispatcher, "enable_caching", failing)
    cache.install_cache_fallback()
    wrapped = dispatcher.Dispatcher.enable_caching
    assert wrapped is not failing and wrapped._spdgraph_fallback
    with pytest.raises(RuntimeError, match="something else"):
        wrapped(object())
    cache.install_cache_fallback()  # idempotent
    assert dispatcher.Dispatcher.enable_caching is wrapped
