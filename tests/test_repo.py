"""Repository hygiene: README's commands and .ci/run stay in agreement."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_opens_with_two_commands():
    text = (ROOT / "README.md").read_text()
    assert text.index("```bash") < 40  # the commands come first
    commands = _readme_commands()
    assert len(commands) == 2
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _readme_commands()[1] in ci


def test_readme_lists_every_docs_page_once():
    """README's documentation list: every page of docs/ exactly once, and nothing else."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    linked = re.findall(r"^\* \[[^\]]+\]\(([^)]+)\)", section, flags=re.MULTILINE)
    assert len(linked) == len(set(linked)), f"a page is listed twice: {linked}"
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - {"docs/changelog.md"}
    listed = {link for link in linked if link.startswith("docs/")}
    assert listed == pages, (sorted(pages - listed), sorted(listed - pages))
    assert "CHANGELOG.md" in linked  # docs/changelog.md includes it
