"""pytest configuration for docs/: the built site and generated stubs are not sources."""

collect_ignore_glob = ["_build/*", "generated/*"]
