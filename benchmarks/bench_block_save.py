"""Write speed and resident peak of ``spdgraph.save`` of a dask-backed array to Zarr.

Usage: ``python benchmarks/bench_block_save.py [GiB] [rows per block] [repeats]``
(default 2 GiB of float64 observations x 1,000 nodes, blocks of 10,000 rows,
one run each). Each row runs in a fresh process: the array is drawn block by
block (``dask.array.random``, computed on the threaded scheduler), then written.
Rows: spdgraph's block-wise save (each block written and digested by its
worker, the digests stored, the store read back), the same with a resumed
save that finds half the blocks written (only the other half computed), and
the baseline, xarray's plain ``to_zarr`` of the same array (no digests, not
atomic). Reported: MB/s of values written (median over the repeats), the
resident peak above the process's start (VmHWM), and the ratios to the
baseline.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, re, sys, time, warnings
warnings.simplefilter("ignore")
import dask, dask.array, numpy as np, xarray as xr, spdgraph
gib, rows, mode, folder = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
p = 1000
n = int(gib * 2**30 / (8 * p)) // rows * rows
def array():
    rng = dask.array.random.default_rng(0)
    data = rng.standard_normal((n, p), chunks=(rows, p))
    return xr.DataArray(data, dims=("obs", "node"), name="data",
                        coords={"obs": np.arange(n), "node": np.arange(p)},
                        attrs={"spdgraph_version": spdgraph.__version__, "seed": 0})
target = os.path.join(folder, mode + ".zarr")
if mode == "resumed":  # a save cut after half of its blocks, then resumed
    half = n // rows // 2
    def stop(block, block_info=None):
        if block_info[None]["chunk-location"][0] >= half:
            raise RuntimeError("cut")
        return block
    cut = array()
    cut = cut.copy(data=cut.data.map_blocks(stop, dtype=float))
    with dask.config.set(scheduler="synchronous"):
        try:
            spdgraph.save(cut, target)
        except RuntimeError:
            pass
def status(key):  # bytes, from the kernel's counters
    text = open("/proc/self/status").read()
    return int(re.search(rf"^{key}:\s+(\d+)", text, re.M)[1]) * 1024
open("/proc/self/clear_refs", "w").write("5")  # VmHWM counts from here
before = status("VmRSS")
start = time.perf_counter()
if mode == "baseline":
    array().to_dataset().to_zarr(target, mode="w")
else:
    spdgraph.save(array(), target, resume=mode == "resumed")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "bytes": n * p * 8, "peak": status("VmHWM") - before}))
"""

MODES = ("baseline", "spdgraph", "resumed")


def _run(gib: float, rows: int, mode: str) -> dict[str, float]:
    import json

    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(gib), str(rows), mode, folder],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    gib = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    results = {mode: [_run(gib, rows, mode) for _ in range(repeats)] for mode in MODES}
    speed = {
        m: statistics.median(r["bytes"] / r["seconds"] / 1e6 for r in results[m]) for m in MODES
    }
    peak = {m: statistics.median(r["peak"] / 2**20 for r in results[m]) for m in MODES}
    print(f"{gib} GiB of float64 (x 1,000 nodes) in blocks of {rows:,} rows, {repeats} run(s)")
    print(f"{'save':<10} {'MB/s':>8} {'vs base':>8} {'peak MiB':>9} {'vs base':>8}")
    for m in MODES:
        print(
            f"{m:<10} {speed[m]:8.0f} {speed[m] / speed['baseline']:8.2f} "
            f"{peak[m]:9.0f} {peak[m] / peak['baseline']:8.2f}"
        )
    print("(resumed: MB/s of the whole array, of which half was already written)")


if __name__ == "__main__":
    main()
