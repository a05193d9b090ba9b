"""report.html without a browser: the answer first, ranks and counts from the table's
status column (and a table without it), one set of decimals per metric, the study as a
TOML file that runs the same study, code escaped and highlighted."""

from __future__ import annotations

import math
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spdgraph.study import load_study, summary_table
from spdgraph.study._highlight import highlight, study_toml
from spdgraph.study._results import write_results

ROOT = Path(__file__).resolve().parents[2]
SPEC = {
    "name": "ranked",
    "seed": 4,
    "repeats": 3,
    "grid": {"family": ["hub"], "p": [10], "n": [50, 100]},
    "learners": [{"name": "shrink"}, {"name": "ridge"}, {"name": "glasso"}],
    "scores": {"metrics": ["tdr", "shd", "seconds"], "curves": False},
}
#: (learner, repeat) -> status; the scores below are made so that the ranks are known.
STATUS = {("ridge", 1): "selected nothing", ("glasso", 2): "failed"}
SCORES = {"shrink": (0.5, 30.0, 0.01), "ridge": (0.8, 10.0, 2.0), "glasso": (0.7, 20.0, 0.2)}


def _records(with_status: bool) -> list[dict]:
    rows = []
    for n in (50, 100):
        for r in range(3):
            for learner, (tdr, shd, seconds) in SCORES.items():
                status = STATUS.get((learner, r), "ok")
                for metric, value in (("tdr", tdr + 0.01 * r), ("shd", shd + r),
                                      ("seconds", seconds * (1 + r))):  # fmt: skip
                    if status == "failed" or (status == "selected nothing" and metric == "tdr"):
                        value = math.nan
                    row = {
                        "family": "hub",
                        "p": 10,
                        "n": n,
                        "method": "po",
                        "data": "gaussian",
                        "repeat": r,
                        "learner": learner,
                        "metric": metric,
                        "value": value,
                    }
                    if with_status:
                        row.update(status=status, warnings=r, error="boom" * (status == "failed"))
                    rows.append(row)
    return rows


def _write(folder: Path, with_status: bool = True) -> str:
    study = load_study(SPEC)
    write_results(study, folder, [{"records": _records(with_status), "curves": []}], plots=False)
    return (folder / "report.html").read_text(encoding="utf-8")


def test_learners_are_ranked_in_the_metrics_direction_with_their_counts():
    study = load_study(SPEC)
    table = pd.DataFrame(_records(True))
    tdr = summary_table(study, table, "tdr")
    first = tdr[tdr["n"] == 50].set_index("learner")
    assert list(first.index) == ["ridge", "glasso", "shrink"]  # higher is better
    assert first.loc["ridge", ["repeats", "selected_nothing", "failed"]].tolist() == [2, 1, 0]
    assert first.loc["glasso", ["repeats", "selected_nothing", "failed"]].tolist() == [2, 0, 1]
    assert first.loc["shrink", "warnings"] == 0 + 1 + 2
    assert first["best"].tolist() == [True, False, False]
    np.testing.assert_allclose(first.loc["ridge", "mean"], 0.8 + 0.01)  # repeats 0 and 2
    shd = summary_table(study, table, "shd")
    assert list(shd[shd["n"] == 50]["learner"]) == ["ridge", "glasso", "shrink"]  # lower
    seconds = summary_table(study, table, "seconds")
    assert list(seconds[seconds["n"] == 50]["learner"]) == ["shrink", "glasso", "ridge"]


def test_a_table_without_status_columns_still_reports(tmp_path):
    study = load_study(SPEC)
    table = pd.DataFrame(_records(False))
    tdr = summary_table(study, table, "tdr").set_index(["n", "learner"])
    assert tdr.loc[(50, "ridge"), "repeats"] == 2  # the NaN is not in the mean
    assert tdr[["failed", "selected_nothing", "warnings"]].to_numpy().sum() == 0
    page = _write(tmp_path, with_status=False)
    assert "<th>warnings</th>" not in page and 'id="failed-fits"' not in page
    assert "2 of 3" in page  # the repeat missing from ridge's TDR is counted


