"""Who runs what next in the dense PO kernel: rows factored ahead, finished in order.

The dense kernel (:mod:`spdgraph._kernels.po.dense`) has two kinds of work
per row: a *factor task* (gather and factor the row's subproblem on the
rows before the previous block) and the *finishing* of the row (extend,
solve, store), which must go in row order. The factor tasks of block ``c``
need the rows of blocks ``c - 2`` and earlier finished; the finishing of a
row needs its own factor task done.

:class:`RowPipeline` runs the finishing on the calling thread and the
factor tasks, in ascending row order, on whichever thread is free: a helper
thread takes the next task as soon as its rows are final, and the calling
thread takes one whenever the row it must finish next is not factored yet.
No thread waits at a block boundary: the helper factors block ``c + 1``
while block ``c`` is finished, and starts block ``c + 2`` the moment block
``c`` is done. Each task and each finishing step is the same compiled code
on the same data whichever thread runs it, so the results do not depend on
the schedule. The callables release the GIL; the coordination (one
condition variable) costs a few microseconds per row.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


class RowPipeline:
    """Factor tasks ahead on any thread, rows finished in order on the calling one.

    Parameters
    ----------
    p, block
        Rows, and rows per block (the last block may be shorter).
    start_block
        ``start_block(c)``: the per-block work the factor tasks of block ``c``
        read, run by the thread that takes the block's first task, before it.
    factor
        ``factor(i)``: the factor task of row ``i``.
    finish
        ``finish(b0, i, k)``: finish rows ``i:k`` of the block starting at
        ``b0`` (their factor tasks done); False on failure (the run stops).
    end_block
        ``end_block(c)``: after the last row of block ``c`` is finished.
    """

    def __init__(
        self,
        p: int,
        block: int,
        start_block: Callable[[int], None],
        factor: Callable[[int], None],
        finish: Callable[[int, int, int], bool],
        end_block: Callable[[int], None],
    ) -> None:
        self.p, self.block = p, block
        self._start_block, self._factor = start_block, factor
        self._finish, self._end_block = finish, end_block
        self._cv = threading.Condition()
        self._next = 0  # the next factor task to claim (tasks go in row order)
        self._finished_blocks = 0
        self._factored = [False] * p
        self._started = [False] * ((p + block - 1) // block)
        self._stop = False

    def _claim(self) -> int:
        """The next factor task if its rows are final (call under the lock), else -1."""
        i = self._next
        if self._stop or i >= self.p or self._finished_blocks < i // self.block - 1:
            return -1
        self._next = i + 1
        return i

    def _run_task(self, i: int) -> None:
        c = i // self.block
        if i == c * self.block:
            self._start_block(c)
            with self._cv:
                self._started[c] = True
                self._cv.notify_all()
        else:  # the other thread took the block's first task: wait for its start
            with self._cv:
                while not (self._started[c] or self._stop):
                    self._cv.wait()
                if self._stop:
                    return
        self._factor(i)
        with self._cv:
            self._factored[i] = True
            self._cv.notify_all()

    def _helper(self) -> None:
        try:
            while True:
                with self._cv:
                    i = self._claim()
                    while i < 0 and not self._stop and self._next < self.p:
                        self._cv.wait()
                        i = self._claim()
                if i < 0:
                    return
                self._run_task(i)
        except BaseException:
            self._halt()
            raise

    def _halt(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify_all()

    def _next_factored(self, i: int) -> int:
        """Wait until row ``i`` is factored, running factor tasks meanwhile; -1 if stopped."""
        while True:
            with self._cv:
                task = -1
                while not self._factored[i]:
                    task = self._claim()
                    if task >= 0 or self._stop:
                        break
                    self._cv.wait()
                if self._factored[i]:
                    return i
                if task < 0:
                    return -1
            self._run_task(task)

    def _finish_all(self) -> bool:
        factored = self._factored
        for c, b0 in enumerate(range(0, self.p, self.block)):
            b1 = min(self.p, b0 + self.block)
            i = b0
            while i < b1:
                if self._next_factored(i) < 0:
                    return False
                k = i + 1
                while k < b1 and factored[k]:  # set once, under the lock: safe to read
                    k += 1
                if not self._finish(b0, i, k):
                    return False
                i = k
            self._end_block(c)
            with self._cv:
                self._finished_blocks = c + 1
                self._cv.notify_all()
        return True

    def run(self, threads: int) -> bool:
        """Process every row (``threads`` up to 2); False if a finishing step failed."""
        if threads < 2 or self.p <= self.block:
            return self._finish_all()
        with ThreadPoolExecutor(max_workers=1) as pool:
            helper = pool.submit(self._helper)
            try:
                done = self._finish_all()
            finally:
                self._halt()
            helper.result()
        return done
