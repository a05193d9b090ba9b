"""sample(progress=...): a bar over the matrices, the same bits, automatic when long."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph
from spdgraph.sampling import _progress


def test_progress_gives_the_same_bits_and_draws_a_bar(capsys):
    pytest.importorskip("tqdm")
    g = nx.cycle_graph(12)
    plain = spdgraph.sample(g, seed=3, size=120, condition_number=10.0)
    shown = spdgraph.sample(g, seed=3, size=120, condition_number=10.0, progress=True)
    np.testing.assert_array_equal(plain.values, shown.values)
    assert plain.attrs["condition_number"] == shown.attrs["condition_number"]
    err = capsys.readouterr().err
    assert "sampling po, p=12" in err and "120/120" in err
    one = spdgraph.sample(g, seed=3, progress=True)
    np.testing.assert_array_equal(one.values, spdgraph.sample(g, seed=3, size=2).values[0])


def test_automatic_progress_only_when_interactive_and_long(monkeypatch):
    monkeypatch.setattr(_progress, "interactive", lambda: True)
    po, dd = (spdgraph.plugins.find_generator(name)[0] for name in ("po", "dd"))
    assert _progress.show_progress(None, po, 5000, 0, 1)  # ~60 s estimated
    assert not _progress.show_progress(None, po, 100, 0, 10)
    assert not _progress.show_progress(None, dd, 2000, 0, 1)
    monkeypatch.setattr(_progress, "interactive", lambda: False)
    assert not _progress.show_progress(None, po, 5000, 0, 1)
    assert _progress.show_progress(True, po, 10, 0, 1)


def test_bad_progress_values_are_refused():
    with pytest.raises(spdgraph.InvalidOptionError, match="progress must be"):
        spdgraph.sample(nx.path_graph(3), seed=0, progress="yes")


def test_draw_progress(capsys):
    pytest.importorskip("tqdm")
    da = spdgraph.sample(nx.cycle_graph(8), seed=1, size=3)
    quiet = da.spd.draw(20, seed=4)
    shown = da.spd.draw(20, seed=4, progress=True)
    np.testing.assert_array_equal(quiet.values, shown.values)
    assert "drawing data" in capsys.readouterr().err
    with pytest.raises(spdgraph.InvalidOptionError, match="progress must be"):
        da.spd.draw(5, progress=1)
