"""The first screen of a study's report.html, as docs/study.md shows it.

Runs ``examples/study-small.toml`` (about a minute on 2 cores) into a temporary folder
(or the folder given as the first argument, resumed), then has headless Chromium (the
system's ``chromium``) take a screenshot of report.html's first 1280 x 900 pixels:

    python docs/figures/make_report_screen.py [STUDY_DIR]

writes ``docs/figures/report_first_screen.png``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import spdgraph.study

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    spdgraph.study.run(ROOT / "examples" / "study-small.toml", out, workers=2)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("no chromium on PATH (apt-get install chromium)")
    target = HERE / "report_first_screen.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--window-size=1280,900",
             f"--screenshot={target}", (out / "report.html").resolve().as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    from PIL import Image  # matplotlib's dependency: 64 colours keep the PNG small

    Image.open(target).convert("RGB").quantize(64).save(target, optimize=True)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
