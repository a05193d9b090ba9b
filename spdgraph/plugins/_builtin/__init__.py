"""Built-in plugins, registered exactly as third-party plugins are."""
