"""Thread use of the BLAS-heavy entry points: Numba x BLAS threads within the cores."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

import spdgraph
import spdgraph._threads as threads_module
from spdgraph._threads import available_cores, thread_budget
from spdgraph.errors import InvalidOptionError
from spdgraph.validation import draw_gaussian, fit_learners, score, select_glasso, standardize


def _blas_threads() -> list[int]:
    return [int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"]


def test_budget_holds_blas_at_one_and_numba_within_the_cores():
    numba_before, blas_before = numba.get_num_threads(), _blas_threads()
    with thread_budget() as used:
        assert used["blas_threads"] == 1
        assert all(k == 1 for k in _blas_threads())
        assert numba.get_num_threads() == used["numba_threads"]
        assert used["blas_threads"] * used["numba_threads"] <= available_cores()
    assert numba.get_num_threads() == numba_before and _blas_threads() == blas_before


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
def test_numba_shrinks_to_fit_the_blas_threads(monkeypatch, cores):
    monkeypatch.setattr(threads_module, "available_cores", lambda: cores)
    before = numba.get_num_threads()
    for blas in sorted({1, max(1, cores // 2), cores}):
        with thread_budget(blas) as used:
            assert used["numba_threads"] == max(1, min(before, cores // blas))
            assert numba.get_num_threads() == used["numba_threads"]
            assert used["blas_threads"] * used["numba_threads"] <= max(cores, blas)
        assert numba.get_num_threads() == before


def test_none_leaves_blas_alone_and_records_it():
    before = _blas_threads()
    with thread_budget(None) as used:
        assert _blas_threads() == before
        assert used["blas_threads"] == max(before, default=1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_blas_threads_is_refused(bad):
    with pytest.raises(InvalidOptionError, match="blas_threads"):
        with thread_budget(bad):
            pass
    x = np.random.default_rng(0).standard_normal((30, 4))
    with pytest.raises(InvalidOptionError, match="blas_threads"):
        select_glasso(x, blas_threads=bad)


def _data(p=8, n=120):
    g = spdgraph.graphs.erdos_renyi(p, 0.3, seed=2)
    prec = spdgraph.sample(g, "po", seed=2, kind="precision")
    return g, draw_gaussian(prec.values, n, seed=3)


def test_select_glasso_and_score_record_their_threads():
    g, x = _data()
    sel = select_glasso(standardize(x), criterion="ebic")
    assert sel.threads["blas_threads"] == 1
    assert sel.threads["blas_threads"] * sel.threads["numba_threads"] <= available_cores()
    seen = []

    def learner(data):
        seen.append((_blas_threads(), numba.get_num_threads()))
        return np.corrcoef(data, rowvar=False)

    s = score(x, g, learner, rule="nonzero")
    assert s.threads["blas_threads"] == 1
    assert all(k == 1 for k in seen[0][0]) and seen[0][1] == s.threads["numba_threads"]
    assert score(x, g, "shrink", seed=0).threads == s.threads
    # the estimates do not depend on the thread setting chosen (up to BLAS rounding)
    np.testing.assert_allclose(
        fit_learners(x, ["shrink"], seed=0)["shrink"],
        fit_learners(x, ["shrink"], seed=0, blas_threads=None)["shrink"],
        rtol=1e-10,
        atol=1e-12,
    )


def test_every_reader_of_the_core_count_respects_the_affinity(monkeypatch):
    """One core count (``available_cores``): the study's default workers and the memory
    model's blocks see the cores this process may use, not the machine's."""
    import os
    from pathlib import Path

    from spdgraph.sampling._memory import estimate_bytes
    from spdgraph.study._run import _workers

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert available_cores() == 3
    assert _workers(None) == 3
    assert estimate_bytes(40, 100, chunks=1) == estimate_bytes(40, 100, chunks=1, workers=3)
    package = Path(spdgraph.__file__).parent
    readers = [
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if "cpu_count(" in (text := path.read_text(encoding="utf-8"))
        or "sched_getaffinity(" in text
    ]
    assert readers == ["_threads.py"]
