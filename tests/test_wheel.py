"""The built wheel installs into a fresh virtual environment and works there.

The wheel is built from this source tree, installed with ``--no-deps`` into a
new venv that sees the base interpreter's site-packages (numpy, xarray...
come from there, spdgraph only from the wheel), and a smoke sample runs from a
directory outside the source tree. ``.ci/run`` also does this with a venv that
installs the wheel's dependencies from the package index (``wheel_smoke``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import spdgraph

ROOT = Path(__file__).resolve().parents[1]

SMOKE = ROOT / ".ci" / "wheel_smoke.py"  # shared with .ci/run


def _run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.mark.slow
@pytest.mark.integration
def test_wheel_installs_and_works_in_a_fresh_venv(tmp_path):
    # 1. build the wheel (without network when the build backend is at hand)
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist)]
    if importlib.util.find_spec("hatchling") is not None:
        build.append("--no-build-isolation")
    _run([*build, str(ROOT)])
    (wheel,) = dist.glob("spdgraph-*.whl")
    assert wheel.name.startswith(f"spdgraph-{spdgraph.__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "spdgraph/py.typed" in names
    assert "spdgraph/plugins/_builtin/gen_po.py" in names
    assert not any(n.startswith(("tests/", "docs/")) for n in names)
    entry_points = zipfile.ZipFile(wheel).read(
        f"spdgraph-{spdgraph.__version__}.dist-info/entry_points.txt"
    )
    assert b"spdgraph = spdgraph.cli:main" in entry_points

    # 2. a fresh venv on the base interpreter, with its site-packages for the dependencies
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    python = venv / "bin" / "python"
    deps = "import numpy, scipy, networkx, xarray, pandas, pluggy, numba"
    if subprocess.run([str(python), "-c", deps], capture_output=True).returncode != 0:
        pytest.skip(
            "the base interpreter lacks spdgraph's dependencies; .ci/run's wheel step "
            "installs them from the package index instead"
        )
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)])

    # 3. smoke run outside the source tree, with no path leaking in from this process
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    out = _run([str(python), str(SMOKE), str(venv), spdgraph.__version__], cwd=tmp_path, env=env)
    assert "wheel smoke ok" in out.stdout
    cli = _run(
        [str(venv / "bin" / "spdgraph"), "demo", "--p", "15", "--size", "2"], cwd=tmp_path, env=env
    )
    assert "zeros ok" in cli.stdout and " NO" not in cli.stdout
