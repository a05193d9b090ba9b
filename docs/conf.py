"""Sphinx configuration of the spdgraph documentation.

Build (warnings are errors, as in CI and ``tox -e docs``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Pages are Markdown files in ``docs/`` read by myst-parser. The navigation is
the toctrees of ``index.md``; :func:`complete_root_toctree` keeps it robust:
a page listed there that does not exist (yet) is skipped, and a page that
exists but is listed nowhere is appended to the "User guide" toctree, so a
new ``docs/*.md`` page appears without editing anything.

This file must stay importable without Sphinx (pytest collects ``docs/``).
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # autodoc documents the source tree next to this file
# ...and the spdgraph-reproduce distribution's (docs/api.md), installed or not
sys.path.insert(1, str(ROOT / "plugins" / "spdgraph-reproduce" / "src"))


def _read_version() -> str:
    """The version, single-sourced in ``spdgraph/_version.py`` (read, not imported)."""
    text = (ROOT / "spdgraph" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*"([^"]+)"', text, flags=re.MULTILINE)
    if match is None:
        raise RuntimeError("spdgraph/_version.py does not define __version__")
    return match.group(1)


# -- project ------------------------------------------------------------------------------

project = "spdgraph"
author = "spdgraph developers"
copyright = "spdgraph developers"
release = _read_version()
version = ".".join(release.split(".")[:2])

# -- general ------------------------------------------------------------------------------

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "figures/*.py", "**/.ipynb_checkpoints"]

# Markdown: $...$ and $$...$$ math, ::: fences, heading anchors for [text](page.md#anchor).
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- API reference --------------------------------------------------------------------------

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc sections carry the types; signatures stay short
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- HTML ---------------------------------------------------------------------------------

html_theme = "furo"
html_title = f"spdgraph {release}"
html_static_path = ["_static"]
html_css_files = ["spdgraph.css"]

# -- navigation that survives added and missing pages ----------------------------------------

#: Caption of the root toctree that receives pages listed nowhere else.
CATCH_ALL_CAPTION = "User guide"

_TOCTREE_RE = re.compile(r"(```\{toctree\}[^\n]*\n)(.*?)(\n```)", flags=re.DOTALL)


def complete_root_toctree(text: str, found_docs: set[str], root: str = "index") -> str:
    """Rewrite the toctrees of the root page so that the build never breaks on pages.

    * entries naming a document that does not exist are dropped (a page
      another branch adds may be listed before it lands);
    * top-level documents listed in no toctree of the root page are appended,
      sorted, to the toctree whose ``:caption:`` is :data:`CATCH_ALL_CAPTION`
      (else to the first toctree).

    Parameters
    ----------
    text
        Markdown source of the root page.
    found_docs
        Names of all documents Sphinx found (``env.found_docs``).
    root
        Name of the root document (never listed in its own toctree).

    Returns
    -------
    str
        The rewritten source.

    Examples
    --------
    >>> page = "# Home\\n\\n```{toctree}\\n:caption: User guide\\n\\nb\\nmissing\\n```\\n"
    >>> print(complete_root_toctree(page, {"index", "a", "b", "api/x"}))
    # Home
    <BLANKLINE>
    ```{toctree}
    :caption: User guide
    <BLANKLINE>
    b
    a
    ```
    <BLANKLINE>
    >>> globbed = "```{toctree}\\n:glob:\\n\\nperf*\\n```"
    >>> print(complete_root_toctree(globbed, {"index", "performance", "zoo"}))
    ```{toctree}
    :glob:
    <BLANKLINE>
    perf*
    zoo
    ```
    """
    blocks = list(_TOCTREE_RE.finditer(text))
    if not blocks:
        return text
    listed: set[str] = set()
    bodies: list[list[str]] = []
    catch_all = 0
    for index, block in enumerate(blocks):
        lines = []
        for line in block.group(2).split("\n"):
            entry = line.strip()
            is_option = entry.startswith(":")
            if entry and not is_option:
                target = re.sub(r"^.*<(.+)>$", r"\1", entry).removesuffix(".md")
                if any(c in target for c in "*?["):  # a glob pattern: Sphinx expands it
                    listed.update(fnmatch.filter(found_docs, target))
                elif target not in found_docs and target != "self" and "://" not in target:
                    continue  # a page that does not exist (yet): skip it quietly
                listed.add(target)
            if is_option and entry == f":caption: {CATCH_ALL_CAPTION}":
                catch_all = index
            lines.append(line)
        bodies.append(lines)
    unlisted = sorted(d for d in found_docs if "/" not in d and d != root and d not in listed)
    bodies[catch_all].extend(unlisted)
    out, last = [], 0
    for block, lines in zip(blocks, bodies, strict=True):
        out.append(text[last : block.start(2)])
        out.append("\n".join(lines))
        last = block.end(2)
    out.append(text[last:])
    return "".join(out)


def _on_source_read(app, docname: str, source: list[str]) -> None:
    if docname == app.config.root_doc:
        source[0] = complete_root_toctree(source[0], set(app.env.found_docs), docname)


def setup(app):  # the Sphinx extension hook of this conf.py
    app.connect("source-read", _on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
