"""The documentation keeps up with the code.

* every hook specification is documented in the plugin author guide, with its
  exact signature, and every documented hook exists;
* every hook is implemented by a plugin in some test (tests/ or plugins/*/tests);
* every public module is in the API reference;
* the version is single-sourced and the changelog has its entry;
* the site builds with warnings as errors, picks up new pages and
  skips listed pages that do not exist.
"""

from __future__ import annotations

import builtins
import importlib.util
import inspect
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

import spdgraph
from spdgraph.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "plugins.md"

#: Public modules deliberately absent from docs/api.md, with the reason.
NOT_IN_API_REFERENCE = {
    "spdgraph.sampling._core": "its public functions are re-exported and documented as spdgraph.*",
    "spdgraph.cli": "the command line, documented in docs/index.md",
}


def _hookspecs() -> dict[str, pluggy.HookCaller]:
    """The hook specifications pluggy registers from spdgraph.plugins.hookspecs."""
    pm = pluggy.PluginManager("spdgraph")
    pm.add_hookspecs(hookspecs)
    callers = {name: caller for name, caller in vars(pm.hook).items() if name.startswith("spd")}
    return {name: caller for name, caller in callers.items() if caller.spec is not None}


HOOKS = sorted(_hookspecs())


def _guide_sections() -> dict[str, str]:
    """Hook sections of the guide: ``### `name(args)``` heading -> section text."""
    text = GUIDE.read_text(encoding="utf-8")
    parts = re.split(r"^(#{2,4} .*)$", text, flags=re.MULTILINE)
    sections = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        match = re.match(r"#{2,4} `(spdgraph_\w+)\((.*)\)`\s*$", heading)
        if match:
            sections[match.group(1)] = (match.group(2), body)
    return sections


def test_hookspecs_are_found():
    assert HOOKS, "no hook specifications found in spdgraph.plugins.hookspecs"
    assert {"spdgraph_graph_backends", "spdgraph_register_generators"} <= set(HOOKS)


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented_with_its_signature(hook):
    sections = _guide_sections()
    assert hook in sections, (
        f"hook {hook} is not documented in docs/plugins.md: add a section headed "
        f"### `{hook}(...)` with its signature and contract under 'Hook reference'."
    )
    documented_args, body = sections[hook]
    spec_args = list(inspect.signature(getattr(hookspecs, hook)).parameters)
    assert [a.strip() for a in documented_args.split(",") if a.strip()] == spec_args, (
        f"docs/plugins.md documents {hook}({documented_args}) but the spec is "
        f"{hook}({', '.join(spec_args)})."
    )
    assert f"def {hook}(" in body, f"the {hook} section should show the implementation signature"
    spec = _hookspecs()[hook].spec
    assert spec is not None
    if spec.opts.get("firstresult"):
        assert "first result" in body, f"{hook} is a firstresult hook; the guide must say so"
    else:
        assert "all" in body.lower() and "results" in body.lower(), (
            f"{hook} collects all results; the guide must say so"
        )


def test_every_documented_hook_exists():
    stale = sorted(set(_guide_sections()) - set(HOOKS))
    assert not stale, f"docs/plugins.md documents hooks that do not exist: {stale}"


def _test_sources() -> list[Path]:
    files = list((ROOT / "tests").rglob("*.py")) + list((ROOT / "plugins").glob("*/tests/**/*.py"))
    return [f for f in files if f.resolve() != Path(__file__).resolve()]


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_exercised_by_a_test(hook):
    """Some test registers a plugin that implements the hook (``def <hook>(``)."""
    pattern = re.compile(rf"^\s*def {hook}\(", flags=re.MULTILINE)
    users = [f for f in _test_sources() if pattern.search(f.read_text(encoding="utf-8"))]
    assert users, (
        f"no test implements hook {hook}: add a test under tests/ (or a plugin's tests/) "
        f"that registers a plugin defining {hook} and checks what spdgraph does with it."
    )


