"""The distribution as a plugin: `spdgraph reproduce` through the CLI hook, and the old names."""

import importlib
import subprocess
import sys

import pytest
import spdgraph_reproduce

import spdgraph
from spdgraph.cli import build_parser, main


def test_reproduce_comes_from_the_entry_point_plugin(capsys):
    import spdgraph_reproduce.plugin

    pm = spdgraph.get_plugin_manager()
    assert pm.get_plugin("reproduce") is spdgraph_reproduce.plugin
    callers = [impl.plugin for impl in pm.hook.spdgraph_add_cli_commands.get_hookimpls()]
    assert spdgraph_reproduce.plugin in callers
    assert "reproduce" in build_parser().format_help()
    assert main(["reproduce", "--help"]) == 0
    assert "--quick" in capsys.readouterr().out


def test_loading_the_plugin_imports_no_study_code():
    code = (
        "import sys, spdgraph_reproduce.plugin, spdgraph.cli as c; c.build_parser(); "
        "print(sorted(m for m in ('spdgraph_reproduce._study', 'spdgraph_reproduce.studies', "
        "'matplotlib', 'sklearn') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_no_alias_of_the_studies_is_left_in_spdgraph():
    """0.1.0 was never released: the studies live only in spdgraph_reproduce."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("spdgraph.experiments")
    assert not hasattr(spdgraph, "CellError") and not hasattr(spdgraph.errors, "CellError")
    assert issubclass(spdgraph_reproduce.CellError, spdgraph.SpdgraphError)
