"""report.html in a real browser: headless Chromium from the system packages.

The browser is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ending in NUL on file descriptors 3 and 4), so the test needs nothing but
the ``chromium`` package: no driver to match to the browser's version, no Python
package. It builds a study's outputs from a table made here (one failed fit, one fit that
selected nothing), writes report.html, opens it and checks: no console error, every image
loaded, every table visible, a click on a header sorts, the numbers shown are those of
results.csv (computed here again), and keeps a screenshot of the first screen in
``build/report-first-screen.png``.
"""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from spdgraph.study import load_study

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
pytestmark = pytest.mark.integration

STUDY = {
    "name": "browser-check",
    "seed": 3,
    "repeats": 3,
    "grid": {"family": ["hub", "random"], "p": [20], "n": [100, 200]},
    "families": {"hub": {"g": 4}},
    "learners": [
        {"name": "glasso"},
        {"name": "shrink"},
        {
            "name": "huge-mb-ric",
            "packages": ["huge"],
            "r": (
                'fit <- huge(x, method = "mb", nlambda = 20, verbose = FALSE)\n'
                'sel <- huge.select(fit, criterion = "ric", verbose = FALSE)\n'
                "as.matrix(sel$refit)            # the selected graph (0/1)\n"
            ),
        },
        {
            "name": "cmd-ridge",
            "rule": "lfdr",
            "command": [
                "python3",
                "-c",
                (
                    "import sys\nimport numpy as np\n"
                    "x = np.loadtxt(sys.argv[1], delimiter=',', skiprows=1)\n"
                    "k = -np.linalg.inv(np.cov(x, rowvar=False))\n"
                    "np.savetxt(sys.argv[2], k, delimiter=',')\n"
                ),
                "{data}",
                "{out}",
            ],
        },
    ],
    "scores": {"metrics": ["tpr", "tdr", "f1", "shd", "seconds"], "curves": False},
}


def _payloads(study: Any) -> list[dict[str, Any]]:
    """Scores drawn here; huge-mb-ric selects nothing once, cmd-ridge fails once."""
    rng = np.random.default_rng(5)
    payloads = []
    for cell in study.cells():
        records = []
        for r in range(study.repeats):
            for k, entry in enumerate(study.learners):
                name = entry["name"]
                status = "ok"
                if name == "huge-mb-ric" and r == 0 and cell["family"] == "hub":
                    status = "selected nothing"
                if name == "cmd-ridge" and r == 2 and cell["n"] == 100:
                    status = "failed"
                base = {
                    **cell,
                    "repeat": r,
                    "learner": name,
                    "status": status,
                    "warnings": int(rng.integers(0, 3)),
                    "error": "exited with status 1: boom" if status == "failed" else "",
                }
                for metric in study.metrics:
                    value = {
                        "shd": float(rng.integers(5, 60)),
                        "seconds": float(10 ** rng.uniform(-3, 1)),
                    }.get(metric, float(np.clip(rng.normal(0.45 + 0.1 * k, 0.1), 0, 1)))
                    if status == "failed" or (status != "ok" and metric in ("tdr", "f1")):
                        value = math.nan
                    records.append({**base, "metric": metric, "value": value})
        payloads.append({"records": records, "curves": []})
    return payloads


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        f"no headless browser: none of {', '.join(BROWSERS)} on PATH (apt-get install chromium)"
    )