def _public_modules() -> list[str]:
    names = ["spdgraph"]
    for info in pkgutil.walk_packages(spdgraph.__path__, "spdgraph."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def test_public_modules_are_in_the_api_reference():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^ {3}(spdgraph[\w.]*)\s*$", api, flags=re.MULTILINE))
    missing = [m for m in _public_modules() if m not in listed and m not in NOT_IN_API_REFERENCE]
    assert not missing, (
        f"public modules missing from the API reference: {missing}; add one line per "
        "module to the autosummary list in docs/api.md."
    )
    unknown = sorted(listed - set(_public_modules()))
    assert not unknown, f"docs/api.md lists modules that do not exist: {unknown}"


def _docs_conf():
    spec = importlib.util.spec_from_file_location("spdgraph_docs_conf", DOCS / "conf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_version_is_single_sourced_and_in_the_changelog():
    conf = _docs_conf()
    assert conf.release == spdgraph.__version__
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'path = "spdgraph/_version.py"' in pyproject
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert re.search(
        rf"^## \[{re.escape(spdgraph.__version__)}\] - \d{{4}}-\d\d-\d\d$",
        changelog,
        flags=re.MULTILINE,
    ), (
        f"CHANGELOG.md has no '## [{spdgraph.__version__}] - YYYY-MM-DD' section for the "
        "current version."
    )


def test_concepts_figure_is_committed():
    text = (DOCS / "concepts.md").read_text(encoding="utf-8")
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (DOCS / image).is_file(), f"docs/concepts.md shows {image}, which is missing"


@pytest.mark.integration
def test_site_builds_and_picks_up_new_pages(tmp_path):
    for module in ("sphinx", "myst_parser", "numpydoc", "furo"):
        pytest.importorskip(module, reason="install the docs extra: pip install -e '.[docs]'")
    tree = tmp_path / "repo"
    shutil.copytree(DOCS, tree / "docs", ignore=shutil.ignore_patterns("_build", "generated"))
    shutil.copytree(
        ROOT / "spdgraph", tree / "spdgraph", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(
        ROOT / "plugins", tree / "plugins", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "CHANGELOG.md", tree / "CHANGELOG.md")
    (tree / "docs" / "zz-new-page.md").write_text("# A new page\n\nListed nowhere.\n")
    index = tree / "docs" / "index.md"
    index.write_text(index.read_text().replace("\nconcepts\n", "\nconcepts\nnot-written-yet\n"))
    out = tmp_path / "html"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(tree / "docs"),
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="zz-new-page.html"' in html  # an unlisted page joins the navigation
    assert "not-written-yet" not in html  # a listed but missing page is skipped
    for hook in HOOKS:
        assert f'id="spdgraph.plugins.hookspecs.{hook}"' in (
            out / "generated" / "spdgraph.plugins.hookspecs.html"
        ).read_text(encoding="utf-8")


def test_error_table_matches_the_hierarchy():
    """docs/errors.md has one row per error class, with the builtin it also derives from."""
    from spdgraph import errors

    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| `(\w+)` \|", text, flags=re.MULTILINE))
    classes = {
        name: getattr(errors, name)
        for name in errors.__all__
        if name != "SpdgraphError" and issubclass(getattr(errors, name), errors.SpdgraphError)
    }
    missing = sorted(set(classes) - set(rows))
    assert not missing, f"docs/errors.md has no row for {missing}"
    for name, cls in classes.items():
        builtin = getattr(builtins, rows[name], None)
        assert builtin is not None and issubclass(cls, builtin), (name, rows[name])
    stale = sorted(set(rows) - set(classes) - {"CellError"})  # spdgraph_reproduce's, documented
    assert not stale, f"docs/errors.md documents unknown errors {stale}"


def test_architecture_names_every_module_of_the_package():
    """docs/architecture.md is the map of the house: every module of spdgraph/ is named
    there (as `name` in a room's row), so a new module cannot go in unmapped."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", doc))
    modules = sorted((ROOT / "spdgraph").rglob("*.py"))
    missing = [
        str(path.relative_to(ROOT))
        for path in modules
        if path.stem not in ("__init__", "__main__") and path.stem not in named
    ]
    assert len(modules) > 100 and not missing, (
        f"docs/architecture.md does not name these modules; add each to its room's row: {missing}"
    )
