"""pytest configuration for docs/: the built site and generated stubs are not sources."""

collect_ignore_glob = ["_build/*", "generated/*"]

from importlib.util import find_spec  # noqa: E402

# docs/ppl.md runs PyMC and NumPyro: only where the spdgraph-ppl plugin and both are installed
if any(find_spec(m) is None for m in ("spdgraph_ppl", "pymc", "numpyro")):
    collect_ignore = ["ppl.md"]
