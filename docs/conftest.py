"""pytest configuration for docs/: the built site and generated stubs are not sources."""

from importlib.util import find_spec
from pathlib import Path

import pytest

collect_ignore_glob = ["_build/*", "generated/*"]

# docs/ppl.md runs PyMC and NumPyro: only where the spdgraph-ppl plugin and both are installed
if any(find_spec(m) is None for m in ("spdgraph_ppl", "pymc", "numpyro")):
    collect_ignore = ["ppl.md"]

# Pages whose examples run long (ppl.md fits NUTS with PyMC and NumPyro and runs an SBC):
# their doctest carries the `slow` marker, so the default suite (-m "not slow and not
# integration") skips it and the long run of .ci/run (-m "integration or slow") runs it.
SLOW_PAGES = {"ppl.md"}


@pytest.hookimpl(tryfirst=True)  # mark before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here and item.path.name in SLOW_PAGES:
            item.add_marker(pytest.mark.slow)
