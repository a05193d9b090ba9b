"""Smoke test of an installed spdgraph wheel: ``python wheel_smoke.py VENV VERSION``.

Run by ``.ci/run`` (``wheel_smoke``) and by ``tests/test_wheel.py`` with the
interpreter of a fresh virtual environment VENV the wheel was installed into,
from a directory outside the source tree. Checks that spdgraph is imported from
VENV, has the expected VERSION and its ``py.typed`` marker, and that both
built-in generators sample valid, reproducible matrices.
"""

import sys
from pathlib import Path

import networkx as nx
import numpy as np

import spdgraph

venv, version = Path(sys.argv[1]).resolve(), sys.argv[2]
location = Path(spdgraph.__file__).resolve()
assert venv in location.parents, f"spdgraph imported from {location}, not from {venv}"
assert spdgraph.__version__ == version, f"version {spdgraph.__version__}, expected {version}"
assert (location.parent / "py.typed").is_file(), "py.typed is missing from the wheel"
assert {"po", "dd"} <= set(spdgraph.methods()), spdgraph.methods()
g = nx.cycle_graph(6)
nonedge = ~nx.to_numpy_array(g, dtype=bool) & ~np.eye(6, dtype=bool)
for method in ("po", "dd"):
    m = spdgraph.sample(g, method, size=3, seed=1).values
    assert np.all(m[:, nonedge] == 0), f"{method}: non-zero entry on a non-edge"
    assert np.array_equal(m, m.transpose(0, 2, 1)), f"{method}: not exactly symmetric"
    assert np.all(np.linalg.eigvalsh(m) > 0), f"{method}: not positive definite"
    again = spdgraph.sample(g, method, size=3, seed=1).values
    assert np.array_equal(m, again), f"{method}: same seed, different matrices"
print(f"wheel smoke ok: spdgraph {spdgraph.__version__} from {location.parent}")
