"""Reproduce the paper's experiments: link strength, condition number, timing, Krämer study.

Each study is a grid of independent cells (``spdgraph_reproduce.studies``);
:func:`run_study` computes the cells missing from ``out`` with
:func:`spdgraph.study.run_cells` (here, in worker processes or on a dask
scheduler), then writes tidy results (``<study>.nc`` with labelled dims,
``<study>.csv``), the paper-style PNG figures and returns a summary table.
The command line is ``spdgraph reproduce {ratio,condition,timing,kramer,all}``,
added to the ``spdgraph`` command by this distribution's plugin
(:mod:`spdgraph_reproduce.plugin`, the ``spdgraph_add_cli_commands`` hook).

The names below are imported on first use, so that loading the plugin (on
every ``spdgraph`` start) stays cheap.

Examples
--------
>>> import tempfile
>>> from spdgraph_reproduce import run_study
>>> with tempfile.TemporaryDirectory() as out:
...     res = run_study("ratio", out, quick=True, progress=False, figures=False,
...                     p=(10, 20), d=(0.5,), graphs=2, matrices=2)
>>> sorted(res.summary.columns)
[('mean', 'dd'), ('mean', 'po'), ('std', 'dd'), ('std', 'po')]
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "DEFAULT_OUT",
    "KRAMER_GENERATORS",
    "STUDIES",
    "CellError",
    "StudyResult",
    "condition_number",
    "kramer_generators",
    "link_strength",
    "run_all",
    "run_study",
]

_HOME = {
    "DEFAULT_OUT": "spdgraph_reproduce._defaults",
    "CellError": "spdgraph_reproduce.errors",
    "KRAMER_GENERATORS": "spdgraph_reproduce.studies",
    "condition_number": "spdgraph_reproduce.studies",
    "kramer_generators": "spdgraph_reproduce.studies",
    "link_strength": "spdgraph_reproduce.studies",
    "STUDIES": "spdgraph_reproduce._study",
    "StudyResult": "spdgraph_reproduce._study",
    "run_all": "spdgraph_reproduce._study",
    "run_study": "spdgraph_reproduce._study",
}
_SUBMODULES = ("cli", "errors", "plots", "plugin", "studies")


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"spdgraph_reproduce.{name}")
    else:
        raise AttributeError(f"module 'spdgraph_reproduce' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME, *_SUBMODULES])
