"""Names from labels, groups or attrs never become paths outside the output folder."""

from __future__ import annotations

import networkx as nx
import pytest

import spdgraph
from spdgraph.io._tables import file_part

HOSTILE = ["a/../../../../tmp/escaped", "..", "/etc/passwd", "x\x00y", "n" * 300, "CON", "aux.txt"]


@pytest.mark.parametrize("label", HOSTILE)
def test_hostile_labels_become_positions(label):
    assert file_part(label, 7) == "7"


def test_ordinary_labels_are_kept():
    assert [file_part(x, 0) for x in ["a", "b-2", "g_1.5", 3]] == ["a", "b-2", "g_1.5", "3"]


def test_crafted_group_names_stay_inside_the_output(tmp_path):
    g = nx.path_graph(3)
    da = spdgraph.sample([g, g], size=2, seed=1).assign_coords(group=["a", HOSTILE[0]])
    data = da.spd.draw(3, seed=1)
    out = tmp_path / "outdir"
    spdgraph.io.save_csv(data, out)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.csv"))
    assert written and all(p.startswith("outdir/") for p in written)
    assert not (tmp_path.parent / "escaped").exists()
    assert {p.split("/")[1] for p in written} == {"group_a", "group_1"}


def test_clashing_sanitized_names_fall_back_to_positions(tmp_path):
    g = nx.path_graph(3)
    da = spdgraph.sample([g, g], seed=1).assign_coords(group=["..", "../.."])
    spdgraph.io.save_csv(da, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name.startswith("group")) == [
        "group_0.csv",
        "group_1.csv",
    ]
