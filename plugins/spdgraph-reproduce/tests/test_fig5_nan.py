"""Fig. 5: a learner that selects nothing (TDR undefined) is drawn and explained, not dropped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")


def test_missing_tdr_points_are_drawn_and_explained(tmp_path, monkeypatch):
    from spdgraph_reproduce import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig) or path)
    rows = []
    for n in (20, 50, 100):
        for rep in range(2):
            rows.append(dict(generator="po", d=0.05, p=30, n=n, learner="lasso", rep=rep,
                             tpr=0.5, tdr=0.6))  # fmt: skip
            # shrink selects nothing at n = 20 and 50: TDR missing (the measured case)
            empty = n < 100
            rows.append(dict(generator="po", d=0.05, p=30, n=n, learner="shrink", rep=rep,
                             tpr=0.0 if empty else 0.3, tdr=np.nan if empty else 0.7))  # fmt: skip
    plots.plot_kramer(pd.DataFrame(rows), tmp_path)
    tdr_ax = figures[0].axes[1]  # row 1: TDR
    crosses = [line for line in tdr_ax.lines if line.get_marker() == "x"]
    assert len(crosses) == 1
    assert list(crosses[0].get_xdata()) == [20, 50] and list(crosses[0].get_ydata()) == [0, 0]
    assert any("nothing selected" in t.get_text() for t in tdr_ax.texts)
    tpr_ax = figures[0].axes[0]
    assert not tpr_ax.texts
