"""Helpers of the tests that check no process outlives a study (killed or not)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path


def alive(pid: int) -> bool:
    """Running (a zombie left for an init that does not reap counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether ``condition()`` became true within ``seconds`` (polled every 0.1 s)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def assert_all_end(pids: Iterable[int], seconds: float = 30.0) -> None:
    """Every pid ends within ``seconds``; those that do not are named, then killed."""
    pids = list(pids)
    try:
        ended = wait_for(lambda: not any(alive(p) for p in pids), seconds)
        assert ended, f"{[p for p in pids if alive(p)]} outlived the study"
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)  # never leave a process of ours behind
