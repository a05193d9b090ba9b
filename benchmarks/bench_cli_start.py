"""How long ``spdgraph --version`` and ``spdgraph --help`` take to start (issue 45, item 7).

    python benchmarks/bench_cli_start.py [--runs 10]

Each row is the median wall time of ``--runs`` fresh interpreters running the
command (``python -m spdgraph.cli ...``, what the ``spdgraph`` script runs),
against ``python -c pass`` measured in the same run (the interpreter's own
start). The ``imports`` column counts the heavy libraries (xarray, scipy,
pandas, numba, networkx) the command left in ``sys.modules``. Issue 45 asks
for ``--help`` and ``--version`` under 0.5 s on a quiet machine; tests bound
the imports (tests/cli/test_startup.py), this script measures the time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

HEAVY = ("xarray", "scipy", "pandas", "numba", "networkx")

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass", ["-c", "pass"]),
    ("import spdgraph", ["-c", "import spdgraph"]),
    ("spdgraph --version", ["-m", "spdgraph.cli", "--version"]),
    ("spdgraph --help", ["-m", "spdgraph.cli", "--help"]),
    ("spdgraph --help, no plugins", ["-m", "spdgraph.cli", "--help"]),
    ("spdgraph methods (loads all)", ["-m", "spdgraph.cli", "methods"]),
]


def _env(label: str) -> dict[str, str]:
    env = dict(os.environ)
    if "no plugins" in label:
        env["SPDGRAPH_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def _median_seconds(args: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _heavy_imports(args: list[str], env: dict[str, str]) -> int:
    if args[0] == "-c":
        code = args[1]
    else:
        code = f"from spdgraph.cli import main; main({args[2:]!r})"
    probe = f"{code}\nimport sys; print(sum(m in sys.modules for m in {HEAVY!r}), file=sys.stderr)"
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    return int(run.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per command (median)")
    runs = parser.parse_args().runs
    print(f"median of {runs} fresh interpreters; load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<30}{'seconds':>9}{'x baseline':>12}{'imports':>9}")
    print("-" * 60)
    baseline = None
    for label, args in COMMANDS:
        env = _env(label)
        seconds = _median_seconds(args, env, runs)
        baseline = baseline or seconds
        heavy = _heavy_imports(args, env)
        print(f"{label:<30}{seconds:>9.3f}{seconds / baseline:>12.1f}{heavy:>9}")


if __name__ == "__main__":
    main()
