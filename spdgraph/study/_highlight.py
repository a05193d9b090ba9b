"""Code in the report, readable: a study as a TOML file and learners' code, highlighted.

No network and no library: one regular expression per language marks comments,
strings, numbers, keywords and calls with ``<span class="…">`` (the report's
CSS colours them), and :func:`study_toml` writes the study as run back as the
TOML a user would write, multi-line code as ``'''`` blocks, as written.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["highlight", "study_toml", "toml_entries"]

_KEYWORDS = {
    "r": "if else repeat while function for in next break TRUE FALSE NULL Inf NaN NA "
    "library require return",
    "python": "import from as def return if elif else for while in not and or is None True "
    "False lambda with class try except raise",
    "toml": "true false",
    "text": "",
}
_COMMENT = {"r": r"\#[^\n]*", "python": r"\#[^\n]*", "toml": r"\#[^\n]*", "text": r"(?!x)x"}
#: Characters a TOML literal string cannot hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_STRING = r"'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\""


def _pattern(language: str) -> re.Pattern[str]:
    words = _KEYWORDS[language].split()
    keyword = r"\b(?:" + "|".join(map(re.escape, words)) + r")\b" if words else r"(?!x)x"
    return re.compile(
        rf"(?P<c>{_COMMENT[language]})|(?P<s>{_STRING})"
        r"|(?P<n>\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b)"
        rf"|(?P<k>{keyword})|(?P<f>\b[A-Za-z_.][\w.]*(?=\())"
        r"|(?P<h>^\[\[?[^\]\n]+\]\]?)",
        re.MULTILINE,
    )


def highlight(code: str, language: str) -> str:
    """``code`` as HTML (escaped) with comments, strings, numbers, keywords and calls in
    ``<span class="c|s|n|k|f|h">``; ``language``: ``"r"``, ``"python"``, ``"toml"``
    or ``"text"``.

    Examples
    --------
    >>> from spdgraph.study._highlight import highlight
    >>> highlight("x <- cov(y)  # <b>", "r")
    'x &lt;- <span class="f">cov</span>(y)  <span class="c"># &lt;b&gt;</span>'
    """
    pattern = _pattern(language if language in _KEYWORDS else "text")
    out, last = [], 0
    for match in pattern.finditer(code):
        out.append(html.escape(code[last : match.start()], quote=False))
        kind = match.lastgroup or ""
        out.append(f'<span class="{kind}">{html.escape(match.group(), quote=False)}</span>')
        last = match.end()
    out.append(html.escape(code[last:], quote=False))
    return "".join(out)


def _value(value: Any) -> str:
    """One TOML value: multi-line strings as ``'''`` blocks, lists of those one a line."""
    if isinstance(value, str):
        literal = "'''" not in value and not value.endswith("'") and not _CONTROL.search(value)
        if "\n" in value and literal:  # as written; else a basic string with escapes
            return "'''\n" + value + "'''"
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        parts = [_value(v) for v in value]
        if any("\n" in p for p in parts):
            return "[\n" + ",\n".join("  " + p for p in parts) + ",\n]"  # first lines only
        return "[" + ", ".join(parts) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def _key(key: Any) -> str:
    text = str(key)
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else json.dumps(text)


def _table(name: str, entries: Mapping[str, Any]) -> list[str]:
    lines = [f"[{name}]"] if name else []
    return [*lines, *(f"{_key(k)} = {_value(v)}" for k, v in entries.items())]


def toml_entries(entries: Mapping[str, Any]) -> str:
    """``key = value`` lines of a TOML table (multi-line strings as ``'''`` blocks)."""
    return "\n".join(_table("", entries))


def study_toml(as_run: Mapping[str, Any]) -> str:
    """The study as run (``study.json``) as a TOML study file: what ``spdgraph study run``
    takes, with the machine's facts (R and package versions, BLAS threads) as comments."""
    top = {k: as_run[k] for k in ("name", "seed", "repeats", "kind") if k in as_run}
    lines = _table("", top)
    lines += ["", *_table("grid", as_run.get("grid", {}))]
    for section in ("families", "methods"):
        for name, options in (as_run.get(section) or {}).items():
            lines += ["", *_table(f"{section}.{_key(name)}", options)]
    for entry in as_run.get("learners", []):
        lines += ["", "[[learners]]", *_table("", entry)]
    scores = {k: as_run[k] for k in ("metrics", "curves") if k in as_run}
    lines += ["", *_table("scores", scores)]
    known = {*top, "grid", "families", "methods", "learners", *scores}
    facts = {k: v for k, v in as_run.items() if k not in known}
    if facts:
        lines += ["", "# recorded by the run (not read back):"]
        lines += [f"# {k} = {json.dumps(v, default=str)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"
