"""A killed study leaves no worker computing (issue 47 item 8)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from processes import alive as _alive
from processes import wait_for as _wait_for

CELL = """
import os
import time


def cell(coords, config):
    open(os.path.join(config["dir"], f"pid-{os.getpid()}"), "w").close()
    end = time.monotonic() + 600
    while time.monotonic() < end:  # computing, far longer than the test waits
        sum(i * i for i in range(20000))
    return 0
"""

DRIVER = """
import sys
sys.path.insert(0, {folder!r})
from slowcell import cell
from spdgraph.study import run_cells
cells = [{{"i": i}} for i in range(4)]
run_cells(cell, cells, {out!r}, config={{"dir": {folder!r}}}, workers=2, progress=False,
          scheduler={scheduler!r})
"""


@pytest.mark.integration
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("sig", "scheduler"),
    [(signal.SIGKILL, None), (signal.SIGTERM, None), (signal.SIGKILL, "local")],
)
def test_workers_do_not_outlive_a_killed_study(tmp_path, sig, scheduler):
    if scheduler is not None:
        pytest.importorskip("distributed")
    (tmp_path / "slowcell.py").write_text(textwrap.dedent(CELL))
    driver = DRIVER.format(folder=str(tmp_path), out=str(tmp_path / "out"), scheduler=scheduler)
    parent = subprocess.Popen([sys.executable, "-c", driver], env=dict(os.environ))
    try:
        started = _wait_for(lambda: len(list(tmp_path.glob("pid-*"))) == 2, 300)
        assert started, "the two workers never started their cells"
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("pid-*")]
        assert all(_alive(pid) for pid in workers)
        parent.send_signal(sig)
        parent.wait()
        gone = _wait_for(lambda: not any(_alive(pid) for pid in workers), 60)
        assert gone, f"workers {[p for p in workers if _alive(p)]} outlived the killed study"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid_file in tmp_path.glob("pid-*"):  # never leave a process of ours behind
            pid = int(pid_file.name.split("-")[1])
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