class DevTools:
    """A headless Chromium driven over the DevTools protocol on a pipe."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="spdgraph-chromium-")
        commands, self._to_browser = os.pipe()
        self._from_browser, replies = os.pipe()
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]  # fmt: skip
        # the browser reads commands on fd 3 and writes replies on fd 4
        devnull = os.open(os.devnull, os.O_WRONLY)
        self.pid = os.posix_spawn(executable, [executable, *args], dict(os.environ),
            file_actions=[(os.POSIX_SPAWN_DUP2, commands, 3), (os.POSIX_SPAWN_DUP2, replies, 4),
                          (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)],
            setsid=True)  # fmt: skip
        for end in (commands, replies, devnull):
            os.close(end)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True,
                                 session=False)["sessionId"]  # fmt: skip
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)  # fmt: skip

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        """Send one command; return its result (events met meanwhile are kept)."""
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._read())

    def open(self, path: Path) -> None:
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)  # fmt: skip
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the middle of the element (scrolled into view)."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)  # fmt: skip

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen so far."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                found.append(str(params["exceptionDetails"]))
            elif event.get("method") == "Runtime.consoleAPICalled" and params["type"] in (
                "error", "assert"):  # fmt: skip
                found.append(str(params["args"]))
            elif event.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(str(params["entry"]))
        return found

    def screenshot(self, path: Path) -> None:
        self.js("window.scrollTo(0, 0)")
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Close the browser (killed, with its process group, if it does not close)."""
        try:
            self.call("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        for _ in range(100):
            if os.waitpid(self.pid, os.WNOHANG) != (0, 0):
                break
            time.sleep(0.1)
        else:
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib")
    from spdgraph.study._results import write_results

    folder = tmp_path_factory.mktemp("study")
    study = load_study(STUDY)
    failed = [{"cell": "family=random,n=300", "coords": {"n": 300}, "error": "R died"}]
    write_results(study, folder, _payloads(study), plots=True, failures=failed)
    return folder


@pytest.fixture(scope="module")
def page(report):
    browser = DevTools(_browser())
    try:
        browser.open(report / "report.html")
        yield browser
    finally:
        browser.close()


def test_no_console_error_and_every_image_loaded(page):
    images = page.js("[...document.images].map(i => [i.complete, i.naturalWidth])")
    assert len(images) == 2  # metrics and fit times (no curves in this study)
    assert all(complete and width > 0 for complete, width in images), images
    assert page.js("[...document.querySelectorAll('[src],[href]')].filter(e => "
                   "/^https?:/.test(e.src || e.href)).length") == 0  # fmt: skip
    assert page.errors() == []


def test_every_table_is_visible_and_the_answer_is_on_the_first_screen(page):
    page.js("window.scrollTo(0, 0)")
    boxes = page.js(
        "[...document.querySelectorAll('table')].map(t => { const r = t.getBoundingClientRect();"
        " const s = getComputedStyle(t); return [t.className, r.width, r.height, s.display,"
        " s.visibility, t.offsetParent !== null]; })"
    )
    assert len(boxes) == 1 + 5 + 2  # the answer, one per metric, failed cells and fits
    for name, width, height, display, visibility, shown in boxes:
        assert width > 0 and height > 0 and display != "none" and visibility == "visible", name
        assert shown, name
    top = page.js("document.getElementById('answer').getBoundingClientRect().top")
    assert 0 <= top < page.js("window.innerHeight") / 2  # the answer starts on screen
    page.screenshot(BUILD / "report-first-screen.png")
    assert (BUILD / "report-first-screen.png").stat().st_size > 10_000


def _column(page, table: str, index: int) -> list[str]:
    return page.js(f"[...document.querySelector({json.dumps(table)}).tBodies[0].rows]"
                   f".map(r => r.cells[{index}].textContent.trim())")  # fmt: skip


def test_a_click_on_a_header_sorts_the_table(page):
    table = 'table[data-metric="shd"]'
    heads = page.js(f"[...document.querySelectorAll('{table} th')].map(h => h.textContent)")
    mean = heads.index("mean")
    before = _column(page, table, mean)
    page.click(f"{table} th:nth-child({mean + 1})")
    ascending = [float(v) for v in _column(page, table, mean) if v != "–"]
    assert ascending == sorted(ascending) and sorted(before) == sorted(_column(page, table, mean))
    page.click(f"{table} th:nth-child({mean + 1})")
    descending = [float(v) for v in _column(page, table, mean) if v != "–"]
    assert descending == sorted(ascending, reverse=True)
    learner = heads.index("learner")
    page.click(f"{table} th:nth-child({learner + 1})")
    names = _column(page, table, learner)
    assert names == sorted(names)


def _shown(page) -> pd.DataFrame:
    """Every ranked row as the page shows it (whatever order a click left)."""
    rows = page.js(
        "[...document.querySelectorAll('table.metric')].flatMap(t => { const h = [...t.tHead"
        ".rows[0].cells].map(c => c.textContent); return [...t.tBodies[0].rows].map(r =>"
        " Object.assign({metric: t.dataset.metric}, Object.fromEntries(h.map((k, i) =>"
        " [k, r.cells[i].textContent.trim()])))); })"
    )
    return pd.DataFrame(rows)


def test_the_numbers_shown_are_those_of_results_csv(page, report):
    results = pd.read_csv(report / "results.csv")
    shown = _shown(page)
    assert len(shown) == 2 * 2 * 4 * 5  # cells x learners x metrics
    for (metric, family, n, learner), rows in results.groupby(["metric", "family", "n",
                                                                "learner"]):  # fmt: skip
        row = shown[(shown["metric"] == metric) & (shown["family"] == family)
                    & (shown["n"] == str(n)) & (shown["learner"] == learner)]  # fmt: skip
        assert len(row) == 1, (metric, family, n, learner)
        row = row.iloc[0]
        values = rows["value"].dropna().to_numpy()
        entries = rows.drop_duplicates("repeat")
        assert row["repeats"] == f"{len(values)} of 3"
        assert row["failed"] == str(int((entries["status"] == "failed").sum()))
        assert row["selected nothing"] == str(int((entries["status"] == "selected nothing")
                                                  .sum()))  # fmt: skip
        assert row["warnings"] == str(int(entries["warnings"].sum()))
        mean, se = values.mean(), values.std(ddof=1) / math.sqrt(len(values))
        for text, expected in ((row["mean"], mean), (row["± se"], se)):
            places = len(text.partition(".")[2])
            assert abs(float(text) - expected) <= 0.5 * 10.0**-places * (1 + 1e-9), (
                metric, learner, text, expected)  # fmt: skip
    failed = page.js("[...document.querySelectorAll('#failed-fits tbody tr')].length")
    assert failed == int((results.drop_duplicates(["family", "n", "learner", "repeat"])
                          ["status"] == "failed").sum())  # fmt: skip


def test_the_code_is_collapsed_at_the_end_and_readable(page):
    order = page.js("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    assert order[0] == "Best learner per cell and metric" and order[-1] == "The study as run"
    assert page.js("[...document.querySelectorAll('details')].every(d => !d.open)")
    code = page.js("[...document.querySelectorAll('details pre code')].map(c => c.textContent)")
    assert any('fit <- huge(x, method = "mb", nlambda = 20, verbose = FALSE)\nsel <-' in c
               for c in code)  # fmt: skip  # R as written, one statement a line
    assert page.js("document.querySelectorAll('details pre span.f').length") > 0  # highlighted
