"""First-call cost of ``method="po"``: Numba import, compilation, on-disk cache.

Runs fresh Python processes with an empty Numba cache directory (the kernels
are compiled), then again with the same directory (the compiled kernels are
loaded from the cache), and prints for each: the time of ``import spdgraph``,
of the first ``spdgraph.sample(..., method="po")`` (p = 50) and of a second
identical call.

    python benchmarks/first_call.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CODE = """
import json, time
t0 = time.perf_counter()
import spdgraph
t1 = time.perf_counter()
g = spdgraph.graphs.erdos_renyi(50, 0.2, seed=0)
spdgraph.sample(g, "po", seed=1)
t2 = time.perf_counter()
spdgraph.sample(g, "po", seed=2)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""


def run(cache_dir: str) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    with tempfile.TemporaryDirectory() as cache_dir:
        rows = [("empty cache (compile)", run(cache_dir))]
        rows.append(("cache filled (load)", run(cache_dir)))
        rows.append(("cache filled (load), again", run(cache_dir)))
    print(f"{'case':<28} {'import spdgraph':>15} {'first po call':>14} {'second call':>12}")
    for name, t in rows:
        print(f"{name:<28} {t['import']:14.2f}s {t['first']:13.2f}s {t['second']:11.3f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
