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
