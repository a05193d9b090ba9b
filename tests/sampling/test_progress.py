"""spdgraph._machine.Progress: the one progress bar of the CLI and the studies."""

import sys

import pytest

from spdgraph._machine import Progress, stderr_is_tty


def test_text_bar_without_tqdm(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with Progress("work", total=4, delay=0.0) as bar:
        for _ in range(4):
            bar.update()
    err = capsys.readouterr().err
    assert err.endswith("\n") and "work [" in err and "4/4 (100%)" in err
    assert bar.done == 4


def test_disabled_and_short_runs_print_nothing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with Progress("off", total=2, enabled=False, delay=0.0) as bar:
        bar.update(2)
    with Progress("short", total=2, delay=60.0) as bar:  # appears only after a minute
        bar.update(2)
    assert capsys.readouterr().err == ""


def test_tqdm_when_installed(capsys):
    pytest.importorskip("tqdm")
    with Progress("cells", total=3, delay=0.0, unit="cell") as bar:
        bar.set(1, 3)
        bar.set(3, 5)  # the total may grow (dask reports tasks as it finds them)
    assert bar.total == 5
    assert "cells" in capsys.readouterr().err


def test_stderr_is_tty_survives_a_closed_stderr(monkeypatch):
    class Closed:
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    monkeypatch.setattr(sys, "stderr", Closed())
    assert stderr_is_tty() is False
