"""``spdgraph --help`` and ``--version`` import no heavy library (the work is bounded, not timed).

Each check runs in a fresh interpreter, so that what the test process already
imported does not hide an import. benchmarks/bench_cli_start.py times it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import spdgraph

#: What made ``spdgraph --version`` take seconds: none of it is needed to parse arguments.
HEAVY = ("xarray", "scipy", "pandas", "numba", "networkx", "matplotlib", "sklearn", "dask")


def _imported_after(code: str, *, autoload: bool = True) -> dict[str, object]:
    env = dict(os.environ)
    env.pop(spdgraph.plugins.AUTOLOAD_ENV, None)
    if not autoload:
        env[spdgraph.plugins.AUTOLOAD_ENV] = "1"
    script = (
        "import io, json, sys, contextlib\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    {code}\n"
        f"print(json.dumps({{'heavy': [m for m in {HEAVY!r} if m in sys.modules], "
        "'out': out.getvalue()}))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.parametrize("autoload", [True, False], ids=["plugins", "no-plugins"])
@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_help_and_version_import_no_heavy_library(argv, autoload):
    found = _imported_after(f"from spdgraph.cli import main; main({argv!r})", autoload=autoload)
    assert found["heavy"] == []
    if argv == ["--version"]:
        assert found["out"] == f"spdgraph {spdgraph.__version__}\n"
    else:
        assert "simulate" in found["out"] and "graph" in found["out"]
        if autoload:  # the plugins' subcommands are listed (spdgraph-reproduce's)
            pytest.importorskip("spdgraph_reproduce")
            assert "reproduce" in found["out"]


def test_import_spdgraph_is_light_and_every_public_name_resolves():
    found = _imported_after("import spdgraph")
    assert found["heavy"] == []
    for name in spdgraph.__all__:
        assert getattr(spdgraph, name) is not None, name
    assert spdgraph.open is spdgraph.io.open
    assert set(spdgraph.__all__) <= set(dir(spdgraph))
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        spdgraph.nosuch  # noqa: B018


@pytest.mark.parametrize(
    "code",
    [
        "from spdgraph.sampling import sample",
        "from spdgraph.io import open",
        "from spdgraph.simulation import simulate",
        "import spdgraph; spdgraph.sample",
    ],
)
def test_arrays_have_the_accessor_however_spdgraph_is_imported(code):
    found = _imported_after(f"{code}; import xarray; print(hasattr(xarray.DataArray, 'spd'))")
    assert found["out"] == "True\n"


def test_a_subcommand_still_parses_its_options():
    parser = spdgraph.cli.build_parser()
    args = parser.parse_args(["sample", "g.txt", "-o", "x.nc", "--max-redraws", "3"])
    assert args.max_redraws == 3


def test_sample_spells_out_only_parameters_of_the_table():
    """The signature may spell a parameter for the docs; the table decides its default."""
    import inspect

    from spdgraph.parameters import SAMPLE_PARAMETERS

    keyword = {
        name: param.default
        for name, param in inspect.signature(spdgraph.sample).parameters.items()
        if param.kind is inspect.Parameter.KEYWORD_ONLY
    }
    assert keyword == {name: SAMPLE_PARAMETERS[name].default for name in keyword}


@pytest.mark.parametrize("command", ["sample", "simulate"])
def test_the_commands_build_their_sample_arguments_from_the_table(command):
    from spdgraph.parameters import SAMPLE_PARAMETERS

    parser = spdgraph.cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    flags = {flag for action in sub._actions for flag in action.option_strings}
    built = {name for name, row in SAMPLE_PARAMETERS.items() if row.cli}
    if command == "simulate":
        built -= {"chunks"}
    assert {"--" + name.replace("_", "-") for name in built} <= flags


def test_no_built_in_plugin_adds_a_subcommand():
    """Why the CLI may leave the built-in plugins unloaded while it builds the parser."""
    pm = spdgraph.get_plugin_manager()
    callers = {impl.plugin_name for impl in pm.hook.spdgraph_add_cli_commands.get_hookimpls()}
    assert not callers & set(spdgraph.plugins.DEFAULT_PLUGINS)
