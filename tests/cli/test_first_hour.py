"""The first hour: warmup, the compile note, help texts and docs that match the program."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import networkx as nx
import pytest
from reference import ROOT

import spdgraph
from spdgraph.cli import build_parser, main
from spdgraph.sampling import _compile as _warmup


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_plugins_guide_lists_the_builtin_subcommands():
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    match = re.search(r"built-in subcommands \(([^)]*)\)", text)
    assert match is not None
    documented = set(re.findall(r"`(\w+)`", match.group(1)))
    plugin_commands = {"reproduce"}  # added by the spdgraph-reproduce distribution
    assert documented == set(_subcommands()) - plugin_commands


def test_help_mentions_every_format_and_choice():
    commands = _subcommands()
    sample_help = commands["sample"].format_help()
    assert ".nc" in sample_help and ".zarr" in sample_help and "CSV" in sample_help
    draw_help = commands["draw"].format_help()
    assert "copula" in draw_help and "CSV" in draw_help and "--marginals" in draw_help
    for name, sub in commands.items():
        for action in sub._actions:
            if action.choices and action.help and not isinstance(action.choices, dict):
                shown = sub.format_help()
                assert all(str(c) in shown for c in action.choices), (name, action.dest)


def test_unknown_suffix_names_csv(tmp_path):
    with pytest.raises(spdgraph.FileError, match=r"netcdf \(\.nc, \.nc4\), zarr \(\.zarr\), csv"):
        spdgraph.save(spdgraph.sample(nx.path_graph(3), seed=0), tmp_path / "m.txt")


@pytest.mark.slow  # compiles every kernel, the portable ones too
def test_warmup_compiles_every_step(capsys):
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "po, sparse (blocked kernel)" in out and "done in" in out
    times = spdgraph.warmup(portable=True)
    assert "po, portable kernels" in times and all(t >= 0 for t in times.values())


@pytest.mark.slow  # compiles the kernels from a cold cache, twice over in subprocesses
def test_first_call_note_on_a_cold_cache(tmp_path):
    code = (
        "import networkx as nx, spdgraph\n"
        "spdgraph.sample(nx.path_graph(5), seed=0)\n"
        "spdgraph.sample(nx.path_graph(5), seed=0)\n"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold")}
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count("compiling the numerical kernels") == 1  # once per process
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert "compiling" not in warm.stderr  # cached now: nothing to say


def test_the_note_is_silent_for_methods_without_kernels(capsys, monkeypatch):
    monkeypatch.setitem(_warmup._NOTED, "done", False)
    _warmup.note_compilation(spdgraph.plugins.find_generator("dd")[0])
    assert capsys.readouterr().err == ""