class _Page(HTMLParser):
    """Headings and tables in order, the text of each table cell."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []
        self.cells: list[tuple[str, str]] = []
        self._table, self._text, self._in = "", "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("h2", "details", "p") or (tag == "table" and a.get("id")):
            self.order.append(a.get("id") or a.get("class") or tag)
        if tag == "table":
            self._table = a.get("data-metric", "")
        if tag == "td":
            self._in, self._text = True, ""

    def handle_endtag(self, tag):
        if tag == "td" and self._in:
            self.cells.append((self._table, self._text.strip()))
            self._in = False

    def handle_data(self, data):
        self._text += data


def test_the_report_leads_with_the_answer_and_ends_with_the_code(tmp_path):
    page = _write(tmp_path)
    parsed = _Page()
    parsed.feed(page)
    assert parsed.order[:2] == ["run", "h2"] and parsed.order[2] == "answer"
    assert parsed.order.index("study-as-run") > parsed.order.index("failed-fits")
    assert parsed.order[-1] == "details" and "<details open" not in page
    assert "<script>" in page and "http://" not in page and "https://" not in page
    answer = page[page.index('id="answer"') : page.index("</table>", page.index('id="answer"'))]
    assert answer.count('<div class="lrn">ridge</div>') == 2 * 2  # tdr and shd, both cells
    assert answer.count('<div class="lrn">shrink</div>') == 2  # the fastest
    assert "1 selected nothing" in answer


def test_numbers_of_one_metric_share_their_decimals(tmp_path):
    parsed = _Page()
    parsed.feed(_write(tmp_path))
    for metric, places in (("tdr", 3), ("shd", 1)):  # rates: 3 decimals; SHD up to 32
        numbers = [t for m, t in parsed.cells if m == metric and re.fullmatch(r"-?\d+\.\d+", t)]
        assert numbers and {len(t.partition(".")[2]) for t in numbers} == {places}, metric


def test_the_study_as_toml_runs_the_same_study():
    study = load_study(ROOT / "examples" / "study-r.toml")
    as_run = {"name": study.name, "grid": study.grid, **study.config(), "blas_threads": 1}
    text = study_toml(as_run)
    again = load_study(tomllib.loads(text))
    assert again.fingerprint() == study.fingerprint() and again.grid == study.grid
    snippet = next(e["r"] for e in study.learners if e["name"] == "huge-mb-ric")
    assert snippet in text  # as written, one statement a line
    assert "# blas_threads = 1" in text


@pytest.mark.parametrize(("code", "language", "expected"), [
    ("x <- huge(x) # fit", "r", '<span class="f">huge</span>(x) <span class="c"># fit</span>'),
    ("if TRUE", "r", '<span class="k">if</span> <span class="k">TRUE</span>'),
    ('name = "</pre><script>"', "toml", '<span class="s">"&lt;/pre&gt;&lt;script&gt;"</span>'),
    ("[grid]\nn = [50]", "toml", '<span class="h">[grid]</span>\nn = [<span class="n">50</span>]'),
])  # fmt: skip
def test_highlighting_marks_and_escapes(code, language, expected):
    shown = highlight(code, language)
    assert expected in shown
    assert re.sub(r"<[^>]+>", "", shown).replace("&lt;", "<").replace("&gt;", ">").replace(
        "&amp;", "&") == code  # fmt: skip  # nothing lost, nothing added


def test_a_fit_time_of_zero_is_reported(tmp_path):
    """A clock may read 0 s for a fast fit: the ratio to it is not a division by zero."""
    rows = [r | {"value": 0.0} if r["metric"] == "seconds" and r["learner"] == "shrink" else r
            for r in _records(True)]  # fmt: skip
    write_results(load_study(SPEC), tmp_path, [{"records": rows, "curves": []}], plots=False)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "next: glasso, 0.3 s" in page  # glasso: 0.2 and 0.4 s (its third fit failed)
