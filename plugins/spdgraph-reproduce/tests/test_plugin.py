"""The distribution as a plugin: `spdgraph reproduce` through the CLI hook, and the old names."""

import importlib
import subprocess
import sys
import warnings

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


def test_old_names_still_work_with_a_deprecation_warning():
    sys.modules.pop("spdgraph.experiments", None)
    with pytest.warns(DeprecationWarning, match="spdgraph_reproduce"):
        experiments = importlib.import_module("spdgraph.experiments")
    assert experiments.run_study is spdgraph_reproduce.run_study
    from spdgraph.experiments import studies

    assert studies is importlib.import_module("spdgraph_reproduce.studies")
    with pytest.warns(DeprecationWarning, match="spdgraph_reproduce.CellError"):
        cell_error = spdgraph.CellError
    assert cell_error is spdgraph_reproduce.CellError
    assert issubclass(cell_error, spdgraph.SpdgraphError)
    assert issubclass(cell_error, RuntimeError)


def test_old_names_without_the_distribution_name_the_pip_command(monkeypatch):
    monkeypatch.delitem(sys.modules, "spdgraph.experiments", raising=False)
    for name in [m for m in sys.modules if m.startswith("spdgraph_reproduce")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "spdgraph_reproduce", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        hint = r"pip install \./plugins/spdgraph-reproduce"
        with pytest.raises(spdgraph.MissingDependencyError, match=hint):
            importlib.import_module("spdgraph.experiments")
        with pytest.raises(spdgraph.MissingDependencyError, match="spdgraph-reproduce"):
            spdgraph.errors.CellError  # noqa: B018
    monkeypatch.delitem(sys.modules, "spdgraph.experiments", raising=False)
