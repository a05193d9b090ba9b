"""The dense kernel's schedule: every dependency kept, whatever the timing and thread count.

:class:`~spdgraph._kernels.po.dense_schedule.RowPipeline` is driven here by
fake work that records what ran when (and sleeps at random, so that the two
threads interleave differently from run to run); the record must show
every row factored once and finished once in order, no factor task of block
``c`` before block ``c - 2`` ended, no finishing before the row's factor
task, and every block started before its tasks. Failures stop the run and
errors on the helper thread reach the caller without a hang.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spdgraph._kernels.po.dense_schedule import RowPipeline


class Recorder:
    """Fake work for a pipeline: appends ``(kind, what, thread)`` to ``events`` under a lock."""

    def __init__(self, p: int, block: int, seed: int, fail_at: int = -1, raise_at: int = -1):
        self.p, self.block = p, block
        self.events: list[tuple[str, object, str]] = []
        self._lock = threading.Lock()
        self._rng = np.random.default_rng(seed)
        self.fail_at, self.raise_at = fail_at, raise_at

    def _log(self, kind: str, what: object) -> None:
        with self._lock:
            self.events.append((kind, what, threading.current_thread().name))
            pause = float(self._rng.uniform(0, 2e-4))
        time.sleep(pause)

    def start_block(self, c: int) -> None:
        self._log("start", c)

    def factor(self, i: int) -> None:
        if i == self.raise_at:
            raise RuntimeError("factor failed")
        self._log("factor", i)

    def finish(self, b0: int, i: int, k: int) -> bool:
        assert b0 % self.block == 0 and b0 <= i < k <= min(self.p, b0 + self.block)
        for row in range(i, k):
            self._log("finish", row)
        return not (i <= self.fail_at < k)

    def end_block(self, c: int) -> None:
        self._log("end", c)

    def pipeline(self) -> RowPipeline:
        return RowPipeline(
            self.p, self.block, self.start_block, self.factor, self.finish, self.end_block
        )


def check_order(rec: Recorder) -> None:
    """Every dependency of the dense kernel holds in the recorded order."""
    position = {(kind, what): n for n, (kind, what, _) in enumerate(rec.events)}
    assert len(position) == len(rec.events), "something ran twice"
    blocks = (rec.p + rec.block - 1) // rec.block
    for i in range(rec.p):
        c = i // rec.block
        assert position[("start", c)] < position[("factor", i)]
        assert position[("factor", i)] < position[("finish", i)]
        if c >= 2:
            assert position[("end", c - 2)] < position[("factor", i)]
        if i:
            assert position[("finish", i - 1)] < position[("finish", i)]
    for c in range(blocks):
        last = min(rec.p, (c + 1) * rec.block) - 1
        assert position[("finish", last)] < position[("end", c)]
    assert len(rec.events) == 2 * rec.p + 2 * blocks


@settings(max_examples=30, deadline=None)
@given(
    p=st.integers(1, 60),
    block=st.integers(1, 9),
    threads=st.sampled_from([1, 2]),
    seed=st.integers(0, 2**16),
)
def test_every_dependency_holds(p, block, threads, seed):
    rec = Recorder(p, block, seed)
    assert rec.pipeline().run(threads)
    check_order(rec)


def test_both_threads_factor_rows():
    rec = Recorder(200, 4, 0)
    assert rec.pipeline().run(2)
    check_order(rec)
    finishers = {t for kind, _, t in rec.events if kind == "finish"}
    factorers = {t for kind, _, t in rec.events if kind == "factor"}
    assert finishers == {threading.current_thread().name}
    assert len(factorers) == 2  # the helper took tasks (and the caller may have)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failed_row_stops_the_run(threads):
    rec = Recorder(50, 4, 1, fail_at=17)
    assert not rec.pipeline().run(threads)
    finished = [what for kind, what, _ in rec.events if kind == "finish"]
    assert finished == list(range(18 if threads == 1 else max(finished) + 1))
    assert 17 in finished and not any(c >= 17 // 4 for kind, c, _ in rec.events if kind == "end")


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_in_a_task_reaches_the_caller(threads):
    rec = Recorder(60, 4, 2, raise_at=33)
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            rec.pipeline().run(threads)
        except RuntimeError as exc:
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(30), "the pipeline hung after an error"
    assert [str(e) for e in errors] == ["factor failed"]
    assert ("finish", 33, threading.current_thread().name) not in rec.events
