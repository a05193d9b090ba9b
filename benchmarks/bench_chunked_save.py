"""A sparse simulation's data larger than memory, drawn in blocks on a cluster, saved to Zarr.

Usage: ``python benchmarks/bench_chunked_save.py [--p P] [--n N] [--chunks C]``
(defaults P = 10^5, N = 500, C = 50: 400 MB of data in 10 blocks, about a minute on
2 cores; the issue's size is ``--p 1000000 --n 5000 --chunks 125``, 40 GB).

Each row runs in a fresh process:

* ``C, 2 workers``: ``simulate("band", p=P, n=N, method="dd", sparse=True, chunks=C)``
  saved with :func:`spdgraph.simulation.save_simulation` to a Zarr store under a
  ``distributed.LocalCluster(n_workers=2, threads_per_worker=1)`` (the blocks drawn
  and written by the workers, the factor computed once);
* ``C/2, 1 worker``: the same with ``chunks=C/2`` on one worker; its stored values,
  digested again in blocks of C rows, are compared with the first store's stored
  per-block digests (the same bits whatever the chunking and the workers);
* ``killed, resumed``: a save on the local scheduler SIGKILLed once half of its blocks
  are written, then the same save with ``resume=True`` on the 2-worker cluster: the
  blocks it draws (the cluster's task stream) are the missing ones only, and its
  digests are the first store's.

Reported per row: wall time of the simulation and save, the resident peak (VmHWM) of
the client and of every worker, the GB written (the store's files), and the ratio of
the wall time to the first row's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHILD = r"""
import json, re, sys, time, warnings
warnings.simplefilter("ignore")
p, n, chunks, workers, target, resume = sys.argv[1:7]
p, n, chunks, workers, resume = int(p), int(n), int(chunks), int(workers), resume == "1"

def peak():  # bytes, from the kernel's counters
    text = open("/proc/self/status").read()
    return int(re.search(r"^VmHWM:\s+(\d+)", text, re.M)[1]) * 1024

import spdgraph
from spdgraph.simulation import save_simulation

def run():
    sim = spdgraph.simulate("band", p=p, n=n, method="dd", sparse=True, seed=56, chunks=chunks)
    save_simulation(sim, target, resume=resume)

start = time.perf_counter()
out = {}
if workers:
    import distributed
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
         distributed.Client(cluster) as client, \
         distributed.get_task_stream(client) as stream:
        run()
        out["workers"] = sorted(client.run(peak).values())
    out["drawn"] = sum("spdgraph-draw-block" in str(t["key"]) for t in stream.data)
else:
    run()
out.update(seconds=time.perf_counter() - start, client=peak())
print(json.dumps(out))
"""


def _child(p: int, n: int, chunks: int, workers: int, target: Path, resume: bool) -> list[str]:
    args = [str(p), str(n), str(chunks), str(workers), str(target), "1" if resume else "0"]
    return [sys.executable, "-c", CHILD, *args]


def _run(p: int, n: int, chunks: int, workers: int, target: Path, resume: bool = False) -> dict:
    out = subprocess.run(
        _child(p, n, chunks, workers, target, resume), capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _gb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e9


def _block_digests(path: Path) -> list[str]:
    import zarr

    import spdgraph

    record = json.loads(str(zarr.open_group(path, mode="r").attrs[spdgraph.io.DIGESTS]))
    return list(record["blocks data"]["sha"])


def _digests_in_blocks(path: Path, rows: int) -> list[str]:
    """The stored values of ``path``, digested again in blocks of ``rows`` (one at a time)."""
    import zarr

    from spdgraph.io._hashing import block_digest

    data: Any = zarr.open_group(path, mode="r")["data"]
    return [block_digest(data[i : i + rows]) for i in range(0, data.shape[0], rows)]


def _killed_half_way(p: int, n: int, chunks: int, target: Path) -> int:
    """Run the save on the local scheduler; SIGKILL it once half of its blocks are stored."""
    from spdgraph.io._atomic import RESUMABLE

    half = -(-n // chunks) // 2
    child = subprocess.Popen(_child(p, n, chunks, 0, target, False), stdout=subprocess.DEVNULL)
    try:
        while child.poll() is None:
            records = target.parent.glob(f".*/{RESUMABLE}/data/*")
            if sum(bool(re.fullmatch(r"\d+\.0", r.name)) for r in records) >= half:
                break
            time.sleep(0.02)
    finally:
        os.kill(child.pid, signal.SIGKILL) if child.poll() is None else None
        child.wait()
    (kept,) = [d for d in target.parent.iterdir() if (d / RESUMABLE).is_dir()]
    return len(list((kept / RESUMABLE / "data").glob("[0-9]*.0")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, default=10**5)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--chunks", type=int, default=50)
    args = parser.parse_args()
    p, n, chunks = args.p, args.n, args.chunks
    blocks = -(-n // chunks)
    rows = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as folder:
        first = Path(folder) / "c.zarr"
        rows.append(("C, 2 workers", _run(p, n, chunks, 2, first), _gb(first)))
        reference = _block_digests(first)
        half = Path(folder) / "half.zarr"
        rows.append(("C/2, 1 worker", _run(p, n, chunks // 2, 1, half), _gb(half)))
        same_bits = _digests_in_blocks(half, chunks) == reference
        half_rows = _block_digests(half) == _digests_in_blocks(half, chunks // 2)
        cut = Path(folder) / "cut" / "r.zarr"
        cut.parent.mkdir()
        stored = _killed_half_way(p, n, chunks, cut)
        rows.append(("killed, resumed", _run(p, n, chunks, 2, cut, resume=True), _gb(cut)))
        resumed_same = _block_digests(cut) == reference
    print(
        f"simulate('band', p={p:,}, n={n:,}, method='dd', sparse=True): data "
        f"{8 * n * p / 1e9:.2f} GB in {blocks} blocks of {chunks} rows"
    )
    print(f"{'row':<16} {'seconds':>8} {'vs C':>6} {'client MiB':>11} {'workers MiB':>14}"
          f" {'GB':>6} {'drawn':>6}")  # fmt: skip
    base = rows[0][1]["seconds"]
    for name, r, gb in rows:
        workers = "/".join(f"{w / 2**20:.0f}" for w in r.get("workers", []))
        print(
            f"{name:<16} {r['seconds']:8.1f} {r['seconds'] / base:6.2f} "
            f"{r['client'] / 2**20:11.0f} {workers:>14} {gb:6.2f} {r.get('drawn', '-'):>6}"
        )
    print(f"C/2 on 1 worker, digested in blocks of C rows == C's stored digests: {same_bits}")
    print(f"C/2's stored digests == its values digested in blocks of C/2: {half_rows}")
    print(
        f"killed with {stored}/{blocks} blocks stored; the resumed save drew "
        f"{rows[2][1].get('drawn')} blocks; its digests == C's: {resumed_same}"
    )


if __name__ == "__main__":
    main()
